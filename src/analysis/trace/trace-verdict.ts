/**
 * A trace's verdict in the words of its pipeline: the table the packet's path ended in, as the
 * profile names it, and why it ended there — the meaning of the flow that matched, the table's
 * miss behaviour, or, where the profile says nothing of the flow, the flow itself (said in
 * generic words by render/words/).
 */
import type { Annotator, Explanation, TableInfo } from '../annotate/annotate.ts';
import type { Wording } from '../annotate/wording.ts';
import type { Flow } from '../../model/flow.ts';
import { type MissDrop, missDrop } from './nearest-flow.ts';
import type { Tracer, TraceResult } from './trace.ts';

/**
 * Where the reason comes from: a pattern of the profile, the table's miss flow, no flow at all,
 * or a flow the profile has no pattern for.
 */
export type VerdictReason = {
  /** The table of the last lookup. */
  readonly table: TableInfo;
} & (
  | { readonly source: 'pattern' | 'miss'; readonly explanation: Exclude<Explanation, { kind: 'unknown' }> }
  | { readonly source: 'no-match' }
  | { readonly source: 'unexplained'; readonly flow: Flow; readonly wording: Wording }
);

/** Undefined when the profile knows no tables (the generic one): it would only repeat the trace. */
export function explainVerdict(result: TraceResult, annotator: Annotator): VerdictReason | undefined {
  const last = result.last;
  if (!last || !annotator.profile || annotator.profile.tables.length === 0) return undefined;
  const table = annotator.tableInfo(last.table);
  if (!last.flow) return { table, source: 'no-match' };
  const { explanation, wording } = annotator.describe(last.flow);
  if (explanation) return { table, source: explanation.kind, explanation };
  return { table, source: 'unexplained', flow: last.flow, wording };
}

/** A trace with what the pipeline's profile makes of where it ended. */
export interface ExplainedTrace extends TraceResult {
  /** Why the path ended where it did (absent when the profile knows no tables). */
  readonly reason?: VerdictReason;
  /** For a drop by a table's miss: the flow of that table the packet came nearest to matching. */
  readonly missDrop?: MissDrop;
}

/**
 * The trace with its verdict's reason in `annotator`'s profile and, given the tracer it was made
 * with (with `keepPackets`), the nearest flow of a drop by a table's miss.
 */
export function explainTrace(result: TraceResult, annotator: Annotator, tracer?: Tracer): ExplainedTrace {
  const reason = explainVerdict(result, annotator);
  const miss = tracer ? missDrop(tracer, result) : undefined;
  return { ...result, ...(reason ? { reason } : {}), ...(miss ? { missDrop: miss } : {}) };
}
