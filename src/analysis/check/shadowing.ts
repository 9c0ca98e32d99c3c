/**
 * Flows that can never match because a higher-priority flow of the same table matches every
 * packet they match (`matchCovers`: same fields at least as wide, values equal under the wider
 * flow's masks, CIDR prefixes included).
 *
 * Instead of comparing all pairs, each table's flows go into the model's match index, which finds
 * the covering flow through the subtables whose fields and masks a flow matches too. Flows are
 * visited by descending priority and entered only after their own priority is done, since equal
 * priorities do not shadow (OpenFlow leaves their order undefined).
 */
import { MatchIndex } from '../../model/flow-index.ts';
import type { Flow } from '../../model/flow.ts';
import type { Pipeline } from '../../model/pipeline.ts';
import { equivalentActions } from '../../model/action-equivalence.ts';
import { isClauseFlow } from '../../model/flow-exits.ts';
import type { Finding } from './finding.ts';

export function findShadowed(pipeline: Pipeline): Finding[] {
  const out: Finding[] = [];
  const naming = { ports: pipeline.ports };
  for (const table of pipeline.tables.values()) {
    const index = new MatchIndex<Flow>();
    // Flows of conjunction actions alone are passed by at once, those with notes too asked.
    const flows = table.acting.filter((f) => !isClauseFlow(f));
    let i = 0;
    while (i < flows.length) {
      const priority = flows[i]!.priority;
      let j = i;
      while (j < flows.length && flows[j]!.priority === priority) j++;
      const group = flows.slice(i, j);
      if (i > 0) {
        for (const flow of group) {
          const by = index.covering(flow.match, priority + 1);
          if (!by) continue;
          const sameActions = equivalentActions(flow.actions, by.actions, { naming, table: flow.table });
          out.push({
            kind: 'shadowed',
            severity: sameActions ? 'warning' : 'error',
            table: flow.table,
            flows: [flow, by],
            by,
            sameActions,
          });
        }
      }
      for (const flow of group) index.add(flow);
      i = j;
    }
  }
  return out;
}
