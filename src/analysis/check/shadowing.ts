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
import { type Flow, type Match, matchOutline } from '../../model/flow.ts';
import type { Pipeline } from '../../model/pipeline.ts';
import { equivalentActions } from '../../model/action-equivalence.ts';
import { isClauseFlow } from '../../model/flow-exits.ts';
import type { Finding } from './finding.ts';

/**
 * Of a table's flows in match order, those that may cover a flow of a lower priority, and those
 * that a flow of a higher priority may cover. A flow covers only a flow that matches at least the
 * storages it matches: a flow matching storages no later flow matches all of need not go into the
 * index (a Service table's hundreds of flows each match an address and port, its miss flow none),
 * nor a flow matching none of the sets of storages earlier flows match be looked up. Told from
 * the flows' outline matches (see matchOutline), whose sets of storages are each worked out once.
 *
 * Leaving such flows out of the index changes none of its answers: the flows of one subtable match
 * the same storages, so those left out are its flows from some priority down, which cover no flow
 * asked about, and the subtables made keep their order (which tells equal answers apart).
 */
function coverRoles(flows: readonly Flow[]): { mayCover: Uint8Array; mayBeCovered: Uint8Array } {
  const n = flows.length;
  const mayCover = new Uint8Array(n);
  const mayBeCovered = new Uint8Array(n);
  // Each flow's set of storages, by number; the sets as bit masks over the table's storages.
  const setOf = new Int32Array(n);
  const sets: bigint[] = [];
  const setIds = new Map<bigint, number>();
  const bits = new Map<string, bigint>();
  const ids = new Map<Match, number>();
  for (let i = 0; i < n; i++) {
    const match = matchOutline(flows[i]!);
    let id = ids.get(match);
    if (id === undefined) {
      let set = 0n;
      for (const e of match.fields) {
        let bit = bits.get(e.field.storage);
        if (bit === undefined) bits.set(e.field.storage, (bit = 1n << BigInt(bits.size)));
        set |= bit;
      }
      id = setIds.get(set);
      if (id === undefined) setIds.set(set, (id = sets.push(set) - 1));
      ids.set(match, id);
    }
    setOf[i] = id;
  }
  // As each set is first met: the sets within it (whose flows may cover one of its), or that hold it.
  const mark = (s: number, met: Uint8Array, marked: Uint8Array, within: boolean): void => {
    if (met[s] === 1) return;
    met[s] = 1;
    for (let t = 0; t < sets.length; t++)
      if (within ? (sets[t]! & ~sets[s]!) === 0n : (sets[s]! & ~sets[t]!) === 0n) marked[t] = 1;
  };
  const metLater = new Uint8Array(sets.length);
  const coverers = new Uint8Array(sets.length);
  for (let j = n; j > 0;) {
    const priority = flows[j - 1]!.priority;
    let i = j;
    while (i > 0 && flows[i - 1]!.priority === priority) i--;
    for (let k = i; k < j; k++) mayCover[k] = coverers[setOf[k]!]!;
    for (let k = i; k < j; k++) mark(setOf[k]!, metLater, coverers, true);
    j = i;
  }
  const metEarlier = new Uint8Array(sets.length);
  const covered = new Uint8Array(sets.length);
  for (let i = 0; i < n;) {
    const priority = flows[i]!.priority;
    let j = i;
    while (j < n && flows[j]!.priority === priority) j++;
    for (let k = i; k < j; k++) mayBeCovered[k] = covered[setOf[k]!]!;
    for (let k = i; k < j; k++) mark(setOf[k]!, metEarlier, covered, false);
    i = j;
  }
  return { mayCover, mayBeCovered };
}

export function findShadowed(pipeline: Pipeline): Finding[] {
  const out: Finding[] = [];
  const naming = { ports: pipeline.ports };
  for (const table of pipeline.tables.values()) {
    const index = new MatchIndex<Flow>();
    // Flows of conjunction actions alone are passed by at once, those with notes too asked.
    const flows = table.acting.filter((f) => !isClauseFlow(f));
    const { mayCover, mayBeCovered } = coverRoles(flows);
    let i = 0;
    while (i < flows.length) {
      const priority = flows[i]!.priority;
      let j = i;
      while (j < flows.length && flows[j]!.priority === priority) j++;
      for (let k = i; k < j; k++) {
        if (mayBeCovered[k] === 0) continue;
        const flow = flows[k]!;
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
      for (let k = i; k < j; k++) if (mayCover[k] === 1) index.add(flows[k]!);
      i = j;
    }
  }
  return out;
}
