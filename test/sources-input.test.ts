/** Inputs given as files: several at once, port maps, wrong and damaged files. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readPortDescriptions } from '../src/sources/port-map.ts';
import { agentText, antreaAgentFiles, example as readExample, tarGz } from './support/bundle.ts';
import { runCli } from './support/cli.ts';
import { ANTREA, ANTREA_PROXY, exampleFile, OPENSHIFT_SDN } from './support/make-examples.ts';

type Parsed = { flows: { match: { field: string; value: string }[] }[]; groups: unknown[] };

function inPorts(stdout: string): (string | undefined)[] {
  return (JSON.parse(stdout) as Parsed).flows.map((f) => f.match.find((m) => m.field === 'in_port')?.value);
}

function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-input-'));
  return fn(dir).finally(() => rmSync(dir, { recursive: true, force: true }));
}

test("port descriptions of show, dump-ports-desc and a bundle's trimmed ovsports give the bridge's ports", () => {
  for (const example of [ANTREA, OPENSHIFT_SDN]) {
    const expected = (example.bridge.ports ?? []).map((p) => [p.ofport, p.name]).sort();
    for (const file of [
      'show.of13.txt',
      example === ANTREA ? 'dump-ports-desc.of10.txt' : 'dump-ports-desc.of13.txt',
    ]) {
      const text = readExample(`${example.name}/${file}`);
      assert.deepEqual([...readPortDescriptions(text).entries()].sort(), expected, `${example.name}/${file}`);
      assert.deepEqual(
        [...readPortDescriptions(agentText(text)).entries()].sort(),
        expected,
        `${example.name}/${file} trimmed`,
      );
    }
  }
});

test('a port head line is found however much of its mark other lines hold', () => {
  const text = [
    ' cookie=0x0, duration=1.0s, table=0, n_packets=0, n_bytes=0, priority=0 actions=drop',
    'note: addr ranges (x): addr',
    '): addr:',
    ' 4(p4): addr:aa:55:aa:55:00:04',
    'x): addr:y 5(p5): addr:aa:55:aa:55:00:05',
    ' 6(p6): addr:aa:55:aa:55:00:06',
  ].join('\n');
  assert.deepEqual([...readPortDescriptions(text).entries()].sort(), [
    [4, 'p4'],
    [6, 'p6'],
  ]);
});

test('port descriptions after the flows, with CRLF line ends: a down detail counts for the port above it only', () => {
  const text = [
    ' cookie=0x0, duration=1.0s, table=0, n_packets=0, n_bytes=0, priority=0 actions=drop',
    '     state:      LINK_DOWN',
    'OFPST_PORT_DESC reply (OF1.3) (xid=0x3):',
    ' 1(antrea-tun0): addr:aa:55:aa:55:00:02',
    '     config:     PORT_DOWN',
    '     state:      LIVE',
    ' 2(antrea-gw0): addr:aa:55:aa:55:00:03',
    '     config:     0',
    ' LOCAL(br-int): addr:aa:55:aa:55:00:01',
    '     state:      LINK_DOWN',
    ' 3(coredns5-8ec607): addr:aa:55:aa:55:00:04',
    '     config:     0',
    '     state:      LINK_DOWN',
    '',
  ];
  for (const end of ['\n', '\r\n']) {
    const ports = readPortDescriptions(text.join(end));
    assert.deepEqual([...ports.entries()].sort(), [
      [1, 'antrea-tun0'],
      [2, 'antrea-gw0'],
      [3, 'coredns5-8ec607'],
    ]);
    assert.deepEqual(
      [0, 1, 2, 3].map((n) => ports.isDown(n)),
      [false, true, false, true],
      JSON.stringify(end),
    );
  }
});

test('--ports makes a --names dump carry the numbers of the plain dump', async () => {
  const plain = await runCli(['parse', exampleFile(ANTREA, 'dump-flows.of13.txt')]);
  const named = await runCli([
    'parse',
    '--ports',
    exampleFile(ANTREA, 'show.of13.txt'),
    exampleFile(ANTREA, 'dump-flows.of13.names.txt'),
  ]);
  assert.equal(named.status, 0, named.stderr);
  assert.ok(inPorts(plain.stdout).filter(Boolean).length >= 4);
  assert.deepEqual(inPorts(named.stdout), inPorts(plain.stdout));
  const none = await runCli([
    'parse',
    '--ports',
    exampleFile(ANTREA, 'dump-flows.of13.txt'),
    exampleFile(ANTREA, 'dump-flows.of13.txt'),
  ]);
  assert.equal(none.status, 2);
  assert.match(
    none.stderr,
    /dump-flows\.of13\.txt: no ports found \(expected ovs-ofctl show or dump-ports-desc output/,
  );
});

test('several files read as one dump; port descriptions among them apply to all', async () => {
  const r = await runCli([
    'parse',
    exampleFile(ANTREA, 'dump-flows.of13.names.txt'),
    exampleFile(ANTREA_PROXY, 'dump-groups.of15.txt'),
    exampleFile(ANTREA, 'dump-ports-desc.of10.txt'),
  ]);
  assert.equal(r.status, 0, r.stderr);
  const parsed = JSON.parse(r.stdout) as Parsed;
  assert.equal(parsed.flows.length, 86);
  assert.equal(parsed.groups.length, 3);
  const plain = await runCli(['parse', exampleFile(ANTREA, 'dump-flows.of13.txt')]);
  assert.deepEqual(inPorts(r.stdout), inPorts(plain.stdout));
});

test('no input file reads standard input; a terminal there is refused', async () => {
  const piped = await runCli(['fmt'], { stdin: readExample('openshift-sdn/dump-flows.of13.txt') });
  assert.equal(piped.status, 0);
  assert.equal(piped.stdout.trim().split('\n').length, 10);
  const tty = await runCli(['fmt'], { stdinIsTTY: true });
  assert.equal(tty.status, 2);
  assert.match(tty.stderr, /standard input is a terminal/);
});

test('the wrong file is named with what it is, and nothing else is printed', async () => {
  await withDir(async (dir) => {
    writeFileSync(
      join(dir, 'shot.png'),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]),
    );
    const png = await runCli(['fmt', join(dir, 'shot.png')]);
    assert.equal(png.status, 2);
    assert.equal(
      png.stderr,
      `flowscope: error: ${dir}/shot.png: not an ovs-ofctl dump (a PNG image); give dump-flows or dump-groups output, or a support bundle\n`,
    );

    writeFileSync(
      join(dir, 'antrea.yml'),
      'apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: antrea-agent\n  namespace: kube-system\n',
    );
    const yaml = await runCli(['fmt', join(dir, 'antrea.yml')]);
    assert.equal(yaml.status, 2);
    assert.equal(yaml.stderr, `flowscope: error: ${dir}/antrea.yml: not an ovs-ofctl dump: it looks like YAML\n`);

    const dirAsFile = await runCli(['fmt', dir]);
    assert.equal(dirAsFile.status, 2);
    assert.match(dirAsFile.stderr, /no dumps found/);
  });
});

test('a dump cut in the middle of a line: the rest is read, the cut is named', async () => {
  await withDir(async (dir) => {
    const text = readExample('antrea/dump-flows.of15.txt');
    const cut = text.slice(0, text.indexOf('actions=', Math.floor(text.length / 2)) + 3);
    writeFileSync(join(dir, 'cut.txt'), cut);
    const r = await runCli(['fmt', join(dir, 'cut.txt')]);
    assert.equal(r.status, 0);
    const lines = cut.split('\n');
    assert.equal(
      r.stdout.trim().split('\n').length,
      lines.length - 2,
      'every whole flow line (all but the header and the cut one)',
    );
    assert.match(
      r.stderr,
      new RegExp(
        `warning: ${dir}/cut\\.txt: line ${lines.length} could not be read and ends without a line end: the file looks cut short`,
      ),
    );
    const strict = await runCli(['fmt', '--strict', join(dir, 'cut.txt')]);
    assert.equal(strict.status, 2);
  });
});

test('input options that do not go together are refused', async () => {
  const node = await runCli(['parse', '--node', 'n1', exampleFile(ANTREA, 'dump-flows.of13.txt')]);
  assert.equal(node.status, 2);
  assert.equal(node.stderr, 'flowscope: error: --node goes with --bundle (or a bundle given as input)\n');
  const two = await runCli(['parse', '--bundle', 'x', exampleFile(ANTREA, 'dump-flows.of13.txt')]);
  assert.equal(two.stderr, 'flowscope: error: give one source of flows, not input files and --bundle\n');
  const stdin = await runCli(['parse', '-', '-']);
  assert.equal(stdin.stderr, 'flowscope: error: only one input can be standard input (-)\n');
  const bridge = await runCli(['parse', '--bridge', 'br0', '-'], { stdin: '' });
  assert.equal(bridge.stderr, 'flowscope: error: --bridge goes with --pod or --local\n');
});

test('a gzip-compressed dump is read as the dump, named as given; a damaged one is refused', async () => {
  await withDir(async (dir) => {
    const flows = exampleFile(ANTREA, 'dump-flows.of13.txt');
    const plain = await runCli(['fmt', flows]);
    assert.equal(plain.status, 0, plain.stderr);
    const gz = join(dir, 'dump.txt.gz');
    const packed = gzipSync(readFileSync(flows));
    writeFileSync(gz, packed);
    const file = await runCli(['fmt', gz]);
    assert.deepEqual([file.status, file.stderr, file.stdout], [0, '', plain.stdout]);
    const piped = await runCli(['fmt', '-'], { stdin: packed });
    assert.deepEqual([piped.status, piped.stderr, piped.stdout], [0, '', plain.stdout]);
    // Flows and groups, as the text holds them; --ports too, and its diagnostics name the file given.
    const proxy = join(dir, 'proxy.txt.gz');
    writeFileSync(
      proxy,
      gzipSync(
        readExample('antrea-proxy/dump-flows.of13.txt') +
          readExample('antrea-proxy/dump-groups.of13.txt') +
          'table=0,priority=1,bogus=3 actions=drop\n',
      ),
    );
    const both = await runCli(['parse', proxy]);
    assert.equal(both.status, 0, both.stderr);
    const model = JSON.parse(both.stdout) as Parsed;
    assert.ok(
      model.flows.length > 10 && model.groups.length > 0,
      `${model.flows.length} flows, ${model.groups.length} groups`,
    );
    assert.match(both.stderr, new RegExp(`^${proxy}:\\d+:\\d+: error: .*bogus`, 'm'));
    const ports = join(dir, 'show.txt.gz');
    writeFileSync(ports, gzipSync(readExample('antrea/show.of13.txt')));
    const named = await runCli(['parse', '--ports', ports, exampleFile(ANTREA, 'dump-flows.of13.names.txt')]);
    assert.equal(named.status, 0, named.stderr);
    assert.ok(inPorts(named.stdout).includes('3'), 'the names are given their numbers');

    // Cut or corrupt: what came before the damage would read as a shorter dump.
    const cut = join(dir, 'cut.txt.gz');
    writeFileSync(cut, packed.subarray(0, Math.floor(packed.length / 2)));
    const cutRun = await runCli(['fmt', cut]);
    assert.deepEqual(
      [cutRun.status, cutRun.stdout, cutRun.stderr],
      [2, '', `flowscope: error: cannot read ${cut}: it is truncated (the gzip stream ends early)\n`],
    );
    const corrupt = Buffer.from(packed);
    corrupt.fill(0xff, 10, 200);
    const bad = await runCli(['fmt', '-'], { stdin: corrupt });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /^flowscope: error: cannot read <stdin>: it is corrupt \(.+\)\n$/);

    // A .tar.gz is still a bundle, even cut short; a compressed dump is no bundle.
    const agent = await tarGz(antreaAgentFiles('node-a'));
    const cutAgent = join(dir, 'agent_node-a.tar.gz');
    writeFileSync(cutAgent, agent.subarray(0, Math.floor(agent.length * 0.7)));
    const fromBundle = await runCli(['fmt', cutAgent]);
    assert.equal(fromBundle.status, 0, fromBundle.stderr);
    assert.match(fromBundle.stderr, /warning: .*agent_node-a\.tar\.gz is truncated/);
    const notBundle = await runCli(['fmt', '--bundle', gz]);
    assert.equal(notBundle.status, 2);
    assert.match(
      notBundle.stderr,
      /dump\.txt\.gz: not a support bundle \(gzip-compressed, but not a tar archive\).*read as an input, without --bundle/,
    );
  });
});
