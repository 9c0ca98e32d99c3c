// Groups of Open vSwitch's own test suite, against what `ovs-ofctl parse-group` printed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDump } from '../src/syntax/reader.ts';
import { formatGroup } from '../src/render/group.ts';
import { NAME_ONLY_ERROR, readJsonl, recordVersion } from './support/corpus.ts';

const records = readJsonl('ovs-tests-groups.jsonl');

const MIN_IDENTICAL = 60;

test('accepted corpus groups print exactly as ovs-ofctl parse-group printed them', () => {
  const accepted = records.filter((r) => r.canonical !== undefined);
  const mismatches: string[] = [];
  for (const r of accepted) {
    const result = parseDump(r.input, { file: r.source });
    const group = result.groups[0];
    const got = group
      ? formatGroup(group, recordVersion(r))
      : `(not parsed: ${result.diagnostics.map((d) => d.message).join('; ')})`;
    if (got !== r.canonical)
      mismatches.push(`${r.source}\n  input: ${r.input}\n  want:  ${r.canonical}\n  got:   ${got}`);
  }
  const identical = accepted.length - mismatches.length;
  console.log(`corpus groups: ${identical}/${accepted.length} accepted groups print identically`);
  if (process.env.SHOW_MISMATCHES) console.log(mismatches.join('\n'));
  assert.ok(identical >= MIN_IDENTICAL, mismatches.slice(0, 10).join('\n'));
});

test('groups OVS rejected produce a diagnostic', () => {
  const silent = records.filter(
    (r) =>
      r.error !== undefined &&
      !NAME_ONLY_ERROR.test(r.error) &&
      parseDump(r.input, { file: r.source }).diagnostics.length === 0,
  );
  for (const r of silent) console.log(`silent: ${r.input} (ovs: ${r.error})`);
  assert.deepEqual(
    silent.map((r) => r.input),
    [],
  );
});
