/**
 * `flowscope diff A B --impact` on changes planted in a generated Antrea 2.x pipeline: a removed
 * allow rule, a changed Service Endpoint, a new deny rule. Each change is reported with the probes
 * it affects, and those are the traffic the change is about and nothing else.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { antrea2Groups, antrea2NamedFlows, PODS } from './support/antrea2-pipeline.ts';
import { runCli } from './support/cli.ts';
import { FIELD } from '../src/analysis/trace/packet.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import { profiledTracer } from '../src/analysis/trace/profiled-tracer.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { addressLabelText } from '../src/render/words/address.ts';

const dir = mkdtempSync(join(tmpdir(), 'flowscope-impact-'));
let files = 0;
const file = (text: string): string => {
  const path = join(dir, `dump-${files++}.txt`);
  writeFileSync(path, text);
  return path;
};

const [CLIENT, WEB, DB] = PODS as [(typeof PODS)[0], (typeof PODS)[0], (typeof PODS)[0]];
const flows = antrea2NamedFlows();
const groups = antrea2Groups();
const before = flows + groups;

/** The Application-tier rule that lets the client reach the web Pod on TCP 80 (conjunction 6), gone. */
const allowRemoved =
  flows
    .split('\n')
    .filter((l) => !/conjunction\(6,|conj_id=6,/.test(l))
    .join('\n') + groups;
/** The Service 10.101.255.29:80's remote Endpoint 10.10.1.6 replaced by 10.10.1.8: its bucket and its DNAT flow. */
const endpointGroups = groups.replace('set_field:0xa0a0106->reg3', 'set_field:0xa0a0108->reg3');
const endpointFlows = flows.replace(
  'reg3=0xa0a0106,reg4=0x20050/0x7ffff actions=ct(commit,table=AntreaPolicyEgressRule,zone=65520,nat(dst=10.10.1.6:80)',
  'reg3=0xa0a0108,reg4=0x20050/0x7ffff actions=ct(commit,table=AntreaPolicyEgressRule,zone=65520,nat(dst=10.10.1.8:80)',
);
/** A new Emergency-tier rule dropping what the client sends the db Pod, with its metric flow. */
const denyAdded = [
  flows.trimEnd(),
  `table=AntreaPolicyIngressRule,priority=64790,ip,nw_src=${CLIENT.ip} actions=conjunction(41,1/2)`,
  `table=AntreaPolicyIngressRule,priority=64790,reg1=0x${DB.port.toString(16)} actions=conjunction(41,2/2)`,
  'table=AntreaPolicyIngressRule,priority=64790,conj_id=41 actions=set_field:0x29->reg3,set_field:0x400/0x400->reg0,goto_table:IngressMetric',
  'table=IngressMetric,priority=200,reg0=0x400/0x400,reg3=0x29 actions=drop',
  groups,
].join('\n');

interface ProbeJson {
  packet: string;
  buckets: Record<string, number>;
  traffic: string;
  effect: 'verdict' | 'output' | 'path' | 'drop-moved' | 'none';
  summary: string;
  before: { verdict: string; outputs: unknown[]; path: { table: string }[] };
  after: { verdict: string; outputs: unknown[]; path: { table: string }[] };
  divergence: { before: { table: string } | null; after: { table: string } | null } | null;
}
interface ImpactJson {
  schemaVersion: number;
  maxProbes: number;
  probesTried: number;
  affected: number;
  changes: { kind: string; change: string; screened: number; tried: number; affected: number; probes: ProbeJson[] }[];
}

async function impact(after: string, extra: readonly string[] = []): Promise<ImpactJson> {
  assert.notEqual(after, before, 'the plant changed nothing');
  const run = await runCli(['diff', '--impact', '--json', ...extra, file(before), file(after)]);
  assert.equal(run.status, 1, run.stderr);
  return JSON.parse(run.stdout) as ImpactJson;
}

const field = (packet: string, name: string): string | undefined =>
  new RegExp(`(?:^|,)${name}=([^,]+)`).exec(packet)?.[1];

test("a removed allow rule: the client's TCP 80 to the web Pod, allowed by conjunction 6, is now dropped", async () => {
  const j = await impact(allowRemoved);
  assert.equal(j.changes.length, 4);
  assert.ok(j.changes.every((c) => c.kind === 'removed' && /conjunction\(6,|conj_id=6/.test(c.change)));
  for (const c of j.changes) {
    assert.ok(c.affected > 0, c.change);
    assert.ok(c.tried <= j.maxProbes);
    for (const p of c.probes) {
      // Every probe is the rule's traffic: from the client's address to the web Pod on TCP 80.
      assert.equal(field(p.packet, 'nw_src'), CLIENT.ip, p.packet);
      assert.equal(field(p.packet, 'nw_dst'), WEB.ip, p.packet);
      assert.equal(field(p.packet, 'tp_dst'), '80', p.packet);
      assert.equal(p.effect, 'verdict');
      assert.equal(p.before.verdict, 'output');
      assert.equal(p.after.verdict, 'drop');
      assert.equal(p.divergence?.before?.table, 'AntreaPolicyIngressRule');
    }
  }
  const text = await runCli(['diff', '--impact', file(before), file(allowRemoved)], { columns: 1000 });
  assert.equal(text.status, 1);
  assert.match(text.stdout, /^Impact of 4 changes: \d+ probes traced through both dumps/);
  assert.match(
    text.stdout,
    /traffic from .*10\.10\.0\.26.* to .*10\.10\.0\.24.* on TCP 80: was matched conjunction 6 in AntreaPolicyIngressRule \(table 24\), then output to ports 4, 40 [^;\n]*; now matched conjunction 4 in AntreaPolicyIngressRule \(table 24\), then dropped in IngressMetric \(table 27\)/,
  );
});

test('a changed Service Endpoint: the traffic to that Service through that bucket, and nothing else', async () => {
  const j = await impact(endpointFlows + endpointGroups);
  assert.deepEqual(j.changes.map((c) => c.kind).sort(), ['added', 'group-changed', 'removed']);
  for (const c of j.changes) {
    assert.ok(c.affected > 0, c.change);
    for (const p of c.probes.filter((x) => x.effect !== 'none')) {
      assert.equal(field(p.packet, 'nw_dst'), '10.101.255.29', p.packet);
      assert.equal(field(p.packet, 'tp_dst'), '80', p.packet);
      assert.deepEqual(p.buckets, { 9: 1 });
      // The paths part where the Endpoint is chosen: the DNAT flow of the old Endpoint against that of the new.
      assert.equal(p.divergence?.before?.table, 'EndpointDNAT');
    }
  }
  // Probes that reach the Endpoint and leave the Node still leave by the tunnel: only the path changed.
  const delivered = j.changes.flatMap((c) => c.probes).filter((p) => p.before.verdict === 'output');
  assert.ok(delivered.length > 0);
  assert.ok(
    delivered.every((p) => p.effect === 'path' && JSON.stringify(p.before.outputs) === JSON.stringify(p.after.outputs)),
  );
});

test('a new deny rule: what the client sends the db Pod, delivered before, is dropped', async () => {
  const j = await impact(denyAdded);
  assert.equal(j.changes.length, 4);
  assert.ok(j.changes.every((c) => c.kind === 'added'));
  for (const c of j.changes) {
    assert.ok(c.affected > 0, c.change);
    for (const p of c.probes) {
      assert.equal(field(p.packet, 'nw_src'), CLIENT.ip, p.packet);
      assert.equal(field(p.packet, 'nw_dst'), DB.ip, p.packet);
      assert.equal(p.effect, 'verdict');
      assert.deepEqual([p.before.verdict, p.after.verdict], ['output', 'drop']);
      assert.equal(p.divergence?.after?.table, 'AntreaPolicyIngressRule');
    }
  }
});

test('--max-probes bounds the probes traced per change; no change, no probe; the options that do not go with --impact', async () => {
  const one = await impact(allowRemoved, ['--max-probes', '1']);
  assert.equal(one.maxProbes, 1);
  assert.ok(one.changes.every((c) => c.tried === 1));
  const same = await runCli(['diff', '--impact', file(before), file(before)]);
  assert.equal(same.status, 0, same.stderr);
  assert.match(same.stdout, /^Impact of 0 changes: 0 probes traced/);
  for (const [args, message] of [
    [['--max-probes', '2'], /--max-probes goes with --impact/],
    [['--impact', '--per-table'], /not both/],
    [['--impact', '-o', 'name'], /-o name does not apply/],
    [['--impact', '--max-probes', '0'], /expected a number of probes/],
  ] as const) {
    const run = await runCli(['diff', ...args, file(before), file(before)]);
    assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
  }
});

test('a rule of plain IP is probed with TCP and with UDP; a probe dropped in both dumps, only by another flow, is no change to traffic', async () => {
  // The new deny rule matches IP from the client to the db Pod, whatever its protocol.
  const deny = await impact(denyAdded);
  const protocols = new Set(
    deny.changes.flatMap((c) => c.probes.map((p) => /^(tcp|udp),/.exec(p.packet)?.[1] ?? p.packet)),
  );
  assert.deepEqual([...protocols].sort(), ['tcp', 'udp']);

  const before =
    'table=0,ip,in_port=1 actions=resubmit(,1)\ntable=1,priority=10,ip,nw_dst=10.0.0.1 actions=drop\ntable=1,priority=0 actions=drop\n';
  const after = before.replace('table=1,priority=10,ip,nw_dst=10.0.0.1 actions=drop\n', '');
  const run = await runCli(['diff', '--impact', '--json', file(before), file(after)]);
  assert.equal(run.status, 1, run.stderr);
  const j = JSON.parse(run.stdout) as ImpactJson & { changes: { dropMoved: number }[] };
  assert.equal(j.changes.length, 1);
  const [c] = j.changes as [(typeof j.changes)[0]];
  assert.equal(c.affected, 0);
  assert.equal(j.affected, 0);
  assert.ok(c.dropMoved >= 2, JSON.stringify(c));
  assert.ok(
    c.probes.every((p) => p.effect === 'drop-moved' && p.before.verdict === 'drop' && p.after.verdict === 'drop'),
  );
  const text = await runCli(['diff', '--impact', file(before), file(after)]);
  assert.match(
    text.stdout,
    /\n {2}\d+ probes traced through both dumps: none affected \(\d+ dropped in both, only by another flow: no change to traffic\)\n/,
  );
});

/** diff --impact --json of two dumps given as text. */
async function impactOf(a: string, b: string): Promise<ImpactJson> {
  const run = await runCli(['diff', '--impact', '--json', file(a), file(b)]);
  assert.equal(run.status, 1, run.stderr);
  return JSON.parse(run.stdout) as ImpactJson;
}

test('a pipeline whose flows match no in_port is probed all the same: its packets enter by a port no flow outputs to', async () => {
  // A route added in the second table of a pipeline with no flow for any port.
  const before = [
    'table=0,priority=10,ip actions=goto_table:1',
    'table=1,priority=100,ip,nw_dst=10.1.0.0/16 actions=output:1',
    'table=1,priority=100,ip,nw_dst=10.2.0.0/16 actions=output:2',
    'table=1,priority=0 actions=drop',
  ].join('\n');
  const after = `${before}\ntable=1,priority=200,ip,nw_dst=10.1.2.0/24 actions=output:3\n`;
  const j = await impactOf(before, after);
  assert.equal(j.changes.length, 1);
  const [c] = j.changes as [(typeof j.changes)[0]];
  assert.ok(c.screened > 0 && c.tried > 0, JSON.stringify(c));
  assert.equal(c.affected, c.tried);
  for (const p of c.probes) {
    // Ports 1 to 3 take the routes' outputs: the probe comes in by 4.
    assert.equal(field(p.packet, 'in_port'), '4', p.packet);
    assert.equal(field(p.packet, 'nw_dst'), '10.1.2.1', p.packet);
    assert.equal(p.effect, 'output');
    assert.deepEqual([p.before.outputs, p.after.outputs], [[1], [3]]);
  }
});

test('an IPv6 probe is sent to the MAC address of its destination, as an IPv4 probe is', async () => {
  // Two Pods behind a spoof guard; the second table routes by address, the third switches by MAC.
  const pipeline = (v6: boolean, routed: string): string => {
    const [type, src, dst] = v6 ? ['ipv6', 'ipv6_src', 'ipv6_dst'] : ['ip', 'nw_src', 'nw_dst'];
    const address = (n: number): string => (v6 ? `fd00::${n}` : `10.0.0.${n}`);
    return [
      ...[3, 4].map(
        (n) =>
          `table=0,priority=200,${type},in_port=${n},dl_src=0a:00:00:00:00:0${n},${src}=${address(n)} actions=goto_table:1`,
      ),
      'table=0,priority=0 actions=drop',
      `table=1,priority=200,${type},${dst}=${address(4)} actions=${routed}`,
      'table=1,priority=0 actions=drop',
      ...[3, 4].map((n) => `table=2,priority=200,dl_dst=0a:00:00:00:00:0${n} actions=output:${n}`),
      'table=2,priority=0 actions=drop',
    ].join('\n');
  };
  for (const v6 of [false, true]) {
    // The route to the second Pod, now dropped: what the first Pod sends it was delivered.
    const j = await impactOf(pipeline(v6, 'goto_table:2'), pipeline(v6, 'drop'));
    assert.equal(j.changes.length, 1);
    const [c] = j.changes as [(typeof j.changes)[0]];
    // Each probe is sent to the second Pod's MAC: from the first Pod it was delivered (from the
    // second itself, it went back to its own port, which OVS skips).
    assert.ok(c.affected > 0, JSON.stringify(c));
    for (const p of c.probes) {
      assert.equal(field(p.packet, 'dl_dst'), '0a:00:00:00:00:04', p.packet);
      if (field(p.packet, 'in_port') !== '3') continue;
      assert.match(
        p.traffic,
        v6
          ? /^traffic from fd00::3 to fd00::4 on (?:TCP|UDP)$/
          : /^traffic from 10\.0\.0\.3 to 10\.0\.0\.4 on (?:TCP|UDP)$/,
      );
      assert.equal(p.effect, 'verdict');
      assert.deepEqual([p.before.verdict, p.before.outputs, p.after.verdict], ['output', [4], 'drop']);
    }
    assert.equal(c.affected, c.probes.filter((p) => field(p.packet, 'in_port') === '3').length);
  }
});

test('the report names addresses by the profile its traces were read with: one detection per dump, whose annotator profiledTracer gives', async () => {
  const dump = parseDump(before, { file: 'before' });
  const words = profiledTracer(new Pipeline(dump.flows, dump.groups, dump.ports));
  // The annotator that numbered the tracer's named tables is the one that knows whose an address is.
  assert.equal(words.tracer.pipeline.numbering.numberOf('AntreaPolicyIngressRule'), 24);
  assert.equal(words.annotator.tableInfo({ kind: 'name', name: 'AntreaPolicyIngressRule' }).number, 24);
  const client = BigInt(
    `0x${CLIENT.ip
      .split('.')
      .map((b) => Number(b).toString(16).padStart(2, '0'))
      .join('')}`,
  );
  assert.equal(
    addressLabelText(words.annotator.addresses.label(FIELD.ipSrc, client, 0xffffffffn)!),
    'in local Pod subnet 10.10.0.0/24',
  );
  const run = await runCli(['diff', '--impact', '--max-probes', '1', file(before), file(allowRemoved)]);
  assert.equal(run.status, 1, run.stderr);
  assert.match(
    run.stdout,
    /traffic from 10\.10\.0\.26 \(in local Pod subnet 10\.10\.0\.0\/24\) to 10\.10\.0\.24 \(in local Pod subnet 10\.10\.0\.0\/24\) on TCP 80: /,
  );
});
