import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { equivalentActions } from '../src/model/action-equivalence.ts';
import { diffDumps, type DumpSide } from '../src/analysis/diff/diff.ts';
import { sideSample } from '../src/analysis/diff/side-sample.ts';
import { sampleFlows } from '../src/analysis/detect/flow-sample.ts';
import { flowKey } from '../src/model/flow-key.ts';
import type { Flow } from '../src/model/flow.ts';
import type { OfVersion } from '../src/model/openflow.ts';
import { formatActions } from '../src/render/actions.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { ReadAlong } from '../src/syntax/written-pairs.ts';
import { runCli } from './support/cli.ts';
import { ANTREA, loadExample } from './support/make-examples.ts';
import { parseFlow, skipUnlessOvs, withOvsSwitch } from './support/ovs.ts';
import { repoRoot } from './support/paths.ts';

const examples = join(repoRoot, 'examples');

function read(path: string): DumpSide & { ports: ReturnType<typeof parseDump>['ports'] } {
  const r = parseDump(readFileSync(path, 'utf8'), { file: path });
  assert.deepEqual(r.diagnostics, [], path);
  return r;
}

function side(text: string, file = 'dump'): ReturnType<typeof parseDump> {
  const r = parseDump(text, { file });
  assert.deepEqual(r.diagnostics, [], text);
  return r;
}

function differences(d: ReturnType<typeof diffDumps>): number {
  return (
    d.tables.reduce((n, t) => n + t.added.length + t.removed.length + t.changed.length, 0) +
    d.groups.added.length +
    d.groups.removed.length +
    d.groups.changed.length
  );
}

for (const name of ['antrea', 'antrea-proxy', 'openshift-sdn']) {
  test(`examples/${name}: every dump format of the same switch diffs as identical`, () => {
    const dir = join(examples, name);
    const files = readdirSync(dir).filter((f) => f.startsWith('dump-flows.'));
    const show = readdirSync(dir).find((f) => f.startsWith('show.'))!;
    const ports = read(join(dir, show)).ports;
    assert.ok(ports.size > 0);
    const base = read(join(dir, files[0]!));
    assert.ok(base.flows.length > 0);
    for (const f of files.slice(1)) {
      const other = read(join(dir, f));
      assert.equal(other.flows.length, base.flows.length, f);
      const d = diffDumps(base, other, { ports });
      assert.equal(differences(d), 0, `${files[0]} vs ${f}`);
      assert.ok(d.equal);
    }
  });
}

test('examples/antrea-proxy: groups dumped in OpenFlow 1.0, 1.3 and 1.5 with names compare equal', () => {
  const dir = join(examples, 'antrea-proxy');
  const ports = read(join(dir, 'show.of13.txt')).ports;
  const load = (flows: string, groups: string): DumpSide => ({
    flows: read(join(dir, flows)).flows,
    groups: read(join(dir, groups)).groups,
  });
  const of10 = load('dump-flows.of10.txt', 'dump-groups.of10.txt');
  assert.ok(of10.groups.length > 0);
  for (const [flows, groups] of [
    ['dump-flows.of13.txt', 'dump-groups.of13.txt'],
    ['dump-flows.of15.txt', 'dump-groups.of15.txt'],
    // Table names in bucket actions (resubmit(,ServiceLB)) are resolved through the flows.
    ['dump-flows.of15.names.no-stats.txt', 'dump-groups.of15.names.txt'],
  ] as const) {
    assert.equal(differences(diffDumps(of10, load(flows, groups), { ports })), 0, groups);
  }
});

test('without a port map, a --names dump and a numbered one of one switch compare equal: the flows they share number the ports', () => {
  const dir = join(examples, 'antrea');
  const plain = read(join(dir, 'dump-flows.of10.txt'));
  const named = read(join(dir, 'dump-flows.of10.names.txt'));
  for (const [a, b] of [
    [plain, named],
    [named, plain],
  ] as const) {
    const d = diffDumps({ flows: a.flows, groups: [] }, { flows: b.flows, groups: [] });
    assert.equal(differences(d), 0);
    // The numbers read from the flows are the switch's own.
    const show = read(join(dir, 'show.of10.txt')).ports;
    for (const name of ['antrea-gw0', 'antrea-tun0', 'coredns5-8ec607', 'coredns5-9d9530'])
      assert.equal(d.naming.ports?.number(name), show.number(name), name);
  }
});

test('without a port map, the flows that name ports and have no counterpart in the numbered dump stay unpaired', () => {
  const dir = join(examples, 'antrea');
  // The numbered dump's flows that match a port are moved to other priorities: nothing says which number a name is.
  const moved = readFileSync(join(dir, 'dump-flows.of10.txt'), 'utf8').replace(
    /priority=(\d+),([^\n]*in_port=)/g,
    (_m, p: string, rest: string) => `priority=${Number(p) + 1},${rest}`,
  );
  const plain = parseDump(moved, { file: 'moved' });
  const named = read(join(dir, 'dump-flows.of10.names.txt'));
  const d = diffDumps({ flows: plain.flows, groups: [] }, named);
  const withPorts = named.flows.filter((f) => /in_port="|output:"|in_port=[a-z]/.test(f.origin.text)).length;
  const changedOrMoved = d.tables.reduce((n, t) => n + t.removed.length + t.changed.length, 0);
  assert.ok(withPorts > 0);
  assert.equal(changedOrMoved, withPorts);
  assert.equal(d.naming.ports, undefined);
});

/** Flows whose OpenFlow 1.0, 1.3 and 1.5 spellings differ (reference ovs-actions.md §2). */
const SPELLINGS = [
  'priority=10,ipv6 actions=set_field:fe80::1->ipv6_dst,output:1',
  'table=1,priority=10,tcp,tp_dst=80 actions=mod_dl_src:00:11:22:33:44:55,mod_nw_dst:1.1.1.1,mod_tp_dst:8080,output:1',
  'priority=5,ip actions=mod_nw_tos:16,mod_nw_ecn:2,mod_nw_ttl:9,output:1',
  'priority=43,dl_vlan=100 actions=strip_vlan,mod_vlan_vid:5,output:5',
  'priority=44,ip actions=mod_vlan_vid:7,output:3',
  'priority=1 actions=enqueue:1:2',
  'priority=2,ip actions=ct(commit,zone=65520,exec(set_field:0x5->ct_label,set_field:0x1/0x1->ct_mark))',
  'priority=3 actions=set_field:0x2/0xf->reg0,goto_table:1',
  'priority=4 actions=load:0x1->NXM_NX_REG0[5],set_tunnel:0x5,output:2',
  'priority=6,tcp actions=set_field:8080->tcp_dst,output:1',
  'priority=7 actions=note:01.02.03',
  'table=2,priority=8,udp,udp_dst=53 actions=mod_tp_dst:5353,resubmit(,3)',
  'priority=9,arp actions=set_field:2->arp_op,move:NXM_OF_ETH_SRC[]->NXM_OF_ETH_DST[],IN_PORT',
];

async function spellings(flow: string): Promise<Flow[]> {
  const out: Flow[] = [];
  for (const of of [undefined, 13, 15] as const) {
    const r = await parseFlow(flow, of);
    assert.ok(r.ok, `${flow}: ${r.ok ? '' : r.error}`);
    const parsed = side(r.canonical, `parse-flow -O ${of ?? 10}`);
    assert.equal(parsed.flows.length, 1, r.canonical);
    out.push(parsed.flows[0]!);
  }
  return out;
}

test(
  'what ovs-ofctl prints for one flow in OpenFlow 1.0, 1.3 and 1.5 keys and compares equal',
  skipUnlessOvs,
  async () => {
    for (const flow of SPELLINGS) {
      const [of10, of13, of15] = await spellings(flow);
      const texts = [of10!, of13!, of15!].map((f) => f.origin.text);
      // The spellings really differ, so the test exercises the equivalences.
      assert.ok(new Set(texts).size > 1 || /note:/.test(flow), `${flow}: ${texts.join(' | ')}`);
      for (const other of [of13!, of15!]) {
        assert.equal(flowKey(other, {}), flowKey(of10!, {}), flow);
        assert.ok(
          equivalentActions(of10!.actions, other.actions, { naming: {}, table: of10!.table }),
          `${flow}: ${texts.join(' | ')}`,
        );
      }
    }
  },
);

test('different actions stay different', () => {
  const pairs: [string, string][] = [
    ['priority=1 actions=load:0x1->NXM_NX_REG0[0..3]', 'priority=1 actions=load:0x2->NXM_NX_REG0[0..3]'],
    // A resubmit with an in_port is a lookup as if from another port: not a goto_table.
    ['priority=1 actions=resubmit(3,1)', 'priority=1 actions=goto_table:1'],
    // Backwards: goto_table cannot go there, so this resubmit is a resubmit.
    ['table=5,priority=1 actions=resubmit(,3)', 'table=5,priority=1 actions=goto_table:3'],
    // mod_vlan_vid pushes a tag on an untagged packet; a VID write alone does not.
    ['priority=1,ip actions=mod_vlan_vid:7', 'priority=1,ip actions=set_field:4103->vlan_vid'],
    ['priority=1 actions=enqueue:1:2', 'priority=1 actions=set_queue:2,output:1'],
    ['priority=1 actions=output:1,output:2', 'priority=1 actions=output:2,output:1'],
    ['priority=1 actions=note:01.02', 'priority=1 actions=note:01.03'],
  ];
  for (const [x, y] of pairs) {
    const a = side(x).flows[0]!;
    const b = side(y).flows[0]!;
    assert.equal(equivalentActions(a.actions, b.actions, { naming: {}, table: a.table }), false, `${x} vs ${y}`);
  }
});

test('match spelling never makes a difference: aliases, order, masks, number bases, protocol keywords', () => {
  const a = side(
    [
      'table=1,priority=100,ip,nw_src=10.0.0.0/8,tcp_dst=80,nw_proto=6 actions=drop',
      'table=1,priority=90,reg0=0x5/0xff,in_port=3 actions=drop',
      'table=1,priority=80,dl_vlan=100 actions=drop',
      'table=1,priority=70,ip,nw_tos=16 actions=drop',
    ].join('\n'),
  );
  const b = side(
    [
      ' table=1, priority=80, vlan_tci=0x1064/0x1fff, actions=drop',
      'priority=100,table=1,tcp,tp_dst=0x50,ip_src=10.0.0.0/255.0.0.0 actions=drop',
      'priority=90,table=1,in_port=3,reg0=5/255 actions=drop',
      'table=1,priority=70,ip,ip_dscp=4 actions=drop',
    ].join('\n'),
  );
  const d = diffDumps(a, b);
  assert.equal(differences(d), 0);
});

test(
  'real switch: dumps in every format diff empty; one modified, one deleted and one added flow are exactly the diff',
  skipUnlessOvs,
  async () => {
    await withOvsSwitch(ANTREA.bridge, async (sw) => {
      await loadExample(sw, ANTREA);
      const ports = side(await sw.show()).ports;
      const formats: { of?: OfVersion; names?: boolean; noStats?: boolean }[] = [
        {},
        { names: true },
        { of: 13 },
        { of: 13, names: true, noStats: true },
        { of: 15 },
        { of: 15, names: true },
      ];
      const dumps = [];
      for (const f of formats) dumps.push(side(await sw.dumpFlows(f), JSON.stringify(f)));
      const before = dumps[0]!;
      for (const [i, d] of dumps.entries())
        assert.equal(differences(diffDumps(before, d, { ports })), 0, JSON.stringify(formats[i]));

      await sw.ofctl([
        '-O',
        'OpenFlow13',
        'mod-flows',
        '--strict',
        sw.bridge,
        'table=0,priority=200,in_port=2 actions=load:0x3->NXM_NX_REG0[0..15],goto_table:10',
      ]);
      await sw.ofctl(['-O', 'OpenFlow13', 'del-flows', '--strict', sw.bridge, 'table=0,priority=190,in_port=4']);
      await sw.ofctl(['-O', 'OpenFlow13', 'add-flow', sw.bridge, 'table=0,priority=5,ip actions=drop']);
      for (const f of [{ of: 15 as const, names: true, noStats: true }, { names: false }]) {
        const after = side(await sw.dumpFlows(f), 'after');
        const d = diffDumps(before, after, { ports });
        assert.equal(differences(d), 3, JSON.stringify(f));
        const t0 = d.tables.find((t) => t.table.kind === 'number' && t.table.number === 0)!;
        assert.deepEqual(
          t0.removed.map((x) => x.origin.text.replace(/.* priority=/, 'priority=')),
          before.flows
            .filter((x) => / priority=190,in_port=4 /.test(x.origin.text))
            .map((x) => x.origin.text.replace(/.* priority=/, 'priority=')),
        );
        assert.deepEqual(
          t0.added.map((x) => [x.priority, x.match.fields.length]),
          [[5, 1]],
        );
        assert.equal(t0.changed.length, 1);
        const change = t0.changed[0]!;
        assert.deepEqual(change.attributes, ['actions']);
        const edits = change.actions.map((e) => `${e.op} ${formatActions([e.action], { of: 13 })}`);
        // Unchanged actions are shown as the later dump spells them.
        const target = f.names ? 'SpoofGuard' : '10';
        assert.deepEqual(edits, [
          'removed load:0x1->NXM_NX_REG0[0..15]',
          'added load:0x3->NXM_NX_REG0[0..15]',
          `same goto_table:${target}`,
        ]);
      }
    });
  },
);

const tempDir = mkdtempSync(join(tmpdir(), 'flowscope-diff-'));
after(() => rmSync(tempDir, { recursive: true, force: true }));

function tempFile(name: string, text: string): string {
  const p = join(mkdtempSync(join(tempDir, 'case-')), name);
  writeFileSync(p, text);
  return p;
}

const of13 = join(examples, 'antrea', 'dump-flows.of13.txt');
const of10 = join(examples, 'antrea', 'dump-flows.of10.txt');

test('cli: exit 0 for equal dumps, 1 for differences, 2 for trouble', async () => {
  const same = await runCli(['diff', of10, of13]);
  assert.equal(same.status, 0, same.stderr);
  assert.equal(same.stdout, '');
  const text = readFileSync(of13, 'utf8');
  const line = text.split('\n').find((l) => l.includes('table=10,') && l.includes('priority=200'))!;
  const changed = tempFile('b.txt', text.replace(line, ''));
  const r = await runCli(['diff', of10, changed]);
  assert.equal(r.status, 1);
  assert.match(r.stdout, /^--- .*dump-flows\.of10\.txt\n\+\+\+ .*b\.txt\n/);
  assert.match(r.stdout, /@@ table=10 \(SpoofGuardTable\) @@ 1 removed\n-priority=200,/);
  const missing = await runCli(['diff', of10, '/nonexistent/x.txt']);
  assert.equal(missing.status, 2);
  const twoStdin = await runCli(['diff', '-', '-'], { stdin: '' });
  assert.equal(twoStdin.status, 2);
});

test('cli: cookies are ignored unless --cookies', async () => {
  const text = readFileSync(of13, 'utf8');
  const line = text.split('\n').find((l) => l.includes('table=0,') && l.includes('priority=0 '))!;
  const b = tempFile('cookie.txt', text.replace(line, line.replace('cookie=0x0', 'cookie=0x1234')));
  assert.equal((await runCli(['diff', of13, b])).status, 0);
  const r = await runCli(['diff', '--cookies', '--json', of13, b]);
  assert.equal(r.status, 1);
  const json = JSON.parse(r.stdout) as {
    changed: { attributes: string[]; before: { cookie: string }; after: { cookie: string } }[];
    added: unknown[];
    removed: unknown[];
    groups: Record<string, unknown[]>;
  };
  assert.deepEqual(
    json.changed.map((c) => [c.attributes, c.before.cookie, c.after.cookie]),
    [[['cookie'], '0x0', '0x1234']],
  );
  assert.deepEqual([json.added, json.removed], [[], []]);
  assert.deepEqual(Object.keys(json.groups).sort(), ['added', 'changed', 'removed']);
});

test('cli: --per-table counts the flows removed, added and changed in every table, and the groups; its exit status follows them', async () => {
  const proxy = join(examples, 'antrea-proxy');
  const before =
    readFileSync(join(proxy, 'dump-flows.of13.txt'), 'utf8') +
    readFileSync(join(proxy, 'dump-groups.of13.txt'), 'utf8');
  const a = tempFile('fg.txt', before);
  const row = (out: string, title: string): string[] =>
    out
      .split('\n')
      .find((l) => l.startsWith(`${title} `))!
      .trim()
      .split(/\s+/)
      .slice(-5);
  const same = await runCli(['diff', '--per-table', a, a]);
  assert.equal(same.status, 0, same.stderr);
  assert.deepEqual(row(same.stdout, 'all 15 tables'), ['70', '70', '0', '0', '0']);
  assert.deepEqual(row(same.stdout, 'groups'), ['3', '3', '0', '0', '0']);

  // Bucket weights changed: the flows are the same, the groups are not.
  const weights = await runCli([
    'diff',
    '--per-table',
    a,
    tempFile('fg2.txt', before.replaceAll('weight:100', 'weight:50')),
  ]);
  assert.equal(weights.status, 1, weights.stderr);
  assert.deepEqual(row(weights.stdout, 'all 15 tables'), ['70', '70', '0', '0', '0']);
  assert.deepEqual(row(weights.stdout, 'groups'), ['3', '3', '0', '0', '~3']);

  // One flow of table 40 with another action, one of table 42 gone: the counts say both.
  const lines = before.split('\n');
  const learned = lines.find((l) => / table=40, .*priority=200,/.test(l))!;
  const gone = lines.find((l) => / table=42, /.test(l))!;
  const b = tempFile(
    'fg3.txt',
    before
      .replace(learned, learned.replace('load:0x1->NXM_NX_REG0[19]', 'load:0x0->NXM_NX_REG0[19]'))
      .replace(gone + '\n', ''),
  );
  const flows = await runCli(['diff', '--per-table', a, b]);
  assert.equal(flows.status, 1, flows.stderr);
  assert.deepEqual(flows.stdout.split('\n')[0]!.split(/\s+/), [
    'table',
    'fg.txt',
    'fg3.txt',
    'removed',
    'added',
    'changed',
  ]);
  assert.deepEqual(row(flows.stdout, 'table=40'), ['2', '2', '0', '0', '~1']);
  assert.deepEqual(row(flows.stdout, 'table=42'), ['13', '12', '-1', '0', '0']);
  assert.deepEqual(row(flows.stdout, 'all 15 tables'), ['70', '69', '-1', '0', '~1']);

  // --json gives the same counts, not the whole diff.
  const json = JSON.parse((await runCli(['diff', '--per-table', '--json', a, b])).stdout) as Record<string, unknown>;
  assert.deepEqual(Object.keys(json), ['schemaVersion', 'equal', 'tables', 'total', 'groups']);
  assert.equal(json.equal, false);
  assert.deepEqual(
    (json.tables as { table: number }[]).find((t) => t.table === 40),
    { table: 40, before: 2, after: 2, removed: 0, added: 0, changed: 1 },
  );
  assert.deepEqual(json.total, { before: 70, after: 69, removed: 1, added: 0, changed: 1 });
  assert.deepEqual(json.groups, { before: 3, after: 3, removed: 0, added: 0, changed: 0 });
});

test('cli: the summary that ends a diff marks the counts that are not 0 (-2, +1, ~3) and prints none as a signed 0', async () => {
  const proxy = join(examples, 'antrea-proxy');
  const before =
    readFileSync(join(proxy, 'dump-flows.of13.txt'), 'utf8') +
    readFileSync(join(proxy, 'dump-groups.of13.txt'), 'utf8');
  const lines = before.split('\n');
  const gone = lines.filter((l) => / table=42, /.test(l)).slice(0, 2);
  const added =
    ' cookie=0x0, duration=1.0s, table=42, n_packets=0, n_bytes=0, priority=7,ip,nw_dst=10.9.9.9 actions=drop';
  const changed =
    lines
      .filter((l) => !gone.includes(l))
      .join('\n')
      .replaceAll('weight:100', 'weight:50') +
    added +
    '\n';
  const r = await runCli(['diff', tempFile('summary-a.txt', before), tempFile('summary-b.txt', changed)]);
  assert.equal(r.status, 1, r.stderr);
  const summary = r.stdout
    .trimEnd()
    .split('\n\n')
    .at(-1)!
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/));
  assert.deepEqual(summary, [
    ['table', 'before', 'after', 'removed', 'added', 'changed'],
    ['table=42 (EndpointDNATTable)', '13', '12', '-2', '+1', '0'],
    ['all 15 tables', '70', '69', '-2', '+1', '0'],
    ['groups', '3', '3', '0', '0', '~3'],
  ]);
});

test("cli: verify of the example's add-flows file (port names) against its own numbered dumps passes without a port map", async () => {
  const dir = join(examples, 'antrea');
  for (const dump of readdirSync(dir).filter((f) => f.startsWith('dump-flows.'))) {
    const r = await runCli(['verify', '--expect', join(dir, 'flows.txt'), join(dir, dump)]);
    assert.deepEqual(
      [r.status, r.stderr, r.stdout],
      [0, '', '86 of 86 expected flows present; all as expected\n'],
      dump,
    );
  }
});

test('cli: diff and verify of a --names dump against a numbered one hint at --ports when the flows cannot number the ports', async () => {
  const dir = join(examples, 'antrea');
  const named = join(dir, 'dump-flows.of13.names.txt');
  const show = join(dir, 'show.of13.txt');
  // The flows that match a port moved to other priorities: the two dumps share none of them.
  const moved = tempFile(
    'moved.txt',
    readFileSync(of13, 'utf8').replace(
      /priority=(\d+),([^\n]*in_port=)/g,
      (_m, p: string, rest: string) => `priority=${Number(p) + 1},${rest}`,
    ),
  );
  const hint = (named: string, numbered: string): RegExp =>
    new RegExp(
      `^flowscope: hint: ${named} names ports \\("antrea-gw0", "antrea-tun0", "coredns5-8ec607", …\\) that ${numbered} gives by number, so the flows that use them cannot be paired; give --ports with the output of ovs-ofctl show \\(or dump-ports-desc\\) of that switch\n$`,
    );
  const diff = await runCli(['diff', named, moved]);
  assert.equal(diff.status, 1);
  assert.match(diff.stderr, hint(named, moved));
  const json = await runCli(['diff', '--json', moved, named]);
  assert.match(json.stderr, hint(named, moved));
  JSON.parse(json.stdout);
  const expect = join(dir, 'flows.txt');
  const verify = await runCli(['verify', '--expect', expect, moved]);
  assert.equal(verify.status, 1);
  assert.match(verify.stderr, hint(expect, moved));
  // With the port map, or flows in common, the dumps are equal; names against names need none.
  for (const args of [
    ['diff', '--ports', show, named, of13],
    ['diff', named, of13],
    ['verify', '--ports', show, '--expect', expect, of13],
    ['diff', named, named],
  ]) {
    const r = await runCli(args);
    assert.deepEqual([r.status, r.stderr], [0, ''], args.join(' '));
  }
  const other = await runCli(['diff', of13, join(examples, 'antrea-proxy', 'dump-flows.of13.txt')]);
  assert.deepEqual([other.status, other.stderr], [1, '']);
});

test('cli: colour only when asked or on a terminal, never with NO_COLOR', async () => {
  const b = tempFile('c.txt', readFileSync(of13, 'utf8').replace(/\n[^\n]*table=10,[^\n]*/, ''));
  const plain = await runCli(['diff', of13, b]);
  assert.doesNotMatch(plain.stdout, /\x1b\[/);
  const forced = await runCli(['diff', '--color', of13, b]);
  assert.match(forced.stdout, /\x1b\[31m-/);
  const env = await runCli(['diff', of13, b], { env: { FORCE_COLOR: '1' } });
  assert.match(env.stdout, /\x1b\[/);
  const no = await runCli(['diff', of13, b], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } });
  assert.doesNotMatch(no.stdout, /\x1b\[/);
});

test('diff: dump lines that say the same after their statistics are one flow; anything else is compared in full', () => {
  const stats = (n: number): string => ` cookie=0x${n}, duration=${n}.5s, table=`;
  const before = side(
    [
      `${stats(1)}10, n_packets=5, n_bytes=300, priority=200,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2)`,
      `${stats(1)}10, n_packets=5, n_bytes=300, priority=200,ip,nw_src=10.0.0.2 actions=conjunction(1,1/2)`,
      `${stats(1)}11, n_packets=0, n_bytes=0, priority=100,ip actions=drop`,
      `${stats(1)}12, n_packets=0, n_bytes=0, idle_timeout=60, priority=5,tcp actions=drop`,
      'table=13,priority=7,udp actions=drop',
    ].join('\n'),
  );
  const after = side(
    [
      // Other counters and durations, and another cookie: the same flow.
      `${stats(2)}10, n_packets=9, n_bytes=900, priority=200,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2)`,
      // Another action.
      `${stats(1)}10, n_packets=5, n_bytes=300, priority=200,ip,nw_src=10.0.0.2 actions=conjunction(2,1/2)`,
      // The same text after the statistics, in another table.
      `${stats(1)}21, n_packets=0, n_bytes=0, priority=100,ip actions=drop`,
      // Another timeout, written after the statistics.
      `${stats(1)}12, n_packets=0, n_bytes=0, idle_timeout=30, priority=5,tcp actions=drop`,
      // The same flow, in the printed form on one side only.
      `${stats(1)}13, n_packets=0, n_bytes=0, priority=7,udp actions=drop`,
    ].join('\n'),
  );
  const d = diffDumps(before, after);
  const of = (n: number) => d.tables.find((t) => t.table.kind === 'number' && t.table.number === n)!;
  assert.deepEqual(
    of(10).changed.map((c) => [c.before.origin.line, c.attributes]),
    [[2, ['actions']]],
  );
  assert.equal(of(11).removed.length, 1);
  assert.equal(of(21).added.length, 1);
  assert.deepEqual(
    of(12).changed.map((c) => c.attributes),
    [['idle_timeout']],
  );
  assert.equal(differences({ ...d, tables: [of(13)] }), 0);
  // Cookies count when asked: the first flow then differs too.
  const withCookies = diffDumps(before, after, { cookies: true });
  const ten = withCookies.tables.find((t) => t.table.kind === 'number' && t.table.number === 10)!;
  assert.deepEqual(
    ten.changed.map((c) => [c.before.origin.line, c.attributes]),
    [
      [1, ['cookie']],
      [2, ['actions']],
    ],
  );
});

test('a slot held twice (two dumps concatenated): the copy written as the other dump writes it pairs first, the rest in dump order', () => {
  const line = (n: number, actions: string): string =>
    ` cookie=0x1, duration=${n}.5s, table=0, n_packets=${n}, n_bytes=${n * 60}, priority=100,ip,nw_dst=10.0.0.1 actions=${actions}`;
  const header = 'OFPST_FLOW reply (OF1.3) (xid=0x2):';
  // Before: the same node dumped twice, the flow's actions changed in between.
  const before = side([header, line(1, 'output:1'), header, line(2, 'output:2')].join('\n'), 'before');
  const same = side([header, line(3, 'output:2')].join('\n'), 'after');
  let d = diffDumps(before, same);
  // The second copy says what the after dump says: it pairs, and the first copy is removed.
  assert.deepEqual(
    d.tables[0]!.removed.map((f) => f.origin.line),
    [2],
  );
  assert.equal(d.tables[0]!.changed.length, 0);
  assert.equal(d.tables[0]!.added.length, 0);
  // Neither copy written as the after dump writes it: the first pairs (changed), the second is removed.
  const other = side([header, line(3, 'output:3')].join('\n'), 'after');
  d = diffDumps(before, other);
  assert.deepEqual(
    d.tables[0]!.changed.map((c) => [c.before.origin.line, c.after.origin.line]),
    [[2, 2]],
  );
  assert.deepEqual(
    d.tables[0]!.removed.map((f) => f.origin.line),
    [4],
  );
  // The other way round: the after dump holds the slot twice.
  d = diffDumps(same, before);
  assert.deepEqual(
    d.tables[0]!.added.map((f) => f.origin.line),
    [2],
  );
  assert.equal(d.tables[0]!.changed.length, 0);
});

/** Each table of a diff: its counts, and the lines of the flows removed, added and changed. */
function changeLines(d: ReturnType<typeof diffDumps>) {
  return d.tables.map((t) => ({
    table: t.table,
    counts: [t.before, t.after],
    removed: t.removed.map((f) => f.origin.line),
    added: t.added.map((f) => f.origin.line),
    changed: t.changed.map((c) => [c.before.origin.line, c.after.origin.line, c.attributes]),
  }));
}

test('a dump read along the one it is compared with diffs as if read on its own, lines paired as they are read', () => {
  const real = readFileSync(join(examples, 'antrea', 'dump-flows.of13.txt'), 'utf8')
    .trimEnd()
    .split('\n');
  const flows = real.filter((l) => l.startsWith(' cookie='));
  // Before: the node dumped twice, concatenated, one flow's actions changed in between.
  const changed = (l: string): string => l.replace(/actions=.*/, 'actions=drop');
  const before = side([...real, ...flows.slice(0, 5), changed(flows[5]!)].join('\n'), 'before');
  // After: other statistics throughout; a flow gone, one changed, one with another cookie, two
  // written twice, and a copy of a flow numbered (a line read otherwise than as a dump's usual
  // one) before the flow itself, which the copy pairs with first.
  const restated = (l: string): string =>
    l.replace(/duration=[\d.]+s/, 'duration=99.5s').replace(/n_packets=\d+, n_bytes=\d+/, 'n_packets=7, n_bytes=420');
  const after = [
    real[0]!,
    ` 7. ${restated(flows[30]!).trimStart()}`,
    ...flows.slice(1, 20).map(restated),
    changed(restated(flows[20]!)),
    restated(flows[21]!).replace(/cookie=0x[0-9a-f]+/, 'cookie=0x99'),
    ...flows.slice(22).map(restated),
    restated(flows[5]!),
    restated(flows[7]!),
  ].join('\n');
  // Lines ending in CR LF are read one by one, each a text of its own, rather than from the whole text.
  for (const [cookies, text] of [
    [false, after],
    [true, after],
    [false, after.replaceAll('\n', '\r\n')],
  ] as const) {
    const alone = parseDump(text, { file: 'after' });
    const along = new ReadAlong(before, cookies);
    const read = parseDump(text, { file: 'after', along });
    assert.deepEqual(read.diagnostics, alone.diagnostics);
    // Lines of a flow read lazily pair as they are read (a third of these); the rest pair after.
    const twins = read.paired?.size ?? 0;
    assert.ok(twins > 0 && twins < flows.length, `${twins} paired as read`);
    const expected = diffDumps(before, alone, { cookies });
    assert.ok(!expected.equal);
    assert.deepEqual(changeLines(diffDumps(before, read, { cookies })), changeLines(expected), `cookies: ${cookies}`);
    // The sample a profile is detected from makes the flows of the pairs it takes alone, and takes
    // those the lines read as on their own.
    const lineOf = (f: Flow): [number, bigint, string] => [f.origin.line, f.cookie, f.origin.text];
    assert.deepEqual(sideSample(read, 3).map(lineOf), sampleFlows(alone.flows, 3).map(lineOf));
    // The flows of the pairs, made when first asked for, are those the lines read as on their own.
    assert.deepEqual(read.flows.map(lineOf), alone.flows.map(lineOf));
  }
});

test('a copy of a dump read along it pairs its lines in order, and as if read on its own once the order breaks', () => {
  const real = readFileSync(join(examples, 'antrea', 'dump-flows.of13.txt'), 'utf8')
    .trimEnd()
    .split('\n');
  const flows = real.filter((l) => l.startsWith(' cookie='));
  const restated = (l: string): string =>
    l.replace(/duration=[\d.]+s/, 'duration=99.5s').replace(/n_packets=\d+, n_bytes=\d+/, 'n_packets=7, n_bytes=420');
  // Read otherwise than as a dump's usual line: its flows of the first dump are left.
  const numbered = (l: string): string => ` 7. ${l.trimStart()}`;
  // Before: the node dumped, then five of its flows again.
  const before = side([...real, ...flows.slice(10, 15)].join('\n'), 'before');
  const copies = flows.slice(10, 15).map(restated);
  const afters = [
    // The same flows in the same order.
    [real[0]!, ...flows.map(restated), ...copies],
    // One of them numbered in its place, which leaves it and its copy; another copy changed at the end.
    [
      real[0]!,
      ...flows.slice(0, 12).map(restated),
      numbered(restated(flows[12]!)),
      ...flows.slice(13).map(restated),
      ...copies.slice(0, 4),
      copies[4]!.replace(/actions=.*/, 'actions=drop'),
    ],
    // A flow numbered, then in its place: the line reads as a flow left, and pairs after.
    [
      real[0]!,
      ...flows.slice(0, 12).map(restated),
      numbered(restated(flows[12]!)),
      ...flows.slice(12).map(restated),
      ...copies,
    ],
    // The order broken after a numbered line: what was left in order stays left.
    [
      real[0]!,
      ...flows.slice(0, 12).map(restated),
      numbered(restated(flows[12]!)),
      ...flows.slice(13, 30).map(restated),
      restated(flows[12]!),
      ...flows.slice(30).map(restated),
      ...copies.reverse(),
    ],
  ];
  for (const after of afters)
    for (const cookies of [false, true]) {
      const text = after.join('\n');
      const alone = parseDump(text, { file: 'after' });
      // Told once at most that the order broke: it does in the last.
      let unordered = 0;
      const read = parseDump(text, { file: 'after', along: new ReadAlong(before, cookies, () => unordered++) });
      assert.ok(after === afters[3] ? unordered === 1 : unordered <= 1);
      assert.deepEqual(read.diagnostics, alone.diagnostics);
      assert.ok((read.paired?.size ?? 0) > 0);
      const lineOf = (f: Flow): [number, bigint, string] => [f.origin.line, f.cookie, f.origin.text];
      assert.deepEqual(
        changeLines(diffDumps(before, read, { cookies })),
        changeLines(diffDumps(before, alone, { cookies })),
      );
      assert.deepEqual(read.flows.map(lineOf), alone.flows.map(lineOf));
    }
  // The node's flows in their order, without the copies (whose lines read as flows left): never told.
  let unordered = 0;
  const inOrder = [real[0]!, ...flows.map(restated)].join('\n');
  const read = parseDump(inOrder, { file: 'after', along: new ReadAlong(before, false, () => unordered++) });
  assert.equal(unordered, 0);
  assert.ok((read.paired?.size ?? 0) > 0);
});

test('a dump read along another diffs as if read on its own where either resubmits to a port by a name the other reads as a table', () => {
  const line = (table: string, rest: string): string =>
    ` cookie=0x0, duration=1.5s, table=${table}, n_packets=0, n_bytes=0, ${rest}`;
  const hosts = (actions: string): string[] =>
    Array.from({ length: 20 }, (_, i) => line('0', `priority=10,ip,nw_dst=10.0.0.${i + 1} actions=${actions}`));
  const arp = line('0', 'priority=5,arp actions=output:4');
  const drop = line('0', 'priority=0 actions=drop');
  const next = line('Next', 'priority=0 actions=output:2');
  // The first host's flow of the first dump is read in full, and its line in the second otherwise:
  // without it, every host's line of the second pairs a flow of the first.
  const paired = (actions: string, more: string[] = []): string =>
    [arp, line('0', 'priority=10,ip,nw_dst=10.0.1.1 actions=output:3'), ...hosts(actions).slice(1), drop, ...more].join(
      '\n',
    );
  const cases: [string, string, boolean][] = [
    // Lines that pair, as the others do.
    [[arp, ...hosts('output:3'), drop].join('\n'), paired('output:3', [next]), true],
    // Paired flows of the first resubmit to port Next, which the second reads as its table Next.
    [[arp, ...hosts('resubmit:Next'), drop].join('\n'), paired('resubmit:Next', [next]), false],
    // Its own flows do, where the first has a table Next.
    [
      [arp, ...hosts('output:3'), drop, next].join('\n'),
      [line('0', 'priority=7,ip actions=resubmit:Next'), paired('output:3', [next])].join('\n'),
      false,
    ],
    // Neither names a table Next: ports both.
    [[arp, ...hosts('resubmit:Next'), drop].join('\n'), paired('resubmit:Next'), false],
  ];
  for (const [a, text, pairs] of cases) {
    const before = side(a, 'before');
    const alone = parseDump(text, { file: 'after' });
    const read = parseDump(text, { file: 'after', along: new ReadAlong(before, false) });
    assert.equal(read.paired !== undefined, pairs, text);
    assert.deepEqual(
      changeLines(diffDumps(before, read, { cookies: false })),
      changeLines(diffDumps(before, alone, { cookies: false })),
      text,
    );
    assert.deepEqual(
      read.flows.map((f) => f.actions),
      alone.flows.map((f) => f.actions),
    );
  }
});
