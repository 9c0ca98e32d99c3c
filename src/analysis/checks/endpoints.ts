/**
 * Select-group buckets whose endpoint has no flow where they continue: a Service group's bucket
 * writes the endpoint (address and port) into registers and resubmits to the table that rewrites
 * the destination, whose flows key on those registers. A bucket whose values no flow there
 * matches leaves its packets to whatever else that table does with them, which for a Service is
 * a loop or a drop.
 */
import type { Action } from '../../model/actions.ts';
import type { Flow, MatchField } from '../../model/flow.ts';
import type { Pipeline } from '../../model/pipeline.ts';
import { bucketExits } from '../flow-exits.ts';
import type { Finding } from './finding.ts';

type Write = MatchField;

/** The constant register-like writes of a bucket, at its top level. */
function constantWrites(actions: readonly Action[]): Write[] {
  const out: Write[] = [];
  for (const a of actions) if (a.kind === 'set_field' && a.field.name.startsWith('reg')) out.push({ field: a.field, value: a.value & a.mask, mask: a.mask });
  return out;
}

/** Whether the flow matches any of the bits the bucket writes. */
function keysOn(flow: Flow, writes: readonly Write[]): boolean {
  return flow.match.fields.some((e) => writes.some((w) => w.field === e.field && (e.mask & w.mask) !== 0n));
}

/** Whether a packet carrying the bucket's values can match the flow, as far as those bits go. */
function agrees(flow: Flow, writes: readonly Write[]): boolean {
  return flow.match.fields.every((e) => writes.every((w) => w.field !== e.field || ((e.value ^ w.value) & e.mask & w.mask) === 0n));
}

export function findBucketsWithoutEndpoint(pipeline: Pipeline): Finding[] {
  const out: Finding[] = [];
  for (const group of [...pipeline.groups.values()].sort((a, b) => a.id - b.id)) {
    if (group.type !== 'select') continue;
    for (const bucket of group.buckets) {
      const writes = constantWrites(bucket.actions);
      const jump = bucketExits(bucket).find((x) => x.kind === 'jump');
      if (writes.length === 0 || !jump || jump.kind !== 'jump') continue;
      const table = pipeline.table(jump.table);
      if (!table) continue;
      const keyed = table.flows.filter((f) => keysOn(f, writes));
      if (keyed.length === 0 || keyed.some((f) => agrees(f, writes))) continue;
      out.push({ kind: 'bucket-no-endpoint', severity: 'error', table: jump.table, flows: [], group: group.id, bucket: bucket.id, target: jump.table, writes });
    }
  }
  return out;
}
