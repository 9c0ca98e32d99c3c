// A trace does bounded work whatever the pipeline: OVS's own limits (depth, resubmits, stack,
// datapath actions, recirculations) where OVS has them, flowscope's (steps, nesting) past them.
// Each pipeline here would otherwise run for hours or exhaust memory; the assertions count work
// and output, never time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pipeline } from '../src/model/pipeline.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { MAX_NESTING, MAX_PASSES, MAX_TRACE_STEPS, type TraceResult, Tracer } from '../src/analysis/trace/trace.ts';
import {
  formatTrace,
  formatTraceBrief,
  TRACE_BYTES_PER_INPUT_BYTE,
  traceJson,
  traceOutputBound,
  traceOutputBudget,
  traceTableNames,
} from '../src/render/trace.ts';
import { LazyBound } from '../src/render/text-budget.ts';
import { runCli } from './support/cli.ts';

function trace(text: string, spec = 'in_port=1,ip'): TraceResult {
  const dump = parseDump(text, { file: 'test' });
  assert.equal(dump.badLines, 0, dump.diagnostics.map((d) => d.message).join('\n'));
  return new Tracer(new Pipeline(dump.flows, dump.groups, dump.ports)).tracePacket(spec);
}

const lookups = (r: TraceResult): number => r.passes.reduce((n, p) => n + p.steps.length, 0);
const limits = (r: TraceResult): string[] =>
  r.problems.map((p) => (p.kind === 'trace-cut' || p.kind === 'translation-failed' ? `${p.kind}:${p.limit}` : p.kind));

/** The trace renders as text and JSON within a bound. */
function rendersBounded(r: TraceResult, maxBytes: number): string {
  const text = formatTrace(r, { of: 15 });
  assert.ok(text.length < maxBytes, `text of ${text.length} bytes`);
  assert.ok(JSON.stringify(traceJson(r, { of: 15 })).length < maxBytes);
  return text;
}

test('a chain of all-groups that doubles at each link stops at the step bound', () => {
  const groups = Array.from(
    { length: 30 },
    (_, i) => `group_id=${i + 1},type=all,bucket=group:${i + 2},bucket=group:${i + 2}`,
  );
  const r = trace(['table=0,actions=group:1', ...groups, 'group_id=31,type=all,bucket=set_field:1->reg0'].join('\n'));
  assert.equal(r.verdict, 'drop');
  assert.deepEqual(limits(r), ['trace-cut:steps']);
  assert.equal(r.cause?.kind, 'trace-cut');
  const text = rendersBounded(r, 16_000_000);
  assert.match(text, new RegExp(`Verdict: dropped in table 0: trace stopped after ${MAX_TRACE_STEPS} steps`));
});

test('a chain of all-groups sending out of every leaf ends when its datapath actions pass 64 kB, as OVS ends it', () => {
  // 2,048 leaves of 8 outputs each.
  const groups = Array.from(
    { length: 11 },
    (_, i) => `group_id=${i + 1},type=all,bucket=group:${i + 2},bucket=group:${i + 2}`,
  );
  const r = trace(
    ['table=0,actions=group:1', ...groups, `group_id=12,type=all,${'bucket=output:2,'.repeat(8)}`].join('\n'),
  );
  assert.equal(r.verdict, 'output');
  // 8 bytes an output: 8,192 make 64 kB and one more byte is too many; it is found at the next
  // group, and said once.
  assert.equal(r.outputs.length, 8192);
  assert.deepEqual(limits(r), ['trace-cut:actions']);
  assert.match(rendersBounded(r, 16_000_000), / >>>> resubmits yielded over 64 kB of actions <<<<\n/);
});

test('recirculations stop where ofproto/trace stops them', () => {
  const r = trace('table=0,actions=ct(table=0)');
  assert.equal(r.passes.length, MAX_PASSES + 2);
  assert.deepEqual(limits(r), ['trace-cut:recirculations']);
  assert.equal(r.problems[0]!.kind === 'trace-cut' && r.problems[0]!.unprocessed, 1);
  assert.match(
    rendersBounded(r, 16_000_000),
    /trace stopped after 4096 recirculations, as ofproto\/trace stops \(1 more queued and not followed\)\n$/,
  );
});

test('recirculations that each make 4,096 lookups share one step bound', () => {
  const r = trace(
    [
      'table=0,actions=ct(table=0),resubmit(,1)',
      `table=1,actions=${'resubmit(,2),'.repeat(64)}`,
      `table=2,actions=${'resubmit(,3),'.repeat(64)}`,
      'table=3,actions=drop',
    ].join('\n'),
  );
  assert.ok(lookups(r) <= MAX_TRACE_STEPS);
  assert.ok(r.passes.length < 20, `${r.passes.length} passes`);
  assert.equal(limits(r).at(-1), 'trace-cut:steps');
  assert.ok(
    limits(r)
      .slice(0, -1)
      .every((l) => l === 'translation-failed:resubmits'),
    limits(r).join(),
  );
});

test('4,096 resubmits into a flow of 10,000 actions stop at the step bound', () => {
  const r = trace(
    [
      `table=0,actions=${'resubmit(,1),'.repeat(64)}`,
      `table=1,actions=${'resubmit(,2),'.repeat(64)}`,
      `table=2,actions=${'set_field:1->reg0,'.repeat(10000)}output:2`,
    ].join('\n'),
  );
  assert.deepEqual(limits(r), ['trace-cut:steps']);
  assert.ok(lookups(r) < 20);
});

test('a stack past 64 kB fails the translation at the next resubmit, as OVS fails it', () => {
  // Each push of a 32-bit register takes 5 bytes of OVS's stack.
  const r = trace(
    [`table=0,actions=${'push:NXM_NX_REG0[],'.repeat(13108)}resubmit(,1)`, 'table=1,actions=output:2'].join('\n'),
  );
  assert.deepEqual(limits(r), ['translation-failed:stack']);
  assert.equal(r.verdict, 'drop');
  assert.match(
    rendersBounded(r, 4_000_000),
    / >>>> resubmits yielded over 64 kB of stack <<<<\n[^]*Translation failed \(Stack too deep\)/,
  );
  // One push fewer stays under.
  const under = trace(
    [`table=0,actions=${'push:NXM_NX_REG0[],'.repeat(13107)}resubmit(,1)`, 'table=1,actions=output:2'].join('\n'),
  );
  assert.equal(under.verdict, 'output');
});

test('forward resubmits through 1,200 named tables stop at the nesting bound, not at the stack of the tracer', () => {
  const names = Array.from({ length: 1200 }, (_, i) => `T${i}`);
  const r = trace(
    names
      .map(
        (n, i) =>
          ` cookie=0x0, table=${n}, priority=0 actions=${i < names.length - 1 ? `resubmit(,${names[i + 1]})` : 'output:2'}`,
      )
      .join('\n'),
  );
  assert.deepEqual(limits(r), ['trace-cut:nesting']);
  assert.equal(lookups(r), MAX_NESTING + 1);
  rendersBounded(r, 16_000_000);
  // A chain within the bound is followed to its end.
  const short = trace(
    names
      .slice(0, 1000)
      .map(
        (n, i) => ` cookie=0x0, table=${n}, priority=0 actions=${i < 999 ? `resubmit(,${names[i + 1]})` : 'output:2'}`,
      )
      .join('\n'),
  );
  assert.equal(short.verdict, 'output');
});

test('a trace keeps one packet per table, not one per lookup', () => {
  const r = trace(
    [
      `table=0,actions=${'resubmit(,1),'.repeat(64)}`,
      `table=1,actions=${'resubmit(,2),'.repeat(32)}`,
      'table=2,actions=drop',
    ].join('\n'),
  );
  const kept = r.passes.flatMap((p) => p.steps).filter((s) => s.packet !== undefined);
  assert.equal(lookups(r), 1 + 64 + 64 * 32);
  assert.deepEqual(kept.map((s) => s.table.kind === 'number' && s.table.number).sort(), [0, 1, 2]);
  assert.ok(r.last?.packet, 'the last lookup keeps its packet');
});

/** The 2 KB chain of all-groups whose 32,768 steps would print 8 MB. */
const DOUBLING_CHAIN =
  [
    'table=0,in_port=1 actions=group:1',
    ...Array.from(
      { length: 30 },
      (_, i) =>
        `group_id=${i + 1},type=all,bucket=actions=${i < 29 ? `group:${i + 2}` : 'output:2'},bucket=actions=${i < 29 ? `group:${i + 2}` : 'output:2'}`,
    ),
  ].join('\n') + '\n';

test('trace output stays within a fixed multiple of the flows and groups traced through, and says what it left out', async () => {
  const input = Buffer.byteLength(DOUBLING_CHAIN);
  const budget = TRACE_BYTES_PER_INPUT_BYTE * Math.max(input, 4096);
  const dump = parseDump(DOUBLING_CHAIN, { file: 'test' });
  assert.equal(traceOutputBudget(new Pipeline(dump.flows, dump.groups, dump.ports)), budget);
  // Unbounded, the text would be 30 times the budget.
  const full = formatTrace(trace(DOUBLING_CHAIN, 'in_port=1'), { of: 15 });
  assert.ok(full.length > 20 * budget, `${full.length} bytes`);
  const text = await runCli(['trace', '-', 'in_port=1'], { stdin: DOUBLING_CHAIN });
  assert.equal(text.status, 0, text.stderr);
  const verdict = /^Verdict: .*\n(?:Also, .*\n)*$/m.exec(text.stdout)?.[0] ?? '';
  // The verdict lists the 8,192 outputs OVS's action buffer holds; the rest is within the budget.
  assert.ok(text.stdout.length - verdict.length <= budget + 1024, `${text.stdout.length} bytes`);
  assert.match(
    text.stdout,
    /\n… and \d+ more lines of this trace, not printed: the text reached \d+ bytes, the bound for flows and groups of this size \(64 bytes of trace per byte of them\)\. The verdict covers the whole trace\.\n\nVerdict: output to ports 2, 2,/,
  );
  for (const form of [['--brief'], ['--json']]) {
    const r = await runCli(['trace', ...form, '-', 'in_port=1'], { stdin: DOUBLING_CHAIN });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(r.stdout.length <= 4 * budget, `${form.join(' ')}: ${r.stdout.length} bytes`);
  }
  // ct(table=) fanning out: 40 bytes of flows, 4,098 passes; JSON says what it left out.
  const fan = await runCli(['trace', '--json', '-', 'in_port=1'], {
    stdin: 'table=0 actions=ct(table=0),ct(table=0)\n',
  });
  assert.ok(fan.stdout.length <= 4 * TRACE_BYTES_PER_INPUT_BYTE * 4096, `${fan.stdout.length} bytes`);
  const omitted = (JSON.parse(fan.stdout) as { omitted?: { passes: number; steps: number } }).omitted;
  assert.ok(omitted && omitted.passes > 1000 && omitted.steps >= omitted.passes, JSON.stringify(omitted));
});

test('a bound worked out when needed cuts a trace where its number does, and is worked out only past its floor', () => {
  const dump = parseDump(DOUBLING_CHAIN, { file: 'test' });
  const pipeline = new Pipeline(dump.flows, dump.groups, dump.ports);
  assert.equal(traceOutputBound(pipeline).value, traceOutputBudget(pipeline));
  // 2,113 lookups, each a line of --brief and a name of -o name.
  const r = trace(
    [
      `table=0,actions=${'resubmit(,1),'.repeat(64)}`,
      `table=1,actions=${'resubmit(,2),'.repeat(32)}`,
      'table=2,actions=drop',
    ].join('\n'),
  );
  const forms = [
    (maxBytes: number | LazyBound) => formatTrace(r, { of: 15, maxBytes }),
    (maxBytes: number | LazyBound) => formatTraceBrief(r, { of: 15, maxBytes }),
    (maxBytes: number | LazyBound) => JSON.stringify(traceJson(r, { of: 15, maxBytes })),
    (maxBytes: number | LazyBound) => traceTableNames(r, { of: 15, maxBytes }).names.join('\n'),
  ];
  for (const [i, form] of forms.entries()) {
    let worked = 0;
    const lazy = new LazyBound(1000, () => (worked++, 3000));
    const cut = form(lazy);
    assert.equal(cut, form(3000), `form ${i}`);
    assert.equal(worked, 1, `form ${i}`);
    assert.ok(cut.length < form(Infinity).length, `form ${i}: not cut`);
  }
  // A trace that stays below the floor never asks.
  const short = trace('table=0,actions=output:2', 'in_port=1');
  const never = new LazyBound(1000, () => assert.fail('worked out below its floor'));
  assert.match(formatTrace(short, { of: 15, maxBytes: never }), /^Verdict: output to port 2$/m);
});

test('a trace within its bound is printed whole', async () => {
  const flows =
    [
      `table=0,in_port=1 actions=${'set_field:0x1->reg0,'.repeat(500)}resubmit(,1)`,
      `table=1 actions=${'set_field:0x2->reg1,'.repeat(500)}output:2`,
    ].join('\n') + '\n';
  const r = await runCli(['trace', '-', 'in_port=1'], { stdin: flows });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /more lines? of this trace/);
  assert.equal(r.stdout.split('\n').filter((l) => /^\s+load:/.test(l)).length, 1000);
  const json = JSON.parse((await runCli(['trace', '--json', '-', 'in_port=1'], { stdin: flows })).stdout) as {
    omitted?: unknown;
    passes: { steps: unknown[] }[];
  };
  assert.equal(json.omitted, undefined);
  assert.equal(json.passes[0]!.steps.length, 2);
});
