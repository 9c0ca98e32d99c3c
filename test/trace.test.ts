import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pipeline } from '../src/model/pipeline.ts';
import { fieldByName } from '../src/model/fields.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { parsePacketSpec, type Packet } from '../src/analysis/trace/packet.ts';
import { packetSpecProblemText } from '../src/render/words/packet-spec.ts';
import { type TraceOptions, type TraceResult, Tracer } from '../src/analysis/trace/trace.ts';
import { ANTREA, exampleFile } from './support/make-examples.ts';
import { runCli } from './support/cli.ts';
import { parseCtNext } from '../src/cli/commands/trace.ts';
import { repoRoot } from './support/paths.ts';

function tracerOf(text: string): Tracer {
  const dump = parseDump(text, { file: 'test' });
  assert.equal(dump.badLines, 0, dump.diagnostics.map((d) => d.message).join('\n'));
  return new Tracer(new Pipeline(dump.flows, dump.groups, dump.ports));
}

function packet(spec: string, tracer?: Tracer): Packet {
  const r = parsePacketSpec(spec, tracer?.ports.forPackets);
  assert.ok(r.ok, r.ok ? '' : packetSpecProblemText(r.problem));
  return r.packet;
}

function steps(result: TraceResult): string[] {
  return result.passes.map((p) =>
    p.steps
      .map((s) => `${s.table.kind === 'number' ? s.table.number : s.table.name}:${s.flow?.priority ?? 'miss'}`)
      .join(' '),
  );
}

function run(tracer: Tracer, spec: string, options: TraceOptions = {}): TraceResult {
  return tracer.trace(packet(spec, tracer), options);
}

// ovs-conjunction.md §3: the "conjunctive match priority fallback" table of OVS's classifier
// tests, with the output port OVS 3.1.0 chose for each source/destination pair.
const FALLBACK_FLOWS = `
conj_id=1,ip actions=output:1
conj_id=3,ip actions=output:3
priority=5,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2)
priority=5,ip,nw_src=10.0.0.2 actions=conjunction(1,1/2)
priority=5,ip,nw_dst=10.0.0.1 actions=conjunction(1,2/2)
priority=5,ip,nw_dst=10.0.0.2 actions=conjunction(1,2/2)
priority=5,ip,nw_dst=10.0.0.3 actions=conjunction(1,2/2)
priority=4,ip,nw_src=10.0.0.3,nw_dst=10.0.0.2 actions=output:2
priority=3,ip,nw_src=10.0.0.1 actions=conjunction(3,1/2)
priority=3,ip,nw_src=10.0.0.3 actions=conjunction(3,1/2)
priority=3,ip,nw_dst=10.0.0.2 actions=conjunction(3,2/2)
priority=3,ip,nw_dst=10.0.0.3 actions=conjunction(3,2/2)
priority=3,ip,nw_dst=10.0.0.4 actions=conjunction(3,2/2)
priority=2,ip,nw_dst=10.0.0.1 actions=output:4
priority=1,ip,nw_src=10.0.0.1,nw_dst=10.0.0.5 actions=output:5
priority=0 actions=output:6
`;
const FALLBACK_MATRIX = [
  [6, 4, 6, 6, 6, 6],
  [6, 1, 1, 1, 3, 5],
  [6, 1, 1, 1, 6, 6],
  [6, 4, 2, 3, 3, 6],
];

test('conjunctive matches fall back through priorities as the OVS classifier does', () => {
  const tracer = tracerOf(FALLBACK_FLOWS);
  for (const [src, row] of FALLBACK_MATRIX.entries()) {
    for (const [dst, port] of row.entries()) {
      const r = run(tracer, `in_port=9,ip,nw_src=10.0.0.${src},nw_dst=10.0.0.${dst}`);
      assert.deepEqual(r.outputs, [port], `10.0.0.${src} -> 10.0.0.${dst}`);
    }
  }
});

test('a table first looked up by one packet answers every packet as it answers each alone', () => {
  // A tracer's first lookup in a table files only the flows that packet may hit; the next packet
  // that asks the table otherwise has every flow filed. Each packet here is a fresh tracer's first.
  for (const [src, row] of FALLBACK_MATRIX.entries()) {
    for (const [dst, port] of row.entries()) {
      const r = run(tracerOf(FALLBACK_FLOWS), `in_port=9,ip,nw_src=10.0.0.${src},nw_dst=10.0.0.${dst}`);
      assert.deepEqual(r.outputs, [port], `10.0.0.${src} -> 10.0.0.${dst}`);
    }
  }
  // Within one trace: table 1 is looked up with reg0=0, then again with reg0=2.
  const tracer = tracerOf(
    [
      'table=0,in_port=1 actions=resubmit(,1),load:0x2->NXM_NX_REG0[],resubmit(,1)',
      'table=1,priority=10,reg0=0 actions=load:0x1->NXM_NX_REG1[]',
      'table=1,priority=10,reg0=2 actions=output:3',
      'table=1,priority=5 actions=output:4',
    ].join('\n'),
  );
  const r = run(tracer, 'in_port=1');
  assert.deepEqual(r.outputs, [3]);
  assert.deepEqual(
    r.passes[0]!.steps.map((s) => s.flow?.priority),
    [32768, 10, 10],
  );
});

test('the conj_id lookup takes the best hard flow, and a missing conj_id flow falls back (ovs-conjunction.md T1-T5, T7)', () => {
  const pkt = 'in_port=9,ip,nw_src=10.0.0.1,nw_dst=10.0.0.2';
  const prio = (flows: string): number | undefined => run(tracerOf(flows), pkt).passes[0]!.steps[0]!.flow?.priority;
  const conj1 =
    'priority=100,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2)\npriority=100,ip,nw_dst=10.0.0.2 actions=conjunction(1,2/2)\n';
  const conj2 =
    'priority=80,ip,nw_src=10.0.0.0/24 actions=conjunction(2,1/2)\npriority=80,ip,nw_dst=10.0.0.0/24 actions=conjunction(2,2/2)\npriority=80,conj_id=2,ip actions=output:2\n';
  // T1: no conj_id flow; the conj_id lookup returns the catch-all.
  assert.equal(prio(conj1 + 'priority=0 actions=output:1\n'), 0);
  // T2: the hard p50 flow answers conjunction 1's lookup, so conjunction 2 is never tried.
  assert.equal(prio(conj1 + conj2 + 'priority=50,ip actions=output:5\n'), 50);
  // T2b: without it, conjunction 2 completes at p80.
  assert.equal(prio(conj1 + conj2), 80);
  // T3: the conj_id lookup prefers a higher-priority hard flow.
  assert.equal(prio(conj1 + 'priority=10,conj_id=1,ip actions=output:1\npriority=50,ip actions=output:5\n'), 50);
  // T4: a hard flow at the components' priority wins.
  assert.equal(
    prio(conj1 + 'priority=100,conj_id=1,ip actions=output:1\npriority=100,ip,nw_proto=0 actions=output:4\n'),
    100,
  );
  const t4 = run(
    tracerOf(conj1 + 'priority=100,conj_id=1,ip actions=output:1\npriority=100,ip,nw_proto=0 actions=output:4\n'),
    pkt,
  );
  assert.deepEqual(t4.outputs, [4]);
  // T5: dimension 2 of conjunction 1 misses; the p100 soft match gives way to its identical p90 flow.
  const t5 = `priority=100,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2)
priority=100,ip,nw_dst=10.0.0.99 actions=conjunction(1,2/2)
priority=90,ip,nw_src=10.0.0.1 actions=conjunction(2,1/2)
priority=90,ip,nw_dst=10.0.0.2 actions=conjunction(2,2/2)
priority=90,conj_id=1,ip actions=output:1
priority=90,conj_id=2,ip actions=output:2
`;
  assert.deepEqual(run(tracerOf(t5), pkt).outputs, [2]);
  assert.equal(run(tracerOf(t5), pkt).passes[0]!.steps[0]!.conjunction?.id, 2);
  // T7: mismatched clause counts never complete.
  assert.deepEqual(
    run(
      tracerOf(
        'priority=100,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2)\npriority=100,ip,nw_dst=10.0.0.2 actions=conjunction(1,2/3)\nconj_id=1,ip actions=output:1\npriority=0 actions=drop\n',
      ),
      pkt,
    ).verdict,
    'drop',
  );
});

test('packet specs: friendlier spellings, port names, and errors', () => {
  const tracer = tracerOf(
    readFileSync(exampleFile(ANTREA, 'dump-flows.of13.names.txt'), 'utf8') +
      readFileSync(exampleFile(ANTREA, 'show.of13.txt'), 'utf8'),
  );
  const udp = packet('in_port="antrea-gw0",udp,nw_dst=10.0.0.1,tp_dst=53', tracer);
  assert.equal(udp.get(fieldByName('udp_dst')!), 53n);
  assert.equal(udp.get(fieldByName('in_port')!), 2n);
  // Order does not matter, unlike ofproto/trace.
  assert.equal(packet('tp_dst=53,udp').get(fieldByName('udp_dst')!), 53n);
  assert.equal(packet('ip,ct_state=est|trk').get(fieldByName('ct_state')!), 0x22n);
  const bad = (spec: string, re: RegExp): void => {
    const r = parsePacketSpec(spec, tracer.ports.forPackets);
    const said = r.ok ? 'accepted' : packetSpecProblemText(r.problem);
    assert.ok(!r.ok && re.test(said), `${spec}: ${said}`);
  };
  bad('in_port=1,tp_dst=80', /prerequisites not met for setting tcp_dst/);
  bad('ip,nw_src=10.0.0.0/8', /wildcards not allowed/);
  bad('in_port="no-such-port"', /unknown port name/);
  bad('in_port=1,bogus=3', /bogus: unknown field/);
  bad('ip,nw_ttl=1,nw_ttl=2', /set multiple times/);
});

test('a dump with table names traces the same path as the numbered dump', () => {
  const ports = readFileSync(exampleFile(ANTREA, 'show.of13.txt'), 'utf8');
  const numbered = tracerOf(readFileSync(exampleFile(ANTREA, 'dump-flows.of13.txt'), 'utf8') + ports);
  const named = tracerOf(readFileSync(exampleFile(ANTREA, 'dump-flows.of15.names.no-stats.txt'), 'utf8') + ports);
  const names = ANTREA.bridge.tableNames!;
  const spec = 'in_port=1,tcp,dl_dst=12:9e:a6:47:d0:70,nw_src=10.10.1.7,nw_dst=10.10.0.2,nw_ttl=64,tp_dst=80';
  const a = run(numbered, spec, { ctNext: [0x22n] });
  const b = run(named, spec, { ctNext: [0x22n] });
  // What ofproto/trace printed for this packet on the example bridge (OVS 3.1.0).
  assert.deepEqual(steps(a), ['0:200 30:200', '31:0 40:0 45:64990 61:0 70:0 80:200 90:210 101:0 105:0 110:200']);
  assert.deepEqual(a.outputs, [3]);
  const renamed = steps(a).map((pass) => pass.replace(/(\d+):/g, (_, n: string) => `${names[Number(n)]}:`));
  assert.deepEqual(steps(b), renamed);
  assert.deepEqual(b.outputs, [3]);
});

const EXAMPLE = join(repoRoot, 'examples', 'antrea');

test('flowscope trace prints an ofproto/trace-like report with a verdict', async () => {
  const r = await runCli([
    'trace',
    join(EXAMPLE, 'dump-flows.of13.txt'),
    '--ports',
    join(EXAMPLE, 'show.of13.txt'),
    '--ct-next',
    'trk,est',
    'in_port=1,tcp,dl_dst=12:9e:a6:47:d0:70,nw_src=10.10.1.7,nw_dst=10.10.0.2,nw_ttl=64,tp_dst=80',
  ]);
  assert.equal(r.status, 0, r.stderr);
  // The profile is detected (antrea-v1): tables carry its names beside their numbers.
  assert.match(
    r.stdout,
    /^ 0\. in_port="antrea-tun0", priority 200 {2}\[ClassifierTable\]\n {4}load:0->NXM_NX_REG0\[0\.\.15\]\n {4}goto_table:30\n30\. ip, priority 200 {2}\[ConntrackTable\]\n/m,
  );
  assert.match(r.stdout, /recirc\(0x1\) - resume conntrack with ct_state=est\|trk\n/);
  assert.match(
    r.stdout,
    /\n110\. ip,reg0=0x10000\/0x10000, priority 200 {2}\[L2ForwardingOutTable\]\n {4}output:NXM_NX_REG1\[\]\n {5}-> output port is 3\n/,
  );
  assert.match(
    r.stdout,
    /\nVerdict: output to port 3 \(coredns5-8ec607\) from L2ForwardingOutTable \(table 110\): Packets whose destination was resolved leave on the port in reg1\.\n$/,
  );

  // Spoofed source address: the miss flow of SpoofGuardTable drops it; the table's purpose says why.
  const spoofed = 'in_port=3,tcp,dl_src=12:9e:a6:47:d0:70,nw_src=10.10.0.9,nw_dst=10.10.0.3,tp_dst=80';
  const denied = await runCli(['trace', join(EXAMPLE, 'dump-flows.of13.txt'), spoofed]);
  assert.equal(denied.status, 0, denied.stderr);
  assert.match(denied.stdout, /\n10\. priority 0 {2}\[SpoofGuardTable\]\n {4}drop\n/);
  assert.match(
    denied.stdout,
    /\nSpoofGuardTable \(table 10\): Rejects IP and ARP packets whose source addresses are not those Antrea gave the sending Pod\.\nVerdict: dropped in SpoofGuardTable \(table 10\): Packets no other flow of SpoofGuardTable matches are dropped\.\nNearest flow \(line 11\): priority=200,ip,in_port=3,dl_src=12:9e:a6:47:d0:70,nw_src=10\.10\.0\.2 — the packet has nw_src=10\.10\.0\.9\n$/,
  );
  // The generic profile knows no tables: the plain ofproto/trace layout and verdict.
  const plain = await runCli(['trace', '--profile', 'generic', join(EXAMPLE, 'dump-flows.of13.txt'), spoofed]);
  assert.equal(plain.status, 0, plain.stderr);
  assert.match(plain.stdout, /\n10\. priority 0\n {4}drop\n\nFinal flow: /);
  assert.match(
    plain.stdout,
    /\n\nVerdict: dropped in table 10 by the flow at priority 0 \(any packet\)\nNearest flow \(line 11\): .* — the packet has nw_src=10\.10\.0\.9\n$/,
  );

  const bad = await runCli(['trace', join(EXAMPLE, 'dump-flows.of13.txt'), 'in_port=3,tp_dst=80']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /bad packet: prerequisites not met/);
});

test('flowscope trace: a packet NetworkPolicy isolation drops, said in the words of the pipeline', async () => {
  // From a peer Node to Pod coredns5-8ec607 (port 3), on a port no ingress rule allows.
  const packet =
    'in_port=antrea-tun0,tcp,dl_dst=12:9e:a6:47:d0:70,nw_src=10.10.1.5,nw_dst=10.10.0.2,nw_ttl=64,tp_dst=443';
  const args = ['trace', join(EXAMPLE, 'dump-flows.of13.txt'), '--ports', join(EXAMPLE, 'show.of13.txt'), packet];
  const text = await runCli(args);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /\n100\. ip,reg1=0x3, priority 200 {2}\[IngressDefaultTable\]\n {4}drop\n/);
  assert.match(
    text.stdout,
    /\n\nVerdict: dropped in IngressDefaultTable \(table 100\): The Pod on port coredns5-8ec607 is isolated for ingress: packets no ingress rule allowed are dropped\.\n$/,
  );

  const json = await runCli([...args, '--json']);
  assert.equal(json.status, 0, json.stderr);
  const j = JSON.parse(json.stdout) as {
    verdict: string;
    explanation?: Record<string, unknown>;
    passes: { steps: { table: number; tableName?: string }[] }[];
  };
  assert.equal(j.verdict, 'drop');
  assert.deepEqual(j.explanation, {
    table: 100,
    tableName: 'IngressDefaultTable',
    reason: 'The Pod on port coredns5-8ec607 is isolated for ingress: packets no ingress rule allowed are dropped.',
    source: 'pattern',
    purpose:
      'Drops traffic to Pods isolated by a NetworkPolicy that no ingress rule allowed; also holds baseline-tier rules.',
  });
  const lastStep = j.passes.at(-1)!.steps.at(-1)!;
  assert.deepEqual([lastStep.table, lastStep.tableName], [100, 'IngressDefaultTable']);
  // Dropped by a flow for packets like this one, not by a miss: no flow is named as near.
  assert.equal('nearest' in j, false);
});

test('flowscope trace --json follows the contract', async () => {
  const r = await runCli([
    'trace',
    '--json',
    join(EXAMPLE, 'dump-flows.of13.txt'),
    'in_port=3,arp,dl_src=12:9e:a6:47:d0:70,arp_spa=10.10.0.2,arp_tpa=10.10.1.1,arp_op=1,arp_sha=12:9e:a6:47:d0:70',
  ]);
  assert.equal(r.status, 0, r.stderr);
  const json = JSON.parse(r.stdout) as {
    verdict: string;
    outputs: number[];
    passes: { steps: { table: number; priority: number | null; match: string; actions: string[] }[] }[];
  };
  // The ARP responder answers through IN_PORT: the ingress port.
  assert.equal(json.verdict, 'output');
  assert.deepEqual(json.outputs, [3]);
  assert.equal(json.passes.length, 1);
  assert.deepEqual(
    json.passes[0]!.steps.map((s) => [s.table, s.priority]),
    [
      [0, 190],
      [10, 200],
      [20, 200],
    ],
  );
  assert.equal(json.passes[0]!.steps[2]!.match, 'arp,arp_tpa=10.10.1.1,arp_op=1');
  assert.equal(json.passes[0]!.steps[2]!.actions.at(-1), 'IN_PORT');

  const miss = await runCli(['trace', '--json', '-', 'in_port=1,ip'], {
    stdin: 'table=0,in_port=2 actions=output:1\n',
  });
  assert.equal(miss.status, 0, miss.stderr);
  // The only flow is for another input port: none would take the packet further.
  assert.deepEqual(JSON.parse(miss.stdout), {
    schemaVersion: 1,
    verdict: 'drop',
    verdictText: 'dropped in table 0: no flow matched',
    outputs: [],
    nearest: null,
    passes: [{ recircId: 0, steps: [{ table: 0, priority: null, match: '', actions: [] }], final: 'ip,in_port=1' }],
  });
});

test("flowscope trace: a packet dropped by a table's miss is told the nearest flow of that table and what it lacks for it", async () => {
  const flows = join(repoRoot, 'examples', 'antrea-proxy', 'dump-flows.of13.txt');
  // The Service 10.101.112.140 listens on TCP port 80; this packet asks for 8080.
  const service = 'in_port=18,tcp,dl_src=c2:6f:f8:a0:7e:a1,nw_src=10.10.0.17,nw_dst=10.101.112.140';
  const wanted =
    readFileSync(flows, 'utf8')
      .split('\n')
      .findIndex((l) => / table=41, .*nw_dst=10\.101\.112\.140,tp_dst=80 /.test(l)) + 1;
  assert.ok(wanted > 0);
  const text = await runCli(['trace', flows, `${service},tp_dst=8080`]);
  assert.equal(text.status, 0, text.stderr);
  assert.match(
    text.stdout,
    new RegExp(
      `\\nVerdict: dropped in ServiceLBTable \\(table 41\\): no flow matched\\nNearest flow \\(line ${wanted}\\): priority=200,tcp,reg4=0x10000/0x70000,nw_dst=10\\.101\\.112\\.140,tp_dst=80 — the packet has tp_dst=8080\\n$`,
    ),
  );
  type Nearest = {
    flow: { table: number; priority: number; source: { line: number } };
    differs: { field: string; wanted: string; has: string | null }[];
  };
  type Traced = {
    verdict: string;
    explanation?: unknown;
    nearest?: Nearest | null;
    passes: { steps: { table: number; priority: number | null }[] }[];
  };
  const json = async (packet: string, file = flows): Promise<Traced> => {
    const r = await runCli(['trace', '--json', file, packet]);
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as Traced;
  };
  const missed = await json(`${service},tp_dst=8080`);
  assert.equal(missed.verdict, 'drop');
  assert.ok(missed.explanation, 'the explanation stays beside the nearest flow');
  assert.deepEqual(
    [missed.nearest?.flow.table, missed.nearest?.flow.priority, missed.nearest?.flow.source.line],
    [41, 200, wanted],
  );
  assert.deepEqual(missed.nearest?.differs, [{ field: 'tcp_dst', wanted: '80', has: '8080' }]);
  // With what it lacked, the packet takes that flow (and is dropped further on, for the group the
  // dump of flows alone lacks: no miss, so nothing is near).
  const taken = await json(`${service},tp_dst=80`);
  assert.equal(taken.passes.at(-1)!.steps.find((step) => step.table === 41)?.priority, 200);
  assert.equal('nearest' in taken, false);

  // A miss flow that drops every packet is a miss too; a field the packet does not give is named, not valued.
  const antrea = join(EXAMPLE, 'dump-flows.of13.txt');
  const spoofed = await runCli(['trace', antrea, 'in_port=3,ip,nw_src=10.10.1.6']);
  assert.match(
    spoofed.stdout,
    /\nNearest flow \(line 11\): priority=200,ip,in_port=3,dl_src=12:9e:a6:47:d0:70,nw_src=10\.10\.0\.2 — the packet has nw_src=10\.10\.1\.6 and gives no dl_src\n$/,
  );
  assert.deepEqual((await json('in_port=3,ip,nw_src=10.10.1.6', antrea)).nearest?.differs, [
    { field: 'eth_src', wanted: '12:9e:a6:47:d0:70', has: null },
    { field: 'ip_src', wanted: '10.10.0.2', has: '10.10.1.6' },
  ]);
  // ARP fields under their ARP names.
  assert.match(
    (await runCli(['trace', antrea, 'in_port=3,arp'])).stdout,
    /\nNearest flow \(line 9\): priority=200,arp,in_port=3,arp_spa=10\.10\.0\.2,arp_sha=12:9e:a6:47:d0:70 — the packet gives no arp_spa, arp_sha\n$/,
  );
  // No flow of ClassifierTable is for port 9: none is near, and the verdict says so.
  assert.match(
    (await runCli(['trace', antrea, 'in_port=9,ip'])).stdout,
    /\nVerdict: dropped in ClassifierTable \(table 0\): .*\nNo flow there would take a packet of its input port and protocol further\.\n$/,
  );
  assert.equal((await json('in_port=9,ip', antrea)).nearest, null);
});

test('flowscope trace --batch answers one JSON line per packet, in order', async () => {
  const lines = [
    {
      packet: 'in_port=1,tcp,dl_dst=12:9e:a6:47:d0:70,nw_src=10.10.1.7,nw_dst=10.10.0.2,nw_ttl=64,tp_dst=80',
      ctNext: ['trk,est'],
    },
    { packet: 'in_port=3,tcp,dl_src=12:9e:a6:47:d0:70,nw_src=10.10.0.9,nw_dst=10.10.0.3,tp_dst=80' },
    { packet: 'in_port=3,tp_dst=80' },
    { packet: 'in_port=3,arp,arp_spa=10.10.0.2,arp_tpa=10.10.0.1,arp_op=1,arp_sha=12:9e:a6:47:d0:70' },
  ];
  const r = await runCli(['trace', join(EXAMPLE, 'dump-flows.of13.txt'), '--batch', '-'], {
    stdin: lines.map((l) => JSON.stringify(l)).join('\n') + '\n',
  });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /1 batch line could not be traced/);
  const out = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { verdict?: string; outputs?: number[]; error?: string });
  assert.equal(out.length, 4);
  assert.deepEqual([out[0]!.verdict, out[0]!.outputs], ['output', [3]]);
  assert.equal(out[1]!.verdict, 'drop');
  assert.match(out[2]!.error ?? '', /^line 3: bad packet/);
  assert.equal(out[3]!.verdict, 'normal');
});

test('flowscope trace --batch: --ct-next on the command line stands for lines that do not set their own', async () => {
  const packet = 'in_port=1,tcp,dl_dst=12:9e:a6:47:d0:70,nw_src=10.10.1.7,nw_dst=10.10.0.2,nw_ttl=64,tp_dst=80';
  const stdin = [{ packet }, { packet, ctNext: ['trk,new'] }].map((l) => JSON.stringify(l)).join('\n') + '\n';
  const r = await runCli(['trace', join(EXAMPLE, 'dump-flows.of13.txt'), '--batch', '-', '--ct-next', 'trk,inv'], {
    stdin,
  });
  assert.equal(r.status, 0, r.stderr);
  const out = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { verdict: string; explanation?: { tableName?: string } });
  // The first line takes the command line's invalid state, which conntrack's table drops; the second keeps its own.
  assert.deepEqual(
    out.map((o) => [o.verdict, o.explanation?.tableName]),
    [
      ['drop', 'ConntrackStateTable'],
      ['drop', 'IngressDefaultTable'],
    ],
  );
});

test('flowscope trace --batch: a batch without packets is refused, named; comments are skipped, their lines counted', async () => {
  const flows = join(EXAMPLE, 'dump-flows.of13.txt');
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-batch-'));
  try {
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    const comments = join(dir, 'comments.jsonl');
    writeFileSync(comments, '# packets of node-a\n\n  # none yet\n');
    for (const [args, stdin, message] of [
      [['--batch', empty], '', `flowscope: error: ${empty} is empty: no packets to trace (--batch)\n`],
      [['--batch', comments], '', `flowscope: error: ${comments} holds only comments: no packets to trace (--batch)\n`],
      [
        ['--batch', '-'],
        '\n',
        'flowscope: error: nothing came in on standard input (did the command before the pipe fail?): no packets to trace (--batch)\n',
      ],
    ] as const) {
      const r = await runCli(['trace', flows, ...args], { stdin });
      assert.equal(r.status, 2, args.join(' '));
      assert.equal(r.stdout, '', args.join(' '));
      assert.equal(r.stderr, message);
    }
    const stdin = '# one packet\n{"packet":"in_port=3,ip"}\n# then a bad one\n{"packet":3}\n';
    const r = await runCli(['trace', flows, '--batch', '-'], { stdin });
    assert.equal(r.status, 2);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { verdict?: string; error?: string });
    assert.deepEqual(
      [out.length, typeof out[0]!.verdict, out[1]!.error],
      [2, 'string', 'line 4: "packet" must be a string'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--ct-next takes blanks around its separators, in trace, graph and a batch line', async () => {
  const flows = join(EXAMPLE, 'dump-flows.of13.txt');
  const ports = join(EXAMPLE, 'show.of13.txt');
  const packet = 'in_port=1,tcp,dl_dst=12:9e:a6:47:d0:70,nw_src=10.10.1.7,nw_dst=10.10.0.2,nw_ttl=64,tp_dst=80';
  assert.equal(parseCtNext(' trk, est '), parseCtNext('trk,est'));
  assert.equal(parseCtNext('est | trk'), parseCtNext('trk,est'));
  assert.equal(parseCtNext('+trk +est'), parseCtNext('trk,est'));
  const plain = await runCli(['trace', flows, '--ports', ports, '--ct-next', 'trk,est', packet]);
  assert.equal(plain.status, 0, plain.stderr);
  assert.match(plain.stdout, /resume conntrack with ct_state=est\|trk\n/);
  const spaced = await runCli(['trace', flows, '--ports', ports, '--ct-next', 'trk, est', packet]);
  assert.deepEqual([spaced.status, spaced.stderr, spaced.stdout], [0, '', plain.stdout]);
  const graph = await runCli(['graph', '--packet', packet, '--ct-next', 'trk,est', flows]);
  assert.equal(graph.status, 0, graph.stderr);
  const graphSpaced = await runCli(['graph', '--packet', packet, '--ct-next', 'est | trk', flows]);
  assert.deepEqual([graphSpaced.status, graphSpaced.stderr, graphSpaced.stdout], [0, '', graph.stdout]);
  const batch = await runCli(['trace', flows, '--batch', '-'], {
    stdin:
      [JSON.stringify({ packet, ctNext: ['trk,inv'] }), JSON.stringify({ packet, ctNext: ['trk , inv'] })].join('\n') +
      '\n',
  });
  assert.equal(batch.status, 0, batch.stderr);
  const [first, second] = batch.stdout.trim().split('\n');
  // The same result, each with the line its packet came on.
  assert.equal(second, first!.replace('{"line":1,', '{"line":2,'));
  assert.equal((JSON.parse(first!) as { verdict: string }).verdict, 'drop');
  const unknown = await runCli(['trace', flows, '--ct-next', 'trk, bogus', packet]);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /bogus: unknown ct_state flag/);
});

test('--ct-next without a flag is refused with the forms it takes, by trace, graph and a batch line', async () => {
  const flows = join(EXAMPLE, 'dump-flows.of13.txt');
  const forms =
    'expected one or more ct_state flags, as trk,est or est|trk or +trk+est (flags: new, est, rel, rpl, inv, trk, snat, dnat)';
  for (const args of [
    ['trace', '--ct-next', '', flows, 'in_port=3,ip'],
    ['trace', '--ct-next', ',', flows, 'in_port=3,ip'],
    ['trace', '--ct-next', ' , ', flows, 'in_port=3,ip'],
    ['graph', '--packet', 'in_port=3,ip', '--ct-next', '', flows],
  ]) {
    const r = await runCli(args);
    assert.equal(r.status, 2, args.join(' '));
    assert.equal(r.stdout, '', args.join(' '));
    assert.ok(r.stderr.includes(forms), r.stderr);
  }
  const batch = await runCli(['trace', flows, '--batch', '-'], { stdin: '{"packet":"in_port=3,ip","ctNext":[""]}\n' });
  assert.equal(batch.status, 2);
  assert.deepEqual(JSON.parse(batch.stdout), { line: 1, error: `line 1: ${forms}` });
});

test('trace: flows listed lowest priority first still match in priority order, equal priorities in the order listed', () => {
  const tracer = tracerOf(
    [
      'table=0,priority=10,ip,nw_dst=10.0.0.1 actions=output:1',
      'table=0,priority=5,ip actions=output:9',
      'table=0,priority=30,ip,nw_dst=10.0.0.1 actions=output:3',
      'table=0,priority=20,ip,nw_dst=10.0.0.1 actions=output:2',
      'table=0,priority=30,ip,nw_dst=10.0.0.1 actions=output:4',
      'table=0,priority=40,ip,nw_dst=10.0.0.2 actions=output:5',
    ].join('\n'),
  );
  const first = run(tracer, 'ip,nw_dst=10.0.0.1,in_port=7');
  assert.deepEqual(steps(first), ['0:30']);
  assert.equal(first.passes[0]!.steps[0]!.flow!.origin.line, 3);
  assert.deepEqual(steps(run(tracer, 'ip,nw_dst=10.0.0.2,in_port=7')), ['0:40']);
  assert.deepEqual(steps(run(tracer, 'ip,nw_dst=10.0.0.3,in_port=7')), ['0:5']);
});

test('flowscope trace: the packet alone reads the flows from standard input; what cannot be read so is refused', async () => {
  const flows = join(EXAMPLE, 'dump-flows.of13.txt');
  const packet =
    'in_port=3,arp,dl_src=12:9e:a6:47:d0:70,arp_spa=10.10.0.2,arp_tpa=10.10.1.1,arp_op=1,arp_sha=12:9e:a6:47:d0:70';
  const fromFile = await runCli(['trace', flows, packet]);
  assert.equal(fromFile.status, 0, fromFile.stderr);
  const piped = await runCli(['trace', packet], { stdin: readFileSync(flows, 'utf8') });
  assert.equal(piped.status, 0, piped.stderr);
  assert.equal(piped.stdout, fromFile.stdout);

  // The flows without a packet, given as a file or as standard input.
  for (const args of [
    ['trace', flows],
    ['trace', '-'],
  ]) {
    const r = await runCli(args, { stdin: '' });
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, /trace needs a packet: give it after the flows/);
  }
  // --batch from standard input while the flows come from there too, with or without `-`.
  for (const args of [
    ['trace', '--batch', '-'],
    ['trace', '--batch', '-', '-'],
  ]) {
    const r = await runCli(args, { stdin: readFileSync(flows, 'utf8') });
    assert.equal(r.status, 2, args.join(' '));
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /the flows and --batch cannot both come from standard input/);
  }
  // A packet among the inputs of --batch.
  const both = await runCli(['trace', '--batch', flows, flows, packet]);
  assert.equal(both.status, 2);
  assert.match(both.stderr, /give either a packet or --batch, not both/);
});

test('flowscope trace: a bucket id is 32 bits', async () => {
  const flows = join(EXAMPLE, 'dump-flows.of13.txt');
  const wide = await runCli(['trace', '--bucket', '100000000000000000000000', flows, 'in_port=3,ip']);
  assert.equal(wide.status, 2);
  assert.match(wide.stderr, /expected a bucket id \(0 to 4294967295\)/);
  assert.equal((await runCli(['trace', '--bucket', '4294967295', flows, 'in_port=3,ip'])).status, 0);
  const batch = await runCli(['trace', flows, '--batch', '-'], { stdin: '{"packet":"in_port=3,ip","bucket":1e23}\n' });
  assert.equal(batch.status, 2);
  assert.match(
    (JSON.parse(batch.stdout) as { error: string }).error,
    /^line 1: "bucket" must be a bucket id \(0 to 4294967295\)/,
  );
});

test('flowscope trace --bucket GROUP:ID gives each select group its bucket; a plain --bucket stays the one for every other', async () => {
  // Two select groups in a row, each bucket marking the packet in its own register.
  const flows = [
    'group_id=1,type=select,bucket=bucket_id:0,actions=set_field:0x10->reg1,resubmit(,1),bucket=bucket_id:1,actions=set_field:0x11->reg1,resubmit(,1)',
    'group_id=2,type=select,bucket=bucket_id:0,actions=set_field:0x20->reg2,resubmit(,2),bucket=bucket_id:1,actions=set_field:0x21->reg2,resubmit(,2)',
    'table=0,ip actions=group:1',
    'table=1 actions=group:2',
    'table=2 actions=move:NXM_NX_REG1[0..7]->NXM_NX_REG0[8..15],move:NXM_NX_REG2[0..7]->NXM_NX_REG0[0..7],output:NXM_NX_REG0[]',
  ].join('\n');
  const port = async (...args: string[]): Promise<unknown> => {
    const r = await runCli(['trace', '--json', ...args, '-', 'in_port=9,ip'], { stdin: flows });
    assert.equal(r.status, 0, r.stderr);
    return (JSON.parse(r.stdout) as { outputs: number[] }).outputs;
  };
  // The port number is the two buckets' marks side by side.
  assert.deepEqual(await port('--bucket', '1:1', '--bucket', '2:0'), [0x1120]);
  assert.deepEqual(await port('--bucket', '2:1', '--bucket', '1'), [0x1121]);
  assert.deepEqual(await port('--bucket', '0'), [0x1020]);
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-buckets-'));
  try {
    writeFileSync(join(dir, 'flows.txt'), flows);
    const lines = [
      { packet: 'in_port=9,ip', bucket: { '1': 0, '2': 1 } },
      { packet: 'in_port=9,ip', bucket: 1 },
      { packet: 'in_port=9,ip' },
      { packet: 'in_port=9,ip', bucket: { one: 1 } },
    ];
    const r = await runCli(['trace', join(dir, 'flows.txt'), '--bucket', '2:0', '--bucket', '1:1', '--batch', '-'], {
      stdin: lines.map((l) => JSON.stringify(l)).join('\n') + '\n',
    });
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { outputs?: number[]; error?: string });
    assert.deepEqual(
      out.slice(0, 3).map((o) => o.outputs),
      [[0x1021], [0x1121], [0x1120]],
    );
    assert.match(out[3]!.error ?? '', /^line 4: "bucket" must be .* or an object of group ids to bucket ids/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const [args, message] of [
    [
      ['--bucket', '1', '--bucket', '2'],
      /--bucket without a group is the bucket of every select group, and 1 and 2 were given/,
    ],
    [['--bucket', '1:0', '--bucket', '1:1'], /--bucket names group 1 twice: 1:0, 1:1/],
    [['--bucket', 'a:1'], /expected a bucket id .* or GROUP:ID/],
  ] as const) {
    const r = await runCli(['trace', ...args, '-', 'in_port=9,ip'], { stdin: flows });
    assert.equal(r.status, 2);
    assert.match(r.stderr, message);
  }
});

test('flowscope trace: the verdict names what ended the path when the flows do not: a group the dump lacks, a bucket the group lacks, a loop', async () => {
  const proxy = join(repoRoot, 'examples', 'antrea-proxy');
  const flows = join(proxy, 'dump-flows.of13.txt');
  const groups = ['--groups', join(proxy, 'dump-groups.of13.txt')];
  const packet = 'in_port=18,tcp,dl_src=c2:6f:f8:a0:7e:a1,nw_src=10.10.0.17,nw_dst=10.107.100.231,tp_dst=443';
  const trace = async (...args: string[]): Promise<string> => {
    const r = await runCli(['trace', ...args, flows, packet]);
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  const json = async (
    ...args: string[]
  ): Promise<{ verdict: string; cause?: Record<string, unknown>; problems?: Record<string, unknown>[] }> =>
    JSON.parse(await trace('--json', ...args)) as {
      verdict: string;
      cause?: Record<string, unknown>;
      problems?: Record<string, unknown>[];
    };

  // ServiceLB selects an Endpoint through group 5, which a dump of flows alone does not have.
  assert.match(
    await trace(),
    /\n {5}>> group 5 is not in the dump \(give the groups with --groups: ovs-ofctl dump-groups output\)\n/,
  );
  assert.match(
    await trace(),
    /\n\nVerdict: dropped in ServiceLBTable \(table 41\): group 5 is not in the dump \(give the groups with --groups: ovs-ofctl dump-groups output\)\n$/,
  );
  const missing = await json();
  assert.equal(missing.verdict, 'drop');
  assert.deepEqual(missing.cause, {
    kind: 'missing-group',
    table: 41,
    tableName: 'ServiceLBTable',
    message: 'group 5 is not in the dump (give the groups with --groups: ovs-ofctl dump-groups output)',
    group: 5,
    dumpHasGroups: false,
  });
  assert.deepEqual(missing.problems, [missing.cause]);

  // With the groups, but without the example's DNAT flows for group 5's Endpoints (as the design
  // document lists the tables), EndpointDNAT sends the packet back to ServiceLB, without end.
  const withoutEndpoints = readFileSync(flows, 'utf8')
    .split('\n')
    .filter((l) => !l.includes('reg4=0x223c1/0x7ffff'))
    .join('\n');
  const looping = async (...args: string[]): Promise<string> => {
    const r = await runCli(['trace', ...args, packet], { stdin: withoutEndpoints });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  const looped = await looping(...groups);
  assert.match(
    looped,
    / >>>> over max translation depth 64 <<<<\n >>>> Translation failed \(Recursion too deep\), packet is dropped <<<<\n/,
  );
  assert.match(
    looped,
    /\n\nVerdict: dropped in ServiceLBTable \(table 41\): translation failed, over the maximum depth of 64 nested resubmits and groups; the path goes round ServiceLBTable \(table 41\) → EndpointDNATTable \(table 42\) → ServiceLBTable \(table 41\)\nAlso, in ServiceLBTable \(table 41\): group 5 picks one bucket by a selection method the dump does not show \(OpenFlow 1\.1–1\.4 dumps leave it and the bucket ids out\)/,
  );
  const loop = (JSON.parse(await looping('--json', ...groups)) as { cause: Record<string, unknown> }).cause;
  assert.deepEqual([loop.kind, loop.limit, loop.loop], ['translation-failed', 'depth', [41, 42]]);

  // A bucket the group does not have.
  assert.match(
    await trace(...groups, '--bucket', '7'),
    /\n\nVerdict: dropped in ServiceLBTable \(table 41\): group 5 has no bucket 7 \(its buckets: 0, 1, 2\)\n$/,
  );
  const bucket = (await json(...groups, '--bucket', '7')).cause!;
  assert.deepEqual([bucket.kind, bucket.group, bucket.bucket, bucket.buckets], ['missing-bucket', 5, 7, [0, 1, 2]]);
});

test('trace: a problem the verdict does not name is noted after it', async () => {
  // All of group 1's buckets run: one outputs, one to a port the port list lacks.
  const flows = [
    'table=0,priority=10,ip actions=group:1',
    'group_id=1,type=all,bucket=bucket_id:0,actions=output:2,bucket=bucket_id:1,actions=output:9',
    ' 1(p1): addr:aa:55:aa:55:00:01',
    ' 2(p2): addr:aa:55:aa:55:00:02',
  ].join('\n');
  const r = await runCli(['trace', '--profile', 'generic', '-', 'in_port=1,ip'], { stdin: flows + '\n' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(
    r.stdout,
    /\nVerdict: output to port 2 \(p2\)\nAlso, in table 0: port 9 is not in the dump's port list: nothing is sent\n$/,
  );
});

test('trace: a dump that names its ports without numbers is traced by port name; a packet port number cannot match those names, and the verdict says so', async () => {
  const named = readFileSync(exampleFile(ANTREA, 'dump-flows.of15.names.no-stats.txt'), 'utf8');
  const numbered = tracerOf(
    readFileSync(exampleFile(ANTREA, 'dump-flows.of13.txt'), 'utf8') +
      readFileSync(exampleFile(ANTREA, 'show.of13.txt'), 'utf8'),
  );
  const byName = tracerOf(named);
  assert.equal(byName.pipeline.ports.size, 0);
  const names = ANTREA.bridge.tableNames!;
  const rest = 'tcp,dl_dst=12:9e:a6:47:d0:70,nw_src=10.10.1.7,nw_dst=10.10.0.2,nw_ttl=64,tp_dst=80';
  const a = run(numbered, `in_port=1,${rest}`, { ctNext: [0x22n] });
  const b = run(byName, `in_port=antrea-tun0,${rest}`, { ctNext: [0x22n] });
  assert.deepEqual(
    steps(b),
    steps(a).map((pass) => pass.replace(/(\d+):/g, (_, n: string) => `${names[Number(n)]}:`)),
  );
  assert.deepEqual(b.outputs, [3]);
  assert.deepEqual(b.problems, []);

  // The same port by number: the flows name it, and nothing ties the number to the name.
  const numberOnly = run(byName, `in_port=1,${rest}`);
  assert.deepEqual(steps(numberOnly), ['Classification:0']);
  assert.deepEqual(numberOnly.cause, {
    kind: 'unnumbered-in-ports',
    table: { kind: 'name', name: 'Classification' },
    inPort: 1,
    names: ['antrea-gw0', 'antrea-tun0', 'coredns5-8ec607', 'coredns5-9d9530'],
  });

  const file = exampleFile(ANTREA, 'dump-flows.of13.names.txt');
  const text = await runCli(['trace', file, 'in_port=2,ip']);
  assert.equal(text.status, 0, text.stderr);
  assert.match(
    text.stdout,
    /\nVerdict: dropped in Classification \(table 0\): in_port=2 matches none of the flows that name their in_port \("antrea-gw0", "antrea-tun0", "coredns5-8ec607", …\): the dump gives no numbers for those ports; give them with --ports \(ovs-ofctl show output\), or name the port instead \(in_port="antrea-gw0"\)\n$/,
  );
  const portless = await runCli(['trace', file, 'ip']);
  assert.match(
    portless.stdout,
    /\nVerdict: dropped in Classification \(table 0\): the packet gives no in_port, so it matches none of the flows that name their in_port \("antrea-gw0", "antrea-tun0", "coredns5-8ec607", …\): name the port instead \(in_port="antrea-gw0"\)\n$/,
  );
  const gateway = await runCli(['trace', file, 'in_port=antrea-gw0,ip']);
  assert.equal(gateway.status, 0, gateway.stderr);
  assert.match(
    gateway.stdout,
    /^Flow: ip,in_port="antrea-gw0"\n\nClassification\. in_port="antrea-gw0", priority 200 {2}\[table 0\]\n/,
  );
  // With the port map, the number is the port.
  const mapped = await runCli(['trace', file, '--ports', exampleFile(ANTREA, 'show.of13.txt'), 'in_port=2,ip']);
  assert.equal(mapped.stdout, gateway.stdout);
  const unknown = await runCli(['trace', file, 'in_port=antrea-gw9,ip']);
  assert.equal(unknown.status, 2);
  assert.match(
    unknown.stderr,
    /bad packet: antrea-gw9: unknown port name \(neither the port map nor the flows name it\)/,
  );
});

test('trace: output to a port known only by name leaves by that name', async () => {
  const flows = 'table=0,priority=10,in_port=p1 actions=output:p2\ntable=0,priority=10,in_port=p2 actions=IN_PORT\n';
  const out = await runCli(['trace', '--json', '-', 'in_port=p1'], { stdin: flows });
  assert.equal(out.status, 0, out.stderr);
  assert.deepEqual((JSON.parse(out.stdout) as { outputs: unknown[] }).outputs, ['p2']);
  const back = await runCli(['trace', '-', 'in_port=p2'], { stdin: flows });
  assert.match(back.stdout, /\nVerdict: output to port p2\n$/);
  // A port the port list names is no port known only by name: nothing to say about those.
  const listed =
    'table=0,priority=10,in_port=p1 actions=output:3\ntable=0,priority=5,in_port=3 actions=output:4\n 3(p3): addr:aa:55:aa:55:00:03\n 4(p4): addr:aa:55:aa:55:00:04\n';
  const three = await runCli(['trace', '--json', '-', 'in_port=3'], { stdin: listed });
  assert.equal(three.status, 0, three.stderr);
  assert.deepEqual(JSON.parse(three.stdout), {
    schemaVersion: 1,
    verdict: 'output',
    verdictText: 'output to port 4 (p4)',
    outputs: [4],
    passes: [
      {
        recircId: 0,
        steps: [{ table: 0, priority: 5, match: 'in_port=p3', actions: ['output:4'] }],
        final: 'in_port=p3',
      },
    ],
  });
});

test("trace --json and --batch give the final packet of every pass, as the text's Final flow", async () => {
  const flows = [
    'table=0,ip,in_port=1 actions=set_field:10.9.9.9->ip_dst,push_vlan:0x8100,set_field:4101->vlan_vid,push_vlan:0x8100,ct(table=1)',
    'table=1,ip actions=set_field:0x7->reg3,output:2',
  ].join('\n');
  const packet = 'in_port=1,ip,nw_dst=10.0.0.1';
  const text = (await runCli(['trace', '-', packet], { stdin: flows })).stdout;
  const said = [...text.matchAll(/^Final flow: (.*)$/gm)].map((m) => m[1]);
  const json = JSON.parse((await runCli(['trace', '--json', '-', packet], { stdin: flows })).stdout) as {
    passes: { final: string }[];
  };
  const finals = json.passes.map((p) => p.final);
  assert.deepEqual(finals, said);
  // Both tags are there, the inner one as ofproto/trace names it; the resumed pass adds its write.
  assert.equal(finals[0], 'ip,in_port=1,dl_vlan=0,dl_vlan_pcp=0,nw_dst=10.9.9.9,dl_vlan1=5,dl_vlan_pcp1=0');
  assert.match(finals[1]!, /reg3=0x7/);
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-final-'));
  try {
    writeFileSync(join(dir, 'flows.txt'), flows);
    const batch = await runCli(['trace', join(dir, 'flows.txt'), '--batch', '-'], {
      stdin: JSON.stringify({ packet }) + '\n',
    });
    assert.deepEqual(
      (JSON.parse(batch.stdout) as { passes: { final: string }[] }).passes.map((p) => p.final),
      finals,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
