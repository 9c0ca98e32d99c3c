/**
 * Checks on the shape of the pipeline: jumps into tables that hold no flow, and tables that no
 * path from the first table reaches (through goto_table, resubmit, ct(table=…) and the buckets
 * of the groups flows send to).
 */
import type { Action } from '../../model/actions.ts';
import { actionsThroughGroups, type Pipeline, tableKey } from '../../model/pipeline.ts';
import { type TableRef, tableNumber } from '../../model/tables.ts';
import { actionExits, bucketExits, type EmptyTarget, type Exit } from '../../model/flow-exits.ts';
import type { Finding } from './finding.ts';

/** The table every packet starts in: table 0, or the first table of a dump that names its tables. */
export function startTable(pipeline: Pipeline): TableRef | undefined {
  // The table's own reference: a dump that names its tables holds table 0 under its name.
  return (pipeline.table(tableNumber(0)) ?? pipeline.tables.values().next().value)?.ref;
}

/**
 * goto_table and ct(table=…) into an empty table lose the packet (table miss); resubmit does
 * nothing there. `empty`: the pipeline's emptyTargets.
 */
export function findEmptyTargets(empty: readonly EmptyTarget[]): Finding[] {
  return empty.map((e) => ({
    kind: 'empty-target',
    severity: e.via === 'resubmit' ? 'warning' : 'error',
    table: e.table,
    flows: e.flows,
    target: e.table,
    via: e.via,
    buckets: e.buckets,
  }));
}

export function findUnreachableTables(pipeline: Pipeline): Finding[] {
  const start = startTable(pipeline);
  if (!start) return [];
  const reached = new Set<string>([tableKey(start)]);
  const visitedGroups = new Set<number>();
  const queue: TableRef[] = [start];
  // Loops indexed, as in findPerFlow: they step once per flow.
  const follow = (exits: readonly Exit[]): void => {
    for (let i = 0; i < exits.length; i++) {
      const x = exits[i]!;
      if (x.kind === 'jump') {
        const key = tableKey(x.table);
        if (!reached.has(key)) {
          reached.add(key);
          queue.push(x.table);
        }
      } else if (x.kind === 'group' && !visitedGroups.has(x.group)) {
        visitedGroups.add(x.group);
        for (const b of pipeline.groups.get(x.group)?.buckets ?? []) follow(bucketExits(b));
      }
    }
  };
  // The exits of each action list: a lazily read flow's outline tells where it goes (unless it
  // names a group there is to follow), and flows of one shape share their outline's list.
  const exitsOf = new Map<readonly Action[], readonly Exit[]>();
  while (queue.length > 0) {
    const t = pipeline.table(queue.shift()!);
    // Clause flows go nowhere.
    const flows = t?.acting ?? [];
    for (let i = 0; i < flows.length; i++) {
      const actions = actionsThroughGroups(pipeline, flows[i]!);
      let exits = exitsOf.get(actions);
      if (exits === undefined) exitsOf.set(actions, (exits = actionExits(actions)));
      follow(exits);
    }
  }
  const out: Finding[] = [];
  for (const [key, t] of pipeline.tables) {
    // A table of notes only (OpenShift SDN's rule version) is bookkeeping, not part of any path.
    if (reached.has(key) || t.flows.every((f) => f.actions.every((a) => a.kind === 'note'))) continue;
    out.push({
      kind: 'unreachable-table',
      severity: 'warning',
      table: t.ref,
      flows: t.flows.slice(0, 1),
      flowCount: t.flows.length,
    });
  }
  return out;
}
