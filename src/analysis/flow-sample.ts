/**
 * A few flows of every table: enough for judgments about a pipeline's shape (which profile,
 * which release, who the addresses belong to) without reading a million-flow dump whole.
 * Tables no larger than the cap are kept entire, so small dumps are judged on every flow.
 */
import type { Flow } from '../model/flow.ts';
import type { Pipeline } from '../model/pipeline.ts';

/** Flows kept per table: the large tables of a big dump are policy and Service rules of one shape. */
export const SAMPLE_PER_TABLE = 256;

/** Up to `perTable` flows of each table, evenly spaced through the table's flows. */
export function sampleFlows(pipeline: Pipeline, perTable = SAMPLE_PER_TABLE): Flow[] {
  const out: Flow[] = [];
  for (const t of pipeline.tables.values()) {
    const n = t.flows.length;
    if (n <= perTable) {
      for (const f of t.flows) out.push(f);
      continue;
    }
    const step = n / perTable;
    for (let i = 0; i < perTable; i++) out.push(t.flows[Math.floor(i * step)]!);
  }
  return out;
}
