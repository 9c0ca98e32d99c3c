/**
 * The annotation engine on real listings. The golden files were produced by the engine and then
 * read line by line against the documents the listings come from (the Antrea OVS pipeline
 * design document for examples/antrea, the flexible-pipeline document for the HEAD listing);
 * wrong sentences were fixed in the engine or the profile before the goldens were kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDump } from '../bench/generate.ts';
import { type Flow, withActions } from '../src/model/flow.ts';
import { type AnnotateOptions, Annotator, type FlowAnnotation } from '../src/analysis/annotate/annotate.ts';
import { PLAIN_WORDING } from '../src/analysis/annotate/wording.ts';
import { describeAction, describeCtState, describeMatch, flowWords, WordsMemo } from '../src/render/words/flow.ts';
import { explanationJson, explanationText } from '../src/render/words/explanation.ts';
import { addressLabelText } from '../src/render/words/address.ts';
import { subfieldWords, zoneWords } from '../src/render/words/names.ts';
import { fieldByName } from '../src/model/fields.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import { profileById } from '../src/profiles/index.ts';
import { type ParseResult, parseDump } from '../src/syntax/reader.ts';
import { assertGolden } from './support/golden.ts';
import { corpusDir, repoRoot } from './support/paths.ts';

function load(path: string, portsFile?: string): Pipeline {
  const portMap = portsFile ? parseDump(readFileSync(portsFile, 'utf8'), { file: portsFile }).ports : undefined;
  const d = parseDump(readFileSync(path, 'utf8'), { file: path, ...(portMap ? { portMap } : {}) });
  return new Pipeline(d.flows, d.groups, d.ports);
}

function annotateAll(p: Pipeline, options: AnnotateOptions): FlowAnnotation[] {
  return new Annotator(p, options).annotatePipeline(p).flatMap((t) => t.flows);
}

const sentence = (a: FlowAnnotation): string => flowWords(a.flow, a.wording).sentence;

/** One block per flow: the line without statistics, the profile's sentence, the generic one. */
function goldenText(flows: readonly FlowAnnotation[]): string {
  return flows
    .map((a) => {
      const line = a.flow.origin.text
        .trim()
        .replace(/^cookie=[^,]*, duration=[^,]*, /, '')
        .replace(/n_packets=\d+, n_bytes=\d+, /, '');
      const e = a.explanation;
      const meaning = e === undefined ? '-' : e.kind === 'unknown' ? `? ${explanationText(e)}` : explanationText(e);
      return `${line}\n  = ${meaning}\n  : ${sentence(a)}\n`;
    })
    .join('');
}

const antrea = join(repoRoot, 'examples', 'antrea');
const v1 = { profile: profileById('antrea-v1')!, release: '0.13' };

test('examples/antrea (design document tables 0–110): the classifier, spoof guard, conntrack state, DNAT, forwarding and output tables', () => {
  const p = load(join(antrea, 'dump-flows.of13.txt'), join(antrea, 'show.of13.txt'));
  const wanted = new Set([0, 10, 31, 40, 70, 80, 110]);
  const flows = annotateAll(p, v1).filter((a) => a.table.number !== undefined && wanted.has(a.table.number));
  assert.equal(flows.length, 29);
  assertGolden('annotate-antrea-v1.txt', goldenText(flows));
});

test('examples/antrea: every one of the 86 flows is explained by antrea-v1 0.13, whatever the dump format', () => {
  for (const file of ['dump-flows.of10.txt', 'dump-flows.of13.names.txt', 'dump-flows.of15.names.no-stats.txt']) {
    const flows = annotateAll(load(join(antrea, file)), v1);
    assert.equal(flows.length, 86, file);
    assert.deepEqual(
      flows.filter((a) => a.explanation?.kind === 'unknown').map((a) => a.flow.origin.text),
      [],
      file,
    );
  }
});

test('the flexible pipeline listing (release 2.5, whose ConntrackCommit flow it shows): classifier, L3 forwarding and Service load-balancing', () => {
  const p = load(join(corpusDir, 'antrea-ovs-pipeline-doc-HEAD.flows.txt'));
  const all = annotateAll(p, { profile: profileById('antrea')!, release: '2.5' });
  assert.deepEqual(
    all.filter((a) => a.explanation?.kind === 'unknown').map((a) => a.flow.origin.text),
    [],
  );
  const flows = all.filter((a) => ['Classifier', 'L3Forwarding', 'ServiceLB'].includes(a.table.name ?? ''));
  assert.equal(flows.length, 30);
  assertGolden('annotate-antrea-flexible.txt', goldenText(flows));
});

test('addresses get the roles the dump shows them to have', () => {
  const p = load(join(corpusDir, 'antrea-ovs-pipeline-doc-HEAD.flows.txt'));
  const a = new Annotator(p, { profile: profileById('antrea')!, release: '1.14' });
  const tags = new Map(a.addresses.list().map((e) => [`${e.family}:${e.value.toString(16)}/${e.prefix}`, e]));
  // antrea-gw0 sends ARP from 10.10.0.1 (ARPSpoofGuard) and IP from it (Classifier).
  assert.equal(tags.get('ipv4:a0a0001/32')?.role, 'gateway');
  assert.deepEqual(tags.get('ipv4:a0a0018/32')?.label, {
    kind: 'port',
    role: 'local-pod',
    port: { name: 'web-7975-274540' },
  });
  assert.equal(addressLabelText(tags.get('ipv4:a0a0018/32')!.label), 'local Pod web-7975-274540');
  // L3Forwarding tunnels 10.10.1.0/24 to 192.168.77.103.
  assert.equal(tags.get('ipv4:a0a0100/24')?.role, 'peer-node-subnet');
  assert.equal(tags.get('ipv4:a0a0100/24')?.label.via, '192.168.77.103');
  assert.equal(addressLabelText(tags.get('ipv4:a0a0100/24')!.label), 'peer Node subnet via 192.168.77.103');
  assert.equal(tags.get('ipv4:c0a84d67/32')?.role, 'peer-node');
  // 10.10.0.0/24 holds the local Pods and is as long as the peer Node's subnet.
  assert.equal(tags.get('ipv4:a0a0000/24')?.role, 'local-pod-subnet');
  // ServiceLB hands 10.96.76.15:80 to group 11.
  assert.equal(tags.get('ipv4:a604c0f/32')?.role, 'service');
  // The profile's constants.
  assert.equal(addressLabelText(tags.get('ipv4:a9fe00fd/32')!.label), 'virtual Service IP');
  assert.equal(tags.get('mac:aabbccddeeff/48')?.role, 'virtual-mac');
});

/** The bench's dump of 3000 flows (seed 7), read lazily as a large dump is. */
function generatedDump(): ParseResult {
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-annotate-'));
  try {
    const path = join(dir, 'dump.txt');
    writeDump(path, { flows: 3000, seed: 7 });
    return parseDump(readFileSync(path, 'utf8'), { file: path });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('addresses learnt from lazily read flows are those learnt from the same flows read whole', () => {
  const d = generatedDump();
  assert.ok(d.flows.filter((f) => f.outline !== undefined).length > 1000);
  const book = (flows: readonly Flow[]): string[] =>
    new Annotator(new Pipeline(flows, d.groups, d.ports), { profile: profileById('antrea')! }).addresses
      .list()
      .map((e) => `${e.family}:${e.value.toString(16)}/${e.prefix} ${e.role} ${JSON.stringify(e.label)}`);
  const lazy = book(d.flows);
  assert.deepEqual(lazy, book(d.flows.map((f) => withActions(f, f.actions))));
  for (const role of ['gateway', 'peer-node', 'peer-node-subnet', 'local-pod-subnet', 'service'])
    assert.ok(
      lazy.some((e) => e.includes(` ${role} `)),
      role,
    );
});

test('a flow of several conjunctions is told in its pattern’s sentence filled with its own clauses', () => {
  const d = generatedDump();
  const a = new Annotator(new Pipeline(d.flows, d.groups, d.ports), { profile: profileById('antrea')! });
  const several = d.flows.filter((f) => f.actions.length > 1 && f.actions.every((x) => x.kind === 'conjunction'));
  assert.ok(several.length > 100);
  for (const f of several) {
    const e = a.explanationOf(f);
    assert.equal(e?.kind, 'pattern');
    if (e?.kind !== 'pattern') continue;
    const clauses = f.actions.flatMap((x) =>
      x.kind === 'conjunction' ? [{ clause: x.clause, of: x.nClauses, id: x.id }] : [],
    );
    assert.deepEqual(e.fills.get('conjunction'), { kind: 'clauses', clauses });
    // Said as the sentence of any explanation with these fills is said.
    const { kind, index, match, template, fills, continuesIn } = e;
    assert.equal(explanationText(e), explanationText({ kind, index, match, template, fills, continuesIn }));
    const said = clauses.map((c) => `${c.clause}/${c.of} of conjunction ${c.id}`).join(', ');
    assert.ok(explanationText(e).includes(said), explanationText(e));
  }
});

test('the sentences of lazily read flows, lines of shapes among them, are those of the same flows read whole', () => {
  const d = generatedDump();
  assert.ok(d.flows.filter((f) => f.outlineVarying !== undefined).length > 100);
  const a = new Annotator(new Pipeline(d.flows, d.groups, d.ports), { profile: profileById('antrea')! });
  const memo = new WordsMemo();
  for (const f of d.flows) {
    const { wording } = a.annotate(f);
    assert.equal(memo.sentence(f, wording), flowWords(withActions(f, f.actions), wording).sentence);
  }
});

test('OpenShift SDN real dump: cluster network, local subnet, Service network and peer subnets', () => {
  const p = load(join(corpusDir, 'openshift-sdn-3.x-multitenant-real-dump.txt'));
  const a = new Annotator(p, { profile: profileById('openshift-sdn')!, release: '3' });
  const role = (v: string): string | undefined =>
    a.addresses.list().find((e) => `${e.value.toString(16)}/${e.prefix}` === v)?.role;
  assert.equal(role('a800000/14'), 'cluster-network'); // 10.128.0.0/14 holds the peer subnets
  assert.equal(role('a820000/23'), 'local-pod-subnet'); // 10.130.0.0/23 holds the local gateway
  assert.equal(role('a800000/23'), 'peer-node-subnet'); // tunnelled to 172.17.0.3 in table 90
  assert.equal(role('ac1e0000/16'), 'service-cidr'); // 172.30.0.0/16 goes to the Service table
});

test('registers, marks and labels are read as the profile names them', () => {
  const p = load(join(antrea, 'dump-flows.of13.txt'), join(antrea, 'show.of13.txt'));
  const flows = annotateAll(p, v1);
  const output = flows.find((f) => f.table.number === 110 && f.flow.priority === 200)!;
  // reg0=0x10000/0x10000: reg0[16], the destination MAC is known.
  assert.deepEqual(
    output.state.map((s) => [s.use, s.bits.name, s.bits.value]),
    [['match', 'OFPortFound', 1n]],
  );
  assert.match(sentence(output), /OFPortFound \(the destination MAC is known/);
  const classifier = flows.find((f) => f.table.number === 0 && f.flow.priority === 190)!;
  assert.equal(
    sentence(classifier),
    'arriving on local Pod coredns5-8ec607 (port 3): set PktSource = FromLocal (sent by a local Pod), go to SpoofGuardTable',
  );
  // conj_id=3 in table 90 keeps the rule id in reg6 and in ct_label[0..31].
  const rule = flows.find((f) => f.table.number === 90 && f.flow.priority === 190)!;
  assert.deepEqual(
    rule.state.map((s) => `${s.use} ${s.bits.name}=${s.bits.value}`),
    ['write IngressConjID=3', 'write IngressRuleCTLabel=3'],
  );
});

test('register bits with two readings are read as the table uses them', () => {
  const flows = annotateAll(load(join(corpusDir, 'antrea-ovs-pipeline-doc-HEAD.flows.txt')), {
    profile: profileById('antrea')!,
    release: '2.0',
  });
  const reg3 = (table: string): string[] =>
    flows
      .filter((a) => a.table.name === table && a.state.some((s) => s.bits.field === 'reg3'))
      .map((a) =>
        a.state
          .filter((s) => s.bits.field === 'reg3')
          .map((s) => `${s.use} ${s.bits.name}`)
          .join(' '),
      );
  // The deny rule writes its conj_id, the metric table reads it back; EndpointDNAT reads the selected Endpoint.
  assert.deepEqual(reg3('AntreaPolicyEgressRule'), ['write APConjID']);
  assert.deepEqual(reg3('EgressMetric'), ['match APConjID']);
  assert.deepEqual(reg3('EndpointDNAT'), ['match EndpointIP', 'match EndpointIP']);
  const dnat = flows.find((a) => a.table.name === 'EndpointDNAT' && a.state.some((s) => s.bits.name === 'EndpointIP'))!;
  assert.match(sentence(dnat), /^TCP, EndpointIP = 10\.10\.0\.24, /);
});

test('cookies are split into the profile’s spans', () => {
  const p = load(join(corpusDir, 'antrea-pipeline_test-ipv4-encap.txt'));
  const [first] = annotateAll(p, { profile: profileById('antrea')!, release: '2.7' });
  // 0x1000000000000: round 1, category 0 (Default).
  assert.deepEqual(
    first!.cookie.map((c) => [c.name, c.value]),
    [['Round', 1n]],
  );
});

test('a flow no pattern fits is reported, not guessed', () => {
  const text =
    'table=31, priority=180,ct_state=+rpl+trk,ip actions=goto_table:40\ntable=31, priority=0 actions=goto_table:40\ntable=7, priority=5 actions=drop\n';
  const d = parseDump(text, { file: 'odd.txt' });
  // Pipeline order: table 7 first, then table 31 by descending priority.
  const flows = annotateAll(new Pipeline(d.flows), v1);
  assert.deepEqual(explanationJson(flows[0]!.explanation!), {
    kind: 'unknown',
    reason: 'table 7 is not a table of antrea-v1',
  });
  assert.deepEqual(explanationJson(flows[1]!.explanation!), {
    kind: 'unknown',
    reason: 'no pattern of table ConntrackStateTable fits',
  });
  assert.equal(flows[2]!.explanation?.kind, 'miss');
  // Without a profile nothing is explained, everything is described.
  const plain = annotateAll(new Pipeline(d.flows), {});
  assert.equal(plain[1]!.explanation, undefined);
  assert.equal(sentence(plain[1]!), 'IPv4, a connection (reply direction): go to table 40');
});

test('generic words: connection states, conntrack, protocols and registers', () => {
  const parse = (line: string) => parseDump(line, { file: 'x' }).flows[0]!;
  assert.equal(describeCtState(0x22n, 0x22n), 'an established connection');
  assert.equal(describeCtState(0x20n, 0x21n), 'a connection that is not new');
  assert.equal(describeCtState(0x30n, 0x30n), 'a packet conntrack finds invalid');
  assert.equal(describeCtState(0n, 0x20n), 'not yet tracked by conntrack');
  const f = parse(
    'priority=5,ct_state=+est+trk,tcp,nw_dst=10.0.0.0/8,tp_dst=443,reg0=0x10000/0x10000 actions=ct(commit,zone=65520),output:7',
  );
  assert.deepEqual(describeMatch(f.match, PLAIN_WORDING), [
    'TCP',
    'an established connection',
    'reg0[16] = 1',
    'to 10.0.0.0/8',
    'to TCP port 443',
  ]);
  assert.deepEqual(
    f.actions.map((a) => describeAction(a, PLAIN_WORDING)),
    ['commit the connection to conntrack in zone 65520', 'send it out port 7'],
  );
  const nat = parse(
    'ip actions=ct(commit,table=42,zone=65520,nat(dst=10.96.0.10:53),exec(set_field:0x10/0x10->ct_mark))',
  );
  assert.equal(
    describeAction(nat.actions[0]!, PLAIN_WORDING),
    'commit the connection to conntrack in zone 65520 and destination-NAT to 10.96.0.10 port 53, setting ct_mark[4] = 1, then continue in table 42',
  );
  assert.equal(
    describeAction(parse('actions=move:NXM_OF_ETH_SRC[]->NXM_OF_ETH_DST[]').actions[0]!, PLAIN_WORDING),
    'copy the source MAC into the destination MAC',
  );
  assert.deepEqual(describeMatch(parse('udp,tp_src=0x100/0xff00 actions=drop').match, PLAIN_WORDING), [
    'UDP',
    'from UDP ports 256–511',
  ]);
});

test('a conntrack zone and a subfield come as data with the pipeline’s names for them, said by render/words', () => {
  const p = load(join(corpusDir, 'antrea-ovs-pipeline-doc-v1.0.0.flows.txt'));
  const a = new Annotator(p, { profile: profileById('antrea-proxy')!, release: '1.4' });
  assert.deepEqual(a.wording.zone(65520), { zone: 65520, name: 'CtZone' });
  assert.equal(zoneWords(a.wording.zone(65520)), 'zone 65520 (CtZone)');
  assert.equal(zoneWords(a.wording.zone(7)), 'zone 7');
  const reg1 = { field: fieldByName('reg1')!, start: 0, bits: 32 };
  assert.equal(a.wording.subfield(reg1).name, 'TargetOFPort');
  assert.equal(subfieldWords(a.wording.subfield(reg1)), 'TargetOFPort (reg1)');
  assert.equal(subfieldWords(PLAIN_WORDING.subfield({ ...reg1, start: 4, bits: 4 })), 'reg1[4..7]');
});
