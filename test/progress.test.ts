// Long work shows how far it is on standard error when standard error is a terminal, one line
// rewritten in place and cleared at the end; with standard error a pipe or a file, nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from './support/cli.ts';

/** What the progress line is rewritten with: a carriage return, the line, an erase to its end. */
const UPDATE = /\rflowscope: ([a-z<> ]+) (\d+)%\u001b\[K/g;
const CLEAR = '\r\u001b[K';

function updates(stderr: string): { what: string; percent: number }[] {
  return [...stderr.matchAll(UPDATE)].map((m) => ({ what: m[1]!, percent: Number(m[2]) }));
}

/** A dump of more than 50 MiB, nearly all of it comment lines, so that it is read quickly. */
function largeInput(): Buffer {
  const comment = `# ${'x'.repeat(1022)}\n`;
  return Buffer.from(`priority=1,ip actions=drop\n${comment.repeat(52 * 1024)}priority=0 actions=drop\n`);
}

test('reading more than 50 MiB shows its progress on a terminal, and nothing when standard error is no terminal', async () => {
  const input = largeInput();
  const shown = await runCli(['fmt', '-'], { stdin: input, stderrIsTTY: true });
  assert.equal(shown.status, 0);
  const seen = updates(shown.stderr);
  assert.ok(seen.length >= 5, `${seen.length} updates`);
  assert.ok(seen.every((u) => u.what === 'reading <stdin>'));
  const percents = seen.map((u) => u.percent);
  assert.deepEqual(
    percents,
    [...percents].sort((a, b) => a - b),
    'the percentage only grows',
  );
  assert.ok(percents[percents.length - 1]! >= 90);
  assert.ok(shown.stderr.endsWith(CLEAR), 'the line is cleared at the end');
  assert.equal(shown.stdout.trim().split('\n').length, 2);

  const piped = await runCli(['fmt', '-'], { stdin: input });
  assert.deepEqual([piped.status, piped.stderr, piped.stdout], [0, '', shown.stdout]);
});

test('a small input shows no progress, even on a terminal', async () => {
  const r = await runCli(['fmt', '-'], { stdin: 'priority=1 actions=drop\n', stderrIsTTY: true });
  assert.deepEqual([r.status, r.stderr], [0, '']);
});

test('check of a big dump shows its progress on a terminal, and nothing otherwise; the report is the same', async () => {
  const flows = Array.from(
    { length: 20_000 },
    (_, i) => `table=0,priority=${100 + (i % 50)},ip,nw_dst=10.0.${(i >> 8) & 255}.${i & 255} actions=goto_table:1`,
  );
  const dump = [...flows, 'table=0,priority=0 actions=drop', 'table=1,priority=0 actions=output:1', ''].join('\n');
  const shown = await runCli(['check', '-'], { stdin: dump, stderrIsTTY: true });
  const seen = updates(shown.stderr).filter((u) => u.what === 'checking');
  assert.ok(seen.length >= 5, shown.stderr);
  assert.equal(seen[seen.length - 1]!.percent, 100);
  assert.ok(shown.stderr.endsWith(CLEAR));
  const piped = await runCli(['check', '-'], { stdin: dump });
  assert.deepEqual([piped.status, piped.stderr, piped.stdout], [shown.status, '', shown.stdout]);
});
