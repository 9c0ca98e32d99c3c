// One report traces many packets: diff --impact its probes, check its loop search. Each trace is
// bounded (trace-bounds.test.ts); the report's traces share one budget of steps, so that a pipeline
// whose every trace runs to the trace's own bound cannot multiply it by its changes or flows. The
// report stops tracing when the budget is spent and says what it left untraced, the rest whole.
// The assertions count steps and untraced changes or flows, never time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPipeline } from '../src/analysis/check/check.ts';
import { diffDumps } from '../src/analysis/diff/diff.ts';
import { diffImpact, type ImpactReport } from '../src/analysis/impact/impact.ts';
import { REPORT_TRACE_STEPS, TraceBudget } from '../src/analysis/trace/trace-budget.ts';
import { MAX_TRACE_STEPS, Tracer } from '../src/analysis/trace/trace.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import { formatImpact, impactJson } from '../src/render/impact.ts';
import { type ParseResult as Dump, parseDump } from '../src/syntax/reader.ts';
import { runCli } from './support/cli.ts';
import { EXAMPLE_DUMP, fuzzCase, runCase, seedLines } from './support/fuzz.ts';
import { repoRoot } from './support/paths.ts';

const dir = mkdtempSync(join(tmpdir(), 'flowscope-work-'));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const read = (text: string, name: string): Dump => {
  const dump = parseDump(text, { file: name });
  assert.equal(dump.badLines, 0, dump.diagnostics.map((d) => d.message).join('\n'));
  return dump;
};
const tracer = (d: Dump): Tracer => new Tracer(new Pipeline(d.flows, d.groups, d.ports));
/** A trace past the bound (the one that spends the budget runs to its own end), on each side of a probe. */
const OVERRUN = 2 * (MAX_TRACE_STEPS + 1);

const CHANGES = 40;
/** Subnets routed to port 2; each is a flow a change removes. */
const routes = Array.from(
  { length: CHANGES },
  (_, i) => `table=1,priority=100,ip,nw_dst=10.${i + 1}.0.0/16 actions=output:2`,
);
const BEFORE = ['table=0,priority=10,ip,in_port=1 actions=goto_table:1', ...routes].join('\n') + '\n';
/**
 * The routes gone, and table 0 sending every IP packet through conntrack eight times, each
 * recirculation back into table 0: every pass queues eight more, and each trace runs to its
 * bound of steps.
 */
const AFTER =
  [
    `table=0,priority=20,ip actions=${Array.from({ length: 8 }, (_, z) => `ct(table=0,zone=${z + 1})`).join(',')}`,
    'table=0,priority=10,ip,in_port=1 actions=goto_table:1',
  ].join('\n') + '\n';

function impactOf(before: string, after: string, maxProbes: number, budget?: TraceBudget): ImpactReport {
  const [a, b] = [read(before, 'before'), read(after, 'after')];
  return diffImpact(diffDumps(a, b), tracer(a), tracer(b), { maxProbes, ...(budget ? { budget } : {}) });
}

test('diff --impact: the traces of a whole report share one budget of steps; the changes left untraced are counted and said', async () => {
  const report = impactOf(BEFORE, AFTER, 1);
  assert.equal(report.changes.length, CHANGES + 1);
  // Each removed route's probe runs to the trace's bound through the looping dump.
  const traced = report.changes.filter((c) => c.outcomes.length > 0);
  assert.ok(traced.length >= 2, `${traced.length} changes traced`);
  for (const c of traced) assert.ok(c.steps > MAX_TRACE_STEPS, `${c.steps} steps`);
  // The budget stops the report, with at most the last probe's traces past it.
  assert.equal(report.work.limit, REPORT_TRACE_STEPS);
  assert.equal(
    report.work.spent,
    report.changes.reduce((n, c) => n + c.steps, 0),
  );
  assert.ok(report.work.spent >= REPORT_TRACE_STEPS, `${report.work.spent} steps`);
  assert.ok(report.work.spent <= REPORT_TRACE_STEPS + OVERRUN, `${report.work.spent} steps`);
  const untraced = report.changes.filter((c) => c.cut === 'report');
  assert.equal(report.untraced, untraced.length);
  assert.ok(report.untraced >= CHANGES - 10, `${report.untraced} untraced`);
  // Untraced changes took no steps once the budget was spent: the work is the traced changes'.
  assert.ok(
    untraced.every((c) => c.steps === 0 || c === untraced[0]),
    untraced.map((c) => c.steps).join(','),
  );

  // The text says it at the top and at each change; every change is listed all the same.
  const words = { of: 15 as const, before: { of: 15 as const }, after: { of: 15 as const } };
  const text = formatImpact(report, words);
  assert.match(
    text,
    new RegExp(
      `^Impact of ${CHANGES + 1} changes: .*\\n${report.untraced} changes not traced, or only in part: the report stopped tracing when its traces reached its bound of ${REPORT_TRACE_STEPS} trace steps \\(table lookups, actions and group buckets; ${report.work.spent} taken\\)\\n`,
    ),
  );
  assert.equal(
    text.match(/^ {2}not traced: the report's traces had spent its bound of trace steps/gm)?.length,
    report.untraced,
  );
  assert.equal(text.match(/^(?:removed|added): /gm)?.length, CHANGES + 1);
  // JSON: the same counts.
  const json = impactJson(report, words) as {
    traceSteps: { limit: number; spent: number };
    untraced?: { changes: number; reason: string };
    changes: { cut?: string; steps: number }[];
  };
  assert.deepEqual(json.traceSteps, { limit: REPORT_TRACE_STEPS, spent: report.work.spent });
  assert.equal(json.untraced?.changes, report.untraced);
  assert.equal(json.changes.filter((c) => c.cut === 'report').length, report.untraced);

  // Through the command: the same report, exit 1 for the differences.
  const run = await runCli([
    'diff',
    '--impact',
    '--max-probes',
    '1',
    file('before.txt', BEFORE),
    file('after.txt', AFTER),
  ]);
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stdout, new RegExp(`\\n${report.untraced} changes not traced, or only in part: `));
});

test('diff --impact: with a budget given, the report stops where it says; without the loop, nothing is left untraced', () => {
  // A smaller budget: fewer changes traced, each counted.
  const small = impactOf(BEFORE, AFTER, 1, new TraceBudget(MAX_TRACE_STEPS));
  const whole = impactOf(BEFORE, AFTER, 1);
  assert.ok(small.work.spent <= MAX_TRACE_STEPS + OVERRUN, `${small.work.spent} steps`);
  assert.ok(small.untraced > whole.untraced, `${small.untraced} against ${whole.untraced}`);
  // The same changes through a dump that does not loop: every route's probe traced, in a few steps each.
  const plain = impactOf(BEFORE, AFTER.split('\n').slice(1).join('\n'), 1);
  assert.equal(plain.untraced, 0);
  assert.ok(
    plain.changes.every((c) => c.outcomes.length === 1 && c.cut === undefined),
    'every change has its probe',
  );
  assert.ok(plain.work.spent < 100 * CHANGES, `${plain.work.spent} steps`);
});

test("diff --impact: the examples' reports are whole, far within the budget", () => {
  const example = (path: string): string => readFileSync(join(repoRoot, 'examples', path), 'utf8');
  const pairs: [string, string][] = [
    ['antrea/dump-flows.of13.txt', 'antrea-proxy/dump-flows.of13.txt'],
    ['antrea-proxy/dump-flows.of13.txt', 'antrea/dump-flows.of13.txt'],
  ];
  for (const [a, b] of pairs) {
    const report = impactOf(example(a), example(b) + example('antrea-proxy/dump-groups.of13.txt'), 8);
    assert.ok(report.changes.length > 50, `${report.changes.length} changes`);
    assert.equal(report.untraced, 0);
    assert.ok(
      report.changes.every((c) => c.cut === undefined),
      `${a} → ${b}`,
    );
    assert.ok(report.work.spent < REPORT_TRACE_STEPS, `${report.work.spent} steps`);
  }
});

test("diff --impact: fuzz case 467001, the examples' dump against one that recirculates through ct(table=…), within the budget", async () => {
  // The fuzz campaign's case 467001 (seed 20261126): 92 changes, each candidate's trace through
  // the fuzzed dump running to the trace's bound of steps.
  const c = fuzzCase(20261126, 467001, seedLines());
  assert.deepEqual(c.args, ['diff', '--impact', '--max-probes', '1', EXAMPLE_DUMP, '-']);
  const example = parseDump(readFileSync(EXAMPLE_DUMP, 'utf8'), { file: 'example' });
  const fuzzed = parseDump(c.stdin, { file: 'fuzzed' });
  const report = diffImpact(diffDumps(example, fuzzed), tracer(example), tracer(fuzzed), { maxProbes: 1 });
  assert.ok(report.changes.length > 80, `${report.changes.length} changes`);
  // 24 candidates a probe, 512 steps a candidate; the last candidate's traces may run to their own bounds.
  const perChange = 24 * 512 + OVERRUN;
  assert.ok(
    report.changes.every((x) => x.steps <= perChange),
    String(Math.max(...report.changes.map((x) => x.steps))),
  );
  assert.ok(report.work.spent <= REPORT_TRACE_STEPS + OVERRUN, `${report.work.spent} steps`);
  assert.ok(report.untraced > 50, `${report.untraced} untraced`);
  assert.equal((await runCase(c)).failure, undefined);
});

/**
 * Flows that each take 400 actions, then resubmit to their own table: a trace from any goes round
 * 64 times, to OVS's bound of depth, in over 25,000 steps.
 */
const LOOPING_FLOWS = 40;
const LOOPS =
  Array.from(
    { length: LOOPING_FLOWS },
    (_, i) => `table=1,priority=100,reg0=${i + 1} actions=${'note:00,'.repeat(400)}resubmit(,1)`,
  ).join('\n') + '\n';

test('check: the loop search shares one budget of steps; the flows it did not follow are counted and said', async () => {
  const json = await runCli(['check', '--json', file('loops.txt', LOOPS)]);
  const j = JSON.parse(json.stdout) as {
    summary: { kind: string }[];
    loopsUntraced?: { flows: number; traceSteps: { limit: number; spent: number }; message: string };
  };
  assert.ok(
    j.summary.some((k) => k.kind === 'forwarding-loop'),
    'the loop is found',
  );
  const untraced = j.loopsUntraced;
  assert.ok(untraced, 'the search stopped at its budget');
  const { limit, spent } = untraced.traceSteps;
  assert.equal(limit, REPORT_TRACE_STEPS);
  // The trace that spends the budget runs to its own end; none starts after it.
  assert.ok(spent >= REPORT_TRACE_STEPS && spent <= REPORT_TRACE_STEPS + MAX_TRACE_STEPS + 1, `${spent} steps`);
  assert.ok(untraced.flows > 0 && untraced.flows < LOOPING_FLOWS, `${untraced.flows} flows not followed`);
  // Every flow is either followed, each to a trace of over 25,000 steps, or counted as not.
  const followed = LOOPING_FLOWS - untraced.flows;
  assert.ok(spent / followed > 25_000, `${spent} steps over ${followed} flows`);

  const text = await runCli(['check', file('loops.txt', LOOPS)]);
  assert.ok(text.stdout.includes(`\n${untraced.message}\n`), text.stdout.slice(0, 2000));
  assert.equal(
    untraced.message,
    `the search for forwarding loops stopped when its traces reached its bound of ${REPORT_TRACE_STEPS} trace steps (table lookups, actions and group buckets; ${spent} taken): ${untraced.flows} flows that may go round (a resubmit to an earlier table, or a group) not followed, so loops through them are not known.`,
  );
  assert.match(text.stdout, /\nforwarding-loop \(1\):\n/);

  // A few such flows are all followed, and nothing is said.
  const few = read(LOOPS.split('\n').slice(0, 3).join('\n'), 'few');
  assert.equal(checkPipeline(new Pipeline(few.flows, few.groups, few.ports)).loopsUntraced, undefined);
});
