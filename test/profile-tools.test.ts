/**
 * Profiles of one's own: `profile check` finds a planted error of each kind at its line and
 * column in the YAML file (and every built-in profile file passes); `profile fit` lists, table by
 * table, the flows a profile does not explain yet, until the pattern they need is written; a
 * profile given with --profile-file or found in FLOWSCOPE_PROFILES is detected like a built-in;
 * a profile with errors stops a command with its errors at their places, and nothing else.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILTIN_IDS } from '../src/profiles/index.ts';
import { runCli } from './support/cli.ts';
import { repoRoot } from './support/paths.ts';

/** A small in-house pipeline: table 0 sorts by protocol, table 10 sends packets out. */
const LAB = `# A two-table lab pipeline.
id: my-sdn
title: My SDN (lab)
product: Lab SDN
description: Table 0 sorts packets by protocol; table 10 sends them out.
tableNaming: number
tables:
  - number: 0
    name: Ingress
    purpose: Sorts packets by protocol.
    miss: { action: drop }
    next: [ Egress ]
    patterns:
      - match: arp
        actions: [ normal ]
        meaning: ARP is switched normally.
      - match: ip
        fields: [ nw_src ]
        actions: [ goto:Egress ]
        meaning: IP from {nw_src} continues in {next}.
  - number: 10
    name: Egress
    purpose: Sends packets out.
    miss: { action: drop }
    next: []
    patterns:
      - match: ip
        fields: [ nw_dst ]
        actions: [ output ]
        meaning: IP to {nw_dst} leaves through {output}.
detect:
  - { kind: flow, table: 10, match: ip, actions: [ output ], weight: 8 }
  - { kind: table-number, number: 10, weight: 2 }
`;

const DUMP = `table=0, priority=100, arp, actions=NORMAL
table=0, priority=90, ip, nw_src=10.0.0.0/24, actions=goto_table:10
table=0, priority=0, actions=drop
table=10, priority=100, ip, nw_dst=10.0.1.5, actions=output:2
table=10, priority=100, ip, nw_dst=10.0.1.6, actions=output:3
table=10, priority=50, ipv6, actions=output:4
`;

/** What a later step of writing the profile adds: the pattern the IPv6 flow needs. */
const IPV6_PATTERN = `      - match: ipv6
        actions: [ output ]
        meaning: IPv6 leaves through {output}.
`;

async function inTemp<T>(
  files: Record<string, string>,
  fn: (path: (name: string) => string) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-profiles-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return await fn((name) => join(dir, name));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface CheckReport {
  files: {
    file: string;
    errors: number;
    problems: { kind: string; severity: string; message: string; line: number; column: number; path: string }[];
  }[];
}

/** The line and column where `text` first occurs, 1-based. */
function placeOf(source: string, text: string): { line: number; column: number } {
  const at = source.indexOf(text);
  assert.ok(at >= 0, `no ${text} in the profile`);
  const before = source.slice(0, at).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

test('profile check: a clean profile and every built-in profile file pass', async () => {
  await inTemp({ 'lab.yaml': LAB }, async (path) => {
    const r = await runCli(['profile', 'check', path('lab.yaml')]);
    assert.equal(r.status, 0, r.stdout);
    assert.match(r.stdout, /lab\.yaml: no problems found/);
  });
  const builtins = readdirSync(join(repoRoot, 'profiles')).filter((f) => f.endsWith('.yaml'));
  assert.deepEqual(builtins.sort(), BUILTIN_IDS.map((id) => `${id}.yaml`).sort());
  const r = await runCli(['profile', 'check', '--json', ...builtins.map((f) => join(repoRoot, 'profiles', f))]);
  const report = JSON.parse(r.stdout) as CheckReport;
  assert.deepEqual(
    report.files.filter((f) => f.errors > 0).map((f) => `${f.file}: ${f.problems.map((p) => p.message).join('; ')}`),
    [],
  );
  assert.equal(r.status, 0);
});

/** Each kind of error, planted by replacing a piece of the clean profile, and where it then is. */
const PLANTED: readonly { kind: string; from: string; to: string; at: string }[] = [
  {
    kind: 'schema',
    from: 'miss: { action: drop }\n    next: []',
    to: 'miss: { action: jump }\n    next: []',
    at: '{ action: jump }',
  },
  { kind: 'placeholder', from: 'IP from {nw_src}', to: 'IP from {nw_source}', at: 'IP from {nw_source}' },
  {
    kind: 'match-syntax',
    from: '      - match: ip\n        fields: [ nw_dst ]',
    to: '      - match: ip,nw_dst=10.0.0.300\n        fields: [ nw_dst ]',
    at: 'ip,nw_dst=10.0.0.300',
  },
  { kind: 'undefined-table', from: 'next: [ Egress ]', to: 'next: [ Egres ]', at: 'Egres ]' },
  { kind: 'unknown-field', from: 'fields: [ nw_src ]', to: 'fields: [ nw_source ]', at: 'nw_source ]' },
  { kind: 'duplicate-table', from: 'name: Egress', to: 'name: Ingress', at: 'Ingress\n    purpose: Sends' },
  {
    kind: 'indistinguishable',
    from: '        meaning: IP to {nw_dst} leaves through {output}.\n',
    to: '        meaning: IP to {nw_dst} leaves through {output}.\n      - match: ip,nw_dst=10.0.1.0/24\n        fields: [ nw_dst ]\n        actions: [ output ]\n        meaning: Lab host {nw_dst} is reached through {output}.\n',
    at: 'match: ip,nw_dst=10.0.1.0/24',
  },
];

for (const p of PLANTED) {
  test(`profile check finds a planted error of kind ${p.kind} at its place in the file`, async () => {
    const text = LAB.replace(p.from, p.to);
    assert.notEqual(text, LAB);
    await inTemp({ 'planted.yaml': text }, async (path) => {
      const r = await runCli(['profile', 'check', '--json', path('planted.yaml')]);
      assert.equal(r.status, 1, r.stdout);
      const [file] = (JSON.parse(r.stdout) as CheckReport).files;
      const found = file!.problems.find((x) => x.kind === p.kind);
      assert.ok(found, `no ${p.kind} among ${JSON.stringify(file!.problems)}`);
      assert.equal(found.severity, 'error');
      const want = placeOf(text, p.at);
      // The value itself (its line, and the column it starts at), or the mapping that holds it.
      assert.equal(found.line, want.line, found.message);
      if (p.kind !== 'duplicate-table' && p.kind !== 'indistinguishable')
        assert.ok(Math.abs(found.column - want.column) <= 2, `column ${found.column}, planted at ${want.column}`);
      // The text form: file:line:col, the line, a caret.
      const t = await runCli(['profile', 'check', path('planted.yaml')]);
      assert.equal(t.status, 1);
      assert.match(t.stdout, new RegExp(`planted\\.yaml:${found.line}:${found.column}: error: `));
    });
  });
}

test('a profile file with errors stops the command before any input is read: its errors at their places, exit 2, no output', async () => {
  const bad = LAB.replace('IP from {nw_src}', 'IP from {nw_source}');
  await inTemp({ 'bad.yaml': bad, 'dump.txt': DUMP }, async (path) => {
    const r = await runCli(['show', path('dump.txt'), '--profile-file', path('bad.yaml')]);
    assert.equal(r.status, 2);
    assert.equal(r.stdout, '');
    const { line, column } = placeOf(bad, 'IP from {nw_source}');
    assert.match(r.stderr, new RegExp(`bad\\.yaml:${line}:${column}: error: \\{nw_source\\} names no match field`));
    const missing = await runCli(['tables', path('dump.txt'), '--profile-file', path('none.yaml')]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /none\.yaml: no such file/);
  });
});

test('a profile of FLOWSCOPE_PROFILES or --profile-file takes part in detection like a built-in one', async () => {
  await inTemp({ 'lab.yaml': LAB, 'dump.txt': DUMP }, async (path) => {
    const dir = path('lab.yaml').replace(/\/lab\.yaml$/, '');
    const profileOf = async (args: string[], env: Record<string, string> = {}): Promise<string> => {
      const r = await runCli(['tables', '--json', path('dump.txt'), ...args], { env });
      assert.equal(r.status, 0, r.stderr);
      return (JSON.parse(r.stdout) as { profile: { id: string } }).profile.id;
    };
    assert.notEqual(await profileOf([]), 'my-sdn');
    assert.equal(await profileOf([], { FLOWSCOPE_PROFILES: dir }), 'my-sdn');
    assert.equal(await profileOf(['--profile-file', path('lab.yaml')]), 'my-sdn');
    // Named like a built-in one, it is chosen with --profile.
    assert.equal(await profileOf(['--profile', 'my-sdn', '--profile-file', path('lab.yaml')]), 'my-sdn');
    const show = await runCli(['show', path('dump.txt')], { env: { FLOWSCOPE_PROFILES: dir } });
    assert.match(show.stdout, /IP to 10\.0\.1\.5 leaves through port 2\./);
    const notDir = await runCli(['show', path('dump.txt')], { env: { FLOWSCOPE_PROFILES: path('lab.yaml') } });
    assert.equal(notDir.status, 2);
    assert.match(notDir.stderr, /FLOWSCOPE_PROFILES names .*lab\.yaml, which is not a directory/);
    const twice = await runCli(['show', path('dump.txt'), '--profile-file', path('lab.yaml')], {
      env: { FLOWSCOPE_PROFILES: dir },
    });
    assert.equal(twice.status, 2);
    assert.match(twice.stderr, /profile id my-sdn is also the id of/);
  });
});

test('diff and verify name the tables of a numbered dump by a profile of --profile-file or FLOWSCOPE_PROFILES', async () => {
  const after = DUMP.replace(/.*nw_dst=10\.0\.1\.6.*\n/, '');
  await inTemp({ 'lab.yaml': LAB, 'a.txt': DUMP, 'b.txt': after }, async (path) => {
    const dir = path('lab.yaml').replace(/\/lab\.yaml$/, '');
    const plain = await runCli(['diff', path('a.txt'), path('b.txt')]);
    assert.equal(plain.status, 1, plain.stderr);
    assert.doesNotMatch(plain.stdout, /Egress/);
    const diff = await runCli(['diff', path('a.txt'), path('b.txt'), '--profile-file', path('lab.yaml')]);
    assert.equal(diff.status, 1, diff.stderr);
    assert.match(diff.stdout, /@@ table=10 \(Egress\) @@ 1 removed/);
    const perTable = await runCli(['diff', '--per-table', path('a.txt'), path('b.txt')], {
      env: { FLOWSCOPE_PROFILES: dir },
    });
    assert.match(perTable.stdout, /table=0 \(Ingress\) +3 +3/);
    const verify = await runCli([
      'verify',
      '--expect',
      path('a.txt'),
      path('b.txt'),
      '--profile-file',
      path('lab.yaml'),
    ]);
    assert.equal(verify.status, 1, verify.stderr);
    assert.match(verify.stdout, /@@ table=10 \(Egress\) @@ 1 missing/);
    const bad = await runCli(['diff', path('a.txt'), path('b.txt'), '--profile-file', path('none.yaml')]);
    assert.equal(bad.status, 2);
    assert.equal(bad.stdout, '');
  });
});

interface FitReport {
  profile: { id: string };
  flows: number;
  fitted: number;
  misses: number;
  unexplained: number;
  tables: {
    number: number;
    unexplained: { reason: string; flow: { source: { line: number } } }[];
    patterns: { index: number; flows: number }[];
  }[];
}

test('profile fit: the flows the profile does not explain yet, per table, until the pattern they need is written', async () => {
  await inTemp({ 'lab.yaml': LAB, 'dump.txt': DUMP + 'table=20, priority=10, actions=drop\n' }, async (path) => {
    const r = await runCli(['profile', 'fit', '--json', path('dump.txt'), '--profile-file', path('lab.yaml')]);
    assert.equal(r.status, 1);
    const fit = JSON.parse(r.stdout) as FitReport;
    assert.equal(fit.profile.id, 'my-sdn');
    assert.deepEqual([fit.flows, fit.fitted, fit.misses, fit.unexplained], [7, 4, 1, 2]);
    const t10 = fit.tables.find((t) => t.number === 10)!;
    assert.deepEqual(
      t10.unexplained.map((u) => [u.reason, u.flow.source.line]),
      [['no-pattern', 6]],
    );
    assert.deepEqual(
      t10.patterns.map((p) => p.flows),
      [2],
    );
    const t20 = fit.tables.find((t) => t.number === 20)!;
    assert.deepEqual(
      t20.unexplained.map((u) => u.reason),
      ['no-table'],
    );
    const text = await runCli(['profile', 'fit', path('dump.txt'), '--profile-file', path('lab.yaml')]);
    assert.match(text.stdout, /^5 of 7 flows explained \(4 by a pattern, 1 by their table's miss\); 2 unexplained$/m);
    assert.match(
      text.stdout,
      /^table 10 Egress: 3 flows, 2 by a pattern, 1 unexplained\n {2}\? no pattern fits:\n {4}line 6: priority=50,ipv6 actions=output:4$/m,
    );
    assert.match(text.stdout, /^table 20: 1 flow, 0 by a pattern, 1 unexplained\n {2}\? not a table of the profile:/m);
    const names = await runCli(['profile', 'fit', '-o', 'name', path('dump.txt'), '--profile-file', path('lab.yaml')]);
    assert.equal(names.stdout, 'table=10,priority=50,ipv6\ntable=20,priority=10\n');
  });
  // The next step: the pattern the IPv6 flow needs.
  const next = LAB.replace('detect:', IPV6_PATTERN + 'detect:');
  await inTemp({ 'lab.yaml': next, 'dump.txt': DUMP }, async (path) => {
    const r = await runCli(['profile', 'fit', '--json', path('dump.txt'), '--profile-file', path('lab.yaml')]);
    const fit = JSON.parse(r.stdout) as FitReport;
    assert.equal(fit.unexplained, 0);
    assert.equal(r.status, 0);
  });
});
