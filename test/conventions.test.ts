// Habits users bring from kubectl, antctl and ovs-ofctl: one error prefix, the same options on
// every command, output forms chosen with -o.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
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
  for (const name of commands.filter((c) => c !== 'bundle')) {
    const help = (await runCli([name, '--help'])).stdout;
    const own = help.indexOf('\nOptions:\n');
    const input = help.indexOf('\nInput options:\n');
    assert.ok(own >= 0 && input > own, `${name}: ${help}`);
    const inputPart = help.slice(input);
    for (const flag of ['--bundle', '--ports', '--pod', '--local', '--strict']) assert.match(inputPart, new RegExp(`^  ${flag}\\b`, 'm'), `${name} ${flag}`);
    assert.doesNotMatch(help.slice(own, input), /^ {2}--(bundle|ports|pod|strict)\b/m, name);
  }
});
