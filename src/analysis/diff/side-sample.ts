/**
 * The sample of a compared dump's flows that its profile is detected from (see sampleFlows), for
 * naming the tables of a report: of a dump read along the other, the flows of the few pairs
 * sampled are made, not those of the million (see PairedLines).
 */
import type { Flow } from '../../model/flow.ts';
import { tableKey } from '../../model/pipeline.ts';
import type { TableRef } from '../../model/tables.ts';
import { tableRefOf } from '../../syntax/interned.ts';
import { SAMPLE_PER_TABLE, sampledIndex, sampleFlows } from '../detect/flow-sample.ts';
import type { DumpSide } from './diff.ts';

/** sampleFlows of the dump's flows, the same flows in the same order. */
export function sideSample(dump: DumpSide, perTable = SAMPLE_PER_TABLE): readonly Flow[] {
  const { paired } = dump;
  if (paired === undefined) return sampleFlows(dump.flows, perTable);
  const { unpaired, size } = paired;
  // The tables in the order they first appear (as flowsByTable deals flows), each as its number
  // among them: a pair's table is a number, and what it is dealt to is kept by that number.
  const byKey = new Map<string, number>();
  const byRef = new Map<TableRef, number>();
  const byNumber = new Int32Array(256).fill(-1);
  const counts: number[] = [];
  const tableOf = (ref: TableRef): number => {
    let t = byRef.get(ref);
    if (t === undefined) {
      const key = tableKey(ref);
      t = byKey.get(key);
      if (t === undefined) {
        byKey.set(key, (t = counts.length));
        counts.push(0);
      }
      byRef.set(ref, t);
    }
    return t;
  };
  // Each flow's place in dump order, with its table's number: a flow read otherwise as its index
  // among them, a pair's as -1 - its index. Walked twice, to count the tables' flows and to take
  // those sampled: a million places dealt into lists cost more than the few sampled are worth.
  const walk = (visit: (table: number, place: number) => void): void => {
    let lastRef: TableRef | undefined;
    let last = 0;
    const otherwise = (u: number): void => {
      const ref = unpaired[u]!.table;
      if (ref !== lastRef) {
        lastRef = ref;
        last = tableOf(ref);
      }
      visit(last, u);
    };
    let u = 0;
    for (let r = 0; r < size; r++) {
      for (const to = paired.beforeOf(r); u < to; u++) otherwise(u);
      const n = paired.tableOf(r);
      let t = byNumber[n]!;
      if (t < 0) byNumber[n] = t = tableOf(tableRefOf(n));
      visit(t, -1 - r);
    }
    for (; u < unpaired.length; u++) otherwise(u);
  };
  walk((t) => counts[t]!++);
  if (counts.every((n) => n <= perTable)) return paired.flows();
  // Each table's places that sampleTables would pick (see sampledIndex), in dump order.
  const places = counts.map((n) => new Array<number>(Math.min(n, perTable)));
  // Per table: its places walked, those picked, and the next to pick.
  const seen = new Int32Array(counts.length);
  const picked = new Int32Array(counts.length);
  const wanted = new Float64Array(counts.length);
  walk((t, place) => {
    const k = seen[t]!;
    seen[t] = k + 1;
    if (k !== wanted[t]) return;
    const list = places[t]!;
    const p = picked[t]!;
    list[p] = place;
    picked[t] = p + 1;
    wanted[t] = list.length === counts[t] ? p + 1 : sampledIndex(p + 1, counts[t]!, perTable);
  });
  const sample: Flow[] = [];
  for (const list of places) for (const p of list) sample.push(p >= 0 ? unpaired[p]! : paired.flow(-1 - p));
  return sample;
}
