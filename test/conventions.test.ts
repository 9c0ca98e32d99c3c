// Habits users bring from kubectl, antctl and ovs-ofctl: one error prefix, the same options on
// every command, output forms chosen with -o.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { antreaAgentFiles, tarGz } from './support/bundle.ts';
import { runCli } from './support/cli.ts';
import { repoRoot } from './support/paths.ts';

const example = join(repoRoot, 'examples', 'antrea', 'dump-flows.of13.txt');

test('every error starts with the same prefix, whichever part of the program found it', async () => {
  const failing: string[][] = [
    ['show', '--bogus', example], // commander: unknown option
    ['fmt', '--of', '17', example], // commander: invalid argument
    ['verify', example], // commander: missing required option
    ['frobnicate'], // unknown command
    ['show', '/nonexistent/flows.txt'], // unreadable input
    ['trace', example, 'in_port=1,bogus=3'], // a bad packet
    ['show', '--profile', 'nope', example], // a profile refused
  ];
  for (const args of failing) {
    const r = await runCli(args);
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, /^flowscope: error: \S/, args.join(' '));
  }
});

test("each command's help lists its own options first, then the input options as a group", async () => {
  const top = await runCli(['--help']);
  const commands = [...top.stdout.matchAll(/^ {2}([a-z]+) /gm)].map((m) => m[1]!).filter((c) => c !== 'help');
  const names = [...commands.filter((c) => c !== 'bundle' && c !== 'completion' && c !== 'profile'), 'profile fit'];
  for (const name of names) {
    const help = (await runCli([...name.split(' '), '--help'])).stdout;
    const own = help.indexOf('\nOptions:\n');
    const input = help.indexOf('\nInput options:\n');
    assert.ok(own >= 0 && input > own, `${name}: ${help}`);
    const inputPart = help.slice(input);
    for (const flag of ['--bundle', '--ports', '--pod', '--local', '--strict'])
      assert.match(inputPart, new RegExp(`^  ${flag}\\b`, 'm'), `${name} ${flag}`);
    assert.doesNotMatch(help.slice(own, input), /^ {2}--(bundle|ports|pod|strict)\b/m, name);
  }
});

const antrea = join(repoRoot, 'examples', 'antrea');
const ports = join(antrea, 'show.of13.txt');
const packet =
  'in_port=3,tcp,dl_src=12:9e:a6:47:d0:70,dl_dst=aa:bb:cc:dd:ee:ff,nw_src=10.10.0.2,nw_dst=10.10.1.5,nw_ttl=64,tp_dst=80';

/** Every command, with arguments that make it print a report. */
const commands: Readonly<Record<string, readonly string[]>> = {
  parse: [example],
  fmt: [example],
  show: ['-T', '0', example],
  tables: [example],
  check: [example],
  graph: [example],
  conj: [example],
  trace: [example, packet],
  diff: [example, join(repoRoot, 'examples', 'antrea-proxy', 'dump-flows.of15.txt')],
  verify: ['--expect', example, join(repoRoot, 'examples', 'antrea-proxy', 'dump-flows.of15.txt')],
};

test('-o json and -o yaml on every command: the same document, schemaVersion first; --json is -o json', async () => {
  const { parse: parseYaml } = await import('yaml');
  for (const [name, args] of Object.entries(commands)) {
    const json = await runCli([name, '-o', 'json', ...args]);
    assert.ok(json.status === 0 || json.status === 1, `${name}: ${json.stderr}`);
    const doc = JSON.parse(json.stdout) as Record<string, unknown>;
    assert.equal(Object.keys(doc)[0], 'schemaVersion', name);
    assert.ok(Number.isInteger(doc.schemaVersion) && (doc.schemaVersion as number) >= 1, name);
    assert.equal((await runCli([name, '--json', ...args])).stdout, json.stdout, name);
    const yaml = await runCli([name, '-o', 'yaml', ...args]);
    assert.deepEqual(parseYaml(yaml.stdout), doc, name);
  }
  const both = await runCli(['show', '--json', '-o', 'yaml', example]);
  assert.equal(both.status, 2);
  assert.match(both.stderr, /^flowscope: error: give --json or -o yaml, not both/);
  const bad = await runCli(['show', '-o', 'xml', example]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /expected json, yaml, wide, name/);
});

test('-o name lists what each command reports, one a line, in forms other commands take', async () => {
  const names = async (args: string[]): Promise<string[]> => {
    const r = await runCli(args);
    assert.ok(r.status === 0 || r.status === 1, r.stderr);
    return r.stdout.trim().split('\n');
  };
  assert.deepEqual((await names(['show', '-o', 'name', '-T', '0', example])).slice(0, 2), [
    'table=0,priority=200,in_port=2',
    'table=0,priority=200,in_port=1',
  ]);
  assert.equal((await names(['parse', '-o', 'name', example])).length, 86);
  const tables = await names(['tables', '-o', 'name', example]);
  assert.deepEqual(tables.slice(0, 3), ['ClassifierTable', 'SpoofGuardTable', 'ARPResponderTable']);
  // A table name -o name prints is one show -T takes.
  assert.equal((await runCli(['show', '-T', tables[2]!, example])).status, 0);
  assert.deepEqual((await names(['conj', '-o', 'name', example])).sort(), ['1', '2', '3', '4', '5', '6']);
  assert.deepEqual((await names(['trace', '-o', 'name', example, packet])).slice(0, 3), [
    'ClassifierTable',
    'SpoofGuardTable',
    'ConntrackTable',
  ]);
  assert.match((await names(['check', '-o', 'name', example]))[0]!, /^[a-z-]+\/table=\d+/);
  const changed = await names([
    'diff',
    '-o',
    'name',
    example,
    join(repoRoot, 'examples', 'antrea-proxy', 'dump-flows.of15.txt'),
  ]);
  assert.ok(
    changed.every((l) => /^[-+~]table=/.test(l)),
    changed.join('\n'),
  );
});

test('--color and --no-color on every command that prints for people, trace, conj and bundle included', async () => {
  const escape = /\u001b\[/;
  for (const [name, args] of Object.entries(commands)) {
    if (name === 'graph' || name === 'parse' || name === 'fmt') continue;
    const coloured = await runCli([name, '--color', ...args]);
    assert.match(coloured.stdout, escape, name);
    const plain = await runCli([name, '--no-color', ...args], { env: { FORCE_COLOR: '1' } });
    assert.doesNotMatch(plain.stdout, escape, name);
  }
  // A bundle whose node has a problem: its problem lines are coloured.
  const bundle = await tarGz(
    antreaAgentFiles('node-a').map((f) => (f.name === 'ovsports' ? { name: 'ovsports', data: 'nothing here\n' } : f)),
  );
  const r = await runCli(['bundle', '--color', '-'], { stdin: bundle });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, escape);
  assert.doesNotMatch(
    (await runCli(['bundle', '--no-color', '-'], { stdin: bundle, env: { FORCE_COLOR: '1' } })).stdout,
    escape,
  );
});

test('fmt prints a dump in its own OpenFlow version unless --of says otherwise', async () => {
  const of13 = join(antrea, 'dump-flows.of13.txt');
  const own = await runCli(['fmt', of13]);
  assert.equal(own.stdout, (await runCli(['fmt', '--of', '13', of13])).stdout);
  assert.notEqual(own.stdout, (await runCli(['fmt', '--of', '10', of13])).stdout);
  // OpenFlow 1.0 spells goto_table as resubmit; 1.3 has goto_table.
  assert.match(own.stdout, /goto_table:10/);
  assert.match((await runCli(['fmt', join(antrea, 'dump-flows.of10.txt')])).stdout, /resubmit\(,10\)/);
});

test('show --ip takes a network: flows whose addresses overlap it', async () => {
  const count = async (ip: string): Promise<number> =>
    (await runCli(['show', '-o', 'name', '--ip', ip, example])).stdout.trim().split('\n').filter(Boolean).length;
  const one = await count('10.10.1.2');
  const network = await count('10.10.1.0/24');
  assert.ok(network > one && one > 0, `${one} ${network}`);
  assert.equal(await count('10.10.1.2/32'), one);
  // Every flow with an IPv4 address field overlaps 0.0.0.0/0.
  assert.ok((await count('0.0.0.0/0')) > network);
  const bad = await runCli(['show', '--ip', '10.10.1.0/33', example]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /a network such as 10\.10\.0\.0\/16/);
});

test('trace --brief: one line per table lookup, then the verdict', async () => {
  const r = await runCli(['trace', '--brief', example, ports, packet]);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.deepEqual(lines[0]!.split(/\s+/).filter(Boolean).slice(0, 3), ['0', 'ClassifierTable', '190']);
  assert.match(
    lines.find((l) => l.startsWith('recirc(0x1)'))!,
    /resumed in table 31 with ct_state=new\|trk/,
  );
  assert.match(lines[lines.length - 1]!, /^Verdict: output to port 1 \(antrea-tun0\)/);
  assert.equal(lines.length, 17);
});

test('trace --expect exits 1 when the packet ends otherwise, so that CI can assert a policy', async () => {
  const expect = async (what: string): Promise<{ status: number; stderr: string }> =>
    runCli(['trace', '--expect', what, example, ports, packet]);
  for (const met of ['output', '1', 'antrea-tun0'])
    assert.deepEqual([(await expect(met)).status, (await expect(met)).stderr], [0, ''], met);
  for (const unmet of ['drop', '2', 'controller']) {
    const r = await expect(unmet);
    assert.equal(r.status, 1, unmet);
    assert.match(r.stderr, /^flowscope: expected .*, but the verdict is: output to port 1 \(antrea-tun0\)/, unmet);
  }
  const json = JSON.parse((await runCli(['trace', '-o', 'json', '--expect', 'drop', example, packet])).stdout) as {
    expect: unknown;
  };
  assert.deepEqual(json.expect, { expected: 'drop', met: false });
});

test('trace --batch: each result carries its line number and expectation; the summary counts failures', async () => {
  const batch =
    [
      JSON.stringify({ packet, expect: 'output' }),
      '# a comment',
      '',
      JSON.stringify({ packet, expect: 'drop' }),
      JSON.stringify({ packet }),
    ].join('\n') + '\n';
  const r = await runCli(['trace', '--batch', '-', example], { stdin: batch });
  assert.equal(r.status, 1);
  const results = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { line: number; expect?: { met: boolean } });
  assert.deepEqual(
    results.map((x) => [x.line, x.expect?.met]),
    [
      [1, true],
      [4, false],
      [5, undefined],
    ],
  );
  assert.equal(r.stderr, 'flowscope: 3 packets traced, 1 not as expected\n');
  // --expect on the command line stands for lines without their own.
  const all = await runCli(['trace', '--batch', '-', '--expect', 'output', example], { stdin: batch });
  assert.equal(all.stderr, 'flowscope: 3 packets traced, 1 not as expected\n');
});

test('the verdict of a packet sent to the controller for its TTL says so', async () => {
  const r = await runCli(['trace', example, packet.replace('nw_ttl=64', 'nw_ttl=1')]);
  assert.equal(r.status, 0, r.stderr);
  const verdict = r.stdout.trim().split('\n').pop();
  assert.equal(
    verdict,
    'Verdict: sent to the controller from L3DecTTLTable (table 71): its TTL was 1, and dec_ttl sends a packet whose TTL runs out to the controller (invalid_ttl) instead of forwarding it',
  );
});

test("conj --packet ends with the trace's verdict", async () => {
  const conj = await runCli(['conj', '--packet', packet, '--ports', ports, example]);
  const trace = await runCli(['trace', example, ports, packet]);
  const verdict = trace.stdout.trim().split('\n').pop()!;
  assert.equal(conj.stdout.trim().split('\n').pop(), verdict);
  const json = JSON.parse(
    (await runCli(['conj', '-o', 'json', '--packet', packet, '--ports', ports, example])).stdout,
  ) as { verdict: { verdict: string; text: string } };
  assert.deepEqual([json.verdict.verdict, `Verdict: ${json.verdict.text}`], ['output', verdict]);
});

test('text for people fits the terminal: tables narrowed, long lines wrapped at a word; -o wide and pipes left whole', async () => {
  const env = { NO_COLOR: '1' };
  const widest = (text: string): number => Math.max(...text.split('\n').map((l) => [...l].length));
  for (const args of [
    ['tables', example],
    ['show', '-T', '10', example],
    ['conj', example],
    ['trace', example, packet],
    ['check', example],
  ]) {
    const narrow = await runCli(args, { columns: 80, env });
    assert.ok(widest(narrow.stdout) <= 80, `${args[0]}: ${widest(narrow.stdout)}`);
    const wide = await runCli([...args, '-o', 'wide'], { columns: 80, env });
    assert.ok(widest(wide.stdout) > 80, args[0]);
    assert.equal((await runCli(args, { env })).stdout, wide.stdout, `${args[0]}: a pipe gets the text whole`);
  }
  const tables = await runCli(['tables', example], { columns: 80, env });
  assert.match(tables.stdout, /-o wide shows them/);
  assert.match(tables.stdout, /│ AntreaPolicyIngressRuleTable │/);
  // A wrapped flow line goes on under its sentence, not at the margin.
  const show = (await runCli(['show', '-T', '10', example], { columns: 80, env })).stdout.split('\n');
  const at = show.findIndex((l) => l.startsWith('  [200] ') && l.length > 70);
  assert.match(show[at + 1]!, /^ {8}\S/);
});

test('flowscope completion bash|zsh|fish: every command and each of its options', async () => {
  const bash = await runCli(['completion', 'bash']);
  assert.equal(bash.status, 0, bash.stderr);
  assert.match(bash.stdout, /complete -o filenames -F _flowscope flowscope/);
  assert.match(
    bash.stdout,
    /compgen -W "parse bundle fmt show tables trace conj diff verify check graph profile help"/,
  );
  // A command with subcommands completes them, then their options.
  assert.match(bash.stdout, /^ {4}profile\) opts=".*--profile-file.*"; subs="check fit" ;;$/m);
  assert.match(bash.stdout, /^ {4}trace\) opts=".*--brief.*--expect.*--output -o.*--bundle/m);
  const zsh = await runCli(['completion', 'zsh']);
  assert.match(zsh.stdout, /bashcompinit/);
  const fish = await runCli(['completion', 'fish']);
  assert.match(fish.stdout, /^complete -c flowscope -n '__fish_seen_subcommand_from show' -l table -s T -d /m);
  assert.equal((await runCli(['completion', 'tcsh'])).status, 2);
  // bash itself reads the script, and completes an option of show from it.
  const r = spawnSync(
    'bash',
    ['-c', `${bash.stdout}\nCOMP_WORDS=(flowscope show --expl); COMP_CWORD=2; _flowscope; echo "\${COMPREPLY[@]}"`],
    { encoding: 'utf8' },
  );
  assert.equal(r.stdout.trim(), '--explain-profile');
  const sub = spawnSync(
    'bash',
    ['-c', `${bash.stdout}\nCOMP_WORDS=(flowscope profile f); COMP_CWORD=2; _flowscope; echo "\${COMPREPLY[@]}"`],
    { encoding: 'utf8' },
  );
  assert.equal(sub.stdout.trim(), 'fit');
});

test('verify, conj and diff take a port map among their inputs, as every command does, the same as with --ports', async () => {
  const named = join(antrea, 'dump-flows.of13.names.txt');
  const expect = join(antrea, 'flows.txt');
  const asInput = await runCli(['verify', '--expect', expect, named, ports]);
  const asOption = await runCli(['verify', '--expect', expect, named, '--ports', ports]);
  assert.deepEqual([asInput.status, asInput.stderr], [0, '']);
  assert.match(asInput.stdout, /^86 of 86 expected flows present; all as expected\n$/);
  assert.equal(asInput.stdout, asOption.stdout);

  const conjInput = await runCli(['conj', named, ports, '4'], { env: { NO_COLOR: '1' } });
  const conjOption = await runCli(['conj', named, '4', '--ports', ports], { env: { NO_COLOR: '1' } });
  assert.deepEqual([conjInput.status, conjInput.stderr], [0, '']);
  assert.equal(conjInput.stdout, conjOption.stdout);
  assert.match(conjInput.stdout, /conjunction 4/);

  const diffInput = await runCli(['diff', named, example, ports]);
  const diffOption = await runCli(['diff', named, example, '--ports', ports]);
  assert.deepEqual(
    [diffInput.status, diffInput.stdout, diffInput.stderr],
    [diffOption.status, diffOption.stdout, diffOption.stderr],
  );
  assert.equal(diffInput.status, 0);
  // A dump where a port map is taken is most likely one dump too many.
  const wrong = await runCli(['diff', named, example, join(antrea, 'flows.txt')]);
  const refusal = `flowscope: error: diff compares two dumps: got 3 (${join(antrea, 'flows.txt')} names no ports; files after the dumps are port maps: ovs-ofctl show or dump-ports-desc output)\n`;
  assert.deepEqual([wrong.status, wrong.stderr], [2, refusal]);
});

test('a mistyped field in a packet, or a table or port name in a filter, gets "did you mean …?"', async () => {
  const field = await runCli(['trace', example, 'in_port=3,tcp,nw_dts=10.10.0.3']);
  assert.deepEqual(
    [field.status, field.stderr],
    [2, 'flowscope: error: bad packet: nw_dts: unknown field or protocol (did you mean nw_dst?)\n'],
  );
  const alias = await runCli(['trace', example, 'in_port=3,tcp,ip_dest=10.10.0.3']);
  assert.match(alias.stderr, /ip_dest: unknown field or protocol \(did you mean ip_dst\?\)/);
  const proto = await runCli(['conj', example, '--packet', 'in_port=3,tpc,nw_dst=10.10.0.3']);
  assert.match(proto.stderr, /tpc: unknown field or protocol \(did you mean tcp\?\)/);
  // A word that is no misspelling of any field is not guessed at.
  const far = await runCli(['trace', example, 'in_port=3,tcp,destination=10.10.0.3']);
  assert.match(far.stderr, /destination: unknown field or protocol\n$/);
  const table = await runCli(['show', '-T', 'SpoofGaurd', join(antrea, 'dump-flows.of15.names.no-stats.txt')]);
  assert.equal(table.status, 2);
  assert.match(table.stderr, /^flowscope: error: no table is named SpoofGaurd \(did you mean SpoofGuard\?\)/);
  const port = await runCli(['show', '--port', 'antrea-tun1', join(antrea, 'dump-flows.of13.names.txt')]);
  assert.match(port.stderr, /no port is named antrea-tun1 \(did you mean antrea-tun0\?\)/);
});

test('the profile line is one line, the same in show, tables and conj; --explain-profile and -v list the reasons under it', async () => {
  const env = { NO_COLOR: '1' };
  const line =
    'profile antrea-v1 (release 0.13), detected from 19 tables: Antrea with kube-proxy (fixed table numbers 0–110)';
  for (const command of ['show', 'tables', 'conj']) {
    const plain = await runCli([command, example], { env });
    assert.equal(plain.stdout.split('\n')[0], line, command);
    assert.doesNotMatch(plain.stdout.split('\n')[1]!, /^ {2}- /, command);
    for (const flag of ['--explain-profile', '-v']) {
      const explained = (await runCli([command, flag, example], { env })).stdout.split('\n');
      assert.equal(explained[0], line, `${command} ${flag}`);
      const reasons = explained.slice(1).filter((l) => l.startsWith('  - '));
      assert.ok(reasons.length >= 2, `${command} ${flag}: ${reasons.length} reasons`);
      assert.ok(
        explained.slice(1, 1 + reasons.length).every((l) => l.startsWith('  - ')),
        'the reasons come right under the line',
      );
    }
  }
});

test('diff --per-table names the inputs by short names; too wide for the terminal, it names them above the table instead', async () => {
  const env = { NO_COLOR: '1' };
  const a = join(antrea, 'dump-flows.of13.txt');
  const b = join(antrea, 'dump-flows.of15.names.no-stats.txt');
  const whole = await runCli(['diff', '--per-table', a, b], { env });
  const head = whole.stdout.split('\n')[0]!;
  assert.match(head, /^table +dump-flows\.of13\.txt +dump-flows\.of15\.names\.no-stats\.txt +removed +added +changed$/);
  assert.ok(!whole.stdout.includes(antrea), 'no full paths');
  // The dumps' names are the profile's: each row says its table by number and name.
  assert.match(whole.stdout, /^table=10 \(SpoofGuard\) +7 +7 +0 +0 +0$/m);
  const narrow = await runCli(['diff', '--per-table', a, b], { env, columns: 80 });
  const lines = narrow.stdout.trimEnd().split('\n');
  assert.deepEqual(lines.slice(0, 2), ['before: dump-flows.of13.txt', 'after:  dump-flows.of15.names.no-stats.txt']);
  assert.match(lines[2]!, /^table +before +after +removed +added +changed$/);
  assert.ok(
    lines.every((l) => l.length <= 80),
    lines.find((l) => l.length > 80),
  );
  assert.equal((await runCli(['diff', '--per-table', a, b, '-o', 'wide'], { env, columns: 80 })).stdout, whole.stdout);
  // Dumps that give their tables by number only: the detected profile names them, in the report's headings too.
  const numbered = await runCli(['diff', '--per-table', a, join(antrea, 'dump-flows.of10.txt')], { env });
  assert.match(numbered.stdout, /^table=10 \(SpoofGuardTable\) +7 +7 +0 +0 +0$/m);
  const moved = join(tmpdir(), `flowscope-moved-${process.pid}.txt`);
  writeFileSync(moved, readFileSync(a, 'utf8').replace(/priority=200,in_port=2 /, 'priority=201,in_port=2 '));
  try {
    const text = await runCli(['diff', a, moved], { env });
    assert.match(text.stdout, /^@@ table=0 \(ClassifierTable\) @@ 1 removed, 1 added$/m);
  } finally {
    rmSync(moved);
  }
});

test('bundle output fits the terminal: long node names are cut with …, -o wide and pipes get them whole', async () => {
  const env = { NO_COLOR: '1' };
  const node = `worker-${'a'.repeat(70)}`;
  const bundle = await tarGz(antreaAgentFiles(node).map((f) => ({ ...f, name: `agent_${node}/${f.name}` })));
  const narrow = await runCli(['bundle', '-'], { stdin: bundle, columns: 80, env });
  assert.equal(narrow.status, 0, narrow.stderr);
  const lines = narrow.stdout.trimEnd().split('\n');
  assert.ok(
    lines.every((l) => [...l].length <= 80),
    lines.find((l) => [...l].length > 80),
  );
  assert.match(lines[2]!, /^worker-a+… +86 +0 +4 +antrea-v1 0\.13 +-$/);
  const whole = await runCli(['bundle', '-'], { stdin: bundle, env });
  assert.ok(whole.stdout.includes(node));
  assert.equal((await runCli(['bundle', '-', '-o', 'wide'], { stdin: bundle, columns: 80, env })).stdout, whole.stdout);
});

test('the nearest flow of a drop never blames the packet for a register: it names the flow that would have set it, and why the packet did not take it', async () => {
  const dropped =
    'in_port=2,tcp,dl_src=e2:e5:a4:9b:1c:b1,dl_dst=00:11:22:33:44:55,nw_src=10.10.0.1,nw_dst=192.168.9.9,tp_dst=80';
  const text = await runCli(['trace', example, dropped], { env: { NO_COLOR: '1' } });
  assert.equal(
    text.stdout.trimEnd().split('\n').pop(),
    'Nearest flow (line 86): priority=200,ip,reg0=0x10000/0x10000 — reg0=0x10000/0x10000 is set by line 53 of table 80 (priority=200,dl_dst=aa:bb:cc:dd:ee:ff), but the packet took line 57 there instead: the packet has dl_dst=00:11:22:33:44:55',
  );
  const json = JSON.parse((await runCli(['trace', example, dropped, '-o', 'json'])).stdout) as {
    nearest: {
      differs: {
        field: string;
        setBy?: {
          flow: { source: { line: number } };
          reached: { took: { source: { line: number } } | null; differs: { field: string; has: string }[] } | null;
        };
      }[];
    };
  };
  const [reg0] = json.nearest.differs;
  assert.equal(reg0?.field, 'reg0');
  assert.equal(reg0?.setBy?.flow.source.line, 53);
  assert.equal(reg0?.setBy?.reached?.took?.source.line, 57);
  assert.deepEqual(
    reg0?.setBy?.reached?.differs.map((d) => [d.field, d.has]),
    [['eth_dst', '00:11:22:33:44:55']],
  );

  // A table the packet never went through sets the register.
  const flows = [
    'table=0,priority=10,in_port=1 actions=goto_table:20',
    'table=0,priority=10,in_port=2 actions=goto_table:10',
    'table=10,priority=10 actions=load:0x1->NXM_NX_REG0[0],goto_table:20',
    'table=20,priority=10,reg0=0x1/0x1 actions=output:3',
    'table=20,priority=0 actions=drop',
    '',
  ].join('\n');
  const unreached = await runCli(['trace', '-', 'in_port=1,ip'], { stdin: flows, env: { NO_COLOR: '1' } });
  assert.equal(
    unreached.stdout.trimEnd().split('\n').pop(),
    'Nearest flow (line 4): priority=10,reg0=0x1/0x1 — reg0=0x1/0x1 is set by line 3 of table 10 (priority=10), a table the packet never reached',
  );
  // conj --packet says the same of a packet dropped before the conjunctions.
  const conj = await runCli(['conj', '-', '--packet', 'in_port=1,ip'], { stdin: flows, env: { NO_COLOR: '1' } });
  assert.match(
    conj.stdout,
    /reg0 0x1\/0x1 \(set by line 3 of table 10 \(priority=10\), a table the packet never reached\)/,
  );
});
