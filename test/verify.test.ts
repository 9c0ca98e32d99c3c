import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyDump } from '../src/analysis/diff/verify.ts';
import { formatActions } from '../src/render/actions.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { runCli } from './support/cli.ts';
import { skipUnlessOvs, withOvsSwitch } from './support/ovs.ts';
import { corpusDir, repoRoot } from './support/paths.ts';

const v12 = join(corpusDir, 'openshift-sdn-expectedFlows-v12.txt');
const v13 = join(corpusDir, 'openshift-sdn-expectedFlows-v13.txt');

function load(path: string): ReturnType<typeof parseDump> {
  const r = parseDump(readFileSync(path, 'utf8'), { file: path });
  assert.deepEqual(r.diagnostics, [], path);
  return r;
}

/** Flow lines of a table, by the `table=N,` text of the file. */
function linesOfTable(path: string, table: number): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.includes(`table=${table},`));
}

test('OpenShift SDN rule version 12 expectations against version 13: removed table 21, rebuilt table 30, new note', () => {
  const v = verifyDump(load(v12), load(v13));
  assert.equal(v.ok, false);
  const table = (n: number) => v.tables.find((t) => t.table.kind === 'number' && t.table.number === n);
  // v13 has no table 21 at all, and none of v12's table-30 matches.
  assert.equal(linesOfTable(v13, 21).length, 0);
  assert.deepEqual(
    table(21)!.missing.map((f) => f.origin.line),
    [21],
  );
  assert.equal(table(30)!.missing.length, linesOfTable(v12, 30).length);
  // The version note moved from 00.0C to 00.0D.
  const note = table(253)!.mismatched;
  assert.equal(note.length, 1);
  assert.deepEqual(
    note[0]!.actions.map((e) => `${e.op} ${formatActions([e.action], { of: 13 })}`),
    ['removed note:00.0c.00.00.00.00', 'added note:00.0d.00.00.00.00'],
  );
  // Without --exact, flows only the dump has are not reported.
  assert.ok(v.tables.every((t) => t.unexpected.length === 0));
  const exact = verifyDump(load(v12), load(v13), { exact: true });
  assert.deepEqual(
    exact.tables
      .find((t) => t.table.kind === 'number' && t.table.number === 30)!
      .unexpected.map((f) => f.origin.text.trim()),
    linesOfTable(v13, 30).map((l) => l.trim()),
  );
});

test('a file verifies against itself, also with --exact', () => {
  for (const path of [v12, v13]) {
    const v = verifyDump(load(path), load(path), { exact: true });
    assert.equal(v.ok, true);
    assert.equal(v.matched, v.expectedFlows);
  }
});

test('Antrea default flows: egress traffic shaping inserts EgressQoS after EgressMark and nothing else changes', () => {
  const base = join(corpusDir, 'antrea-pipeline_test-ipv4-encap.txt');
  const shaping = join(corpusDir, 'antrea-pipeline_test-ipv4-encap-egresstrafficshaping.txt');
  const v = verifyDump(load(base), load(shaping), { exact: true, cookies: true });
  const problems = v.tables.filter((t) => t.missing.length + t.mismatched.length + t.unexpected.length > 0);
  assert.deepEqual(
    problems.map((t) => [t.table, t.missing.length, t.mismatched.length, t.unexpected.length]),
    [[{ kind: 'name', name: 'EgressMark' }, 0, 1, 0]],
  );
  const change = problems[0]!.mismatched[0]!;
  assert.deepEqual(
    change.actions.map((e) => `${e.op} ${formatActions([e.action], { of: 15 })}`),
    ['removed goto_table:L3DecTTL', 'added goto_table:EgressQoS'],
  );
  // EgressQoS is a table the expectation does not mention, so even --exact leaves it alone.
  assert.equal(
    v.tables.some((t) => t.table.kind === 'name' && t.table.name === 'EgressQoS'),
    false,
  );
});

test('cli: verify exits 0 when every expected flow is there, 1 otherwise, and says what is missing', async () => {
  const ok = await runCli(['verify', '--expect', v13, v13]);
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /^(\d+) of \1 expected flows present; all as expected\n$/);
  const bad = await runCli(['verify', '--expect', v12, v13]);
  assert.equal(bad.status, 1);
  assert.match(bad.stdout, /@@ table=21 @@ 1 missing\n-priority=0 actions=goto_table:30\n/);
  assert.match(
    bad.stdout,
    /@@ table=253 \(RuleVersion\) @@ 1 differ\n priority=32768\n- {4}note:00\.0c\.00\.00\.00\.00\n\+ {4}note:00\.0d\.00\.00\.00\.00\n/,
  );
  const json = JSON.parse((await runCli(['verify', '--json', '--expect', v12, v13])).stdout) as {
    ok: boolean;
    missing: { table: number }[];
    mismatched: unknown[];
  };
  assert.equal(json.ok, false);
  assert.ok(json.missing.some((f) => f.table === 21));
  const noExpect = await runCli(['verify', v13]);
  assert.equal(noExpect.status, 2);
});

test('cli: flows found with another cookie are counted as such, apart from those with other actions', async () => {
  const dump = join(repoRoot, 'examples', 'antrea', 'dump-flows.of13.txt');
  const table10 = readFileSync(dump, 'utf8')
    .split('\n')
    .filter((l) => / table=10, /.test(l));
  assert.equal(table10.length, 7);
  const expected = table10.map((l) => l.replace('cookie=0x0,', 'cookie=0x5,'));
  // One of them has another action too.
  expected[0] = expected[0]!.replace(/actions=.*/, 'actions=drop');
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-verify-'));
  try {
    const file = join(dir, 'expected.txt');
    writeFileSync(file, expected.join('\n') + '\n');
    const text = await runCli(['verify', '--cookies', '--expect', file, dump]);
    assert.equal(text.status, 1, text.stderr);
    assert.match(text.stdout, /\n0 of 7 expected flows present; 1 with other actions, 7 with another cookie\n$/);
    const json = JSON.parse((await runCli(['verify', '--cookies', '--json', '--expect', file, dump])).stdout) as {
      mismatchedBy: Record<string, number>;
      mismatched: { attributes: string[] }[];
    };
    assert.deepEqual(json.mismatchedBy, { actions: 1, cookie: 7, idle_timeout: 0, hard_timeout: 0, importance: 0 });
    assert.deepEqual(json.mismatched.map((m) => m.attributes).sort(), [
      ['actions', 'cookie'],
      ...Array<string[]>(6).fill(['cookie']),
    ]);
    // Cookies count only when asked.
    assert.match(
      (await runCli(['verify', '--expect', file, dump])).stdout,
      /\n6 of 7 expected flows present; 1 with other actions\n$/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test(
  'real switch: the flows loaded from an expectation file verify, exactly; a deleted one is reported missing',
  skipUnlessOvs,
  async () => {
    await withOvsSwitch({ bridge: 'br0', protocols: ['OpenFlow13', 'OpenFlow15'] }, async (sw) => {
      // The multicast flow of table 101 sends to group 37, which must exist first.
      await sw.addGroups('group_id=37,type=all,bucket=actions=output:1\n', 13);
      await sw.addFlows(readFileSync(v12, 'utf8'), 13);
      const expected = load(v12);
      for (const of of [13, 15] as const) {
        const dump = parseDump(await sw.dumpFlows({ of }), { file: `of${of}` });
        const v = verifyDump(expected, dump, { exact: true, cookies: true });
        assert.equal(v.ok, true, `OpenFlow ${of}`);
        assert.equal(v.matched, expected.flows.length);
      }
      await sw.ofctl(['-O', 'OpenFlow13', 'del-flows', '--strict', sw.bridge, 'table=21,priority=0']);
      const v = verifyDump(expected, parseDump(await sw.dumpFlows({ of: 13 }), { file: 'after' }));
      assert.deepEqual(
        v.tables.flatMap((t) => t.missing.map((f) => f.origin.line)),
        [21],
      );
      assert.equal(v.matched, expected.flows.length - 1);
    });
  },
);
