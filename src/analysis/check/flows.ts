/** Checks on single flows and on flows written twice. */
import { type Action, nestsActions } from '../../model/actions.ts';
import type { Pipeline } from '../../model/pipeline.ts';
import { actionsOutline } from '../../model/flow.ts';
import { equivalentActions } from '../../model/action-equivalence.ts';
import { SlotIndex } from '../../model/slot-index.ts';
import type { Finding } from './finding.ts';
import { findPerFlow, inMatchOrderBy } from './flow-walk.ts';

/**
 * `exit` ends the action list it is in, so what follows it never runs. (`drop` cannot be
 * combined with other actions at all; OVS refuses such flows.) Nested lists are checked on
 * their own, since an `exit` inside `clone(…)` ends the clone.
 */
function deadAfterExit(actions: readonly Action[]): { after: Action; dead: Action[] } | undefined {
  const i = actions.findIndex((a) => a.kind === 'exit');
  if (i >= 0 && i < actions.length - 1) return { after: actions[i]!, dead: actions.slice(i + 1) };
  for (const a of actions.slice(0, i < 0 ? actions.length : i)) {
    if (nestsActions(a)) {
      const inner = deadAfterExit(a.actions);
      if (inner) return inner;
    }
  }
  return undefined;
}

export function findDeadActions(pipeline: Pipeline): Finding[] {
  // A list of conjunctions alone has no exit: clause flows are passed by.
  return findPerFlow(
    pipeline,
    (flow) => {
      // A lazily read flow's own list is made only when its outline (actions of the same kinds) has actions after an exit.
      if (!deadAfterExit(actionsOutline(flow))) return undefined;
      const d = deadAfterExit(flow.actions);
      return (
        d && {
          kind: 'dead-actions',
          severity: 'warning',
          table: flow.table,
          flows: [flow],
          after: d.after,
          dead: d.dead,
        }
      );
    },
    { acting: true },
  );
}

/**
 * Flows that occupy the same classifier slot (table, priority, normalised match) however they are
 * spelled: the switch keeps only the last one added. Different actions make the result depend on
 * the order the flows are added in.
 */
export function findDuplicates(pipeline: Pipeline): Finding[] {
  const naming = { ports: pipeline.ports };
  const out: Finding[] = [];
  for (const t of pipeline.tables.values()) {
    // Flows of one slot share a priority: slots found in the order given, then put in match order.
    for (const flows of inMatchOrderBy(new SlotIndex(t.given, naming).shared(), (slot) => slot[0]!)) {
      const first = flows[0]!;
      const sameActions = flows.every((f) => equivalentActions(first.actions, f.actions, { naming, table: f.table }));
      out.push({
        kind: 'duplicate',
        severity: sameActions ? 'warning' : 'error',
        table: first.table,
        flows,
        sameActions,
      });
    }
  }
  return out;
}
