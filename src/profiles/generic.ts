/**
 * The fallback for any Open vSwitch pipeline that no other profile describes: it knows no
 * tables, registers or addresses, so every flow is explained by what its fields and actions
 * mean to OVS itself. Detection picks it when no pipeline profile scores above its baseline.
 */
import type { Profile } from './types.ts';

export const generic: Profile = {
  id: 'generic',
  title: 'Any Open vSwitch pipeline',
  product: 'Open vSwitch',
  versions: {},
  description:
    'No pipeline-specific knowledge: tables are shown by number or by the name the dump gives them, registers and ' +
    'marks as plain values, and each flow is described from its match fields and actions alone.',
  tableNaming: 'number',
  tables: [],
  bitFields: [],
  ctZones: [],
  addresses: [],
  ports: [{ role: 'bridge-local', names: ['LOCAL'], meaning: 'the bridge’s own internal port' }],
  detect: [
    // A baseline any dump with flows reaches: a pipeline profile must score higher to be chosen.
    { kind: 'flow', match: '', weight: 6 },
  ],
};
