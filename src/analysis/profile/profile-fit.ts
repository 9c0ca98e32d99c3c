/**
 * How well a profile covers a dump, table by table: the flows a pattern explains, the miss flows
 * the table's miss explains, and the flows it cannot explain (no pattern fits, or the table is
 * not one of the profile's), with the patterns no flow of the dump fits. Writing a profile is then
 * a loop of small steps: fit, write the pattern the first unexplained flow needs, fit again.
 */
import type { Flow } from '../../model/flow.ts';
import type { FlowPattern } from '../../profiles/types.ts';
import type { AnnotatedPipeline } from '../detect/profile-choice.ts';
import type { TableInfo } from '../annotate/annotate.ts';

/** Why the profile has nothing to say of a flow. */
export type MisfitReason =
  /** The table is one of the profile's and none of its patterns fits the flow. */
  | 'no-pattern'
  /** The profile has no such table. */
  | 'no-table'
  /** The profile has the table only in other releases than the one read in. */
  | 'other-release';

export interface Misfit {
  readonly flow: Flow;
  readonly reason: MisfitReason;
}

export interface PatternUse {
  /** The pattern's place in its table's list. */
  readonly index: number;
  readonly pattern: FlowPattern;
  /** Flows of the dump that fit it first. */
  readonly flows: number;
}

/** How many flows a profile is fitted to, how many a pattern explains, and how many the table's documented miss. */
export interface FitCounts {
  readonly flows: number;
  readonly fitted: number;
  readonly misses: number;
}

export interface TableFit extends FitCounts {
  readonly table: TableInfo;
  readonly misfits: readonly Misfit[];
  /** The table's patterns, with how many flows fit each: those no flow fits are for the author to look at. */
  readonly patterns: readonly PatternUse[];
}

/** The counts of every table added up. */
export interface ProfileFit extends FitCounts {
  readonly tables: readonly TableFit[];
  readonly misfits: number;
}

function misfitReason(table: TableInfo): MisfitReason {
  if (table.otherRelease) return 'other-release';
  return table.spec ? 'no-pattern' : 'no-table';
}

function fitTable(read: AnnotatedPipeline, table: TableInfo, flows: readonly Flow[]): TableFit {
  const uses = new Map<number, number>();
  const misfits: Misfit[] = [];
  let fitted = 0;
  let misses = 0;
  for (const flow of flows) {
    const e = read.annotator.explanationOf(flow);
    if (e?.kind === 'pattern') {
      fitted++;
      uses.set(e.index, (uses.get(e.index) ?? 0) + 1);
    } else if (e?.kind === 'miss') misses++;
    else misfits.push({ flow, reason: misfitReason(table) });
  }
  const patterns = (table.spec?.patterns ?? []).map((pattern, index) => ({
    index,
    pattern,
    flows: uses.get(index) ?? 0,
  }));
  return { table, flows: flows.length, fitted, misses, misfits, patterns };
}

/**
 * The fit of the pipeline's profile (given or detected, see annotatePipeline) to every flow of
 * the pipeline, in pipeline order. A profile without tables (the generic one) explains nothing.
 */
export function profileFit(read: AnnotatedPipeline): ProfileFit {
  const tables = [...read.pipeline.tables.values()].map((t) =>
    fitTable(read, read.annotator.tableInfo(t.ref), t.flows),
  );
  const sum = (of: (t: TableFit) => number): number => tables.reduce((n, t) => n + of(t), 0);
  return {
    tables,
    flows: sum((t) => t.flows),
    fitted: sum((t) => t.fitted),
    misses: sum((t) => t.misses),
    misfits: sum((t) => t.misfits.length),
  };
}
