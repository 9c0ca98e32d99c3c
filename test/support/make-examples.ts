/**
 * Regenerates the dumps under examples/ by loading each example's flows (and groups) into a
 * real Open vSwitch and saving what ovs-ofctl prints in every format flowscope reads.
 * Run with `npm run examples`. The definitions are exported so tests load the same bridges.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OfVersion } from '../../src/model/openflow.ts';
import { repoRoot } from './paths.ts';
import { withOvsSwitch, type DumpFlowsOptions, type OvsSwitch, type OvsSwitchOptions } from './ovs.ts';

export type ExampleOutput =
  | ({ readonly file: string; readonly kind: 'flows' } & DumpFlowsOptions)
  | { readonly file: string; readonly kind: 'groups'; readonly of?: OfVersion; readonly names?: boolean }
  | { readonly file: string; readonly kind: 'ports-desc' | 'show'; readonly of?: OfVersion };

export interface Example {
  /** Directory under examples/. */
  readonly name: string;
  readonly bridge: OvsSwitchOptions;
  /** Protocol the flows and groups are loaded with, as the CNI's agent would. */
  readonly loadVersion: OfVersion;
  readonly outputs: readonly ExampleOutput[];
}

export const examplesDir = join(repoRoot, 'examples');

export function exampleFile(example: Example, file: string): string {
  return join(examplesDir, example.name, file);
}

export const ANTREA: Example = {
  name: 'antrea',
  bridge: {
    bridge: 'br-int',
    datapathId: '0000a2c4e6f80101',
    hwaddr: 'a2:c4:e6:f8:01:01',
    ports: [
      { name: 'antrea-tun0', ofport: 1 },
      { name: 'antrea-gw0', ofport: 2 },
      { name: 'coredns5-8ec607', ofport: 3 },
      { name: 'coredns5-9d9530', ofport: 4 },
    ],
    // Names as Antrea v1.x pushed them to OVS (table features), so `--names` dumps carry them.
    tableNames: {
      0: 'Classification',
      10: 'SpoofGuard',
      20: 'ARPResponder',
      30: 'ConntrackZone',
      31: 'ConntrackState',
      40: 'DNAT',
      45: 'AntreaPolicyEgressRule',
      50: 'EgressRule',
      60: 'EgressDefaultRule',
      61: 'EgressMetric',
      70: 'L3Forwarding',
      71: 'L3DecTTL',
      80: 'L2Forwarding',
      85: 'AntreaPolicyIngressRule',
      90: 'IngressRule',
      100: 'IngressDefaultRule',
      101: 'IngressMetric',
      105: 'ConntrackCommit',
      110: 'Output',
    },
  },
  loadVersion: 13,
  outputs: [
    { file: 'dump-flows.of10.txt', kind: 'flows' },
    { file: 'dump-flows.of13.txt', kind: 'flows', of: 13 },
    { file: 'dump-flows.of15.txt', kind: 'flows', of: 15 },
    { file: 'dump-flows.of10.no-stats.txt', kind: 'flows', noStats: true },
    { file: 'dump-flows.of10.names.txt', kind: 'flows', names: true },
    { file: 'dump-flows.of10.sort.txt', kind: 'flows', sort: true },
    { file: 'dump-flows.of13.names.txt', kind: 'flows', of: 13, names: true },
    { file: 'dump-flows.of15.names.no-stats.txt', kind: 'flows', of: 15, names: true, noStats: true },
    { file: 'dump-flows.of15.rsort.no-stats.txt', kind: 'flows', of: 15, rsort: true, noStats: true },
    { file: 'dump-ports-desc.of10.txt', kind: 'ports-desc' },
    { file: 'show.of10.txt', kind: 'show' },
    { file: 'show.of13.txt', kind: 'show', of: 13 },
  ],
};

export const ANTREA_PROXY: Example = {
  name: 'antrea-proxy',
  bridge: {
    bridge: 'br-int',
    datapathId: '0000a2c4e6f80303',
    hwaddr: 'a2:c4:e6:f8:03:03',
    // The document names no Pod ports; 18 and 19 get names in Antrea's <pod>-<hash> style.
    ports: [
      { name: 'antrea-tun0', ofport: 1 },
      { name: 'antrea-gw0', ofport: 2 },
      { name: 'nginx-4b9e7c', ofport: 18 },
      { name: 'client-3c1f0a', ofport: 19 },
    ],
    tableNames: {
      0: 'Classification',
      10: 'SpoofGuard',
      20: 'ARPResponder',
      23: 'ServiceHairpin',
      24: 'ServiceConntrack',
      30: 'ConntrackZone',
      31: 'ConntrackState',
      35: 'ServiceClassifier',
      40: 'SessionAffinity',
      41: 'ServiceLB',
      42: 'EndpointDNAT',
      45: 'AntreaPolicyEgressRule',
      70: 'L3Forwarding',
      72: 'IPTTLDec',
      80: 'L2Forwarding',
      105: 'ConntrackCommit',
      106: 'ServiceConntrackCommit',
      108: 'HairpinSNAT',
      110: 'Output',
    },
  },
  // OpenFlow 1.5 keeps the groups' bucket ids, which OpenFlow 1.3 cannot carry.
  loadVersion: 15,
  outputs: [
    { file: 'dump-flows.of10.txt', kind: 'flows' },
    { file: 'dump-flows.of13.txt', kind: 'flows', of: 13 },
    { file: 'dump-flows.of15.txt', kind: 'flows', of: 15 },
    { file: 'dump-flows.of10.no-stats.txt', kind: 'flows', noStats: true },
    { file: 'dump-flows.of15.names.no-stats.txt', kind: 'flows', of: 15, names: true, noStats: true },
    { file: 'dump-groups.of10.txt', kind: 'groups' },
    { file: 'dump-groups.of13.txt', kind: 'groups', of: 13 },
    { file: 'dump-groups.of15.txt', kind: 'groups', of: 15 },
    { file: 'dump-groups.of15.names.txt', kind: 'groups', of: 15, names: true },
    { file: 'show.of13.txt', kind: 'show', of: 13 },
  ],
};

export const OPENSHIFT_SDN: Example = {
  name: 'openshift-sdn',
  bridge: {
    bridge: 'br0',
    protocols: ['OpenFlow13'],
    datapathId: '0000b2d4f6080202',
    hwaddr: 'b2:d4:f6:08:02:02',
    ports: [
      { name: 'vxlan0', ofport: 1 },
      { name: 'tun0', ofport: 2 },
      { name: 'veth6a1f0c2e', ofport: 6 },
      { name: 'veth9b3e7d41', ofport: 9 },
    ],
  },
  loadVersion: 13,
  outputs: [
    { file: 'dump-flows.of13.txt', kind: 'flows', of: 13 },
    { file: 'dump-flows.of13.no-stats.txt', kind: 'flows', of: 13, noStats: true },
    { file: 'dump-flows.of13.names.txt', kind: 'flows', of: 13, names: true },
    { file: 'dump-flows.of13.sort.txt', kind: 'flows', of: 13, sort: true },
    { file: 'dump-ports-desc.of13.txt', kind: 'ports-desc', of: 13 },
    { file: 'show.of13.txt', kind: 'show', of: 13 },
  ],
};

export const EXAMPLES: readonly Example[] = [ANTREA, ANTREA_PROXY, OPENSHIFT_SDN];

/** Loads an example's flows.txt (and groups.txt when present) into a running switch. */
export async function loadExample(sw: OvsSwitch, example: Example): Promise<void> {
  const groups = exampleFile(example, 'groups.txt');
  // Groups first: OVS rejects a flow whose group action names a group that does not exist.
  if (existsSync(groups)) await sw.addGroups(readFileSync(groups, 'utf8'), example.loadVersion);
  await sw.addFlows(readFileSync(exampleFile(example, 'flows.txt'), 'utf8'), example.loadVersion);
}

export function produce(sw: OvsSwitch, output: ExampleOutput): Promise<string> {
  switch (output.kind) {
    case 'flows':
      return sw.dumpFlows(output);
    case 'groups':
      return sw.dumpGroups(output);
    case 'ports-desc':
      return sw.dumpPortsDesc(output.of);
    case 'show':
      return sw.show(output.of);
  }
}

async function makeExample(example: Example): Promise<void> {
  await withOvsSwitch(example.bridge, async (sw) => {
    await loadExample(sw, example);
    for (const output of example.outputs) {
      writeFileSync(exampleFile(example, output.file), await produce(sw, output));
      console.log(`wrote examples/${example.name}/${output.file}`);
    }
  });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const example of EXAMPLES) await makeExample(example);
}
