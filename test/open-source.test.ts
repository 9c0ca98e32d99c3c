/**
 * openSource as a library user calls it: every kind of source read to the same flows the command
 * line reads, and every refusal returned as data with the message the command line prints.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { InputReader } from '../src/sources/input.ts';
import { type OpenedSource, openSource, type SourceProblem } from '../src/sources/open.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { antreaAgentFiles, example, tarGz } from './support/bundle.ts';
import { runCli } from './support/cli.ts';
import { ANTREA, loadExample } from './support/make-examples.ts';
import { skipUnlessOvs, withOvsSwitch } from './support/ovs.ts';
import { repoRoot } from './support/paths.ts';

const ANTREA_FLOWS = join(repoRoot, 'examples', 'antrea', 'dump-flows.of13.txt');
const ANTREA_NAMES = join(repoRoot, 'examples', 'antrea', 'dump-flows.of13.names.txt');
const EXPECTED = parseDump(readFileSync(ANTREA_FLOWS, 'utf8'), { file: 'x' }).flows.length;

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'flowscope-open-'));
}

/** The one dump read, after checking nothing was refused. */
function only(opened: OpenedSource): OpenedSource['dumps'][number] {
  assert.deepEqual(
    opened.problems.filter((p) => p.severity === 'error'),
    [],
  );
  assert.equal(opened.dumps.length, 1);
  return opened.dumps[0]!;
}

/** The refusal, which must be the only error and leave no dump. */
function refusal(opened: OpenedSource): SourceProblem & { kind: 'refused' } {
  assert.deepEqual(opened.dumps, []);
  const errors = opened.problems.filter((p) => p.kind === 'refused');
  assert.equal(errors.length, 1, JSON.stringify(opened.problems));
  return errors[0]!;
}

/** What the command line prints for the same input: its error line is the refusal's message. */
async function cliError(args: readonly string[], message: string): Promise<void> {
  const r = await runCli(['parse', ...args]);
  assert.equal(r.status, 2);
  assert.equal(r.stderr, `flowscope: error: ${message}\n`);
}

test('a file, the same file gzip-compressed, and the same text on a stream read as one dump', async () => {
  const dir = tempDir();
  try {
    const file = only(await openSource({ kind: 'files', paths: [ANTREA_FLOWS] }));
    assert.equal(file.flows.length, EXPECTED);
    assert.deepEqual(file.sources, [ANTREA_FLOWS]);
    assert.deepEqual(
      file.files.map((f) => f.label),
      [ANTREA_FLOWS],
    );
    assert.equal(file.files[0]!.text, readFileSync(ANTREA_FLOWS, 'utf8'));

    const gz = join(dir, 'flows.txt.gz');
    writeFileSync(gz, gzipSync(readFileSync(ANTREA_FLOWS)));
    const inflated = only(await openSource({ kind: 'files', paths: [gz] }));
    assert.equal(inflated.flows.length, EXPECTED);
    assert.equal(inflated.files[0]!.text, readFileSync(ANTREA_FLOWS, 'utf8'));

    const stream = Readable.from([readFileSync(ANTREA_FLOWS)]);
    const piped = only(await openSource({ kind: 'stdin', stream }));
    assert.equal(piped.flows.length, EXPECTED);
    assert.deepEqual(piped.sources, ['-']);
    assert.equal(piped.flows[0]!.origin.file, '<stdin>');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a port map and a groups file come with the flows', async () => {
  const dump = only(
    await openSource({
      kind: 'files',
      paths: [ANTREA_NAMES],
      ports: [join(repoRoot, 'examples', 'antrea', 'dump-ports-desc.of10.txt')],
    }),
  );
  assert.ok(dump.ports.size > 0);
  const named = dump.ports.name(1);
  assert.equal(typeof named, 'string');

  const groups = join(repoRoot, 'examples', 'antrea-proxy', 'dump-groups.of15.txt');
  const proxy = join(repoRoot, 'examples', 'antrea-proxy', 'dump-flows.of15.names.no-stats.txt');
  const withGroups = only(await openSource({ kind: 'files', paths: [proxy], groups }));
  const alone = parseDump(readFileSync(groups, 'utf8'), { file: 'g' }).groups.length;
  assert.ok(alone > 0);
  assert.equal(withGroups.groups.length, alone);
});

test('a bundle: its node by name, or every node; a sosreport: its bridge', async () => {
  const dir = tempDir();
  try {
    const archive = join(dir, 'bundle.tar.gz');
    writeFileSync(
      archive,
      await tarGz([
        { name: 'agent_n1.tar.gz', data: await tarGz(antreaAgentFiles('n1')) },
        { name: 'agent_n2.tar.gz', data: await tarGz(antreaAgentFiles('n2')) },
        { name: 'failed_nodes', data: 'n3\n' },
      ]),
    );
    const n1 = await openSource({ kind: 'bundle', path: archive, node: 'n1' });
    const dump = only(n1);
    assert.deepEqual(dump.sources, [`${archive}[n1]`]);
    assert.equal(dump.node?.name, 'n1');
    assert.equal(dump.node?.agentInfo?.agentVersion, 'v1.2.0');
    assert.ok(dump.flows.length > 0);
    assert.ok(dump.ports.size > 0, 'ovsports names the ports');
    assert.deepEqual(
      n1.problems.filter((p) => p.kind === 'damaged').map((p) => p.kind === 'damaged' && p.message),
      ['the bundle could not collect node n3 (failed_nodes)'],
    );
    // The same archive given as a file among the inputs, and on standard input.
    const positional = only(await openSource({ kind: 'files', paths: [archive], node: 'n1' }));
    assert.equal(positional.flows.length, dump.flows.length);
    const piped = only(
      await openSource({ kind: 'bundle', path: '-', node: 'n2' }, { stdin: Readable.from([readFileSync(archive)]) }),
    );
    assert.deepEqual(piped.sources, ['<stdin>[n2]']);
    assert.equal(piped.flows.length, dump.flows.length);

    const every = await openSource({ kind: 'bundle', path: archive, everyNode: true });
    assert.deepEqual(
      every.dumps.map((d) => d.node?.name),
      ['n1', 'n2'],
    );

    const several = refusal(await openSource({ kind: 'bundle', path: archive }));
    assert.equal(several.message, `${archive} holds 2 nodes (n1, n2): choose one with --node NAME`);
    await cliError(['--bundle', archive], several.message);

    const ovs = join(dir, 'sosreport-node1', 'sos_commands', 'openvswitch');
    mkdirSync(ovs, { recursive: true });
    writeFileSync(join(ovs, 'ovs-ofctl_-O_OpenFlow13_dump-flows_br0'), example('openshift-sdn/dump-flows.of13.txt'));
    writeFileSync(join(ovs, 'ovs-ofctl_-O_OpenFlow13_show_br0'), example('openshift-sdn/show.of13.txt'));
    const sos = only(await openSource({ kind: 'sosreport', path: join(dir, 'sosreport-node1'), bridge: 'br0' }));
    assert.equal(sos.flows.length, 10);
    assert.equal(sos.ports.name(1), 'vxlan0');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('what cannot be read is refused as data, with the message the command line prints', async () => {
  const dir = tempDir();
  try {
    const missing = join(dir, 'missing.txt');
    const gone = refusal(await openSource({ kind: 'files', paths: [missing] }));
    assert.equal(gone.message, `cannot read ${missing}: no such file`);
    await cliError([missing], gone.message);

    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '');
    const nothing = refusal(await openSource({ kind: 'files', paths: [empty] }));
    assert.equal(nothing.message, `${empty} is empty: no flows or groups to read`);
    await cliError([empty], nothing.message);

    const silent = refusal(await openSource({ kind: 'stdin', stream: Readable.from([]) }));
    assert.equal(
      silent.message,
      'nothing came in on standard input (did the command before the pipe fail?): no flows or groups to read',
    );

    const folder = join(dir, 'folder');
    mkdirSync(folder);
    const notBundle = refusal(await openSource({ kind: 'bundle', path: folder }));
    assert.match(notBundle.message, /: no dumps found \(expected agent_<node>\.tar\.gz archives/);
    await cliError([folder], notBundle.message);

    // A sparse file: past the cap, refused by its size before a byte is read.
    const huge = join(dir, 'huge.txt');
    writeFileSync(huge, 'table=0 actions=drop\n');
    truncateSync(huge, 300 * 1024 * 1024);
    const capped = refusal(await openSource({ kind: 'files', paths: [huge] }));
    assert.equal(capped.message, `${huge}: more than 256 MiB, more than flowscope reads of one input`);
    await cliError([huge], capped.message);

    const yaml = join(dir, 'policy.yaml');
    writeFileSync(yaml, 'apiVersion: v1\nkind: NetworkPolicy\n');
    const other = refusal(await openSource({ kind: 'files', paths: [yaml] }));
    assert.equal(other.message, `${yaml}: not an ovs-ofctl dump: it looks like YAML`);

    const twice = refusal(await openSource({ kind: 'files', paths: ['-', '-'] }, { stdin: Readable.from([]) }));
    assert.equal(twice.message, 'only one input can be standard input (-)');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('lines that cannot be read are counted, each with its diagnostic', async () => {
  const dir = tempDir();
  try {
    const file = join(dir, 'flows.txt');
    writeFileSync(file, 'table=0,priority=1 actions=drop\ntable=0,priority=2,bogus=1 actions=drop\n');
    const opened = await openSource({ kind: 'files', paths: [file] });
    assert.equal(only(opened).flows.length, 1);
    const kinds = opened.problems.map((p) => p.kind);
    assert.deepEqual(kinds, ['diagnostics', 'unreadable-lines']);
    const bad = opened.problems[1]!;
    assert.ok(bad.kind === 'unreadable-lines');
    assert.equal(bad.message, `1 line of ${file} could not be read`);
    const r = await runCli(['parse', file]);
    assert.match(
      r.stderr,
      new RegExp(`flowscope: ${bad.message.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} and was skipped\n$`),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A kubectl that records its arguments and answers with recorded ovs-ofctl output. */
const KUBECTL = `#!/bin/sh
printf '%s\\n' "$*" >> "$KUBECTL_LOG"
case " $* " in
  *" dump-flows "*) cat "$FLOWS" ;;
  *" dump-ports-desc "*) cat "$PORTS" ;;
  *" dump-groups "*) echo 'ovs-ofctl: br-int: no groups here' >&2; exit 1 ;;
esac
`;

test('live: kubectl exec is run with the values joined to their options, and a value that would be an option is refused before', async () => {
  const dir = tempDir();
  try {
    const kubectl = join(dir, 'kubectl');
    writeFileSync(kubectl, KUBECTL);
    chmodSync(kubectl, 0o755);
    const log = join(dir, 'kubectl.log');
    const env = {
      PATH: [dir, '/usr/bin', '/bin'].join(delimiter),
      KUBECTL_LOG: log,
      FLOWS: ANTREA_NAMES,
      PORTS: join(repoRoot, 'examples', 'antrea', 'dump-ports-desc.of10.txt'),
    };
    const opened = await openSource({ kind: 'pod', pod: 'antrea-agent-x1', context: 'kind' }, { env });
    const dump = only(opened);
    assert.deepEqual(dump.sources, ['pod kube-system/antrea-agent-x1']);
    assert.equal(dump.flows.length, EXPECTED);
    assert.ok(dump.ports.size > 0);
    const calls = readFileSync(log, 'utf8').trim().split('\n');
    assert.equal(
      calls[0],
      '--context=kind exec --namespace=kube-system antrea-agent-x1 --container=antrea-ovs -- ovs-ofctl -O OpenFlow15 --names -- dump-flows br-int',
    );
    // The groups command failed: said as damage, the flows still read.
    assert.ok(
      opened.problems.some((p) => p.kind === 'damaged' && /no groups here/.test(p.message)),
      JSON.stringify(opened.problems),
    );

    rmSync(log);
    const injected = refusal(await openSource({ kind: 'pod', pod: '--filename=/etc/passwd' }, { env }));
    assert.equal(injected.message, '--pod "--filename=/etc/passwd": a name cannot start with "-"');
    assert.throws(() => readFileSync(log), /ENOENT/, 'kubectl never ran');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('live: the switch of this host through ovs-ofctl', skipUnlessOvs, async () => {
  await withOvsSwitch(ANTREA.bridge, async (sw) => {
    await loadExample(sw, ANTREA);
    const env = { PATH: process.env.PATH, OVS_RUNDIR: sw.dir };
    const dump = only(await openSource({ kind: 'local', bridge: 'br-int' }, { env }));
    assert.deepEqual(dump.sources, ['local br-int']);
    assert.equal(dump.flows.length, parseDump(await sw.dumpFlows({ of: 15 }), { file: 'n' }).flows.length);
  });
});

test('a reader shared between calls reads standard input once for both', async () => {
  const reader = new InputReader(Readable.from([readFileSync(ANTREA_FLOWS)]));
  const first = only(await openSource({ kind: 'files', paths: ['-'] }, { reader }));
  const second = only(await openSource({ kind: 'files', paths: ['-'] }, { reader }));
  assert.equal(first.flows.length, EXPECTED);
  assert.equal(second.flows.length, EXPECTED);
});

test('files read one after another into the buffer of the one before read as each reads alone', async () => {
  const dir = tempDir();
  try {
    const whole = readFileSync(ANTREA_FLOWS, 'utf8');
    const lines = (n: number): string => whole.split('\n').slice(0, n).join('\n') + '\n';
    // Shorter than the one before, longer, gzip-compressed, as long as one before: each file's
    // text is its own, whatever the buffer held.
    const texts = [whole, lines(8), whole + whole + whole, lines(3), whole];
    const names = texts.map((text, i) => {
      const name = join(dir, `flows-${i}.txt`);
      writeFileSync(name, i === 3 ? gzipSync(text) : text);
      return name;
    });
    const reader = new InputReader();
    reader.holdReads(names.length - 1);
    for (let i = 0; i < names.length; i++) {
      assert.equal((await reader.readInput(names[i]!)).text, texts[i], names[i]);
      const read = only(await openSource({ kind: 'files', paths: [names[i]!] }, { reader }));
      assert.equal(read.flows.length, parseDump(texts[i]!, { file: 'x' }).flows.length);
    }
    reader.holdReads(0);
    assert.equal((await reader.readInput(names[2]!)).text, texts[2]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
