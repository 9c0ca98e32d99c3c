// The man page documents every command and every long option the command line accepts,
// and groff reads it without warnings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { buildProgram } from '../src/cli/main.ts';
import { repoRoot } from './support/paths.ts';

const manPath = join(repoRoot, 'man', 'flowscope.1');
// roff escapes hyphens; compare against the text with them undone.
const man = readFileSync(manPath, 'utf8').replace(/\\-/g, '-');

const program = await buildProgram({
  stdin: Readable.from([]),
  stdout: new PassThrough(),
  stderr: new PassThrough(),
  env: {},
});

test('every command is described in the man page', () => {
  const missing = program.commands
    .map((c) => c.name())
    .filter((name) => !new RegExp(`^\\.BI? "?${name}\\b`, 'm').test(man));
  assert.deepEqual(missing, []);
});

test('every long option is described in the man page', () => {
  const missing = new Set<string>();
  for (const cmd of [program, ...program.commands]) {
    for (const opt of cmd.options) {
      const long = opt.long;
      if (long && long !== '--help' && !man.includes(long)) missing.add(`${cmd.name()} ${long}`);
    }
  }
  assert.deepEqual([...missing], []);
});

const groff = spawnSync('groff', ['--version']).status === 0;

test('groff reads the man page without warnings', { skip: groff ? false : 'groff is not installed' }, () => {
  const r = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z', manPath], { encoding: 'utf8' });
  assert.equal(r.status, 0);
  assert.equal(r.stderr, '');
});
