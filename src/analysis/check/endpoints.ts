/**
 * Select-group buckets whose endpoint has no flow where they continue: a Service group's bucket
 * writes the endpoint (address and port) into registers and resubmits to the table that rewrites
 * the destination, whose flows key on those registers. A bucket whose values no flow there
 * matches leaves its packets to whatever else that table does with them, which for a Service is
 * a loop or a drop.
 */
import type { Action } from '../../model/actions.ts';
import type { Flow, MatchField } from '../../model/flow.ts';
import { type Pipeline, tableKey } from '../../model/pipeline.ts';
import { bucketExits } from '../../model/flow-exits.ts';
import type { Finding } from './finding.ts';

type Write = MatchField;

/** The constant register-like writes of a bucket, at its top level. */
function constantWrites(actions: readonly Action[]): Write[] {
  const out: Write[] = [];
  for (const a of actions)
    if (a.kind === 'set_field' && a.field.name.startsWith('reg'))
      out.push({ field: a.field, value: a.value & a.mask, mask: a.mask });
  return out;
}

/** The register-like fields (and masks) a flow matches, in match order: its flows' shape. */
function registerShape(flow: Flow): readonly MatchField[] {
  return flow.match.fields.filter((e) => e.field.name.startsWith('reg'));
}

/** The pairs of a shape's entry and a bucket's write that share bits. */
function overlaps(
  shape: readonly MatchField[],
  writes: readonly Write[],
): { readonly at: number; readonly write: Write }[] {
  const out: { at: number; write: Write }[] = [];
  shape.forEach((e, at) => {
    for (const w of writes) if (w.field === e.field && (e.mask & w.mask) !== 0n) out.push({ at, write: w });
  });
  return out;
}

/**
 * A table's flows that key on registers, by shape (the registers and masks they match), so that a
 * bucket is looked up by its values in each shape rather than compared with every flow: a node
 * with thousands of Service endpoints has as many buckets as flows in the table they reach.
 */
class RegisterKeyedTable {
  private readonly shapes = new Map<string, { readonly shape: readonly MatchField[]; readonly flows: Flow[] }>();
  /** Per shape and layout of bucket writes, the values its flows hold under the shared bits. */
  private readonly values = new Map<string, Set<string>>();

  constructor(flows: readonly Flow[]) {
    for (const flow of flows) {
      const shape = registerShape(flow);
      if (shape.length === 0) continue;
      const key = shape.map((e) => `${e.field.name}/${e.mask}`).join(',');
      const entry = this.shapes.get(key);
      if (entry) entry.flows.push(flow);
      else this.shapes.set(key, { shape, flows: [flow] });
    }
  }

  /**
   * Whether a flow keys on the bits the bucket writes (undefined when none does), and whether one
   * of those can match a packet carrying the bucket's values, as far as those bits go.
   */
  endpointOf(writes: readonly Write[]): boolean | undefined {
    let keyed = false;
    for (const [shapeKey, { shape, flows }] of this.shapes) {
      const pairs = overlaps(shape, writes);
      if (pairs.length === 0) continue;
      keyed = true;
      const layout = `${shapeKey} ${pairs.map((p) => `${p.at}:${p.write.field.name}/${p.write.mask}`).join(',')}`;
      let held = this.values.get(layout);
      if (!held) {
        const of = (flow: Flow): string =>
          pairs
            .map(
              ({ at, write }) =>
                flow.match.fields.find((e) => e.field === shape[at]!.field)!.value & shape[at]!.mask & write.mask,
            )
            .join(',');
        this.values.set(layout, (held = new Set(flows.map(of))));
      }
      if (held.has(pairs.map(({ at, write }) => write.value & shape[at]!.mask & write.mask).join(','))) return true;
    }
    return keyed ? false : undefined;
  }
}

export function findBucketsWithoutEndpoint(pipeline: Pipeline): Finding[] {
  const out: Finding[] = [];
  const tables = new Map<string, RegisterKeyedTable>();
  for (const group of [...pipeline.groups.values()].sort((a, b) => a.id - b.id)) {
    if (group.type !== 'select') continue;
    for (const bucket of group.buckets) {
      const writes = constantWrites(bucket.actions);
      const jump = bucketExits(bucket).find((x) => x.kind === 'jump');
      if (writes.length === 0 || !jump || jump.kind !== 'jump') continue;
      const table = pipeline.table(jump.table);
      if (!table) continue;
      const key = tableKey(jump.table);
      let keyed = tables.get(key);
      if (!keyed) tables.set(key, (keyed = new RegisterKeyedTable(table.flows)));
      if (keyed.endpointOf(writes) !== false) continue;
      out.push({
        kind: 'bucket-no-endpoint',
        severity: 'error',
        table: jump.table,
        flows: [],
        group: group.id,
        bucket: bucket.id,
        target: jump.table,
        writes,
      });
    }
  }
  return out;
}
