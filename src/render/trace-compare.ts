/**
 * Two traces of one packet side by side (`flowscope trace A --compare B`): the lookups of each,
 * row by row, the first where the paths part marked; then that step's flows, and both verdicts.
 */
import type { TraceComparison, TraceDivergence } from '../analysis/trace/trace-compare.ts';
import type { TracePass, TraceStep } from '../analysis/trace/trace.ts';
import { tableLabel } from '../model/tables.ts';
import { maxOf } from '../model/append.ts';
import { formatActions } from './actions.ts';
import { formatPriorityAndMatch } from './flow.ts';
import { SCHEMA_VERSION } from './json.ts';
import { type ByteBound, sumBounds, TextBudget } from './text-budget.ts';
import { omittedLines, stepJson, tableName, type TraceRenderOptions, traceJson, verdictLine } from './trace.ts';

/** How each side renders its trace, and what it was read from. */
export interface ComparedSide {
  readonly label: string;
  readonly render: TraceRenderOptions;
}

/** `16 L3Forwarding  200`: the table, its name, the priority of the flow chosen (`-` for none). */
function stepCell(step: TraceStep | undefined, o: TraceRenderOptions): string {
  if (!step) return '';
  const name = o.describeTable?.(step.table);
  const table = step.table.kind === 'number' ? `${step.table.number}${name ? ` ${name}` : ''}` : tableLabel(step.table);
  return `${table}  ${step.flow ? step.flow.priority : 'no match'}`;
}

function passHeading(pass: TracePass | undefined): string {
  if (!pass) return '';
  return pass.resume
    ? `recirc(0x${pass.recircId.toString(16)}) in table ${tableLabel(pass.resume.table)}`
    : 'packet as given';
}

/** The flow a side chose at the divergence, in one line: table, priority, match and actions. */
function chosen(step: TraceStep | undefined, o: TraceRenderOptions): string {
  if (!step) return 'its path had already ended';
  const where = tableName(step.table, o);
  if (!step.flow) return `${where}: no flow matched`;
  const portNames = o.portNames ? { portNames: o.portNames } : {};
  return `${where}: ${formatPriorityAndMatch(step.flow, o.portNames) || 'any packet'} actions=${formatActions(step.flow.actions, { of: o.of, ...portNames }) || 'drop'}`;
}

function divergenceWords(c: TraceComparison, d: TraceDivergence, left: ComparedSide, right: ComparedSide): string[] {
  const recirc = (c.left.passes[d.pass] ?? c.right.passes[d.pass])?.recircId ?? 0;
  const pass = recirc === 0 ? 'the packet as given' : `recirculation 0x${recirc.toString(16)}`;
  return [
    `The paths part at lookup ${d.step + 1} of ${pass}:`,
    `  left:  ${chosen(d.left, left.render)}`,
    `  right: ${chosen(d.right, right.render)}`,
  ];
}

export function formatTraceComparison(c: TraceComparison, left: ComparedSide, right: ComparedSide): string {
  const rows: [string, string, string][] = [];
  const passes = Math.max(c.left.passes.length, c.right.passes.length);
  for (let p = 0; p < passes; p++) {
    const a = c.left.passes[p];
    const b = c.right.passes[p];
    rows.push(['', `${passHeading(a)}:`, `${passHeading(b)}:`]);
    const steps = Math.max(a?.steps.length ?? 0, b?.steps.length ?? 0);
    for (let s = 0; s < steps; s++) {
      const d = c.divergence;
      const mark = d !== undefined && p === d.pass && s === d.step ? '≠' : ' ';
      rows.push([mark, stepCell(a?.steps[s], left.render), stepCell(b?.steps[s], right.render)]);
    }
  }
  const width = maxOf([left.label.length + 6, ...rows.map((r) => r[1].length)]);
  const out = [`  ${`left: ${left.label}`.padEnd(width)}  right: ${right.label}`, ''];
  // Both traces' rows within the bound of both traces: a row holds a lookup of each.
  const budget = comparisonBudget(left, right);
  const body = new TextBudget(budget);
  for (const [mark, l, r] of rows) body.push(`${mark} ${l.padEnd(width)}  ${r}`.trimEnd());
  out.push(...body.lines);
  if (body.omitted > 0) out.push('', omittedLines(body.omitted, budget, 'both traces'));
  out.push('');
  if (c.divergence) out.push(...divergenceWords(c, c.divergence, left, right));
  else out.push('The paths are the same, lookup for lookup.');
  out.push(
    '',
    `Left ${lowerFirst(verdictLine(c.left, left.render))}`,
    `Right ${lowerFirst(verdictLine(c.right, right.render))}`,
  );
  out.push(c.sameVerdict ? 'Both end the same way.' : 'The verdicts differ.');
  return out.join('\n') + '\n';
}

/** What the side-by-side rows may take: what each side's trace may. */
function comparisonBudget(left: ComparedSide, right: ComparedSide): ByteBound {
  return sumBounds(left.render.maxBytes, right.render.maxBytes);
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

/**
 * Where two traces part, as JSON: the pass and step, and each side's step under its name
 * (`left`/`right`, `before`/`after`); null when they do not part.
 */
export function divergenceJson(
  d: TraceDivergence | undefined,
  [leftName, leftRender]: readonly [string, TraceRenderOptions],
  [rightName, rightRender]: readonly [string, TraceRenderOptions],
): Record<string, unknown> | null {
  if (!d) return null;
  return {
    pass: d.pass,
    step: d.step,
    [leftName]: d.left ? stepJson(d.left, leftRender) : null,
    [rightName]: d.right ? stepJson(d.right, rightRender) : null,
  };
}

/** The JSON contract: both traces whole, where they part (null when they do not), and whether they end alike. */
export function traceComparisonJson(
  c: TraceComparison,
  left: ComparedSide,
  right: ComparedSide,
): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    left: { source: left.label, ...withoutSchema(traceJson(c.left, left.render)) },
    right: { source: right.label, ...withoutSchema(traceJson(c.right, right.render)) },
    divergence: divergenceJson(c.divergence, ['left', left.render], ['right', right.render]),
    sameVerdict: c.sameVerdict,
  };
}

function withoutSchema(doc: Record<string, unknown>): Record<string, unknown> {
  const { schemaVersion: _schema, ...rest } = doc;
  return rest;
}
