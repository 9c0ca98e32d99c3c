/**
 * A few flows of every table: enough for judgments about a pipeline's shape (which profile,
 * which release and layout, who the addresses belong to) without reading a million-flow dump
 * whole. Tables no larger than the cap are kept entire, so small dumps are judged on every flow.
 */
import { pushTo } from '../../model/append.ts';
import type { Flow } from '../../model/flow.ts';
import { tableKey } from '../../model/pipeline.ts';

/**
 * Flows kept per table: the large tables of a big dump are policy and Service rules of a few
 * shapes, and fitting every release's patterns to a million flows would be slow.
 */
export const SAMPLE_PER_TABLE = 512;

/** Up to `perTable` flows of each table, evenly spaced through the table's flows, in dump order. */
export function sampleFlows(flows: readonly Flow[], perTable = SAMPLE_PER_TABLE): readonly Flow[] {
  const byTable = new Map<string, Flow[]>();
  for (const f of flows) {
    const key = tableKey(f.table);
    pushTo(byTable, key, f);
  }
  if ([...byTable.values()].every((l) => l.length <= perTable)) return flows;
  const out: Flow[] = [];
  for (const list of byTable.values()) {
    if (list.length <= perTable) {
      for (const f of list) out.push(f);
      continue;
    }
    const step = list.length / perTable;
    for (let i = 0; i < perTable; i++) out.push(list[Math.floor(i * step)]!);
  }
  return out;
}
