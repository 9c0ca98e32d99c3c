// `antctl get ovsflows` output in each form it prints reads as the dump it came from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { runCli } from './support/cli.ts';
import { repoRoot } from './support/paths.ts';

const dumpText = readFileSync(join(repoRoot, 'examples', 'antrea', 'dump-flows.of13.txt'), 'utf8');
// antctl drops the reply header: its rows are the flow lines, trimmed.
const rows = dumpText
  .split('\n')
  .filter((l) => l.includes('actions='))
  .map((l) => l.trim());
const entries = rows.map((flow) => ({ flow }));

/** In one OpenFlow version: the dump names its own in its reply header, antctl's forms do not. */
async function fmt(stdin: string): Promise<{ status: number; stdout: string; stderr: string }> {
  return runCli(['fmt', '--of', '13', '-'], { stdin });
}

test('the forms antctl prints read as the same flows as the dump', async () => {
  const expected = await fmt(dumpText);
  assert.equal(expected.status, 0, expected.stderr);
  assert.equal(expected.stdout.trim().split('\n').length, 86);
  const forms: Record<string, string> = {
    table: `FLOW\n${rows.map((r) => r + '  ').join('\n')}\n`,
    'json (indented)': JSON.stringify(entries, null, 2) + '\n',
    'json (one line)': JSON.stringify(entries),
    // Folded at 80 columns, as Go's YAML encoder does with long strings.
    yaml: stringify(entries, { lineWidth: 80 }),
  };
  assert.match(forms.yaml!, /\n {4}\S/, 'the YAML folds long flows over several lines');
  for (const [form, text] of Object.entries(forms)) {
    const r = await fmt(text);
    assert.deepEqual([r.status, r.stderr, r.stdout], [0, '', expected.stdout], form);
  }
});

test('a bad flow in antctl YAML is reported at the line it is on in the file', async () => {
  const text = stringify([
    { flow: 'table=0, priority=0 actions=drop' },
    { flow: 'table=0, priority=5,bogus_field=1 actions=drop' },
  ]);
  const r = await runCli(['parse', '-'], { stdin: text });
  assert.equal(r.status, 0);
  const line = text.split('\n').findIndex((l) => l.includes('bogus_field')) + 1;
  assert.match(r.stderr, new RegExp(`^<stdin>:${line}:\\d+: error: .*bogus_field`, 'm'));
});

test('JSON or YAML that is not antctl output is still refused as such', async () => {
  const json = await fmt('[{"name": "x"}]\n');
  assert.equal(json.status, 2);
  assert.match(json.stderr, /not an ovs-ofctl dump: it looks like JSON/);
  const yaml = await fmt('- flow: 3\n');
  assert.equal(yaml.status, 2);
  assert.match(yaml.stderr, /it looks like YAML/);
});
