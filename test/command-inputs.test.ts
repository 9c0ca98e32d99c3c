/**
 * Every command reads its flows the same way: files, standard input, support bundles (with
 * --bundle/--node or given as an input) and live switches; with a port map, port numbers and
 * names are interchangeable in filters, packets and output. diff and verify read each of their
 * sides that way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { agentText, antreaAgentFiles, antreaProxyAgentFiles, example, tarGz } from './support/bundle.ts';
import { runCli } from './support/cli.ts';
import { ANTREA, loadExample } from './support/make-examples.ts';
import { skipUnlessOvs, withOvsSwitch } from './support/ovs.ts';
import { repoRoot } from './support/paths.ts';

const EXAMPLE = join(repoRoot, 'examples', 'antrea');
const NUMBERED = join(EXAMPLE, 'dump-flows.of13.txt');
const NAMED = join(EXAMPLE, 'dump-flows.of13.names.txt');
const PORTS_DESC = join(EXAMPLE, 'dump-ports-desc.of10.txt');
/** From a peer Node to Pod coredns5-8ec607 (port 3) on a port no ingress rule allows. */
const ISOLATED = 'tcp,dl_dst=12:9e:a6:47:d0:70,nw_src=10.10.1.5,nw_dst=10.10.0.2,nw_ttl=64,tp_dst=443';

interface Fixture {
  readonly dir: string;
  readonly bundle: string;
  /** A bundle's `ovsports` file: dump-ports-desc with its lines trimmed and its header dropped. */
  readonly ovsports: string;
}

/** A bundle of node-a (the Antrea example, numbered by names) and node-b (the AntreaProxy example). */
async function withBundle(fn: (f: Fixture) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-inputs-'));
  try {
    const bundle = join(dir, 'bundle');
    mkdirSync(bundle);
    writeFileSync(join(bundle, 'agent_node-a.tar.gz'), await tarGz(antreaAgentFiles('node-a')));
    writeFileSync(join(bundle, 'agent_node-b.tar.gz'), await tarGz(antreaProxyAgentFiles('node-b')));
    const ovsports = join(dir, 'ovsports');
    writeFileSync(ovsports, agentText(example('antrea/dump-ports-desc.of10.txt')));
    await fn({ dir, bundle, ovsports });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function ok(args: readonly string[], stdin?: string): Promise<string> {
  const r = await runCli(args, stdin === undefined ? {} : { stdin });
  assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
  assert.equal(r.stderr, '', args.join(' '));
  return r.stdout;
}

test('show and tables read a bundle node as they read its files; --port takes a name or a number', async () => {
  await withBundle(async ({ bundle, ovsports }) => {
    const fromFiles = await ok(['show', NAMED, '--ports', PORTS_DESC, '--port', '3']);
    assert.match(fromFiles, /^profile antrea-v1 /);
    assert.equal(await ok(['show', '--bundle', bundle, '--node', 'node-a', '--port', '3']), fromFiles);
    assert.equal(await ok(['show', '--bundle', bundle, '--node', 'node-a', '--port', 'coredns5-8ec607']), fromFiles);
    assert.equal(await ok(['show', join(bundle, 'agent_node-a.tar.gz'), '--port', 'coredns5-8ec607']), fromFiles);
    // A bundle's trimmed ovsports works as --ports, and standard input as the dump.
    assert.equal(
      await ok(['show', '--ports', ovsports, '--port', 'coredns5-8ec607'], readFileSync(NAMED, 'utf8')),
      fromFiles,
    );

    const tables = await ok(['tables', NAMED, '--ports', PORTS_DESC]);
    assert.equal(await ok(['tables', '--bundle', bundle, '--node', 'node-a']), tables);
    assert.match(await ok(['tables', '--bundle', bundle, '--node', 'node-b']), /^profile antrea-proxy /);
  });
});

test('conj reads a bundle: with --bundle every positional is a conjunction id', async () => {
  await withBundle(async ({ bundle }) => {
    // The bundle's port map names the Pods behind the port register; files need --ports for that.
    const fromFile = await ok(['conj', NAMED, '--ports', PORTS_DESC, '3']);
    assert.match(fromFile, /^conjunction 3 {2}table IngressRule {2}priority 200 {2}3 dimensions$/m);
    assert.match(
      fromFile,
      /TargetOFPort ∈ \{local Pod coredns5-8ec607 \(port 3\), local Pod coredns5-9d9530 \(port 4\)\}/,
    );
    assert.equal(await ok(['conj', '--bundle', bundle, '--node', 'node-a', '3']), fromFile);
    assert.equal(await ok(['conj', join(bundle, 'agent_node-a.tar.gz'), '3']), fromFile);
    const bad = await runCli(['conj', '--bundle', bundle, '--node', 'node-a', 'seven']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /seven: expected a conjunction id/);
  });
});

test('trace reads a bundle; the packet names its port by name or number', async () => {
  await withBundle(async ({ bundle }) => {
    const byName = await ok(['trace', '--bundle', bundle, '--node', 'node-a', `in_port=antrea-tun0,${ISOLATED}`]);
    assert.match(
      byName,
      /\nVerdict: dropped in IngressDefaultRule \(table 100\): The Pod on port coredns5-8ec607 is isolated for ingress: packets no ingress rule allowed are dropped\.\n$/,
    );
    assert.equal(await ok(['trace', join(bundle, 'agent_node-a.tar.gz'), `in_port=1,${ISOLATED}`]), byName);
    // The same flows read from files, with the port map from dump-ports-desc.
    assert.equal(await ok(['trace', NAMED, '--ports', PORTS_DESC, `in_port=1,${ISOLATED}`]), byName);

    const two = await runCli(['trace', '--bundle', bundle, '--node', 'node-a', NAMED, `in_port=1,${ISOLATED}`]);
    assert.equal(two.status, 2);
    assert.match(two.stderr, /give only the packet: the flows come from --bundle, --pod or --local/);
    const none = await runCli(['trace', '--bundle', bundle, '--node', 'node-a']);
    assert.equal(none.status, 2);
    assert.match(none.stderr, /trace needs a packet/);
  });
});

test('diff compares two nodes of one bundle, a file with a bundle, and names each side', async () => {
  await withBundle(async ({ bundle }) => {
    assert.equal(await ok(['diff', '--bundle', bundle, '--node', 'node-a', '--node', 'node-a']), '');
    const two = await runCli(['diff', '--bundle', bundle, '--node', 'node-a', '--node', 'node-b']);
    assert.equal(two.status, 1, two.stderr);
    assert.match(two.stdout, new RegExp(`^--- ${bundle}\\[node-a\\]\\n\\+\\+\\+ ${bundle}\\[node-b\\]\\n`));
    // Numbered flows against the named ones of the bundle: its ovsports tells names from numbers.
    assert.equal(await ok(['diff', NUMBERED, join(bundle, 'agent_node-a.tar.gz')]), '');
    assert.equal(await ok(['diff', NUMBERED, '--bundle', bundle, '--node', 'node-a']), '');
    // One --node applies to every bundle input.
    assert.equal(
      await ok(['diff', join(bundle, 'agent_node-a.tar.gz'), join(bundle, 'agent_node-a.tar.gz'), '--node', 'node-a']),
      '',
    );
    // A file and a bundle of several nodes: --node picks the bundle's node, and the file has none.
    assert.equal(await ok(['diff', '--node', 'node-a', NAMED, bundle]), '');
    assert.equal(await ok(['diff', bundle, NUMBERED, '--node', 'node-a']), '');
    const other = await runCli(['diff', '--node', 'node-b', NUMBERED, bundle]);
    assert.equal(other.status, 1, other.stderr);
    assert.equal(
      other.stdout,
      (await runCli(['diff', NUMBERED, '--bundle', bundle, '--node', 'node-b'])).stdout.replace(
        `${bundle}[node-b]`,
        bundle,
      ),
    );
    // Two nodes pair with two bundle inputs, in order.
    const pair = await runCli(['diff', bundle, bundle, '--node', 'node-a', '--node', 'node-b']);
    assert.equal(pair.stdout, two.stdout.replaceAll(/\[node-[ab]\]/g, ''));
  });
});

test('verify checks a bundle node; --ports reads a bundle ovsports file without complaint', async () => {
  await withBundle(async ({ bundle, ovsports }) => {
    assert.match(
      await ok(['verify', '--expect', NUMBERED, '--bundle', bundle, '--node', 'node-a', '--exact']),
      /^86 of 86 expected flows present/,
    );
    const wrong = await runCli(['verify', '--expect', NUMBERED, '--bundle', bundle, '--node', 'node-b']);
    assert.equal(wrong.status, 1, wrong.stderr);
    // Names on one side, numbers on the other: the trimmed ovsports gives the map, and says nothing else.
    assert.equal(await ok(['diff', '--ports', ovsports, NAMED, NUMBERED]), '');
    assert.match(
      await ok(['verify', '--ports', ovsports, '--expect', NAMED, NUMBERED]),
      /^86 of 86 expected flows present/,
    );
  });
});

test('diff and verify refuse sides that do not add up', async () => {
  await withBundle(async ({ bundle }) => {
    const cases: [string[], RegExp][] = [
      [['diff', NUMBERED], /diff compares two dumps: got 1/],
      [
        ['diff', '--bundle', bundle, '--node', 'node-a', '--node', 'node-b', '--node', 'node-a'],
        /^flowscope: error: diff compares two dumps: give --node at most twice, once for each\n$/,
      ],
      [
        ['diff', bundle, bundle, '--node', 'node-a', '--node', 'node-b', '--node', 'node-a'],
        /^flowscope: error: diff compares two dumps: give --node at most twice, once for each\n$/,
      ],
      // verify checks one node: a second --node is refused as given, before any input is read.
      [
        ['verify', '--expect', NUMBERED, '--bundle', bundle, '--node', 'node-a', '--node', 'node-b'],
        /^flowscope: error: verify checks one dump against --expect: give --node once, for the node to check\n$/,
      ],
      [
        ['verify', '--expect', 'missing.txt', 'missing.tar.gz', '--node', 'node-a', '--node', 'node-a'],
        /^flowscope: error: verify checks one dump against --expect: give --node once, for the node to check\n$/,
      ],
      [['diff', NUMBERED, NAMED, NUMBERED], /too many arguments|got 3/],
      [
        ['diff', NUMBERED, bundle, '--node', 'node-a', '--node', 'node-b'],
        /give one --node for every bundle input, or one for all \(2 for 1 bundle input\)/,
      ],
      [['diff', NUMBERED, NAMED, '--node', 'node-a'], /--node goes with --bundle \(or a bundle given as input\)/],
      [
        ['verify', '--expect', NUMBERED, NAMED, '--node', 'node-a'],
        /--node goes with --bundle \(or a bundle given as input\)/,
      ],
      [['diff', NUMBERED, '--local', '--node', 'a'], /--node goes with --bundle/],
      [['diff', NUMBERED, NAMED, '--namespace', 'x'], /--namespace goes with --pod/],
      [['diff', '-', '-'], /only one input can be standard input/],
      [['verify', '--expect', NUMBERED], /verify checks one dump: got 0/],
      [['verify', '--expect', NUMBERED, NAMED, '--bundle', bundle], /verify checks one dump: got 2/],
      [
        ['diff', '--bundle', bundle, '--node', 'node-x', '--node', 'node-a'],
        /no node "node-x" \(nodes: node-a, node-b\)/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args, { stdin: '' });
      assert.equal(r.status, 2, args.join(' '));
      assert.match(r.stderr, message, args.join(' '));
    }
  });
});

test('an empty input is refused with exit 2 and the reason, by every command; a dump without flows by those that need flows', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-inputs-'));
  try {
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '\n  \n');
    // A failed command before the pipe must not pass as a healthy pipeline.
    for (const args of [
      ['show', '-'],
      ['check', '-'],
      ['tables', '-'],
      ['graph', '-'],
      ['conj', '-'],
      ['trace', 'in_port=1'],
      ['fmt', '-'],
      ['diff', '-', empty],
    ]) {
      const piped = await runCli(args, { stdin: '' });
      assert.equal(piped.status, 2, args.join(' '));
      assert.equal(piped.stdout, '', args.join(' '));
      assert.match(
        piped.stderr,
        /^flowscope: error: nothing came in on standard input \(did the command before the pipe fail\?\): no flows or groups to read\n$/,
        args.join(' '),
      );
    }
    const file = await runCli(['check', empty]);
    assert.equal(file.status, 2, file.stderr);
    assert.equal(file.stderr, `flowscope: error: ${empty} is empty: no flows or groups to read\n`);
    const comments = join(dir, 'comments.txt');
    writeFileSync(comments, '# flows of node-a\n\n# (none yet)\n');
    assert.equal(
      (await runCli(['check', comments])).stderr,
      `flowscope: error: ${comments} holds only comments: no flows or groups to read\n`,
    );
    // The dump of a bridge without flows is no empty input, but holds nothing to check or trace.
    const bridge = join(dir, 'bridge.txt');
    writeFileSync(bridge, 'OFPST_FLOW reply (OF1.3) (xid=0x2):\n');
    for (const args of [
      ['check', bridge],
      ['trace', bridge, 'in_port=1'],
    ]) {
      const r = await runCli(args);
      assert.equal(r.status, 2, args.join(' '));
      assert.equal(r.stderr, `flowscope: error: no flows read from ${bridge}\n`);
    }
    const groups = join(dir, 'groups.txt');
    writeFileSync(groups, 'group_id=1,type=all,bucket=actions=output:1\n');
    assert.equal(
      (await runCli(['check', groups])).stderr,
      `flowscope: error: no flows read from ${groups} (only a group)\n`,
    );
    assert.equal((await runCli(['fmt', groups])).status, 0);
    const nothing = await runCli(['verify', '--expect', empty, NUMBERED]);
    assert.equal(nothing.status, 2);
    assert.match(nothing.stderr, /is empty: no flows or groups to read/);
    // An empty bridge is a dump like any other for verify: every expected flow is missing.
    const missing = await runCli(['verify', '--expect', NUMBERED, bridge]);
    assert.equal(missing.status, 1, missing.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('standard input feeds one thing: the flows, or --ports, or --groups', async () => {
  const ports = readFileSync(join(EXAMPLE, 'show.of13.txt'), 'utf8');
  // No flows named: they would come from standard input too.
  for (const args of [
    ['show', '--ports', '-'],
    ['show', '--ports', '-', '-'],
    ['tables', '--groups', '-'],
  ]) {
    const r = await runCli(args, { stdin: ports });
    assert.equal(r.status, 2, args.join(' '));
    assert.match(
      r.stderr,
      /^flowscope: error: the flows and --(ports|groups) cannot both come from standard input\n$/,
      args.join(' '),
    );
    assert.equal(r.stdout, '');
  }
  const named = await runCli(['show', '--ports', '-', NAMED, '--port', '3'], { stdin: ports });
  assert.equal(named.status, 0, named.stderr);
  assert.match(named.stdout, /coredns5-8ec607/);
});

function ovsEnv(rundir: string): Record<string, string> {
  return {
    PATH: [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/bin', '/bin'].join(delimiter),
    OVS_RUNDIR: rundir,
  };
}

test(
  'a live switch is read by every command: diff and verify against a saved dump, trace, show',
  skipUnlessOvs,
  async () => {
    await withOvsSwitch(ANTREA.bridge, async (sw) => {
      await loadExample(sw, ANTREA);
      const env = ovsEnv(sw.dir);
      const run = async (args: string[]): Promise<string> => {
        const r = await runCli(args, { env });
        assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
        return r.stdout;
      };
      // The switch is dumped with names; the saved dump has numbers.
      assert.equal(await run(['diff', NUMBERED, '--local']), '');
      assert.match(
        await run(['verify', '--expect', NUMBERED, '--local', '--exact']),
        /^86 of 86 expected flows present/,
      );
      const live = await run([
        'trace',
        '--local',
        'in_port=coredns5-8ec607,tcp,dl_src=12:9e:a6:47:d0:70,nw_src=10.10.0.9,nw_dst=10.10.0.3,tp_dst=80',
      ]);
      // The live dump names its tables: the verdict calls the table by that one name throughout.
      assert.match(
        live,
        /\nVerdict: dropped in SpoofGuard \(table 10\): Packets no other flow of SpoofGuard matches are dropped\.\nNearest flow \(line \d+\): priority=200,ip,in_port="coredns5-8ec607",dl_src=12:9e:a6:47:d0:70,nw_src=10\.10\.0\.2 — the packet has nw_src=10\.10\.0\.9\n$/,
      );
      assert.match(await run(['show', '--local', '--table', '10']), /^profile antrea-v1 \(release 0\.13\)/);

      await sw.ofctl(['del-flows', sw.bridge, 'table=10,ip,in_port=3']);
      const changed = await runCli(['diff', NUMBERED, '--local'], { env });
      assert.equal(changed.status, 1, changed.stderr);
      assert.match(changed.stdout, /^--- .*dump-flows\.of13\.txt\n\+\+\+ local br-int\n/);
    });
  },
);

test('check and graph read a bundle node as they read its files', async () => {
  await withBundle(async ({ bundle }) => {
    for (const command of [
      ['check', '--json'],
      ['graph', '--format', 'dot'],
    ]) {
      const r = await runCli([...command, NAMED, '--ports', PORTS_DESC]);
      assert.equal(r.stderr, '', command.join(' '));
      const fromBundle = await runCli([...command, '--bundle', bundle, '--node', 'node-a']);
      assert.equal(fromBundle.status, r.status, command.join(' '));
      assert.equal(
        fromBundle.stdout.replaceAll(bundle, '').replace(/"file": "[^"]*"/g, ''),
        r.stdout.replace(/"file": "[^"]*"/g, ''),
        command.join(' '),
      );
    }
  });
});
