/**
 * Selecting flows of a dump: by table (number or any name the dump or profile gives it), cookie,
 * port, an address the match admits, conjunction id, and whether it was hit. Decided before a
 * flow is annotated, so that a narrow selection of a large dump costs little.
 */
import type { Flow } from '../model/flow.ts';
import type { PortRef } from '../model/ports.ts';
import type { TableInfo } from './annotate.ts';
import { flattenActions } from './pattern-fit.ts';
import type { PortRoles } from './port-roles.ts';

export interface FlowFilter {
  /** Table numbers or names; a flow passes when its table is any of them. */
  readonly tables?: readonly string[];
  readonly cookie?: { readonly value: bigint; readonly mask: bigint };
  /** A port number or name the flow matches as input or outputs to. */
  readonly port?: string;
  /** An address some address field of the match admits. */
  readonly ip?: { readonly family: 4 | 6; readonly value: bigint };
  /** A conjunction the flow completes (`conj_id=`) or contributes to (`conjunction(…)`). */
  readonly conjId?: number;
  /** Only flows with n_packets above zero. */
  readonly hits?: boolean;
}

function tableFits(t: TableInfo, wanted: readonly string[]): boolean {
  const names = [t.name, t.spec?.name, ...(t.spec?.aliases ?? [])].filter((n): n is string => n !== undefined).map((n) => n.toLowerCase());
  return wanted.some((w) => (/^\d+$/.test(w) ? t.number === Number(w) : names.includes(w.toLowerCase())));
}

function portFits(flow: Flow, port: string, roles: PortRoles): boolean {
  const same = (p: PortRef | number): boolean => {
    const id = roles.identify(p);
    return /^\d+$/.test(port) ? id.number === Number(port) : id.name === port;
  };
  const inPort = flow.match.fields.find((e) => e.field.storage === 'in_port');
  if (inPort && same(inPort.port?.kind === 'name' ? inPort.port : Number(inPort.value))) return true;
  return flattenActions(flow.actions).some((a) => (a.kind === 'output' || a.kind === 'enqueue') && a.port.kind !== 'reserved' && same(a.port));
}

function ipFits(flow: Flow, ip: NonNullable<FlowFilter['ip']>): boolean {
  const format = ip.family === 4 ? 'ipv4' : 'ipv6';
  return flow.match.fields.some((e) => e.field.format === format && (ip.value & e.mask) === e.value);
}

function conjFits(flow: Flow, id: number): boolean {
  const conj = flow.match.fields.find((e) => e.field.name === 'conj_id');
  if (conj && conj.value === BigInt(id)) return true;
  return flow.actions.some((a) => a.kind === 'conjunction' && a.id === id);
}

/** Whether a flow of `table` passes every given criterion. */
export function passes(flow: Flow, table: TableInfo, filter: FlowFilter, roles: PortRoles): boolean {
  if (filter.tables && filter.tables.length > 0 && !tableFits(table, filter.tables)) return false;
  if (filter.cookie && (flow.cookie & filter.cookie.mask) !== (filter.cookie.value & filter.cookie.mask)) return false;
  if (filter.port !== undefined && !portFits(flow, filter.port, roles)) return false;
  if (filter.ip && !ipFits(flow, filter.ip)) return false;
  if (filter.conjId !== undefined && !conjFits(flow, filter.conjId)) return false;
  if (filter.hits && !((flow.stats?.packets ?? 0n) > 0n)) return false;
  return true;
}
