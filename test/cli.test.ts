import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './support/cli.ts';
import { repoRoot } from './support/paths.ts';

const example = join(repoRoot, 'examples', 'antrea', 'dump-flows.of13.txt');

test('--help and --version succeed', async () => {
  const help = await runCli(['--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /Usage: flowscope/);
  const version = await runCli(['--version']);
  assert.equal(version.status, 0);
  assert.match(version.stdout, /^\d+\.\d+\.\d+/);
});

test('no command shows the help on stderr and exits 2; help for a command exits 0', async () => {
  const none = await runCli([]);
  assert.equal(none.status, 2);
  assert.match(none.stderr, /Usage: flowscope/);
  const helpFmt = await runCli(['help', 'fmt']);
  assert.equal(helpFmt.status, 0);
  assert.match(helpFmt.stdout, /Usage: flowscope fmt/);
  const unknown = await runCli(['help', 'fmtt']);
  assert.equal(unknown.status, 2);
  assert.equal(unknown.stdout, '');
  assert.match(unknown.stderr, /^flowscope: error: unknown command 'fmtt' \(commands: parse, bundle, fmt, /);
});

test("no command's help shows an empty list as a default", async () => {
  const top = await runCli(['--help']);
  const commands = [...top.stdout.matchAll(/^ {2}([a-z]+) \[/gm)].map((m) => m[1]!);
  assert.ok(commands.includes('trace') && commands.includes('graph'), top.stdout);
  for (const name of commands) {
    const help = await runCli([name, '--help']);
    assert.equal(help.status, 0, name);
    assert.doesNotMatch(help.stdout, /\(default: \[\]\)/, name);
  }
});

test("--node's help says what it picks: verify checks one dump, diff compares two", async () => {
  const help = async (command: string): Promise<string> =>
    (await runCli([command, '--help'])).stdout.replace(/\s+/g, ' ');
  const verify = await help('verify');
  assert.match(verify, /--node <name> node of the bundle to check \(given as input, or with --bundle\)/);
  assert.doesNotMatch(verify, /compare two nodes/);
  assert.match(
    await help('diff'),
    /--node <name> node of the bundle inputs \(one for all, or one each in order\), or of --bundle: repeat it there to compare two nodes/,
  );
});

test('usage errors exit 2, not 1 (1 means differences)', async () => {
  const r = await runCli(['frobnicate']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown command 'frobnicate'/);
  const badOf = await runCli(['fmt', '--of', '17', example]);
  assert.equal(badOf.status, 2);
  assert.match(badOf.stderr, /expected 10, 11, 12, 13, 14 or 15/);
});

test('a missing file is named in a clear message with exit 2', async () => {
  const r = await runCli(['parse', '/nonexistent/flows.txt']);
  assert.equal(r.status, 2);
  assert.equal(r.stderr.trim(), 'flowscope: error: cannot read /nonexistent/flows.txt: no such file');
});

test('a terminal on standard input is refused instead of waited on', async () => {
  const r = await runCli(['fmt', '-'], { stdinIsTTY: true });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /standard input is a terminal/);
});

test('fmt reads standard input', async () => {
  const r = await runCli(['fmt', '--of', '13', '-'], {
    stdin:
      ' cookie=0x0, duration=1.5s, table=3, n_packets=0, n_bytes=0, priority=5,ip,nw_src=10.0.0.1 actions=resubmit(,4)\n',
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'table=3, priority=5,ip,nw_src=10.0.0.1 actions=resubmit(,4)\n');
});

test('bad lines are reported with file:line:col and a caret, skipped, and counted', async () => {
  const input = 'priority=1,ip actions=drop\npriority=2,bogus_field=3 actions=drop\npriority=3 actions=drop\n';
  const r = await runCli(['fmt', '-'], { stdin: input });
  assert.equal(r.status, 0);
  assert.equal(r.stdout, 'priority=1,ip actions=drop\npriority=3 actions=drop\n');
  assert.match(r.stderr, /^<stdin>:2:12: error: .*bogus_field/m);
  assert.match(r.stderr, /\n {4}priority=2,bogus_field=3 actions=drop\n {15}\^/);
  assert.match(r.stderr, /1 line of <stdin> could not be read and was skipped/);
  const strict = await runCli(['fmt', '--strict', '-'], { stdin: input });
  assert.equal(strict.status, 2);
});

test('parse --json gives the versioned model with 64-bit values as strings', async () => {
  const r = await runCli(['parse', '--json', '-'], {
    stdin: 'cookie=0xffffffffffffffff,table=2,priority=7,reg0=0x1/0x1 actions=load:0x1->NXM_NX_REG1[]\n',
  });
  assert.equal(r.status, 0, r.stderr);
  const model = JSON.parse(r.stdout) as {
    schemaVersion: number;
    flows: Array<Record<string, unknown>>;
    groups: unknown[];
    diagnostics: unknown[];
  };
  assert.equal(model.schemaVersion, 1);
  assert.equal(model.flows.length, 1);
  const flow = model.flows[0]!;
  assert.equal(flow.cookie, '0xffffffffffffffff');
  assert.equal(flow.table, 2);
  assert.equal(flow.priority, 7);
  assert.deepEqual(flow.match, [{ field: 'reg0', value: '0x1', mask: '0x1' }]);
  assert.deepEqual(model.diagnostics, []);
});

test('parse --json: a port known only by its name has the name as its value, never a number it does not have', async () => {
  const named = join(repoRoot, 'examples', 'antrea', 'dump-flows.of15.names.no-stats.txt');
  type Field = { field: string; value: string; port?: { kind: string; name: string } };
  const inPorts = async (args: string[]): Promise<Field[]> => {
    const r = await runCli(['parse', ...args]);
    assert.equal(r.status, 0, r.stderr);
    return (JSON.parse(r.stdout) as { flows: { match: Field[] }[] }).flows
      .flatMap((f) => f.match)
      .filter((m) => m.field === 'in_port');
  };
  const alone = await inPorts([named]);
  assert.ok(alone.some((m) => m.port?.name === 'antrea-gw0'));
  for (const m of alone)
    assert.deepEqual(m, { field: 'in_port', value: m.port!.name, port: { kind: 'name', name: m.port!.name } });
  // With a port map the name has its number.
  const mapped = await inPorts(['--ports', join(repoRoot, 'examples', 'antrea', 'show.of13.txt'), named]);
  assert.deepEqual(mapped.find((m) => m.port?.name === 'antrea-gw0')?.value, '2');
});

test('the installed shim runs and survives a closed pipe', () => {
  const r = spawnSync('sh', ['-c', `node ${join(repoRoot, 'bin', 'flowscope.js')} fmt ${example} | head -n 1`], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0);
  assert.equal(r.stdout.split('\n').filter(Boolean).length, 1);
  assert.doesNotMatch(r.stderr, /EPIPE|Error/);
});

test('output that cannot be written ends with a message and status 2, not as a success', (t) => {
  const shim = join(repoRoot, 'bin', 'flowscope.js');
  const failing = (stdout: number) =>
    spawnSync(process.execPath, [shim, 'tables', example], { stdio: ['ignore', stdout, 'pipe'], encoding: 'utf8' });
  // A file the command may not write (opened for reading): the command line writes files itself.
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-out-'));
  writeFileSync(join(dir, 'out.txt'), '');
  const fd = openSync(join(dir, 'out.txt'), 'r');
  try {
    const r = failing(fd);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^flowscope: error: cannot write standard output: bad file descriptor\n$/);
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true });
  }
  // A device that is always full, written through node's stream.
  if (!existsSync('/dev/full')) return t.skip('no /dev/full');
  const full = openSync('/dev/full', 'w');
  try {
    const r = failing(full);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^flowscope: error: cannot write standard output: no space left on device\n$/);
  } finally {
    closeSync(full);
  }
});

test('an option that takes one value is refused when given twice; repeatable options collect', async () => {
  const repeatable: Readonly<Record<string, readonly string[]>> = {
    show: ['--table', '--cookie', '--port', '--ip', '--conj-id', '--profile-file'],
    tables: ['--profile-file'],
    trace: ['--ct-next', '--bucket', '--profile-file'],
    graph: ['--ct-next', '--profile-file'],
    conj: ['--profile-file'],
    diff: ['--node', '--profile-file'],
    verify: ['--profile-file'],
    bundle: ['--profile-file'],
    check: ['--kind', '--table', '--profile-file'],
  };
  // Options a command reads once, though others share them: refused as given, saying why.
  const limited: Readonly<Record<string, Readonly<Record<string, string>>>> = {
    verify: { '--node': 'verify checks one dump against --expect: give --node once, for the node to check' },
  };
  // Values each option's own reader accepts, so that only the repetition is wrong.
  const values: Readonly<Record<string, readonly [string, string]>> = {
    '--of': ['13', '15'],
    '--timeout': ['1', '2'],
    '--max-errors': ['1', '2'],
    '--bucket': ['1', '2'],
    '--fail-on': ['warning', 'error'],
    '--kind': ['shadowed', 'duplicate'],
    '--format': ['dot', 'mermaid'],
    '--release': ['1.0', '1.1'],
    '--output': ['json', 'yaml'],
    '--expect': ['drop', 'output'],
    '--max-probes': ['1', '2'],
  };
  const top = await runCli(['--help']);
  const commands = [...top.stdout.matchAll(/^ {2}([a-z]+) \[/gm)].map((m) => m[1]!);
  let refused = 0;
  for (const name of commands) {
    const help = (await runCli([name, '--help'])).stdout;
    for (const [, option] of help.matchAll(/^ {2}(?:-\w, )?(--[\w-]+) <[^>]+>/gm)) {
      const [one, two] = values[option!] ?? ['a.txt', 'b.txt'];
      const r = await runCli([name, option!, one, option!, two, example]);
      const what = `${name} ${option}`;
      const refusal = limited[name]?.[option!];
      if (refusal !== undefined) {
        assert.deepEqual([r.status, r.stderr, r.stdout], [2, `flowscope: error: ${refusal}\n`, ''], what);
        continue;
      }
      if (repeatable[name]?.includes(option!)) {
        assert.doesNotMatch(r.stderr, /given twice/, what);
        continue;
      }
      assert.equal(r.status, 2, what);
      assert.equal(r.stderr, `flowscope: error: ${option} was given twice: ${one}, ${two}; give it once\n`, what);
      assert.equal(r.stdout, '', what);
      refused++;
    }
  }
  assert.ok(refused > 40, `every command's single-value options were tried (${refused})`);
  // A short flag is named by its long one; a default is no value given.
  assert.equal(
    (await runCli(['show', '-n', 'a', '--namespace', 'b', example])).stderr,
    'flowscope: error: --namespace was given twice: a, b; give it once\n',
  );
  const once = await runCli(['graph', '--format', 'mermaid', example]);
  assert.equal(once.status, 0, once.stderr);
  const tables = await runCli(['show', '-T', '0', '-T', '10', example]);
  assert.equal(tables.status, 0, tables.stderr);
  assert.match(tables.stdout, /table 0\b[\s\S]*table 10\b/i);
});
