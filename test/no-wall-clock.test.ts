// The suite runs on two cores that other work shares: no test may judge an outcome by the clock,
// so no test file reads it (the bounds are tested by counting work and output), and what starts
// Open vSwitch waits minutes for it and says what it waited for when it gives up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './support/paths.ts';

const CLOCK = /\b(?:Date\.now|performance\.now|process\.hrtime|process\.cpuUsage)\s*\(/;

test('no test file reads the clock', () => {
  const dir = join(repoRoot, 'test');
  const files = readdirSync(dir).filter((n) => n.endsWith('.test.ts'));
  assert.ok(files.length > 50, `${files.length} test files`);
  const reads = files.flatMap((name) =>
    readFileSync(join(dir, name), 'utf8')
      .split('\n')
      .flatMap((line, i) => (CLOCK.test(line) ? [`${name}:${i + 1}: ${line.trim()}`] : [])),
  );
  assert.deepEqual(reads, []);
});

test('the Open vSwitch harness waits minutes for a command, and says how long when it gives up', () => {
  const harness = readFileSync(join(repoRoot, 'test', 'support', 'ovs.ts'), 'utf8');
  const timeout = Number(/const COMMAND_TIMEOUT_MS = ([\d_]+);/.exec(harness)?.[1]?.replace(/_/g, ''));
  assert.ok(timeout >= 120_000, `${timeout} ms`);
  assert.match(harness, /no answer within \$\{COMMAND_TIMEOUT_MS \/ 1000\} s/);
});
