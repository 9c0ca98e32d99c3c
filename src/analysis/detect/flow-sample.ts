/**
 * A few flows of every table: enough for judgments about a pipeline's shape (which profile,
 * which release and layout, who the addresses belong to) without reading a million-flow dump
 * whole. Tables no larger than the cap are kept entire, so small dumps are judged on every flow.
 */
import type { Flow } from '../../model/flow.ts';
import { flowsByTable, type Pipeline } from '../../model/pipeline.ts';

/**
 * Flows kept per table: the large tables of a big dump are policy and Service rules of a few
 * shapes, and fitting every release's patterns to a million flows would be slow.
 */
export const SAMPLE_PER_TABLE = 512;

/** Up to `perTable` flows of each table, evenly spaced through the table's flows, in dump order. */
export function sampleFlows(flows: readonly Flow[], perTable = SAMPLE_PER_TABLE): readonly Flow[] {
  const tables = flowsByTable(flows).map((t) => t.flows);
  return sampleTables(tables, perTable) ?? flows;
}

/** Where the `i`th of the `perTable` flows sampled of a table of `length` flows (more than `perTable`) stands in it. */
export function sampledIndex(i: number, length: number, perTable: number): number {
  return Math.floor(i * (length / perTable));
}

/** The flows (or what stands for them) of the tables sampled, in their order; undefined when every table is within the cap. */
export function sampleTables<T>(tables: readonly (readonly T[])[], perTable: number): T[] | undefined {
  if (tables.every((l) => l.length <= perTable)) return undefined;
  const out: T[] = [];
  for (const list of tables) {
    if (list.length <= perTable) {
      for (const f of list) out.push(f);
      continue;
    }
    for (let i = 0; i < perTable; i++) out.push(list[sampledIndex(i, list.length, perTable)]!);
  }
  return out;
}

const pipelineSamples = new WeakMap<Pipeline['tables'], readonly Flow[]>();

/**
 * `sampleFlows` of the pipeline's flows table by table, in match order: made once per pipeline
 * (its copies with table numbers known share it), from its tables as they are.
 */
export function samplePipeline(pipeline: Pipeline): readonly Flow[] {
  let sample = pipelineSamples.get(pipeline.tables);
  if (!sample) {
    const tables = [...pipeline.tables.values()].map((t) => t.flows);
    pipelineSamples.set(pipeline.tables, (sample = sampleTables(tables, SAMPLE_PER_TABLE) ?? tables.flat()));
  }
  return sample;
}
