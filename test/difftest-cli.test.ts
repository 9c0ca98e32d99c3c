import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('./support/difftest-cli.js', import.meta.url));

function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('difftest refuses what it does not know before it starts a switch: one message, its usage, exit 2', () => {
  for (const args of [['--bogus'], ['--packets'], ['--packets', 'x'], ['--shard', '2/2'], ['extra']]) {
    const r = run(...args);
    assert.equal(r.status, 2, args.join(' '));
    assert.equal(r.stdout, '', args.join(' '));
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(lines[0]!, /^difftest: /);
    assert.match(lines[1]!, /^usage: difftest /);
  }
  assert.match(run('--bogus').stderr, /--bogus/);
  assert.match(run('--packets', 'x').stderr, /--packets takes a whole number, not x/);
});

test('difftest --help prints its usage and exits 0', () => {
  const r = run('--help');
  assert.equal(r.status, 0);
  assert.match(r.stdout, /^usage: difftest \[--packets N\]/);
  assert.equal(r.stderr, '');
});
