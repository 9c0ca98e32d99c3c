/**
 * One packet traced through two pipelines (two dumps of a switch, before and after a change),
 * put side by side: the first table lookup where the paths part, and whether they end alike.
 * Lookups are the same when they are in the same table (a named table and its number are one)
 * and chose the same flow: same priority, match and actions, however each dump spelled them.
 */
import type { Flow } from '../../model/flow.ts';
import type { TableRef } from '../../model/tables.ts';
import { actionsKey } from '../../model/action-equivalence.ts';
import { type Naming, slotKey } from '../../model/flow-key.ts';
import type { OutputPort } from './trace-ports.ts';
import type { Tracer, TraceStep } from './trace.ts';
import type { ExplainedTrace } from './trace-verdict.ts';

/** Where two paths part: the pass and the step within it, and the lookup each made there (none: its path ended). */
export interface TraceDivergence {
  readonly pass: number;
  readonly step: number;
  readonly left?: TraceStep;
  readonly right?: TraceStep;
}

export interface TraceComparison {
  readonly left: ExplainedTrace;
  readonly right: ExplainedTrace;
  /** Undefined when both paths take the same lookups, pass for pass. */
  readonly divergence?: TraceDivergence;
  /** Same verdict and the same output ports, in order. */
  readonly sameVerdict: boolean;
}

/** A side of the comparison: its tracer resolves table names to numbers, `naming` port names. */
export interface TracedSide {
  readonly tracer: Tracer;
  /** The trace, explained in the profile of its pipeline where the report says why it ended. */
  readonly result: ExplainedTrace;
}

/** The table as its number where the pipeline knows one, so that a `--names` dump meets a numbered one. */
function tableKey(tracer: Tracer, ref: TableRef): string {
  if (ref.kind === 'number') return `#${ref.number}`;
  const n = tracer.pipeline.numbering.numberOf(ref.name);
  return n === undefined ? JSON.stringify(ref.name) : `#${n}`;
}

function flowIdentity(flow: Flow | undefined, naming: Naming): string {
  if (!flow) return 'miss';
  return `${slotKey(flow, naming)} ${actionsKey(flow.actions, { naming, table: flow.table })}`;
}

function stepKey(tracer: Tracer, step: TraceStep, naming: Naming): string {
  return `${tableKey(tracer, step.table)} ${flowIdentity(step.flow, naming)}`;
}

function portKey(port: OutputPort, tracer: Tracer): string {
  if (typeof port === 'string') return tracer.ports.names.number(port)?.toString() ?? JSON.stringify(port);
  return String(port);
}

/** Both traces' verdicts and outputs alike. */
function sameEnding(left: TracedSide, right: TracedSide): boolean {
  const a = left.result;
  const b = right.result;
  if (a.verdict !== b.verdict || a.outputs.length !== b.outputs.length) return false;
  return a.outputs.every((p, i) => portKey(p, left.tracer) === portKey(b.outputs[i]!, right.tracer));
}

/**
 * The two traces compared. `naming` resolves the port names either dump uses in its matches (the
 * union of both port maps), so that a flow spelled with a name and one with its number agree.
 */
export function compareTraces(left: TracedSide, right: TracedSide, naming: Naming): TraceComparison {
  const a = left.result.passes;
  const b = right.result.passes;
  const sameVerdict = sameEnding(left, right);
  for (let pass = 0; pass < Math.max(a.length, b.length); pass++) {
    const x = a[pass]?.steps ?? [];
    const y = b[pass]?.steps ?? [];
    for (let step = 0; step < Math.max(x.length, y.length); step++) {
      const l = x[step];
      const r = y[step];
      if (l && r && stepKey(left.tracer, l, naming) === stepKey(right.tracer, r, naming)) continue;
      const divergence: TraceDivergence = { pass, step, ...(l ? { left: l } : {}), ...(r ? { right: r } : {}) };
      return { left: left.result, right: right.result, divergence, sameVerdict };
    }
  }
  return { left: left.result, right: right.result, sameVerdict };
}
