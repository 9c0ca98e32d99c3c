// What a trace prints is bounded by a fixed multiple of the flows traced through, whatever form
// asks for it: the list of `-o name`, two traces side by side (`--compare`), and the probes of
// `diff --impact`. A pipeline of 6 KB recirculates into 16,000 lookups of long table names; each
// report of it stays within its bound and says what it left out. The assertions count bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diffDumps } from '../src/analysis/diff/diff.ts';
import { diffImpact } from '../src/analysis/impact/impact.ts';
import { Tracer } from '../src/analysis/trace/trace.ts';
import { TraceBudget } from '../src/analysis/trace/trace-budget.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import { formatImpact, impactJson } from '../src/render/impact.ts';
import { TRACE_BYTES_PER_INPUT_BYTE, traceOutputBudget } from '../src/render/trace.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { runCli } from './support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'flowscope-bounds-'));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const [A, B, C, D] = ['A', 'B', 'C', 'D'].map((c) => c + 'x'.repeat(36)) as [string, string, string, string];
/** Each pass fans out 64 × 64 lookups of D and recirculates: over 16,000 lookups from 6 KB. */
const FAN =
  [
    `table=${A},in_port=1 actions=ct(table=${A}),resubmit(,${B})`,
    `table=${B} actions=${`resubmit(,${C}),`.repeat(64)}`,
    `table=${C} actions=${`resubmit(,${D}),`.repeat(64)}`,
    `table=${D} actions=drop`,
  ].join('\n') + '\n';
const FAN_OUT = FAN.replace(`table=${D} actions=drop`, `table=${D} actions=output:2`);
/** The bound of each dump's traces (64 bytes per byte of its flows), summed. */
const budgetOf = (...texts: string[]): number =>
  texts.reduce((n, t) => {
    const dump = parseDump(t, { file: 'bound' });
    const bound = traceOutputBudget(new Pipeline(dump.flows, dump.groups, dump.ports));
    assert.ok(bound >= TRACE_BYTES_PER_INPUT_BYTE * (Buffer.byteLength(t) - 8));
    return n + bound;
  }, 0);
const PACKET = 'in_port=1';
const fanDump = parseDump(FAN, { file: 'fan' });
/** The lookups the packet makes through FAN, as the tracer counts them. */
const LOOKUPS = new Tracer(new Pipeline(fanDump.flows, fanDump.groups, fanDump.ports))
  .tracePacket(PACKET)
  .passes.reduce((n, p) => n + p.steps.length, 0);

test('trace -o name lists the lookups its bound holds and says on stderr how many it left out', async () => {
  const r = await runCli(['trace', '-o', 'name', file('fan.txt', FAN), PACKET]);
  assert.equal(r.status, 0, r.stderr);
  const budget = budgetOf(FAN);
  const listed = r.stdout.split('\n').filter(Boolean);
  // Unbounded, the list would be 16,000 names of 37 characters: past the bound.
  assert.ok(r.stdout.length <= budget, `${r.stdout.length} bytes`);
  assert.ok(listed.length > 10_000 && listed.every((n) => [A, B, C, D].includes(n)), `${listed.length} names`);
  const left = /flowscope: (\d+) more table lookups of this trace not listed: the list reached (\d+) bytes/.exec(
    r.stderr,
  );
  assert.ok(left, r.stderr);
  assert.ok(LOOKUPS > 16_000, `${LOOKUPS} lookups`);
  assert.equal(listed.length + Number(left[1]), LOOKUPS);
  assert.equal(Number(left[2]), budget);
});

test('trace --compare puts side by side the rows the bounds of both traces hold, then both verdicts', async () => {
  const r = await runCli(['trace', file('fan-a.txt', FAN), '--compare', file('fan-b.txt', FAN_OUT), PACKET]);
  assert.equal(r.status, 1, r.stderr);
  const budget = budgetOf(FAN, FAN_OUT);
  const verdicts = /\nLeft verdict: [^]*$/.exec(r.stdout)?.[0] ?? '';
  assert.ok(verdicts.length > 0, r.stdout.slice(-2000));
  // The right side's verdict names its 8,192 outputs, as OVS's action buffer holds them; the rows stay within the bound.
  assert.ok(r.stdout.length - verdicts.length <= budget + 4096, `${r.stdout.length - verdicts.length} bytes`);
  assert.match(
    r.stdout,
    /\n… and \d+ more lines of both traces, not printed: the text reached \d+ bytes, the bound for flows and groups of this size \(64 bytes of trace per byte of them\)\.[^\n]*\n\nThe paths part at lookup 4 of the packet as given:\n/,
  );
  assert.match(verdicts, /\nThe verdicts differ\.\n$/);
  // JSON: each side's trace within its own bound.
  const json = await runCli([
    'trace',
    '--json',
    file('fan-c.txt', FAN),
    '--compare',
    file('fan-d.txt', FAN_OUT),
    PACKET,
  ]);
  assert.equal(json.status, 1, json.stderr);
  const j = JSON.parse(json.stdout) as {
    left: { omitted?: { steps: number } };
    right: { omitted?: { steps: number } };
  };
  assert.ok(
    (j.left.omitted?.steps ?? 0) > 0 && (j.right.omitted?.steps ?? 0) > 0,
    JSON.stringify([j.left.omitted, j.right.omitted]),
  );
  assert.ok(json.stdout.length <= 4 * budget, `${json.stdout.length} bytes`);
});

test("diff --impact --json cuts its probes' paths at the bound of both dumps and counts the steps left out", async () => {
  const r = await runCli(['diff', '--impact', '--json', file('fan-e.txt', FAN), file('fan-f.txt', FAN_OUT)]);
  assert.equal(r.status, 1, r.stderr);
  const budget = budgetOf(FAN, FAN_OUT);
  // Pretty-printed JSON takes up to four times its compact form, as trace --json does.
  assert.ok(r.stdout.length <= 4 * budget, `${r.stdout.length} bytes`);
  const j = JSON.parse(r.stdout) as {
    changes: {
      probes: {
        effect: string;
        before: { path: unknown[]; pathOmitted?: number };
        after: { path: unknown[]; pathOmitted?: number };
      }[];
    }[];
  };
  const probe = j.changes[0]?.probes[0];
  assert.ok(probe, r.stdout.slice(0, 2000));
  assert.equal(probe.effect, 'verdict');
  assert.equal(probe.before.path.length + (probe.before.pathOmitted ?? 0), LOOKUPS);
  assert.ok((probe.after.pathOmitted ?? 0) > 0);
});

test('diff --impact as text stops at its bound and says how many lines it left out', () => {
  // Many changes, each with a probe whose verdict names 2,048 outputs, against a small bound.
  const groups = (leaf: string): string[] => [
    ...Array.from({ length: 11 }, (_, i) => `group_id=${i + 1},type=all,bucket=group:${i + 2},bucket=group:${i + 2}`),
    `group_id=12,type=all,bucket=${leaf}`,
  ];
  const flows = Array.from(
    { length: 40 },
    (_, i) => `table=0,priority=${i + 1},ip,in_port=1,nw_dst=10.0.0.${i + 1} actions=group:1`,
  );
  const before = parseDump([...flows, ...groups('output:2')].join('\n'), { file: 'before' });
  const after = parseDump(
    [...flows.map((f) => f.replace('group:1', 'group:1,output:3')), ...groups('output:2')].join('\n'),
    { file: 'after' },
  );
  const report = diffImpact(
    diffDumps(before, after),
    new Tracer(new Pipeline(before.flows, before.groups, before.ports)),
    new Tracer(new Pipeline(after.flows, after.groups, after.ports)),
    // Every probe traced, whatever the traces take: the bound of their work is not what this is about.
    { maxProbes: 2, budget: new TraceBudget(Infinity) },
  );
  assert.equal(report.changes.length, 40);
  const words = (maxBytes: number) => ({
    of: 15 as const,
    before: { of: 15 as const, maxBytes },
    after: { of: 15 as const, maxBytes },
  });
  const whole = formatImpact(report, words(Infinity));
  const bound = 50_000;
  assert.ok(whole.length > 4 * bound, `${whole.length} bytes unbounded`);
  const text = formatImpact(report, words(bound / 2));
  assert.ok(text.length <= bound + 1024, `${text.length} bytes`);
  assert.match(
    text,
    /\n… and \d+ more lines, not printed: the report reached 50000 bytes, the bound for dumps of this size \(64 bytes per byte of them\)\.\n$/,
  );
  const json = impactJson(report, words(bound / 2)) as {
    changes: { probes: unknown[] }[];
    omitted?: { probes: number };
  };
  assert.ok(JSON.stringify(json).length <= bound + 8192, `${JSON.stringify(json).length} bytes`);
  assert.equal(json.changes.length, 40);
  assert.equal(
    json.changes.reduce((n, c) => n + c.probes.length, 0) + (json.omitted?.probes ?? 0),
    report.changes.reduce((n, c) => n + c.outcomes.length, 0),
  );
  assert.ok((json.omitted?.probes ?? 0) > 0);
});
