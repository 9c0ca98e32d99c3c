// The README's tour shows what the commands print today, in a terminal 80 columns wide: each
// `$ flowscope …` line of its console blocks is run and its output compared with the lines
// under it (the first N with `| head -n N`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { runCli } from './support/cli.ts';
import { repoRoot } from './support/paths.ts';

interface Step {
  readonly args: string[];
  readonly head?: number;
  readonly expected: string;
}

/** Words of a shell command line: blanks split, single quotes keep. */
function words(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

function tourSteps(readme: string): Step[] {
  const tour = readme.slice(
    readme.indexOf('## A short tour'),
    readme.indexOf('\n## ', readme.indexOf('## A short tour') + 1),
  );
  const steps: Step[] = [];
  for (const [, block] of tour.matchAll(/```console\n([\s\S]*?)```/g)) {
    const lines = block!.split('\n');
    for (let i = 0; i < lines.length;) {
      let command = lines[i]!.replace(/^\$ /, '');
      while (command.endsWith('\\')) command = command.slice(0, -1) + ' ' + lines[++i]!.trim();
      const out: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith('$ '); i++) out.push(lines[i]!);
      const [run, head] = command.split(/\s*\|\s*head -n\s*/);
      const args = words(run!);
      assert.equal(args.shift(), 'flowscope', command);
      steps.push({
        args,
        ...(head === undefined ? {} : { head: Number(head) }),
        expected: out.join('\n').replace(/\n+$/, ''),
      });
    }
  }
  return steps;
}

test('the README tour prints what the commands print, within 80 columns', async () => {
  const steps = tourSteps(readFileSync(`${repoRoot}/README.md`, 'utf8'));
  assert.ok(steps.length >= 5, `${steps.length} steps`);
  const commands = new Set(steps.map((s) => s.args[0]));
  for (const c of ['show', 'trace', 'conj', 'diff', 'check']) assert.ok(commands.has(c), c);
  for (const step of steps) {
    const r = await runCli(step.args, { columns: 80, env: { NO_COLOR: '1' } });
    const lines = r.stdout.replace(/\n$/, '').split('\n');
    const shown = (step.head === undefined ? lines : lines.slice(0, step.head)).join('\n');
    assert.equal(shown, step.expected, step.args.join(' '));
    for (const line of step.expected.split('\n')) assert.ok([...line].length <= 80, line);
  }
});
