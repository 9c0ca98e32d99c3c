/**
 * The sample of a compared dump's flows that its profile is detected from (see sampleFlows), for
 * naming the tables of a report: of a dump read along the other, the flows of the few pairs
 * sampled are made, not those of the million (see PairedLines).
 */
import type { Flow } from '../../model/flow.ts';
import { tableKey } from '../../model/pipeline.ts';
import type { TableRef } from '../../model/tables.ts';
import { tableRefOf } from '../../syntax/interned.ts';
import { SAMPLE_PER_TABLE, sampleFlows, sampleTables } from '../detect/flow-sample.ts';
import type { DumpSide } from './diff.ts';

/** sampleFlows of the dump's flows, the same flows in the same order. */
export function sideSample(dump: DumpSide, perTable = SAMPLE_PER_TABLE): readonly Flow[] {
  const { paired } = dump;
  if (paired === undefined) return sampleFlows(dump.flows, perTable);
  const { unpaired, size } = paired;
  // Each flow's place, dealt into its table as flowsByTable deals flows (tables in the order they
  // first appear): a flow read otherwise as its index among them, a pair's as -1 - its index.
  const byKey = new Map<string, number[]>();
  const byRef = new Map<TableRef, number[]>();
  let lastRef: TableRef | undefined;
  let last: number[] = [];
  const deal = (ref: TableRef, place: number): void => {
    if (ref !== lastRef) {
      let list = byRef.get(ref);
      if (list === undefined) {
        const key = tableKey(ref);
        list = byKey.get(key);
        if (list === undefined) byKey.set(key, (list = []));
        byRef.set(ref, list);
      }
      lastRef = ref;
      last = list;
    }
    last.push(place);
  };
  let u = 0;
  for (let r = 0; r < size; r++) {
    for (const to = paired.beforeOf(r); u < to; u++) deal(unpaired[u]!.table, u);
    deal(tableRefOf(paired.tableOf(r)), -1 - r);
  }
  for (; u < unpaired.length; u++) deal(unpaired[u]!.table, u);
  const places = sampleTables([...byKey.values()], perTable);
  if (places === undefined) return paired.flows();
  return places.map((p) => (p >= 0 ? unpaired[p]! : paired.flow(-1 - p)));
}
