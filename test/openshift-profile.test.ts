import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Annotator } from '../src/analysis/annotate/annotate.ts';
import { findPattern, isTableMiss, resolveTable } from '../src/analysis/fit/pattern-fit.ts';
import { summarizeTables } from '../src/analysis/annotate/tables-summary.ts';
import type { Flow } from '../src/model/flow.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import { profileById } from '../src/profiles/index.ts';
import { inVersion } from '../src/profiles/versions.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { corpusDir, repoRoot } from './support/paths.ts';
import { flowsOutsideProfile } from './support/profile-edges.ts';
import { patternSentence } from '../src/render/words/explanation.ts';
import { bitsWords } from '../src/render/words/bits.ts';

const profile = profileById('openshift-sdn')!;
const exampleDir = join(repoRoot, 'examples', 'openshift-sdn');
const examplePorts = parseDump(readFileSync(join(exampleDir, 'show.of13.txt'), 'utf8'), {
  file: 'show.of13.txt',
}).ports;

/** Real listings and the rule version each was produced by. */
const LISTINGS: readonly { file: string; path: string; version: string }[] = [
  {
    file: 'openshift-sdn-3.x-multitenant-real-dump.txt',
    path: join(corpusDir, 'openshift-sdn-3.x-multitenant-real-dump.txt'),
    version: '3',
  },
  {
    file: 'openshift-sdn-expectedFlows-v12.txt',
    path: join(corpusDir, 'openshift-sdn-expectedFlows-v12.txt'),
    version: '12',
  },
  {
    file: 'openshift-sdn-expectedFlows-v13.txt',
    path: join(corpusDir, 'openshift-sdn-expectedFlows-v13.txt'),
    version: '13',
  },
  // The centralized SNAT note builds on the layout with egress routing in table 100 (before 11).
  ...readdirSync(exampleDir)
    .filter((f) => f.startsWith('dump-flows') || f === 'flows.txt')
    .map((f) => ({ file: `examples/openshift-sdn/${f}`, path: join(exampleDir, f), version: '10' })),
];

for (const { file, path, version } of LISTINGS) {
  const dump = parseDump(readFileSync(path, 'utf8'), { file, portMap: examplePorts });

  test(`${file}: every flow and jump lands in a table of rule version ${version}, along a documented edge`, () => {
    assert.ok(dump.flows.length >= 10);
    assert.deepEqual(dump.diagnostics, []);
    const unknown = flowsOutsideProfile(profile, dump.flows, version);
    assert.deepEqual(unknown, []);
  });

  test(`${file}: every flow other than a table miss fits a pattern of its table`, () => {
    const unexplained = dump.flows.filter((flow) => {
      if (isTableMiss(flow)) return false;
      const table = resolveTable(profile, flow.table, version);
      return !table || !findPattern(profile, table, flow, version);
    });
    assert.deepEqual(
      unexplained.map((f) => f.origin.text),
      [],
    );
  });
}

function load(file: string): Flow[] {
  return parseDump(readFileSync(join(corpusDir, file), 'utf8'), { file }).flows;
}

/** The pattern meaning a flow of the listing gets, found by a piece of its text. */
function meaningOf(flows: readonly Flow[], version: string, text: string): string | undefined {
  const flow = flows.find((f) => f.origin.text.includes(text));
  assert.ok(flow, text);
  const table = resolveTable(profile, flow.table, version)!;
  return findPattern(profile, table, flow, version)?.pattern.meaning;
}

test('rule versions: routing moved from table 30 to 31 in version 13, the egress tables swapped in 4 and 11', () => {
  const name = (n: number, v: string): string | undefined =>
    resolveTable(profile, { kind: 'number', number: n }, v)?.name;
  assert.equal(name(30, '12'), 'RoutingPre13');
  assert.equal(name(30, '13'), 'ConntrackCommit');
  assert.equal(name(31, '13'), 'Routing');
  assert.equal(name(31, '12'), undefined);
  assert.equal(name(21, '12'), 'PodConntrack');
  assert.equal(name(21, '13'), undefined);
  assert.equal(name(100, '3'), 'EgressNetworkPolicyPre4');
  assert.equal(name(100, '7'), 'EgressRoutingPre11');
  assert.equal(name(101, '7'), 'EgressNetworkPolicyPre11');
  assert.equal(name(100, '11'), 'EgressNetworkPolicy');
  assert.equal(name(101, '13'), 'EgressRouting');
  assert.equal(name(5, '1'), 'V1Routing');
  assert.equal(name(5, '2'), undefined);
  // Each version has exactly one table per number it uses.
  for (let v = 1; v <= 13; v++) {
    const numbers = profile.tables.filter((t) => inVersion(t, String(v))).map((t) => t.number);
    assert.equal(new Set(numbers).size, numbers.length, `version ${v}`);
  }
});

test('the same flows read differently by rule version', () => {
  const v12 = load('openshift-sdn-expectedFlows-v12.txt');
  const v13 = load('openshift-sdn-expectedFlows-v13.txt');
  // The egress firewall's allow flows jump to egress routing (101) from 11 on.
  assert.match(meaningOf(v13, '13', 'table=100, priority=3')!, /allows \{nw_dst\}: it continues/);
  // v12's table 60 still holds per-Service flows for the mode without conntrack; v13 keeps only the flow to the host.
  assert.match(meaningOf(v12, '12', 'tcp_dst=443')!, /Service \{nw_dst\}/);
  assert.equal(v13.filter((f) => f.table.kind === 'number' && f.table.number === 60).length, 1);
  assert.match(meaningOf(v13, '13', 'table=60, priority=200')!, /goes to the host/);
  assert.match(meaningOf(v13, '13', 'table=10, priority=210')!, /OVN-Kubernetes/);
  assert.equal(meaningOf(v13, '12', 'table=10, priority=210'), undefined, 'the migration flows do not exist before 13');
});

test('multitenant isolation and the egress IP flows get their own meanings', () => {
  const v3 = load('openshift-sdn-3.x-multitenant-real-dump.txt');
  assert.match(meaningOf(v3, '3', 'priority=200,reg0=0 actions=output:NXM_NX_REG2[]')!, /from a global namespace/);
  assert.match(meaningOf(v3, '3', 'priority=200,reg1=0')!, /to a global namespace/);
  assert.match(
    meaningOf(v3, '3', 'table=60, n_packets=0, n_bytes=0, priority=200,reg0=0')!,
    /Global namespaces may reach every Service/,
  );
  assert.match(meaningOf(v3, '3', 'note:bc.b5')!, /ARP from Pod/);
  const v13 = load('openshift-sdn-expectedFlows-v13.txt');
  assert.match(meaningOf(v13, '13', 'ct(commit),group:37')!, /egress IP: group \{group\}/);
  assert.match(meaningOf(v13, '13', 'note:00.0D')!, /rule version/);
});

test('centralized SNAT example: the gateway tag in reg3 and the tunnel to the gateway node', () => {
  const flows = parseDump(readFileSync(join(exampleDir, 'dump-flows.of13.txt'), 'utf8'), { file: 'x' }).flows;
  assert.match(meaningOf(flows, '10', 'load:0xaabb->NXM_NX_REG3[]')!, /SNAT gateway \{reg\.CsnatGatewayID\}/);
  assert.match(meaningOf(flows, '10', 'reg3=0xaabb')!, /tunnelled to the gateway node/);
  assert.match(meaningOf(flows, '10', 'priority=190')!, /entered the cluster through the SNAT gateway/);
});

test('tunnelled IP names source and destination apart when the flow matches both', () => {
  const meanings = (file: string, version: string): string[] => {
    const d = parseDump(readFileSync(join(corpusDir, file), 'utf8'), { file });
    const pipeline = new Pipeline(d.flows, d.groups, d.ports);
    return new Annotator(pipeline, { profile, release: version })
      .annotatePipeline(pipeline)
      .flatMap((t) => t.flows)
      .flatMap((a) => (a.explanation?.kind === 'pattern' ? [patternSentence(a.explanation)] : []))
      .filter((meaning) => meaning.startsWith('IP through the tunnel'));
  };
  assert.deepEqual(meanings('openshift-sdn-3.x-multitenant-real-dump.txt', '3'), [
    'IP through the tunnel from 10.128.0.0/14 to 10.130.0.0/23: the sender’s VNID is taken from the tunnel key; it continues in VxlanIngress.',
    'IP through the tunnel from 10.128.0.0/14 to 224.0.0.0/4: the sender’s VNID is taken from the tunnel key; it continues in VxlanIngress.',
  ]);
  assert.deepEqual(meanings('openshift-sdn-expectedFlows-v13.txt', '13'), [
    'IP through the tunnel (10.128.0.0/14 in the cluster network): the sender’s VNID is taken from the tunnel key; it continues in VxlanIngress.',
    'IP through the tunnel (10.128.0.0/14 in the cluster network): the sender’s VNID is taken from the tunnel key; it continues in VxlanIngress.',
  ]);
});

test('flows that name their ports (in_port=tun0, in_port=vxlan0) read as the numeric ones, with no port map', () => {
  const read = (file: string): string[] => {
    const d = parseDump(readFileSync(join(exampleDir, file), 'utf8'), { file });
    const pipeline = new Pipeline(d.flows, d.groups, d.ports);
    return new Annotator(pipeline, { profile, release: '10' })
      .annotatePipeline(pipeline)
      .flatMap((t) => t.flows)
      .map(
        (a) =>
          `${a.flow.table.kind === 'number' ? a.flow.table.number : ''}/${a.flow.priority}: ${a.explanation?.kind === 'pattern' ? a.explanation.index : (a.explanation?.kind ?? '-')}`,
      );
  };
  const numeric = read('dump-flows.of13.txt');
  assert.ok(numeric.some((l) => l.startsWith('0/200: ')));
  assert.deepEqual(read('dump-flows.of13.names.txt'), numeric);
  // The port-named flows of table 0 get the tunnel and host sentences, not the catch-all for Pods.
  const d = parseDump(
    ' cookie=0, table=0, priority=150, in_port=tun0, actions=drop\n cookie=0, table=0, priority=250, ip, in_port=tun0, nw_dst=224.0.0.0/4, actions=drop\n',
    { file: 'x' },
  );
  assert.deepEqual(
    d.flows.map((f) => findPattern(profile, resolveTable(profile, f.table, '13')!, f, '13')?.pattern.meaning),
    ['Anything else from the host is dropped.', 'Multicast from the host is dropped.'],
  );
});

test('table 25 is expected only where the dump shows conntrack: rule versions and plugins without it do not miss it', () => {
  const missing = (text: string, release: string): string[] => {
    const d = parseDump(text, { file: 'x' });
    const pipeline = new Pipeline(d.flows, d.groups, d.ports);
    return summarizeTables(pipeline, new Annotator(pipeline, { profile, release })).missing.map((m) => m.name);
  };
  // The 3.x multitenant node (rule version 3) has no conntrack, and table 25 came with it in 4.
  assert.equal(resolveTable(profile, { kind: 'number', number: 25 }, '3'), undefined);
  const v3 = readFileSync(join(corpusDir, 'openshift-sdn-3.x-multitenant-real-dump.txt'), 'utf8');
  assert.ok(!missing(v3, '3').includes('FromPodViaService'));
  assert.ok(
    !missing(v3, '7').includes('FromPodViaService'),
    'a multitenant node without conntrack in 4–7 has no table 25',
  );
  // A node that tracks connections (table 0's ct flow) and lacks table 25 does miss it.
  const v13 = readFileSync(join(corpusDir, 'openshift-sdn-expectedFlows-v13.txt'), 'utf8');
  const without25 = v13
    .split('\n')
    .filter((l) => !l.includes('table=25,'))
    .join('\n');
  assert.ok(missing(without25, '13').includes('FromPodViaService'));
  assert.ok(!missing(v13, '13').includes('FromPodViaService'));
});

test('node (HostSubnet) cookies are decoded as the Node whose subnet the flows tunnel to; markers by name', () => {
  const d = parseDump(readFileSync(join(corpusDir, 'openshift-sdn-expectedFlows-v13.txt'), 'utf8'), { file: 'v13' });
  const pipeline = new Pipeline(d.flows, d.groups, d.ports);
  const flows = new Annotator(pipeline, { profile, release: '13' }).annotatePipeline(pipeline).flatMap((t) => t.flows);
  const cookies = new Set(flows.flatMap((a) => a.cookie.map(bitsWords)));
  // Tables 10, 50 and 90 carry the cookie of the peer Node 10.0.123.45's HostSubnet.
  assert.deepEqual([...cookies], ['HostSubnet = Node 10.0.123.45 (0xf46ee1a)']);
  assert.equal(flows.filter((a) => a.cookie.length > 0).length, 3);
  const marker = new Annotator(pipeline, { profile, release: '13' }).annotate(
    parseDump('cookie=0x4466b9eb, table=80, priority=500, ip, nw_dst=10.128.0.5, actions=drop\n', { file: 'x' })
      .flows[0]!,
  );
  assert.deepEqual(
    marker.cookie.map((c) => c.valueName),
    ['PolicyIsolation'],
  );
});
