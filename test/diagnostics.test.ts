// Diagnostics stay readable and bounded whatever the input: a window of a long line, a few per
// line and per file, the rest counted; a file of bad lines still says what is wrong with each;
// prose pasted around a dump is skipped and counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDiagnostic } from '../src/render/diagnostics.ts';
import { runCli } from './support/cli.ts';

test('a long line is shown as a window around the column, with … where it is cut', () => {
  const lineText = 'a'.repeat(5000) + 'BAD' + 'b'.repeat(5000);
  const text = formatDiagnostic({
    severity: 'error',
    message: 'unknown keyword BAD',
    file: 'f',
    line: 3,
    column: 5001,
    length: 3,
    lineText,
  });
  const [head, shown, caret] = text.split('\n');
  assert.equal(head, 'f:3:5001: error: unknown keyword BAD');
  assert.ok(shown!.length < 120, `${shown!.length} characters`);
  assert.match(shown!, /^ {4}…a+BADb+…$/);
  // The caret stands under the column in the window.
  assert.equal(caret!.indexOf('^'), shown!.indexOf('BAD'));
  assert.match(caret!, /\^~~$/);
  // A short line is shown whole, as before.
  const short = formatDiagnostic({
    severity: 'warning',
    message: 'm',
    file: 'f',
    line: 1,
    column: 3,
    length: 2,
    lineText: '\tab cd',
  });
  assert.equal(short, 'f:1:3: warning: m\n    \tab cd\n    \t ^~');
  // A message quoting a huge token is cut too.
  assert.ok(
    formatDiagnostic({
      severity: 'error',
      message: `unknown keyword ${'x'.repeat(50000)}`,
      file: 'f',
      line: 1,
      column: 1,
      length: 1,
      lineText: 'x',
    }).length < 500,
  );
});

test('a 20 KB line of bad fields makes a few diagnostics and a count, not megabytes', async () => {
  const line = ` cookie=0x0, table=0, priority=1,${'foo=1,'.repeat(3500)}ip actions=drop\n`;
  const good = ' cookie=0x0, table=0, priority=2,ip actions=drop\n';
  const r = await runCli(['fmt', '-'], { stdin: good + line });
  assert.equal(r.status, 0);
  assert.ok(r.stderr.length < 2000, `${r.stderr.length} bytes of stderr`);
  assert.equal(r.stderr.match(/^<stdin>:2:\d+: error: unknown keyword foo$/gm)?.length, 3);
  assert.match(
    r.stderr,
    /^flowscope: and 3497 more diagnostics of <stdin> not shown \(--max-errors N to show more\)$/m,
  );
});

test('diagnostics are capped per file, --max-errors sets the cap', async () => {
  const bad = Array.from({ length: 60 }, (_, i) => `priority=1,bogus${i}=1 actions=drop`).join('\n');
  const input = `priority=1,ip actions=drop\n${bad}\n`;
  const byDefault = await runCli(['fmt', '-'], { stdin: input });
  assert.equal(byDefault.stderr.match(/^<stdin>:\d+:\d+: error:/gm)?.length, 20);
  assert.match(byDefault.stderr, /^flowscope: and 40 more diagnostics of <stdin> not shown/m);
  assert.match(byDefault.stderr, /^flowscope: 60 lines of <stdin> could not be read and were skipped$/m);
  const five = await runCli(['fmt', '--max-errors', '5', '-'], { stdin: input });
  assert.equal(five.stderr.match(/^<stdin>:\d+:\d+: error:/gm)?.length, 5);
  assert.match(five.stderr, /and 55 more diagnostics/);
  const all = await runCli(['fmt', '--max-errors', '1000', '-'], { stdin: input });
  assert.equal(all.stderr.match(/^<stdin>:\d+:\d+: error:/gm)?.length, 60);
  assert.doesNotMatch(all.stderr, /more diagnostic/);
  const wrong = await runCli(['fmt', '--max-errors', 'many', '-'], { stdin: input });
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /expected a number of diagnostics/);
});

test('one bad flow piped in gets its positioned diagnostic before the refusal', async () => {
  const r = await runCli(['fmt', '-'], { stdin: 'priority=1,ip,nw_dst=10.0.0.300 actions=drop\n' });
  assert.equal(r.status, 2);
  assert.equal(
    r.stderr,
    '<stdin>:1:22: error: 10.0.0.300: invalid IP address\n    priority=1,ip,nw_dst=10.0.0.300 actions=drop\n                         ^~~~~~~~~~\nflowscope: error: <stdin>: not an ovs-ofctl dump: no line could be read as a flow or group\n',
  );
  // A document of another kind is named, without a diagnostic per line.
  const yaml = await runCli(['fmt', '-'], { stdin: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: x=1\n' });
  assert.equal(yaml.stderr, 'flowscope: error: <stdin>: not an ovs-ofctl dump: it looks like YAML\n');
});

test('prose around a pasted dump is skipped and counted in one line', async () => {
  const prose = Array.from(
    { length: 600 },
    (_, i) => `Sentence ${i} of the issue, explaining what the switch does: nothing useful here.`,
  ).join('\n');
  const dump = ' cookie=0x0, duration=1s, table=0, n_packets=0, n_bytes=0, priority=1,ip actions=drop\n';
  const r = await runCli(['fmt', '-'], { stdin: `${prose}\n\`\`\`\n${dump}\`\`\`\n$ ovs-ofctl dump-flows br-int\n` });
  assert.equal(r.status, 0);
  assert.equal(r.stdout, 'priority=1,ip actions=drop\n');
  assert.equal(r.stderr, 'flowscope: 603 lines of <stdin> are text, not flows, and were skipped\n');
  const only = await runCli(['fmt', '-'], { stdin: `${prose}\n` });
  assert.equal(only.status, 2);
  assert.equal(only.stderr, 'flowscope: error: <stdin>: not an ovs-ofctl dump: it holds only text, no flow or group\n');
});
