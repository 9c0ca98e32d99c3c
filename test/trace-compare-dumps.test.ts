/**
 * `flowscope trace A --compare B`: one packet through two dumps of a generated Antrea 2.x node,
 * before and after a route changed; the first lookup where the paths part, and both verdicts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { antrea2Flows, antrea2Groups, antrea2NamedFlows, PODS } from './support/antrea2-pipeline.ts';
import { agentInfo, agentText, tarGz } from './support/bundle.ts';
import { runCli } from './support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'flowscope-compare-'));
const file = (name: string, text: string | Buffer): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const CLIENT = PODS[0]!;
/** The client Pod's packet to a Pod on the other Node, routed through the tunnel. */
const TO_REMOTE = `in_port=${CLIENT.port},tcp,dl_src=${CLIENT.mac},dl_dst=ba:5e:d1:55:aa:c0,nw_src=${CLIENT.ip},nw_dst=10.10.1.9,nw_ttl=64,tp_dst=80`;
/** The db Pod's packet to a Pod on the other Node: the db Pod has no Egress, so without a route it leaves by the gateway. */
const DB = PODS[2]!;
const DB_TO_REMOTE = `in_port=${DB.port},tcp,dl_src=${DB.mac},dl_dst=ba:5e:d1:55:aa:c0,nw_src=${DB.ip},nw_dst=10.10.1.9,nw_ttl=64,tp_dst=80`;
/** The client Pod's packet to the web Pod on its own Node, which no route change touches. */
const TO_LOCAL = `in_port=${CLIENT.port},tcp,dl_src=${CLIENT.mac},dl_dst=${PODS[1]!.mac},nw_src=${CLIENT.ip},nw_dst=${PODS[1]!.ip},nw_ttl=64,tp_dst=80`;

const ROUTE = 'set_field:192.168.77.103->tun_dst';
const before = antrea2NamedFlows() + antrea2Groups();
/** The remote Node moved: its subnet is now tunnelled to another address. */
const moved = before.replace(ROUTE, 'set_field:192.168.77.104->tun_dst');
/** The remote Node's route is gone: its subnet falls to the miss flow of L3Forwarding. */
const unrouted = before
  .split('\n')
  .filter((l) => !(l.includes('table=L3Forwarding,') && l.includes(ROUTE)))
  .join('\n');
assert.notEqual(moved, before);
assert.notEqual(unrouted, before);

interface StepJson {
  table: number | string;
  tableName?: string;
  priority: number | null;
  actions: string[];
}
interface ComparisonJson {
  schemaVersion: number;
  left: { source: string; verdict: string; outputs: unknown[]; passes: { steps: StepJson[] }[] };
  right: { source: string; verdict: string; outputs: unknown[]; passes: { steps: StepJson[] }[] };
  divergence: { pass: number; step: number; left: StepJson | null; right: StepJson | null } | null;
  sameVerdict: boolean;
}

async function compareJson(args: readonly string[]): Promise<{ status: number; json: ComparisonJson }> {
  const run = await runCli(['trace', ...args, '-o', 'json']);
  assert.ok(run.status === 0 || run.status === 1, run.stderr);
  return { status: run.status, json: JSON.parse(run.stdout) as ComparisonJson };
}

test('a changed route: the paths part in L3Forwarding, at the route flow, and both still leave by the tunnel', async () => {
  const a = file('before.txt', before);
  const b = file('moved.txt', moved);
  const { status, json } = await compareJson([a, '--compare', b, TO_REMOTE]);
  assert.equal(status, 1);
  assert.equal(json.schemaVersion, 1);
  assert.ok(json.divergence);
  assert.equal(json.divergence.left?.table, 'L3Forwarding');
  assert.equal(json.divergence.right?.table, 'L3Forwarding');
  assert.ok(
    json.divergence.left.actions.some((x) => x.includes('0xc0a84d67')),
    json.divergence.left.actions.join(','),
  );
  assert.ok(json.divergence.right.actions.some((x) => x.includes('0xc0a84d68')));
  // Every lookup before it is the same on both sides.
  const steps = (side: ComparisonJson['left']): string[] =>
    side.passes.flatMap((p) => p.steps.map((s) => `${String(s.table)}:${s.priority}`));
  const at =
    json.left.passes.slice(0, json.divergence.pass).reduce((n, p) => n + p.steps.length, 0) + json.divergence.step;
  assert.deepEqual(steps(json.left).slice(0, at), steps(json.right).slice(0, at));
  assert.equal(json.sameVerdict, true);
  assert.deepEqual(json.left.outputs, json.right.outputs);

  const text = await runCli(['trace', a, '--compare', b, TO_REMOTE]);
  assert.equal(text.status, 1);
  assert.match(text.stdout, /^≠ L3Forwarding {2}200 +L3Forwarding {2}200$/m);
  assert.match(
    text.stdout,
    /The paths part at lookup \d+ of recirculation 0x1:\n {2}left: {2}L3Forwarding \(table 16\): priority=200,ip,nw_dst=10\.10\.1\.0\/24 /,
  );
  assert.match(text.stdout, /Both end the same way\.$/m);
});

test('a removed route: the paths part in L3Forwarding and the verdicts differ', async () => {
  const { status, json } = await compareJson([
    file('before2.txt', before),
    '--compare',
    file('unrouted.txt', unrouted),
    DB_TO_REMOTE,
  ]);
  assert.equal(status, 1);
  assert.equal(json.divergence?.left?.table, 'L3Forwarding');
  assert.equal(json.divergence?.left?.priority, 200);
  assert.equal(json.divergence?.right?.table, 'L3Forwarding');
  // Without its route the Pod's packet is taken for Egress traffic (priority 190, on to EgressMark), which sends it to the gateway.
  assert.equal(json.divergence?.right?.priority, 190);
  assert.deepEqual([json.left.outputs, json.right.outputs], [[32768], [32769]]);
  assert.equal(json.sameVerdict, false);
});

test('a packet the change does not touch takes the same path: exit 0, no divergence', async () => {
  const { status, json } = await compareJson([
    file('before3.txt', before),
    '--compare',
    file('moved3.txt', moved),
    TO_LOCAL,
  ]);
  assert.equal(status, 0);
  assert.equal(json.divergence, null);
  assert.equal(json.sameVerdict, true);
});

test('a numbered dump against its --names twin in a support bundle: table names and numbers are one, the paths the same', async () => {
  const bundle = file(
    'agent_node-a.tar.gz',
    await tarGz([
      {
        name: 'flows',
        data: agentText(antrea2NamedFlows(antrea2Flows().replace(ROUTE, 'set_field:192.168.77.104->tun_dst'))),
      },
      { name: 'groups', data: agentText(antrea2Groups()) },
      { name: 'agentinfo', data: agentInfo('node-a', {}) },
    ]),
  );
  const numbered = file('numbered.txt', antrea2Flows() + antrea2Groups());
  const same = await compareJson([numbered, '--compare', bundle, '--compare-node', 'node-a', TO_LOCAL]);
  assert.equal(same.status, 0);
  assert.equal(same.json.divergence, null);
  assert.match(same.json.right.source, /agent_node-a\.tar\.gz/);
  const parted = await compareJson([numbered, '--compare', bundle, TO_REMOTE]);
  assert.equal(parted.status, 1);
  assert.equal(parted.json.divergence?.left?.table, 16);
  assert.equal(parted.json.divergence?.right?.table, 'L3Forwarding');
});

test('--compare with --batch: one comparison per line, exit 1 when any differ', async () => {
  const batch = file(
    'batch.jsonl',
    [JSON.stringify({ packet: TO_LOCAL }), JSON.stringify({ packet: TO_REMOTE })].join('\n'),
  );
  const run = await runCli([
    'trace',
    file('before4.txt', before),
    '--compare',
    file('moved4.txt', moved),
    '--batch',
    batch,
  ]);
  assert.equal(run.status, 1, run.stderr);
  const lines = run.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ComparisonJson & { line: number });
  assert.deepEqual(
    lines.map((l) => [l.line, l.divergence === null]),
    [
      [1, true],
      [2, false],
    ],
  );
  assert.match(run.stderr, /2 packets traced, 1 differs between the two dumps/);
});

test("--compare refuses what names a single trace's form, and two standard inputs", async () => {
  const a = file('before5.txt', before);
  for (const [extra, message] of [
    [['--brief'], /--brief does not apply/],
    [['--expect', 'drop'], /--expect does not apply/],
    [['-o', 'name'], /-o name does not apply/],
  ] as const) {
    const run = await runCli(['trace', a, '--compare', a, ...extra, TO_LOCAL]);
    assert.equal(run.status, 2);
    assert.match(run.stderr, message);
  }
  const stdin = await runCli(['trace', '--compare', '-', TO_LOCAL], { stdin: before });
  assert.equal(stdin.status, 2);
  assert.match(stdin.stderr, /--compare and the flows cannot both come from standard input/);
  const node = await runCli(['trace', a, '--compare-node', 'x', TO_LOCAL]);
  assert.equal(node.status, 2);
  assert.match(node.stderr, /--compare-node goes with --compare/);
});

test('--compare-groups gives the compared dump its groups, as --groups gives the first its own', async () => {
  const flows = file('flows-only.txt', antrea2NamedFlows());
  const groups = file('groups-only.txt', antrea2Groups());
  const toService = `in_port=${CLIENT.port},tcp,dl_src=${CLIENT.mac},dl_dst=ba:5e:d1:55:aa:c0,nw_src=${CLIENT.ip},nw_dst=10.101.255.29,nw_ttl=64,tp_dst=80`;
  // Without them the Service's group is missing on the right: the paths part where the packet is sent to it.
  const { status, json } = await compareJson([flows, '--groups', groups, '--compare', flows, toService]);
  assert.equal(status, 1);
  assert.ok(json.divergence);
  assert.equal(json.left.verdict, 'output');
  assert.equal(json.right.verdict, 'drop');
  const both = await compareJson([
    flows,
    '--groups',
    groups,
    '--compare',
    flows,
    '--compare-groups',
    groups,
    toService,
  ]);
  assert.equal(both.status, 0);
  assert.equal(both.json.divergence, null);
  assert.equal(both.json.right.verdict, 'output');
});
