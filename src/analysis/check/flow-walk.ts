/**
 * Walks over every flow of a pipeline for the checks that look at flows one by one. Each table's
 * flows are walked in the order given, the order they lie in memory: on a million-flow dump that
 * is several times faster than match order. What a walk finds is put back in match order
 * (priority, highest first, the order given among equals), as if the flows had been walked so.
 */
import type { Flow, Match } from '../../model/flow.ts';
import type { Pipeline } from '../../model/pipeline.ts';
import type { Finding } from './finding.ts';

/** Items found in one table's walk, each told by its first flow, in match order: a stable sort, as match order is. */
export function inMatchOrderBy<T>(found: T[], flowOf: (item: T) => Flow): T[] {
  return found.sort((a, b) => flowOf(b).priority - flowOf(a).priority);
}

/** What findPerFlow walks: the flows that act alone, and a test that clears a flow by its match's fields and masks. */
export interface PerFlowWalk {
  /** The flows that act alone (PipelineTable.acting), for a check that clause flows cannot fail. */
  readonly acting?: boolean;
  /**
   * Whether `find` may find anything in a flow whose match has these fields, masks and ports;
   * asked once per lazily read flow's outline match (see matchOutline), which thousands of flows
   * share, mostly one after another, so that a flow cleared by it is not asked of at all.
   */
  readonly mayFind?: (match: Match) => boolean;
}

/** The findings `find` makes of single flows, table by table, each table's in match order. */
export function findPerFlow(
  pipeline: Pipeline,
  find: (flow: Flow) => Finding | undefined,
  { acting = false, mayFind }: PerFlowWalk = {},
): Finding[] {
  const out: Finding[] = [];
  const mayFindIn = new Map<Match, boolean>();
  let last: Match | undefined;
  let lastMay = true;
  for (const t of pipeline.tables.values()) {
    const found: Finding[] = [];
    // Indexed: a check runs once, much of it before its code is optimised, and until then an
    // iterator makes a result object per flow.
    const flows = acting ? t.acting : t.given;
    for (let i = 0; i < flows.length; i++) {
      const flow = flows[i]!;
      if (mayFind !== undefined) {
        // matchOutline's, inline: asked of every flow of a dump.
        const match = flow.outlineMatch ?? flow.match;
        if (match !== last) {
          last = match;
          let may = mayFindIn.get(match);
          if (may === undefined) mayFindIn.set(match, (may = mayFind(match)));
          lastMay = may;
        }
        if (!lastMay) continue;
      }
      const f = find(flow);
      if (f) found.push(f);
    }
    for (const f of inMatchOrderBy(found, (x) => x.flows[0]!)) out.push(f);
  }
  return out;
}
