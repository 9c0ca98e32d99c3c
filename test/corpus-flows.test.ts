// Every flow of Open vSwitch's own test suite: flowscope must print what `ovs-ofctl parse-flow`
// printed for the accepted ones, and report a diagnostic for the ones OVS rejected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDump } from '../src/syntax/reader.ts';
import { formatFlowCanonical } from '../src/render/flow.ts';
import { NAME_ONLY_ERROR, PRINT_FORM_ONLY_ERROR, readJsonl, recordVersion } from './support/corpus.ts';

const records = readJsonl('ovs-tests-flows.jsonl');

/** parse-flow's `table:N ` prefix written the way `flowscope fmt` writes it. */
function expectedText(canonical: string): string {
  const m = /^table:(\d+) (.*)$/s.exec(canonical);
  return m ? `table=${m[1]}, ${m[2]}` : canonical;
}

// Measured floors: raise them as the printer improves, never lower them.
const MIN_IDENTICAL = 1470;
const MIN_REJECTED_DIAGNOSED = 154;

test('accepted corpus flows print exactly as ovs-ofctl parse-flow printed them', () => {
  const accepted = records.filter((r) => r.canonical !== undefined);
  const mismatches: string[] = [];
  for (const r of accepted) {
    const result = parseDump(r.input, { file: r.source });
    const flow = result.flows[0];
    const got = flow
      ? formatFlowCanonical(flow, recordVersion(r))
      : `(not parsed: ${result.diagnostics.map((d) => d.message).join('; ')})`;
    const want = expectedText(r.canonical!);
    if (got !== want || result.flows.length !== 1)
      mismatches.push(`${r.source} [${r.of}]\n  input: ${r.input}\n  want:  ${want}\n  got:   ${got}`);
  }
  const identical = accepted.length - mismatches.length;
  console.log(`corpus flows: ${identical}/${accepted.length} accepted flows print identically`);
  if (process.env.SHOW_MISMATCHES) console.log(mismatches.join('\n'));
  assert.ok(
    identical >= MIN_IDENTICAL,
    `only ${identical} of ${accepted.length} identical; first mismatches:\n${mismatches.slice(0, 10).join('\n')}`,
  );
});

test('what parse-flow printed reads back to the same flow: its idle:, hard:, cookie: and flag words included', () => {
  const unread: string[] = [];
  for (const r of records) {
    if (r.canonical === undefined) continue;
    const want = expectedText(r.canonical);
    const first = parseDump(r.input, { file: r.source }).flows[0];
    // Only where fmt prints what OVS printed: the reader is tested here, not the printer.
    if (!first || formatFlowCanonical(first, recordVersion(r)) !== want) continue;
    const again = parseDump(want, { file: r.source });
    const got = again.flows[0]
      ? formatFlowCanonical(again.flows[0], recordVersion(r))
      : again.diagnostics.map((d) => d.message).join('; ');
    if (got !== want) unread.push(`${r.source}\n  printed: ${want}\n  read as: ${got}`);
  }
  assert.deepEqual(unread, []);
});

test('flows OVS rejected produce a diagnostic', () => {
  const rejected = records.filter(
    (r) => r.error !== undefined && !NAME_ONLY_ERROR.test(r.error) && !PRINT_FORM_ONLY_ERROR.test(r.error),
  );
  const silent: string[] = [];
  for (const r of rejected) {
    const result = parseDump(r.input, { file: r.source });
    if (result.diagnostics.length === 0) silent.push(`${r.source}: ${r.input}\n  ovs: ${r.error}`);
  }
  const diagnosed = rejected.length - silent.length;
  console.log(`corpus flows: ${diagnosed}/${rejected.length} rejected flows produce a diagnostic`);
  if (process.env.SHOW_MISMATCHES) console.log(silent.join('\n'));
  assert.ok(
    diagnosed >= MIN_REJECTED_DIAGNOSED,
    `only ${diagnosed} of ${rejected.length} diagnosed; first silent:\n${silent.slice(0, 10).join('\n')}`,
  );
});

test('flows OVS accepted are not reported as flows OVS would refuse', () => {
  const flagged = records
    .filter((r) => r.canonical !== undefined)
    .flatMap((r) =>
      parseDump(r.input, { file: r.source })
        .diagnostics.filter((d) => /refuses|exists only in/.test(d.message))
        .map((d) => `${r.input}: ${d.message}`),
    );
  assert.deepEqual(flagged, []);
});

test('the parser never throws on any corpus line, whole or cut short', () => {
  for (const r of records) {
    for (const cut of [r.input.length, Math.floor(r.input.length / 2), Math.floor(r.input.length / 3)]) {
      assert.doesNotThrow(() => parseDump(r.input.slice(0, cut), { file: 'x' }), r.input.slice(0, cut));
    }
  }
});
