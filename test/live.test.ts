/**
 * Live dumps against a real Open vSwitch: `--local` runs ovs-ofctl against the test switch
 * (found through OVS_RUNDIR), `--pod` runs a stand-in `kubectl` that records its arguments
 * and executes the command after `--` on this host, as `kubectl exec` would in the Pod.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { parseDump } from '../src/syntax/reader.ts';
import { runCli } from './support/cli.ts';
import { ANTREA, loadExample, OPENSHIFT_SDN } from './support/make-examples.ts';
import { skipUnlessOvs, withOvsSwitch } from './support/ovs.ts';
import { repoRoot } from './support/paths.ts';

const STAND_IN = `#!/bin/sh
printf '%s\\n' "$*" >> "$KUBECTL_LOG"
case " $* " in
  *" missing-pod "*) echo 'Error from server (NotFound): pods "missing-pod" not found' >&2; exit 1 ;;
  *" sleepy-pod "*) exec sleep 10 ;;
esac
while [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done
shift
exec "$@"
`;

interface Kit {
  readonly dir: string;
  readonly log: string;
  env(rundir?: string): Record<string, string>;
}

function kit(): Kit {
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-live-'));
  const kubectl = join(dir, 'kubectl');
  writeFileSync(kubectl, STAND_IN);
  chmodSync(kubectl, 0o755);
  const log = join(dir, 'kubectl.log');
  const path = [dir, ...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/bin', '/bin'].join(delimiter);
  return {
    dir,
    log,
    env: (rundir) => ({ PATH: path, KUBECTL_LOG: log, ...(rundir === undefined ? {} : { OVS_RUNDIR: rundir }) }),
  };
}

type Parsed = { flows: { table: string | number; match: { field: string; value: string }[] }[]; groups: unknown[] };

function inPorts(p: Parsed): (string | undefined)[] {
  return p.flows.map((f) => f.match.find((m) => m.field === 'in_port')?.value);
}

test(
  '--local dumps the switch with names; dump-ports-desc turns the names back into numbers',
  skipUnlessOvs,
  async () => {
    const k = kit();
    try {
      await withOvsSwitch(ANTREA.bridge, async (sw) => {
        await loadExample(sw, ANTREA);
        const r = await runCli(['parse', '--local'], { env: k.env(sw.dir) });
        assert.equal(r.status, 0, r.stderr);
        assert.equal(r.stderr, '');
        const live = JSON.parse(r.stdout) as Parsed;
        // The oracle: the same switch dumped by number.
        const numbered = parseDump(await sw.dumpFlows({ of: 15 }), { file: 'numbered' });
        assert.equal(live.flows.length, numbered.flows.length);
        assert.ok(
          live.flows.some((f) => f.table === 'SpoofGuard'),
          'table names come with --names',
        );
        const expected = numbered.flows.map((f) => f.match.fields.find((m) => m.field.name === 'in_port')?.value);
        assert.deepEqual(
          [...inPorts(live)].sort(),
          expected.map((v) => (v === undefined ? undefined : String(v))).sort(),
        );
      });
    } finally {
      rmSync(k.dir, { recursive: true, force: true });
    }
  },
);

test('--pod runs kubectl exec with an argument vector, passing --kubeconfig and --context', skipUnlessOvs, async () => {
  const k = kit();
  try {
    await withOvsSwitch(ANTREA.bridge, async (sw) => {
      await loadExample(sw, ANTREA);
      const r = await runCli(
        ['fmt', '--pod', 'antrea-agent-x7k2p', '--kubeconfig', '/tmp/kube config', '--context', 'prod'],
        { env: k.env(sw.dir) },
      );
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.trim().split('\n').length, 86);
      const calls = readFileSync(k.log, 'utf8').trim().split('\n');
      const prefix =
        '--kubeconfig=/tmp/kube config --context=prod exec --namespace=kube-system antrea-agent-x7k2p --container=antrea-ovs -- ovs-ofctl -O OpenFlow15';
      assert.deepEqual(calls, [
        `${prefix} --names -- dump-flows br-int`,
        `${prefix} -- dump-groups br-int`,
        `${prefix} -- dump-ports-desc br-int`,
      ]);
    });
  } finally {
    rmSync(k.dir, { recursive: true, force: true });
  }
});

test('a bridge that allows only OpenFlow 1.3 is dumped with 1.3', skipUnlessOvs, async () => {
  const k = kit();
  try {
    await withOvsSwitch(OPENSHIFT_SDN.bridge, async (sw) => {
      await loadExample(sw, OPENSHIFT_SDN);
      const r = await runCli(
        ['parse', '--pod', 'ovs-abcde', '-n', 'openshift-sdn', '--container', 'openvswitch', '--bridge', 'br0'],
        { env: k.env(sw.dir) },
      );
      assert.equal(r.status, 0, r.stderr);
      const live = JSON.parse(r.stdout) as Parsed;
      assert.equal(live.flows.length, 10);
      const calls = readFileSync(k.log, 'utf8').trim().split('\n');
      assert.ok(
        calls.includes(
          'exec --namespace=openshift-sdn ovs-abcde --container=openvswitch -- ovs-ofctl -O OpenFlow13 --names -- dump-flows br0',
        ),
        calls.join('\n'),
      );
    });
  } finally {
    rmSync(k.dir, { recursive: true, force: true });
  }
});

test('a bridge that does not exist is a clear error', skipUnlessOvs, async () => {
  const k = kit();
  try {
    await withOvsSwitch(ANTREA.bridge, async (sw) => {
      const r = await runCli(['parse', '--local', '--bridge', 'br-nope'], { env: k.env(sw.dir) });
      assert.equal(r.status, 2);
      assert.match(r.stderr, /^flowscope: error: ovs-ofctl -O OpenFlow15 --names -- dump-flows br-nope: .*br-nope/);
    });
  } finally {
    rmSync(k.dir, { recursive: true, force: true });
  }
});

test('a missing pod, a missing kubectl and a command that hangs are clear errors', async () => {
  const k = kit();
  try {
    const missing = await runCli(['parse', '--pod', 'missing-pod'], { env: k.env() });
    assert.equal(missing.status, 2);
    assert.equal(missing.stderr, 'flowscope: error: pod missing-pod not found in namespace kube-system\n');

    const noKubectl = await runCli(['parse', '--pod', 'antrea-agent-1'], { env: { PATH: join(k.dir, 'empty') } });
    assert.equal(noKubectl.status, 2);
    assert.equal(noKubectl.stderr, 'flowscope: error: kubectl not found: install it or add its directory to PATH\n');

    const slow = await runCli(['parse', '--pod', 'sleepy-pod', '--timeout', '0.5'], { env: k.env() });
    assert.equal(slow.status, 2);
    assert.match(
      slow.stderr,
      /^flowscope: error: kubectl exec --namespace=kube-system sleepy-pod .*: no answer within 0\.5 s/,
    );
  } finally {
    rmSync(k.dir, { recursive: true, force: true });
  }
});

test('live options are checked before anything runs', async () => {
  const both = await runCli(['parse', '--local', '--pod', 'p']);
  assert.equal(both.status, 2);
  assert.equal(both.stderr, 'flowscope: error: give one source of flows, not --pod and --local\n');
  const ns = await runCli(['parse', '-n', 'kube-system', 'x.txt']);
  assert.equal(ns.stderr, 'flowscope: error: --namespace goes with --pod\n');
  const timeout = await runCli(['parse', '--local', '--timeout', '0']);
  assert.equal(timeout.status, 2);
  assert.match(timeout.stderr, /expected a positive number of seconds/);
});

test('a live name that is no Pod, namespace, container, context or bridge name is refused before anything runs', async () => {
  const k = kit();
  try {
    const cases: [string[], RegExp][] = [
      [
        ['--pod=--filename=/etc/passwd'],
        /^flowscope: error: --pod "--filename=\/etc\/passwd": a name cannot start with "-"\n$/,
      ],
      [['--pod', 'Antrea_Agent'], /--pod "Antrea_Agent": not a Pod name/],
      [['--pod', 'p', '-n', '--all-namespaces'], /--namespace "--all-namespaces": a name cannot start with "-"/],
      [['--pod', 'p', '--namespace', 'a.b'], /--namespace "a\.b": not a namespace name/],
      [['--pod', 'p', '--container=-it'], /--container "-it": a name cannot start with "-"/],
      [
        ['--pod', 'p', '--context=--server=http://evil'],
        /--context "--server=http:\/\/evil": a name cannot start with "-"/,
      ],
      [['--pod', 'p', '--context', 'a\nb'], /--context "a\\nb": a control character/],
      [['--local', '--bridge=--log-file=/tmp/x'], /--bridge "--log-file=\/tmp\/x": a name cannot start with "-"/],
      [['--local', '--bridge', 'unix:/run/x.mgmt'], /--bridge "unix:\/run\/x\.mgmt": not a bridge name/],
      [['--local', '--bridge', 'a-bridge-name-longer-than-15'], /not a bridge name/],
    ];
    for (const [args, expected] of cases) {
      const r = await runCli(['parse', ...args], { env: k.env() });
      assert.equal(r.status, 2, args.join(' '));
      assert.match(r.stderr, expected);
      assert.equal(r.stdout, '');
    }
    assert.equal(existsSync(k.log), false, 'kubectl never ran');
  } finally {
    rmSync(k.dir, { recursive: true, force: true });
  }
});

test('a --timeout past what a timer holds is refused', async () => {
  const r = await runCli(['parse', '--local', '--timeout', String(2 ** 31)]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /expected at most 2147483 seconds/);
});

test(
  'trace --compare-local and --compare-pod trace the packet through the live switch beside a saved dump',
  skipUnlessOvs,
  async () => {
    const k = kit();
    const saved = join(k.dir, 'saved.txt');
    const unrouted = join(k.dir, 'unrouted.txt');
    const example = readFileSync(join(repoRoot, 'examples', 'antrea', 'dump-flows.of13.txt'), 'utf8');
    writeFileSync(saved, example);
    // The route to the other node's Pod subnet gone from the saved dump.
    writeFileSync(
      unrouted,
      example
        .split('\n')
        .filter((l) => !/table=70,.*nw_dst=10\.10\.1\.0\/24 /.test(l))
        .join('\n'),
    );
    const packet =
      'in_port=3,tcp,dl_src=12:9e:a6:47:d0:70,dl_dst=aa:bb:cc:dd:ee:ff,nw_src=10.10.0.2,nw_dst=10.10.1.5,nw_ttl=64,tp_dst=80';
    try {
      await withOvsSwitch(ANTREA.bridge, async (sw) => {
        await loadExample(sw, ANTREA);
        const same = await runCli(['trace', saved, '--compare-local', packet], { env: k.env(sw.dir) });
        assert.equal(same.status, 0, same.stderr);
        assert.match(same.stdout, /right: local br-int\n[^]*The paths are the same, lookup for lookup\.\n/);
        const parted = await runCli(
          ['trace', '--json', unrouted, '--compare-pod', 'antrea-agent-x7k2p', '-n', 'kube-system', packet],
          { env: k.env(sw.dir) },
        );
        assert.equal(parted.status, 1, parted.stderr);
        const j = JSON.parse(parted.stdout) as {
          right: { source: string };
          divergence: { left: { table: number | string }; right: { table: number | string } } | null;
        };
        assert.match(j.right.source, /antrea-agent-x7k2p/);
        // The live switch names its tables; the saved dump numbers them.
        assert.equal(j.divergence?.left.table, 70);
        assert.equal(j.divergence?.right.table, 'L3Forwarding');
        const calls = readFileSync(k.log, 'utf8');
        assert.match(
          calls,
          /exec --namespace=kube-system antrea-agent-x7k2p --container=antrea-ovs -- ovs-ofctl -O OpenFlow15 --names -- dump-flows br-int/,
        );
      });
    } finally {
      rmSync(k.dir, { recursive: true, force: true });
    }
  },
);

test("trace's compared dump: one source, its options checked before anything runs", async () => {
  for (const [args, message] of [
    [['--compare', 'x', '--compare-local'], /give one dump to compare with, not --compare and --compare-local/],
    [['--compare-pod', 'p', '--compare-local'], /give one dump to compare with, not --compare-pod and --compare-local/],
    [['--compare-groups', 'g'], /--compare-groups goes with --compare, --compare-pod or --compare-local/],
    [['--compare-pod=--filename=/etc/passwd'], /a name cannot start with "-"/],
    [['--compare-local', '--bridge=--log-file=/tmp/x'], /--bridge "--log-file=\/tmp\/x": a name cannot start with "-"/],
  ] as const) {
    const r = await runCli(['trace', ...args, 'in_port=1'], { stdin: 'table=0 actions=drop\n' });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message, args.join(' '));
  }
});
