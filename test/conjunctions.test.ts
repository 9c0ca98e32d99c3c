// Conjunctive matches rebuilt into rules: Antrea's documented NetworkPolicy flows, OVS's own
// classifier tests and the worked examples of the conjunction semantics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Conjunction,
  type ConjunctionReport,
  explainPacket,
  findConjunctions,
  type StorageReader,
} from '../src/analysis/conjunctions/conjunctions.ts';
import { parsePacketSpec, storageReader } from '../src/analysis/trace/packet.ts';
import { fieldByName } from '../src/model/fields.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import {
  conjunctionReportJson,
  formatConjunction,
  formatConjunctionReport,
  formatTerm,
} from '../src/render/conjunctions.ts';
import { formatJson } from '../src/render/json-stream.ts';
import { withActions } from '../src/model/flow.ts';
import { memberText } from '../src/analysis/conjunctions/member-text.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { type DimensionTerm, memberSet, termMemberTexts } from '../src/analysis/conjunctions/conjunctions.ts';
import { runCli } from './support/cli.ts';
import { parseOfprotoTrace } from './support/ofproto-trace.ts';
import { skipUnlessOvs, withOvsSwitch } from './support/ovs.ts';
import { corpusText, readJsonl } from './support/corpus.ts';
import { corpusDir, repoRoot } from './support/paths.ts';
import { ANTREA, exampleFile } from './support/make-examples.ts';
import { conjunctionScope } from '../src/analysis/conjunctions/conjunction-scope.ts';
import { Tracer } from '../src/analysis/trace/trace.ts';

function pipelineOf(text: string, file = 'test'): Pipeline {
  const r = parseDump(text, { file });
  return new Pipeline(r.flows, r.groups, r.ports);
}

function report(text: string): ConjunctionReport {
  return findConjunctions(pipelineOf(text));
}

function conj(r: ConjunctionReport, id: number): Conjunction {
  const c = r.conjunctions.find((x) => x.id === id);
  assert.ok(c, `conjunction ${id} missing`);
  return c;
}

/** Each dimension's terms as the text block prints them. */
function terms(c: Conjunction): string[][] {
  return c.dimensions.map((d) => d.terms.map((t) => formatTerm(t)));
}

function lines(flows: readonly { origin: { line: number } }[]): number[] {
  return flows.map((f) => f.origin.line);
}

/** The packet as every table sees it (no trace): what explainPacket reads for each table. */
function packet(text: string): () => StorageReader {
  const parsed = parsePacketSpec(text);
  assert.ok(parsed.ok, text);
  const read = storageReader(parsed.packet);
  return () => read;
}

test('Antrea v1.0.0 documentation: every NetworkPolicy rule rebuilt', () => {
  const r = report(corpusText('antrea-ovs-pipeline-doc-v1.0.0.flows.txt'));
  const where = r.conjunctions.map((c) => [c.id, c.table.kind === 'number' ? c.table.number : -1, c.priority, c.n]);
  assert.deepEqual(where, [
    [1, 45, 14000, 3],
    [2, 50, 200, 3],
    [5, 60, 80, 2],
    [4, 85, 14000, 3],
    [3, 90, 200, 3],
    [6, 100, 80, 3],
  ]);
  // Table 50 (EgressRule): two Pods 10.10.1.2 and .3 to each other on TCP 80.
  assert.deepEqual(terms(conj(r, 2)), [
    ['source address ∈ {10.10.1.2/31}  [2 flows]'],
    ['destination address ∈ {10.10.1.2/31}  [2 flows]'],
    ['TCP destination port ∈ {80}'],
  ]);
  assert.deepEqual(lines(conj(r, 2).actionFlows), [35]);
  // Table 90 (IngressRule): appliedTo by OpenFlow port in reg1, which keeps the `ip` it was written with.
  assert.deepEqual(terms(conj(r, 3))[1], ['reg1 ∈ {0x3, 0x4} (ip)  [2 flows]']);
  // Table 100: 10.10.1.7 and 10.10.1.9 are not contiguous, so they stay two members.
  assert.deepEqual(terms(conj(r, 6))[0], ['source address ∈ {10.10.1.7, 10.10.1.9}  [2 flows]']);
  assert.deepEqual(terms(conj(r, 1))[2], ['UDP destination port ∈ {53}']);
  // The doc's `conjunction(5,2)` is rejected by OVS, so conjunction 5 has no second dimension.
  const five = conj(r, 5);
  assert.deepEqual(
    five.problems.map((p) => [p.kind, p.severity]),
    [['empty-dimension', 'error']],
  );
  // K8s NetworkPolicy puts the action flow at 190 under clauses at 200.
  for (const id of [2, 3])
    assert.deepEqual(
      conj(r, id).problems.map((p) => p.kind),
      ['action-priority'],
    );
  for (const id of [1, 4, 6]) assert.deepEqual(conj(r, id).problems, []);
  assert.equal(five.hits, undefined, 'the doc listing has no statistics');
});

test('Antrea HEAD documentation: named tables, the "any" clause and a split priority', () => {
  const r = report(corpusText('antrea-ovs-pipeline-doc-HEAD.flows.txt'));
  assert.deepEqual(
    r.conjunctions.map((c) => `${c.id}@${c.table.kind === 'name' ? c.table.name : '?'}/${c.priority}`),
    [
      '7@AntreaPolicyEgressRule/14500',
      '5@AntreaPolicyEgressRule/14499',
      '2@EgressRule/200',
      '4@AntreaPolicyIngressRule/14600',
      '6@AntreaPolicyIngressRule/14600',
      '14@AntreaPolicyIngressRule/14500',
      '3@IngressRule/200',
    ],
  );
  assert.deepEqual(terms(conj(r, 5)), [['source address ∈ {10.10.0.24}'], ['any ip packet']]);
  assert.deepEqual(terms(conj(r, 14)), [
    ['source address ∈ {10.10.0.26}'],
    ['reg1 ∈ {0x7}'],
    ['TCP destination port ∈ {8080}'],
  ]);
  // Conjunction 4: clause 1/2 at 14600 (line 141) but 2/2 at 14599 (line 142): it can never complete.
  const four = conj(r, 4);
  assert.deepEqual(
    four.problems.map((p) => [p.kind, lines(p.flows)]),
    [
      ['split-priority', [142]],
      ['empty-dimension', [142]],
      ['action-priority', [143]],
    ],
  );
  assert.deepEqual(lines(four.dimensions[0]!.flows), [141]);

  const text = formatConjunction(conj(r, 7));
  assert.equal(
    text.split('\n').slice(0, 5).join('\n'),
    [
      'conjunction 7  table AntreaPolicyEgressRule  priority 14500  3 dimensions',
      '  if   1: source address ∈ {10.10.0.24}',
      '  and  2: destination address ∈ {10.10.0.25}',
      '  and  3: TCP destination port ∈ {3306}',
      '  then set reg5 = 0x7, commit the connection to conntrack in zone 65520, setting ct_label[32..63] = 0x7, then continue in EgressMetric',
    ].join('\n'),
  );
});

test('OVS test corpus: every conjunction action puts its flow in dimension K of conjunction ID', () => {
  const records = readJsonl('ovs-tests-flows.jsonl').filter((rec) => rec.canonical?.includes('conjunction('));
  assert.ok(records.length >= 30);
  for (const rec of records) {
    const r = report(rec.input);
    const expected = [...rec.canonical!.matchAll(/conjunction\((\d+),(\d+)\/(\d+)\)/g)];
    assert.ok(expected.length > 0);
    for (const [, id, k, n] of expected) {
      const c = conj(r, Number(id));
      assert.equal(c.n, Number(n), rec.source);
      assert.equal(c.dimensions[Number(k) - 1]?.flows.length, 1, rec.source);
    }
  }
});

test('OVS "multiple conjunctive match" flows: overlapping prefixes merge, TCP ports split by field', () => {
  // tests/classifier.at lines 370-387 as kept in the corpus (some lines of the test are held out).
  const block = readJsonl('ovs-tests-flows.jsonl').filter((rec) => {
    const m = /^tests\/classifier\.at:(\d+)$/.exec(rec.source);
    return m && Number(m[1]) >= 370 && Number(m[1]) <= 387 && rec.canonical !== undefined;
  });
  const r = report(block.map((rec) => rec.input).join('\n'));
  const one = conj(r, 1);
  // 10.1.0.0/16 and 10.2.0.0/16 touch but are not one CIDR block; 10.1.3.0/24 lies inside the first.
  assert.deepEqual(terms(one), [
    ['source address ∈ {10.1.0.0-10.2.255.255}  [3 flows]'],
    ['destination address ∈ {10.1.0.0-10.2.255.255, 20.0.0.0/8}  [5 flows]'],
  ]);
  const three = conj(r, 3);
  assert.deepEqual(terms(three)[2], [
    'TCP destination port ∈ {80, 443}  [2 flows]',
    'TCP source port ∈ {80, 443}  [2 flows]',
  ]);
  // Conjunction 3's first dimension is not in the corpus excerpt.
  assert.deepEqual(
    three.problems.map((p) => p.kind),
    ['empty-dimension', 'no-action-flow'],
  );
});

test('members: port ranges from masks, arbitrary masks kept, registers listed', () => {
  const tp = fieldByName('tcp_dst')!;
  const ports = memberSet(tp, [
    { value: 0x400n, mask: 0xfc00n }, // 1024-2047
    { value: 0x800n, mask: 0xff00n }, // 2048-2303
    { value: 80n, mask: 0xffffn },
    { value: 81n, mask: 0xffffn },
    { value: 0x1n, mask: 0x1n }, // odd ports: not a range
  ]);
  assert.deepEqual(
    ports.map((m) => memberText(tp, m)),
    ['80-81', '1024-2303', '1/0x1'],
  );
  const src = fieldByName('nw_src')!;
  const addrs = memberSet(src, [
    { value: 0x0a000000n, mask: 0xff00ff00n },
    { value: 0x0a000004n, mask: 0xfffffffcn },
    { value: 0x0a000008n, mask: 0xfffffff8n },
  ]);
  assert.deepEqual(
    addrs.map((m) => memberText(src, m)),
    ['10.0.0.4-10.0.0.15', '10.0.0.0/255.0.255.0'],
  );
  const reg = fieldByName('reg1')!;
  assert.deepEqual(
    memberSet(reg, [
      { value: 4n, mask: 0xffffffffn },
      { value: 3n, mask: 0xffffffffn },
    ]).map((m) => memberText(reg, m)),
    ['0x3', '0x4'],
  );
});

test('members as text: written from the merged values, the same as the members made and written', () => {
  // Single addresses, touching ones that merge, an aligned block, an unaligned run, ports.
  const dump = [
    'priority=100,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2)',
    'priority=100,ip,nw_src=10.0.0.2 actions=conjunction(1,1/2)',
    'priority=100,ip,nw_src=10.0.0.3 actions=conjunction(1,1/2)',
    'priority=100,ip,nw_src=10.0.4.0/24 actions=conjunction(1,1/2)',
    'priority=100,ip,nw_src=10.0.2.0/25 actions=conjunction(1,1/2)',
    'priority=100,ip,nw_src=10.0.2.128/26 actions=conjunction(1,1/2)',
    'priority=100,ip,nw_src=192.168.0.9 actions=conjunction(1,1/2)',
    'priority=100,tcp,tp_dst=80 actions=conjunction(1,2/2)',
    'priority=100,tcp,tp_dst=81 actions=conjunction(1,2/2)',
    'priority=100,tcp,tp_dst=0x400/0xfc00 actions=conjunction(1,2/2)',
    'priority=100,tcp,tp_dst=0x1/0x1 actions=conjunction(1,2/2)',
    'priority=100,conj_id=1 actions=drop',
  ].join('\n');
  const sets = (): (DimensionTerm & { kind: 'set' })[] =>
    conj(report(dump), 1).dimensions.flatMap((d) => d.terms.flatMap((t) => (t.kind === 'set' ? [t] : [])));
  // Texts asked for first (the members never made), then of the members themselves.
  const texts = sets().map((t) => termMemberTexts(t));
  assert.deepEqual(
    texts.map((t) => t.texts),
    [
      ['10.0.0.1-10.0.0.3', '10.0.2.0-10.0.2.191', '10.0.4.0/24', '192.168.0.9'],
      ['80-81', '1024-2047', '1/0x1'],
    ],
  );
  const made = sets();
  assert.deepEqual(
    texts,
    made.map((t) => ({ texts: t.members.map((m) => memberText(t.field, m)), count: t.members.length })),
  );
  assert.deepEqual(
    sets().map((t) => termMemberTexts(t, 'decimal', 2)),
    made.map((t) => ({
      texts: t.members.slice(0, 2).map((m) => memberText(t.field, m, 'decimal')),
      count: t.members.length,
    })),
  );
});

test('members of dimensions searched for overlaps: read from the sorted values, the same as merged from the entries', () => {
  // Two conjunctions at one priority, so that their dimensions are searched: exact addresses out of
  // order, repeated and touching, ports, and registers (listed, not merged).
  const addresses = ['10.0.0.7', '10.0.0.1', '10.0.0.3', '10.0.0.2', '10.0.0.3', '10.0.1.0', '10.0.0.255', '9.0.0.1'];
  const dump = [
    ...addresses.map((a) => `priority=100,ip,nw_src=${a} actions=conjunction(1,1/3),conjunction(2,1/3)`),
    ...[443, 80, 81, 8080, 82].map((p) => `priority=100,tcp,tp_dst=${p} actions=conjunction(1,2/3)`),
    'priority=100,tcp,tp_dst=80 actions=conjunction(2,2/3)',
    ...[7, 3, 5, 3, 4].map((r) => `priority=100,reg1=${r} actions=conjunction(1,3/3),conjunction(2,3/3)`),
    'priority=100,conj_id=1 actions=drop',
    'priority=100,conj_id=2 actions=drop',
  ].join('\n');
  const r = report(dump);
  const one = conj(r, 1);
  assert.ok(one.problems.some((p) => p.kind === 'overlap'));
  const sets = one.dimensions.map((d) => d.terms[0] as DimensionTerm & { kind: 'set' });
  const entries = (t: DimensionTerm & { kind: 'set' }): { value: bigint; mask: bigint }[] =>
    t.flows.map((f) => f.match.fields.find((e) => e.field === t.field)!);
  assert.deepEqual(
    sets.map((t) => termMemberTexts(t).texts),
    sets.map((t) => memberSet(t.field, entries(t)).map((m) => memberText(t.field, m))),
  );
  assert.deepEqual(
    sets.map((t) => termMemberTexts(t).texts),
    [
      ['9.0.0.1', '10.0.0.1-10.0.0.3', '10.0.0.7', '10.0.0.255-10.0.1.0'],
      ['80-82', '443', '8080'],
      ['0x3', '0x4', '0x5', '0x7'],
    ],
  );
  assert.deepEqual(
    sets.map((t) => t.members),
    sets.map((t) => memberSet(t.field, entries(t))),
  );
});

test('clause flows by line: from one file, lines told with the dimension; from two, each flow names its file', () => {
  const one = parseDump(
    'priority=100,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2)\npriority=100,ip,nw_src=10.0.0.2 actions=conjunction(1,1/2)\n',
    { file: 'one' },
  );
  const two = parseDump(
    '\npriority=100,tcp,tp_dst=80 actions=conjunction(1,2/2)\npriority=100,conj_id=1 actions=drop\n',
    {
      file: 'two',
    },
  );
  const alone = conj(findConjunctions(new Pipeline(one.flows, [], one.ports)), 1);
  assert.deepEqual(alone.dimensions[0]!.lines, { file: 'one', numbers: [1, 2] });
  const both = findConjunctions(new Pipeline([...one.flows, ...two.flows], [], one.ports));
  assert.deepEqual(
    conj(both, 1).dimensions.map((d) => d.lines),
    [undefined, undefined],
  );
  const json = JSON.parse(formatJson(conjunctionReportJson(both))) as {
    file: string;
    conjunctions: { dimensions: { flows: unknown[] }[] }[];
  };
  assert.equal(json.file, 'one');
  assert.deepEqual(
    json.conjunctions[0]!.dimensions.map((d) => d.flows),
    [[1, 2], [{ file: 'two', line: 2 }]],
  );
});

// Worked examples of ovs-conjunction.md §3, packet ip,nw_src=10.0.0.1,nw_dst=10.0.0.2.
const T1 = `priority=100,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2)
priority=100,ip,nw_dst=10.0.0.2 actions=conjunction(1,2/2)
priority=0 actions=output:1`;

test('T1: no conj_id flow, so the catch-all answers the conj_id lookup', () => {
  const p = pipelineOf(T1);
  const r = findConjunctions(p);
  assert.deepEqual(
    conj(r, 1).problems.map((x) => x.kind),
    ['no-action-flow'],
  );
  const [v] = explainPacket(p, r, packet('ip,nw_src=10.0.0.1,nw_dst=10.0.0.2'));
  assert.equal(v?.satisfied, true);
  assert.equal(v?.preemptedBy, undefined);
  assert.equal(v?.result?.origin.line, 3);
});

test('T7: clause flows that disagree on n never complete', () => {
  const r = report(`priority=100,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2)
priority=100,ip,nw_dst=10.0.0.2 actions=conjunction(1,2/3)
conj_id=1,ip actions=output:2
priority=0 actions=drop`);
  const kinds = conj(r, 1).problems.map((p) => p.kind);
  assert.ok(kinds.includes('inconsistent-n'), kinds.join());
});

test('T8: two conjunctions one packet completes at one priority are reported as overlapping', () => {
  const r = report(`priority=100,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2),conjunction(2,1/2)
priority=100,ip,nw_dst=10.0.0.2 actions=conjunction(1,2/2)
priority=100,tcp actions=conjunction(2,2/2)
priority=100,conj_id=1,ip actions=output:1
priority=100,conj_id=2,ip actions=output:2`);
  const o1 = conj(r, 1).problems.find((p) => p.kind === 'overlap');
  const o2 = conj(r, 2).problems.find((p) => p.kind === 'overlap');
  assert.ok(o1 && o1.kind === 'overlap' && o1.otherId === 2);
  assert.ok(o2 && o2.kind === 'overlap' && o2.otherId === 1);
  // The witness: the shared source flow, the destination flow and the tcp flow.
  assert.deepEqual(lines(o1.flows).sort(), [1, 2, 3]);
});

test('conjunctions whose sets cannot meet at one priority do not overlap', () => {
  const r = report(`priority=100,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2)
priority=100,tcp,tp_dst=80 actions=conjunction(1,2/2)
priority=100,ip,nw_src=10.0.0.2 actions=conjunction(2,1/2)
priority=100,tcp,tp_dst=80 actions=conjunction(2,2/2)
priority=100,conj_id=1,ip actions=output:1
priority=100,conj_id=2,ip actions=output:2`);
  assert.deepEqual(conj(r, 1).problems, []);
  assert.deepEqual(conj(r, 2).problems, []);
});

test('T4 variant: a hard flow at the clauses priority covering a dimension pre-empts it', () => {
  const r = report(`priority=100,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2)
priority=100,ip,nw_dst=10.0.0.2 actions=conjunction(1,2/2)
priority=100,conj_id=1,ip actions=output:1
priority=100,ip,nw_dst=10.0.0.0/24 actions=drop
priority=200,ct_state=+trk,ip actions=drop`);
  const pre = conj(r, 1).problems.filter((p) => p.kind === 'pre-empted');
  assert.equal(pre.length, 1);
  const p = pre[0]!;
  assert.ok(p.kind === 'pre-empted' && p.k === 2 && p.dimensionDead && p.severity === 'error');
  assert.deepEqual(lines(p.flows), [2, 4]);
});

test('orphan conj_id flows are reported', () => {
  const r = report('table=3, priority=10,conj_id=9,ip actions=drop');
  const c = conj(r, 9);
  assert.equal(c.n, 0);
  assert.deepEqual(
    c.problems.map((p) => p.kind),
    ['orphan-action-flow'],
  );
});

// tests/classifier.at "conjunctive match priority fallback", as ovs-conjunction.md §3 lists it.
const FALLBACK = `conj_id=1,actions=output:1
conj_id=3,actions=output:3
priority=5,ip,ip_src=10.0.0.1,actions=conjunction(1,1/2)
priority=5,ip,ip_src=10.0.0.2,actions=conjunction(1,1/2)
priority=5,ip,ip_dst=10.0.0.1,actions=conjunction(1,2/2)
priority=5,ip,ip_dst=10.0.0.2,actions=conjunction(1,2/2)
priority=5,ip,ip_dst=10.0.0.3,actions=conjunction(1,2/2)
priority=4,ip,ip_src=10.0.0.3,ip_dst=10.0.0.2,actions=output:2
priority=3,ip,ip_src=10.0.0.1,actions=conjunction(3,1/2)
priority=3,ip,ip_src=10.0.0.3,actions=conjunction(3,1/2)
priority=3,ip,ip_dst=10.0.0.2,actions=conjunction(3,2/2)
priority=3,ip,ip_dst=10.0.0.3,actions=conjunction(3,2/2)
priority=3,ip,ip_dst=10.0.0.4,actions=conjunction(3,2/2)
priority=2,ip,ip_dst=10.0.0.1,actions=output:4
priority=1,ip,ip_src=10.0.0.1,ip_dst=10.0.0.5,actions=output:5
priority=0,actions=output:6`;

test('--packet: which dimensions hold, pre-emption and the conj_id lookup (priority fallback matrix)', () => {
  const p = pipelineOf(FALLBACK);
  const r = findConjunctions(p);
  const verdicts = (pkt: string) => new Map(explainPacket(p, r, packet(pkt)).map((v) => [v.conjunction.id, v]));
  // .1 → .4: conjunction 1 fails its destination dimension; conjunction 3 completes → output 3.
  let v = verdicts('ip,nw_src=10.0.0.1,nw_dst=10.0.0.4');
  assert.deepEqual(
    v.get(1)!.dimensions.map((d) => d.matchedBy.length > 0),
    [true, false],
  );
  assert.equal(v.get(3)!.satisfied, true);
  assert.equal(v.get(3)!.result?.origin.line, 2);
  // .3 → .2: conjunction 3 holds, but the priority-4 flow (output 2) matches first.
  v = verdicts('ip,nw_src=10.0.0.3,nw_dst=10.0.0.2');
  assert.equal(v.get(3)!.satisfied, true);
  assert.equal(v.get(3)!.preemptedBy?.origin.line, 8);
  // .2 → .3: conjunction 1 completes → its conj_id flow (output 1).
  v = verdicts('ip,nw_src=10.0.0.2,nw_dst=10.0.0.3');
  assert.equal(v.get(1)!.satisfied, true);
  assert.equal(v.get(1)!.result?.origin.line, 1);
  assert.equal(v.get(3)!.satisfied, false);
});

test('flowscope conj: text, ids, JSON and --packet', async () => {
  const file = join(corpusDir, 'antrea-ovs-pipeline-doc-v1.0.0.flows.txt');
  const all = await runCli(['conj', file]);
  assert.equal(all.status, 0);
  assert.match(all.stdout, /^profile antrea-v1 \(releases 1\.0–1\.2, read as 1\.2\), detected/);
  // In the profile's words: the table's name, and which register and label the rule id goes to.
  assert.match(
    all.stdout,
    /^conjunction 1 {2}table 45 AntreaPolicyEgressRuleTable {2}priority 14000 {2}3 dimensions$/m,
  );
  assert.match(
    all.stdout,
    /^ {2}then set EgressConjID = 1, commit the connection to conntrack in zone 65520 \(CtZone\), setting EgressRuleCTLabel = 1, then continue in EgressMetricTable$/m,
  );
  assert.match(all.stdout, /^ {7}Rule 1 allows the packet: /m);
  assert.match(all.stdout, /error: dimension 2 has no clause flow/);

  const one = await runCli(['conj', file, '3', '--json']);
  assert.equal(one.status, 0);
  const json = JSON.parse(one.stdout) as {
    schemaVersion: number;
    file: string;
    conjunctions: {
      id: number;
      table: number;
      priority: number;
      n: number;
      dimensions: { k: number; flows: number[] }[];
      actionFlows: { source: { line: number } }[];
      problems: { kind: string; flows: number[] }[];
    }[];
  };
  // Clause flows by their line in the file, which the report names once.
  assert.equal(json.schemaVersion, 2);
  assert.equal(json.file, file);
  assert.equal(json.conjunctions.length, 1);
  const c = json.conjunctions[0]!;
  assert.deepEqual([c.id, c.table, c.priority, c.n], [3, 90, 200, 3]);
  assert.deepEqual(
    c.dimensions.map((d) => [d.k, d.flows]),
    [
      [1, [71, 72]],
      [2, [73, 74]],
      [3, [75]],
    ],
  );
  const fileLines = readFileSync(file, 'utf8').split('\n');
  assert.ok(
    c.dimensions.every((d) =>
      d.flows.every(
        (line) =>
          fileLines[line - 1]!.includes(`priority=${c.priority},`) && fileLines[line - 1]!.includes('conjunction(3,'),
      ),
    ),
  );
  assert.deepEqual(
    c.actionFlows.map((f) => f.source.line),
    [76],
  );
  assert.deepEqual(
    c.problems.map((p) => p.kind),
    ['action-priority'],
  );

  const pkt = await runCli(['conj', file, '2', '--packet', 'tcp,nw_src=10.10.1.2,nw_dst=10.10.1.9,tp_dst=80']);
  assert.equal(pkt.status, 0);
  assert.match(pkt.stdout, /every table/);
  assert.match(pkt.stdout, /✗ 2: destination address is 10\.10\.1\.9, not in \{10\.10\.1\.2\/31\}/);
  assert.match(pkt.stdout, /✓ 3: line 34:/);

  const bad = await runCli(['conj', file, '--packet', 'tcp,nw_src=10.10.1.300']);
  assert.equal(bad.status, 2);
  const badId = await runCli(['conj', file, 'seven']);
  assert.equal(badId.status, 2);
  // An id the dump lacks is named, with the ids it has; the others are still reported.
  const absent = await runCli(['conj', file, '3', '99', '--json']);
  assert.equal(absent.status, 2);
  assert.deepEqual(
    (JSON.parse(absent.stdout) as { conjunctions: { id: number }[] }).conjunctions.map((x) => x.id),
    [3],
  );
  assert.match(absent.stderr, /^flowscope: error: no conjunction 99 in the dump \(its conjunction ids: 1–6\)$/m);
  const none = await runCli(['conj', '-', '5', '7'], { stdin: 'table=0,priority=0 actions=drop\n' });
  assert.equal(none.status, 2);
  assert.match(none.stderr, /no conjunctions 5, 7 in the dump \(it has no conjunctions\)/);
});

test('conjunctions of lazily read flows (a dump of lines met before) are those of the same flows read in full', () => {
  const bodies: string[] = [];
  for (let t = 0; t < 2; t++) {
    const stats = (i: number): string =>
      ` cookie=0x3020000, duration=${100 + i}.5s, table=${12 + t}, n_packets=${i}, n_bytes=${i * 60}, `;
    for (let i = 1; i <= 40; i++) {
      // Addresses that differ in the last one (read from a template), masked blocks, ports by number.
      bodies.push(
        `${stats(i)}priority=200,ip,nw_src=10.16.${t}.${i} actions=conjunction(${7 + t},1/3),conjunction(9,1/2)`,
      );
      bodies.push(`${stats(i)}priority=200,ip,nw_dst=10.${20 + (i % 3)}.${i}.0/24 actions=conjunction(${7 + t},2/3)`);
      bodies.push(`${stats(i)}priority=200,tcp,tp_dst=${8000 + i} actions=conjunction(${7 + t},3/3)`);
      bodies.push(`${stats(i)}priority=200,reg1=0x${(0x100 + i).toString(16)} actions=conjunction(9,2/2)`);
      bodies.push(`${stats(i)}priority=200,in_port=${i},ip actions=conjunction(${11 + t},1/2)`);
      bodies.push(`${stats(i)}priority=200,udp,nw_dst=10.30.${t}.${i},tp_dst=53 actions=conjunction(${11 + t},2/2)`);
    }
    // Hard flows of one shape but for their numbers (read again from the line when asked for), one pre-empting a clause flow.
    for (let i = 1; i <= 30; i++)
      bodies.push(`${stats(i)}priority=${210 + i},reg2=0x${i.toString(16)} actions=goto_table:${20 + t}`);
    bodies.push(`${stats(0)}priority=250,tcp,tp_dst=8005 actions=drop`);
    for (const id of [7, 8, 9, 11, 12]) bodies.push(`${stats(id)}priority=200,conj_id=${id},ip actions=goto_table:20`);
  }
  const text = bodies.join('\n');
  const lazy = parseDump(text, { file: 'dump' });
  assert.deepEqual(lazy.diagnostics, []);
  assert.ok(lazy.flows.filter((f) => f.outline !== undefined).length > bodies.length / 2, 'most lines are read lazily');
  assert.ok(
    lazy.flows.some((f) => f.outline?.shaped),
    'some lines are read by their shape',
  );
  const whole = lazy.flows.map((f) => withActions(f, f.actions));
  assert.ok(whole.every((f) => f.outline === undefined));
  const [a, b] = [lazy.flows, whole].map((flows) => findConjunctions(new Pipeline(flows, [], lazy.ports)));
  assert.equal(a!.conjunctions.length, 10);
  assert.ok(a!.conjunctions.some((c) => c.problems.some((p) => p.kind === 'pre-empted')));
  assert.equal(formatConjunctionReport(a!), formatConjunctionReport(b!));
  assert.equal(formatJson(conjunctionReportJson(a!)), formatJson(conjunctionReportJson(b!)));
});

test('a conjunction action repeated on one flow counts once', () => {
  const r = report(`priority=100,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2),conjunction(1,1/2)
priority=100,tcp,tp_dst=80 actions=conjunction(1,2/2)
priority=100,conj_id=1,ip actions=output:1`);
  assert.deepEqual(lines(conj(r, 1).dimensions[0]!.flows), [1]);
});

test(
  '--packet agrees with ofproto/trace of a real Open vSwitch on the priority fallback flows',
  skipUnlessOvs,
  async () => {
    const p = pipelineOf(FALLBACK);
    const r = findConjunctions(p);
    const outputOf = (f: { actions: readonly { kind: string }[] }): number | undefined => {
      const out = f.actions.find((a) => a.kind === 'output') as { port: { kind: string; number?: number } } | undefined;
      return out?.port.number;
    };
    const ports = [1, 2, 3, 4, 5, 6, 7].map((n) => ({ name: `p${n}`, ofport: n }));
    await withOvsSwitch({ bridge: 'br-conj', ports }, async (sw) => {
      await sw.addFlows(FALLBACK);
      let compared = 0;
      for (const src of [0, 1, 2, 3]) {
        for (const dst of [0, 1, 2, 3, 4, 5]) {
          const flow = `ip,nw_src=10.0.0.${src},nw_dst=10.0.0.${dst}`;
          // The highest-priority conjunction the packet satisfies decides, unless a flow at its priority or above matches first.
          const first = explainPacket(p, r, packet(flow))
            .filter((v) => v.satisfied)
            .sort((a, b) => b.conjunction.priority - a.conjunction.priority)[0];
          if (!first) continue;
          const decider = first.preemptedBy ?? first.result;
          assert.ok(decider, flow);
          const trace = parseOfprotoTrace(await sw.trace(`in_port=7,${flow}`), 7);
          assert.deepEqual(trace.outputs, [outputOf(decider)], `${flow}: OVS output ${trace.outputs.join()}`);
          compared++;
        }
      }
      // Cells of the matrix that some conjunction completes (the others end in plain flows).
      assert.equal(compared, 10);
    });
  },
);

test('overlap through a CIDR clause and exact addresses, and none when the block misses them', () => {
  const flows = (block: string): string => `priority=100,ip,nw_src=${block} actions=conjunction(1,1/2)
priority=100,tcp,tp_dst=80 actions=conjunction(1,2/2),conjunction(2,2/2)
priority=100,ip,nw_src=10.1.0.1 actions=conjunction(2,1/2)
priority=100,ip,nw_src=10.0.0.5 actions=conjunction(2,1/2)
priority=100,conj_id=1,ip actions=output:1
priority=100,conj_id=2,ip actions=output:2`;
  const hit = conj(report(flows('10.0.0.0/24')), 1).problems.find((p) => p.kind === 'overlap');
  assert.ok(hit);
  assert.deepEqual(lines(hit.flows).sort(), [1, 2, 4]);
  assert.deepEqual(conj(report(flows('10.2.0.0/16')), 1).problems, []);
});

const EXAMPLE_DUMP = join(repoRoot, 'examples', 'antrea', 'dump-flows.of13.txt');
const EXAMPLE_PORTS = join(repoRoot, 'examples', 'antrea', 'show.of13.txt');
/** From the tunnel to the local Pod 10.10.0.2 (port 3): the L2 forwarding table sets reg1=0x3 on the way. */
const TUNNEL_TO_POD = 'in_port=1,tcp,dl_dst=12:9e:a6:47:d0:70,nw_src=10.10.1.7,nw_dst=10.10.0.2,nw_ttl=64,tp_dst=80';

test('--packet follows a trace: only the tables the packet reaches, each with the packet as it is there', async () => {
  const r = await runCli(['conj', EXAMPLE_DUMP, '--ports', EXAMPLE_PORTS, '--packet', TUNNEL_TO_POD, '--json']);
  assert.equal(r.status, 0, r.stderr);
  const json = JSON.parse(r.stdout) as {
    traced: boolean;
    tables: number[];
    conjunctions: { id: number; dimensions: { satisfied: boolean }[] }[];
  };
  assert.equal(json.traced, true);
  // Table 85 (conjunction 4) is an ingress table the packet never reaches on this path.
  assert.deepEqual(json.tables, [45, 50, 60, 90, 100]);
  assert.deepEqual(json.conjunctions.map((c) => c.id).sort(), [1, 2, 3, 5, 6]);
  // Dimension 2 of conjunction 3 is reg1=0x3: it holds only with the register the trace loaded.
  const three = json.conjunctions.find((c) => c.id === 3)!;
  assert.deepEqual(
    three.dimensions.map((d) => d.satisfied),
    [false, true, true],
  );

  const text = await runCli(['conj', EXAMPLE_DUMP, '--ports', EXAMPLE_PORTS, '--packet', TUNNEL_TO_POD]);
  assert.match(text.stdout, /^Conjunctions of the tables the packet reaches \(45, 50, 60, 90, 100\)/m);
  assert.match(text.stdout, /✓ 2: line 68: priority=200,ip,reg1=0x3/);

  const bad = await runCli(['conj', EXAMPLE_DUMP, '--packet', 'in_port=1,tcp,nw_dst=10.10.0.2/24']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--packet: .*wildcards not allowed/);
});

test('--packet: a packet dropped before any table with conjunctions is told what the nearest flow there wants', async () => {
  const note = async (packet: string): Promise<string> => {
    const r = await runCli(['conj', EXAMPLE_DUMP, '--packet', packet, '--json']);
    assert.equal(r.status, 0, r.stderr);
    const json = JSON.parse(r.stdout) as { traced: boolean; note: string };
    assert.equal(json.traced, false);
    return json.note;
  };
  // SpoofGuard knows port 3 by its MAC and address: the packet gives no MAC and another address.
  assert.match(
    await note('in_port=3,ip,nw_src=10.10.1.6'),
    /\(it ends in table 10\): .* The nearest flow there, line 11 \(priority=200,ip,in_port=3,dl_src=12:9e:a6:47:d0:70,nw_src=10\.10\.0\.2\), would take the packet further with source MAC 12:9e:a6:47:d0:70 \(the packet gives none\) and source address 10\.10\.0\.2 \(the packet has 10\.10\.1\.6\)\.$/,
  );
  // An ARP packet is told the ARP fields, not to become IP.
  assert.match(
    await note('in_port=3,arp'),
    /with ARP source address 10\.10\.0\.2 \(the packet gives none\) and ARP source MAC 12:9e:a6:47:d0:70 \(the packet gives none\)\.$/,
  );
  assert.match(
    await note('ip,nw_src=10.10.1.6'),
    /\(it ends in table 0\): .* with input port 2 \(the packet gives none\)\.$/,
  );
  assert.match(
    await note('in_port=9,ip'),
    /\(it ends in table 0\): .* No flow there would take a packet of its input port and protocol further\.$/,
  );

  // The same nearest flow as a field of its own: the flow, and each field the packet lacks for it.
  const nearest = async (packet: string): Promise<unknown> => {
    const r = await runCli(['conj', EXAMPLE_DUMP, '--packet', packet, '--json']);
    assert.equal(r.status, 0, r.stderr);
    return (JSON.parse(r.stdout) as { nearest?: unknown }).nearest;
  };
  const spoofed = (await nearest('in_port=3,ip,nw_src=10.10.1.6')) as {
    flow: { table: number; priority: number; source: { line: number } };
    differs: unknown[];
  };
  assert.deepEqual([spoofed.flow.table, spoofed.flow.priority, spoofed.flow.source.line], [10, 200, 11]);
  assert.deepEqual(spoofed.differs, [
    { field: 'eth_src', wanted: '12:9e:a6:47:d0:70', has: null },
    { field: 'ip_src', wanted: '10.10.0.2', has: '10.10.1.6' },
  ]);
  assert.equal(await nearest('in_port=9,ip'), null);
  // A packet that reaches the conjunctions was not dropped before them: no nearest flow.
  assert.equal(await nearest(TUNNEL_TO_POD), undefined);
});

test('--packet on a dump that names its ports without numbers: the packet names its port as the flows do', async () => {
  const named = join(repoRoot, 'examples', 'antrea', 'dump-flows.of13.names.txt');
  const r = await runCli([
    'conj',
    named,
    '--packet',
    TUNNEL_TO_POD.replace('in_port=1', 'in_port=antrea-tun0'),
    '--json',
  ]);
  assert.equal(r.status, 0, r.stderr);
  const json = JSON.parse(r.stdout) as { packet: string; traced: boolean; tables: string[] };
  assert.match(json.packet, /in_port="antrea-tun0"/);
  assert.equal(json.traced, true);
  assert.deepEqual(json.tables, [
    'AntreaPolicyEgressRule',
    'EgressRule',
    'EgressDefaultRule',
    'IngressRule',
    'IngressDefaultRule',
  ]);
});

test(
  '--packet checks the tables with conjunctions that ofproto/trace of a real Open vSwitch passes through',
  skipUnlessOvs,
  async () => {
    const dump = parseDump(readFileSync(EXAMPLE_DUMP, 'utf8') + readFileSync(EXAMPLE_PORTS, 'utf8'), {
      file: 'example',
    });
    const pipeline = new Pipeline(dump.flows, dump.groups, dump.ports);
    const tracer = new Tracer(pipeline);
    const report = findConjunctions(pipeline);
    const conjTables = new Set(report.conjunctions.map((c) => (c.table.kind === 'number' ? c.table.number : -1)));
    await withOvsSwitch(ANTREA.bridge, async (sw) => {
      await sw.addFlows(readFileSync(exampleFile(ANTREA, 'flows.txt'), 'utf8'), ANTREA.loadVersion);
      const packets = [
        TUNNEL_TO_POD,
        'in_port=3,tcp,dl_src=12:9e:a6:47:d0:70,nw_src=10.10.0.2,nw_dst=10.10.1.7,nw_ttl=64,tp_dst=80',
        'in_port=2,udp,dl_dst=ba:a8:13:ca:ed:cf,nw_src=10.10.0.1,nw_dst=10.10.0.3,nw_ttl=64,udp_dst=53',
        // No port: the classifier table drops it before any policy table.
        'tcp,nw_src=10.10.1.2,nw_dst=10.10.1.9,tp_dst=80',
      ];
      for (const text of packets) {
        const spec = parsePacketSpec(text, tracer.ports.forPackets);
        assert.ok(spec.ok, text);
        const scope = conjunctionScope(tracer, report, spec.packet);
        const ovs = parseOfprotoTrace(await sw.trace(text), Number(/in_port=(\d+)/.exec(text)?.[1] ?? 0));
        const reached = [
          ...new Set(ovs.passes.flatMap((p) => p.steps.map((s) => s.table)).filter((t) => conjTables.has(t))),
        ];
        assert.equal(scope.traced, reached.length > 0, text);
        if (reached.length > 0)
          assert.deepEqual(
            scope.tables.map((t) => (t.kind === 'number' ? t.number : -1)),
            reached,
            text,
          );
      }
    });
  },
);

test('conj speaks the profile: a port register as the Pods on those ports, the table by its name', async () => {
  const r = await runCli(['conj', EXAMPLE_DUMP, '--ports', EXAMPLE_PORTS, '3']);
  assert.equal(r.status, 0, r.stderr);
  // reg1 is TargetOFPort in the Antrea pipeline; ports 3 and 4 are the coredns Pods of show.of13.txt.
  assert.match(r.stdout, /^conjunction 3 {2}table 90 IngressRuleTable {2}priority 200 {2}3 dimensions$/m);
  assert.match(
    r.stdout,
    /^ {2}and {2}2: TargetOFPort ∈ \{local Pod coredns5-8ec607 \(port 3\), local Pod coredns5-9d9530 \(port 4\)\} \(ip\) {2}\[2 flows\]$/m,
  );
  assert.match(
    r.stdout,
    /^ {2}then set IngressConjID = 3, commit the connection to conntrack in zone 65520 \(CtZone\), setting IngressRuleCTLabel = 3, then continue in IngressMetricTable$/m,
  );

  const json = JSON.parse((await runCli(['conj', EXAMPLE_DUMP, '--ports', EXAMPLE_PORTS, '3', '--json'])).stdout) as {
    profile: { id: string; release: string };
    conjunctions: {
      tableName: string;
      dimensions: { terms: { field?: string; members?: string[]; fieldName?: string; memberWords?: string[] }[] }[];
      actionFlows: { description: string; meaning?: string }[];
    }[];
  };
  assert.deepEqual([json.profile.id, json.profile.release], ['antrea-v1', '0.13']);
  const [c] = json.conjunctions;
  assert.equal(c!.tableName, 'IngressRuleTable');
  assert.deepEqual(c!.dimensions[1]!.terms[0], {
    kind: 'set',
    field: 'reg1',
    members: ['0x3', '0x4'],
    fieldName: 'TargetOFPort',
    memberWords: ['local Pod coredns5-8ec607 (port 3)', 'local Pod coredns5-9d9530 (port 4)'],
    qualifier: 'ip',
    text: 'TargetOFPort ∈ {local Pod coredns5-8ec607 (port 3), local Pod coredns5-9d9530 (port 4)} (ip)  [2 flows]',
  });
  assert.match(c!.actionFlows[0]!.meaning ?? '', /^Rule 3 allows the packet/);

  // The generic profile names nothing: the register and its values as OVS prints them.
  const plain = await runCli(['conj', EXAMPLE_DUMP, '--ports', EXAMPLE_PORTS, '3', '--profile', 'generic']);
  assert.match(plain.stdout, /^ {2}and {2}2: reg1 ∈ \{0x3, 0x4\} \(ip\)/m);
  const wrong = await runCli(['conj', EXAMPLE_DUMP, '--profile', 'nope']);
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /unknown profile nope/);
});
