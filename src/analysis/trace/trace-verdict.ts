/**
 * A trace's verdict in the words of its pipeline: the table the packet's path ended in, as the
 * profile names it, and why it ended there — the meaning of the flow that matched, the table's
 * miss behaviour, or, where the profile says nothing of the flow, the flow in plain words.
 */
import type { Annotator, TableInfo } from '../annotate/annotate.ts';
import type { TraceResult } from './trace.ts';

export interface VerdictReason {
  /** The table of the last lookup. */
  readonly table: TableInfo;
  /** Why the path ended as it did, one sentence. */
  readonly reason: string;
  /**
   * Where the reason comes from: a pattern of the profile, the table's miss flow, no flow at
   * all, or a flow the profile has no pattern for (said in generic words).
   */
  readonly source: 'pattern' | 'miss' | 'no-match' | 'unexplained';
}

/** Undefined when the profile knows no tables (the generic one): it would only repeat the trace. */
export function explainVerdict(result: TraceResult, annotator: Annotator): VerdictReason | undefined {
  const last = result.last;
  if (!last || !annotator.profile || annotator.profile.tables.length === 0) return undefined;
  const table = annotator.tableInfo(last.table);
  if (!last.flow) return { table, reason: 'no flow matched', source: 'no-match' };
  // The profile's account alone first: the full annotation reads every address of the dump.
  const e = annotator.describe(last.flow).explanation;
  if (e) return { table, reason: e.meaning, source: e.kind };
  return { table, reason: annotator.annotate(last.flow).sentence, source: 'unexplained' };
}
