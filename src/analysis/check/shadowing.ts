/**
 * Flows that can never match because a higher-priority flow of the same table matches every
 * packet they match (`matchCovers`: same fields at least as wide, values equal under the wider
 * flow's masks, CIDR prefixes included).
 *
 * Instead of comparing all pairs, each table keeps an index per mask shape (the set of
 * (storage, mask) a flow matches with) from the masked values to the highest-priority flow with
 * that shape and those values. A flow is covered exactly when, for some shape whose fields and
 * masks are contained in its own, its values under that shape hit the index. Flows are visited
 * by descending priority and entered only after their own priority is done, since equal
 * priorities do not shadow (OpenFlow leaves their order undefined).
 */
import type { Flow, MatchField } from '../../model/flow.ts';
import { matchCovers, portNameOnly } from '../../model/match.ts';
import type { Pipeline } from '../../model/pipeline.ts';
import { equivalentActions } from '../../model/action-equivalence.ts';
import { isClauseFlow } from '../../model/flow-exits.ts';
import type { Finding } from './finding.ts';

interface Shape {
  readonly entries: readonly { readonly storage: string; readonly mask: bigint }[];
  readonly index: Map<string, Flow>;
}

/** Entries in storage order, so shapes and keys do not depend on how the match was written. */
function sorted(flow: Flow): MatchField[] {
  return [...flow.match.fields].sort((a, b) => (a.field.storage < b.field.storage ? -1 : a.field.storage > b.field.storage ? 1 : 0));
}

function shapeKey(entries: readonly MatchField[]): string {
  return entries.map((e) => `${e.field.storage}/${e.mask.toString(16)}`).join(',');
}

/** A value under a mask; a port known only by name (no port map) is keyed by that name. */
function valueKey(e: MatchField, mask: bigint): string {
  const name = portNameOnly(e);
  if (name !== undefined) return JSON.stringify(name);
  return (e.value & mask).toString(16);
}

/** Whether every (storage, mask) of the shape is matched by `own` with at least those mask bits. */
function shapeFits(shape: Shape, own: ReadonlyMap<string, MatchField>): boolean {
  return shape.entries.every((s) => {
    const e = own.get(s.storage);
    return e !== undefined && (e.mask & s.mask) === s.mask;
  });
}

function lookupKey(shape: Shape, own: ReadonlyMap<string, MatchField>): string {
  return shape.entries.map((s) => valueKey(own.get(s.storage)!, s.mask)).join(',');
}

export function findShadowed(pipeline: Pipeline): Finding[] {
  const out: Finding[] = [];
  const naming = { ports: pipeline.ports };
  for (const table of pipeline.tables.values()) {
    const shapes: Shape[] = [];
    const shapeByKey = new Map<string, Shape>();
    // Per shape of the flow being checked: the index shapes that fit it, worked out once.
    const fitting = new Map<string, { shapes: Shape[]; seen: number }>();
    const flows = table.flows;
    let i = 0;
    while (i < flows.length) {
      const priority = flows[i]!.priority;
      let j = i;
      while (j < flows.length && flows[j]!.priority === priority) j++;
      const group = flows.slice(i, j).filter((f) => !isClauseFlow(f));
      const prepared = group.map((flow) => {
        const entries = sorted(flow);
        return { flow, entries, key: shapeKey(entries) };
      });
      for (const { flow, entries, key } of prepared) {
        if (shapes.length === 0) break;
        let fit = fitting.get(key);
        if (!fit) fitting.set(key, (fit = { shapes: [], seen: 0 }));
        const own = new Map(entries.map((e) => [e.field.storage, e]));
        for (; fit.seen < shapes.length; fit.seen++) if (shapeFits(shapes[fit.seen]!, own)) fit.shapes.push(shapes[fit.seen]!);
        let by: Flow | undefined;
        for (const shape of fit.shapes) {
          const hit = shape.index.get(lookupKey(shape, own));
          if (hit && matchCovers(hit.match, flow.match) && (!by || hit.priority > by.priority)) by = hit;
        }
        if (!by) continue;
        const sameActions = equivalentActions(flow.actions, by.actions, { naming, table: flow.table });
        out.push({ kind: 'shadowed', severity: sameActions ? 'warning' : 'error', table: flow.table, flows: [flow, by], flow, by, sameActions });
      }
      for (const { flow, entries, key } of prepared) {
        let shape = shapeByKey.get(key);
        if (!shape) {
          shape = { entries: entries.map((e) => ({ storage: e.field.storage, mask: e.mask })), index: new Map() };
          shapeByKey.set(key, shape);
          shapes.push(shape);
        }
        const k = entries.map((e) => valueKey(e, e.mask)).join(',');
        if (!shape.index.has(k)) shape.index.set(k, flow);
      }
      i = j;
    }
  }
  return out;
}
