/**
 * Which conjunctions at one table and priority a single packet can satisfy together — OVS
 * leaves the winner of such a pair undefined (ovs-conjunction.md §1, T8).
 *
 * A pair overlaps when one clause flow per dimension of both can match one packet. Most
 * dimensions are "simple": every flow pins the same one field (an address set, a port set, a
 * register), so the dimensions of a pair that pin the same field are intersected through hash
 * lookups first; only the few surviving combinations are searched flow by flow. Candidate
 * partners come from buckets keyed by the field most conjunctions pin exactly.
 */
import type { Flow, MatchField } from '../../model/flow.ts';
import { portNameOnly } from '../../model/match.ts';
import { fullMask } from '../../syntax/field-value.ts';
import { type ClauseFlow, compareEntries, exactKey, intervalOf, type ValueKey } from './clause-shape.ts';
import { pushTo } from '../../model/append.ts';

export interface OverlapSubject {
  /** Clause flows by dimension; every dimension non-empty. */
  readonly dims: readonly (readonly ClauseFlow[])[];
  /** Whether overlaps of this subject are wanted (others only serve as partners). */
  readonly wanted: boolean;
}

export interface OverlapLimits {
  /** Partners reported per subject. */
  readonly maxFound: number;
  /** Candidate partners tried per subject. */
  readonly maxCandidates: number;
  /** Search steps per pair. */
  readonly maxSteps: number;
}

export interface OverlapResult<S> {
  /** Each overlapping pair once, with one clause flow per dimension that a single packet satisfies. */
  readonly pairs: readonly { readonly a: S; readonly b: S; readonly witness: readonly Flow[] }[];
  /** Subjects whose search stopped at a limit before every candidate was decided. */
  readonly incomplete: ReadonlySet<S>;
}

/** Whether one packet can match both entries (same storage). */
function entriesMeet(a: MatchField, b: MatchField): boolean {
  if (((a.value ^ b.value) & a.mask & b.mask) !== 0n) return false;
  const pa = portNameOnly(a);
  const pb = portNameOnly(b);
  return pa === undefined || pb === undefined || pa === pb;
}

type Constraint = ReadonlyMap<string, MatchField>;

/** The constraints so far narrowed by `flow`, or undefined when no packet matches both. */
function combine(acc: Constraint, flow: Flow): Constraint | undefined {
  let out: Map<string, MatchField> | undefined;
  for (const e of flow.match.fields) {
    const prev = acc.get(e.field.storage);
    if (prev) {
      if (!entriesMeet(prev, e)) return undefined;
      if ((prev.mask & e.mask) === e.mask) continue;
    }
    out ??= new Map(acc);
    out.set(e.field.storage, prev ? { ...e, value: prev.value | e.value, mask: prev.mask | e.mask } : e);
  }
  return out ?? acc;
}

/** A dimension whose every flow pins the same one field besides protocol fields. */
export interface SimpleDim {
  readonly storage: string;
  /** The exactly matching flows, in order. */
  readonly exactFlows: readonly Pinned[];
  /** How many values they match exactly. */
  readonly size: number;
  /**
   * When every exact value is a number below 2^32 and there are fewer than 2^21 flows: each
   * value times 2^21 plus the flow's place in `exactFlows`, ascending, so that it lists the
   * flows by value (see flowByValue). A native sort and a binary search, rather than a hash entry
   * per flow: the dimensions of a large dump hold millions of flows.
   */
  readonly packed: Float64Array | undefined;
  /** Otherwise: `exactFlows` by value, each value's in order, and where each value's flows start in it. */
  readonly byValue: readonly Pinned[] | undefined;
  readonly starts: ReadonlyMap<ValueKey, number> | undefined;
  readonly masked: readonly Pinned[];
  /** The exact entries by ascending value, for prefix lookups; built on first use. */
  sorted?: readonly Pinned[];
}

/**
 * A clause flow of a simple dimension: its shape has one key field, so the flow is its own
 * `single` entry, and its entry's fields are read from it directly (getters called per flow cost
 * more than the rest of the work in a short run, in which this code is never optimised).
 */
type Pinned = ClauseFlow;

/** Places in `packed` per value (see SimpleDim). */
const PLACES = 2 ** 21;

function sizeOf(d: SimpleDim): number {
  return d.size + d.masked.length;
}

const bySize = (a: SimpleDim, b: SimpleDim): number => sizeOf(a) - sizeOf(b);

/**
 * `list` sorted in place by insertion, stable: the lists sorted for each pair of conjunctions hold
 * a few items, and Array.prototype.sort would allocate a work array for each of tens of thousands.
 */
function sortedSmall<T>(list: T[], compare: (a: T, b: T) => number): T[] {
  for (let i = 1; i < list.length; i++) {
    const item = list[i]!;
    let j = i;
    for (; j > 0 && compare(list[j - 1]!, item) > 0; j--) list[j] = list[j - 1]!;
    list[j] = item;
  }
  return list;
}

/** The value packed at place `p` (see SimpleDim.packed). */
export function valueAt(packed: Float64Array, p: number): number {
  return Math.floor(packed[p]! / PLACES);
}

/** The first place in `packed` at or above `n`, from place `lo` on (`hi` when none before it is). */
function lowerBound(packed: Float64Array, n: number, lo = 0, hi = packed.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (packed[mid]! < n) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The exact flow at place `p` of `dim`'s flows by value (see SimpleDim.packed). */
function flowByValue(dim: SimpleDim, p: number): Pinned {
  const { packed } = dim;
  return packed ? dim.exactFlows[packed[p]! % PLACES]! : dim.byValue![p]!;
}

/**
 * Where the flows of `dim` that match exactly the value keyed `key` start by value (see
 * `exactEnd` for where they end); -1 when none does. Read from `packed` alone when the dimension
 * has it: most values are not there, and reading a flow costs a cache miss.
 */
function exactly(dim: SimpleDim, key: ValueKey): number {
  const { packed } = dim;
  if (packed === undefined) return dim.starts!.get(key) ?? -1;
  if (typeof key !== 'number') return -1;
  const at = lowerBound(packed, key * PLACES);
  return at < packed.length && packed[at]! < (key + 1) * PLACES ? at : -1;
}

/** After the last flow of `dim` that matches exactly the value keyed `key`, its first at `start`. */
function exactEnd(dim: SimpleDim, start: number, key: ValueKey): number {
  const { packed, byValue } = dim;
  let end = start + 1;
  if (packed === undefined) while (end < byValue!.length && byValue![end]!.key === key) end++;
  else {
    const limit = ((key as number) + 1) * PLACES;
    while (end < packed.length && packed[end]! < limit) end++;
  }
  return end;
}

/** Exact entries of `dim` that a masked entry accepts: a binary search for prefix masks, a scan otherwise. */
function exactWithin(dim: SimpleDim, o: MatchField): readonly Pinned[] {
  const { packed } = dim;
  const iv = intervalOf(o.field, o);
  if (packed) {
    const out: Pinned[] = [];
    if (!iv) {
      for (let p = 0; p < packed.length; p++) if (entriesMeet(o, flowByValue(dim, p).e)) out.push(flowByValue(dim, p));
      return out;
    }
    if (iv.first >= 2n ** 32n) return out;
    // The packed values are below 2^32: a last value past 2^53 rounds and still compares right.
    const last = Number(iv.last);
    for (let p = lowerBound(packed, Number(iv.first) * PLACES); p < packed.length && valueAt(packed, p) <= last; p++)
      out.push(flowByValue(dim, p));
    return out;
  }
  const sorted = (dim.sorted ??= [...dim.exactFlows].sort(compareEntries));
  if (!iv) return sorted.filter((x) => entriesMeet(o, x.e));
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.e.value < iv.first) lo = mid + 1;
    else hi = mid;
  }
  const out: Pinned[] = [];
  for (let i = lo; i < sorted.length && sorted[i]!.e.value <= iv.last; i++) out.push(sorted[i]!);
  return out;
}

/** Places `sharedValues` steps one by one in `b` before it searches ahead. */
const NEAR = 8;

/**
 * The first place in `packed` after `from` whose value is `n` (a value times PLACES, see
 * SimpleDim.packed) or more, the value at `from` being less: a search ahead by doubling steps,
 * which passes a long run of smaller values in a few steps.
 */
function ahead(packed: Float64Array, n: number, from: number): number {
  let step = 1;
  while (from + step < packed.length && packed[from + step]! < n) step *= 2;
  return lowerBound(packed, n, from + (step >> 1) + 1, Math.min(from + step, packed.length));
}

/**
 * The places, ascending, of the flows packed in `a` whose value `b` has too (see
 * SimpleDim.packed): `a` walked, `b` stepped through where the two interleave and, past a few
 * steps, searched ahead (see `ahead`) from where the last value was; a run of values of `a` that
 * `b` lacks is passed the same way. The address sets of two conjunctions mostly lie apart.
 */
function sharedValues(a: Float64Array, b: Float64Array): readonly number[] | Int32Array {
  const places: number[] = [];
  let j = 0;
  for (let i = 0; i < a.length; i++) {
    const from = Math.floor(a[i]! / PLACES) * PLACES;
    const near = j + NEAR < b.length ? j + NEAR : b.length;
    while (j < near && b[j]! < from) j++;
    if (j === near && j < b.length && b[j]! < from) j = ahead(b, from, j);
    if (j === b.length) break;
    if (b[j]! < from + PLACES) places.push(a[i]! % PLACES);
    else if (i + 1 < a.length && a[i + 1]! < b[j]!) {
      // The next value of `a` is not `b`'s next either: `a` goes on from `b`'s next value.
      i = ahead(a, Math.floor(b[j]! / PLACES) * PLACES, i) - 1;
    }
  }
  return places.length < 2 ? places : Int32Array.from(places).sort();
}

/** The values `dim` matches exactly, in the order first met. */
function valuesOf(dim: SimpleDim): ValueKey[] {
  const { packed } = dim;
  if (!packed) return [...dim.starts!.keys()];
  // A value's first flow is the first of its run in `packed`.
  const first = new Uint8Array(packed.length);
  for (let p = 0, last = -1; p < packed.length; p++) {
    const value = valueAt(packed, p);
    if (value !== last) first[packed[p]! % PLACES] = 1;
    last = value;
  }
  const values: ValueKey[] = [];
  for (let i = 0; i < first.length; i++) if (first[i] === 1) values.push(dim.exactFlows[i]!.key);
  return values;
}

/**
 * The values of a simple dimension whose flows all match exactly, ascending, one for each flow
 * (read with valueAt); undefined when it has a masked flow or values too wide to pack. Sorted for
 * the search, they give the dimension's member set without sorting again.
 */
export function sortedExactValues(dim: SimpleDim): Float64Array | undefined {
  return dim.masked.length === 0 ? dim.packed : undefined;
}

/**
 * The dimension as a simple one; undefined when its flows do not all pin the same one field. Each
 * flow is read once (a cache miss each, for millions), its value packed as it is read.
 */
export function simpleDim(flows: readonly ClauseFlow[]): SimpleDim | undefined {
  // The storage from the shape the flows share, not from each flow's own entry: a shape with a
  // key storage has one key field, and its flows are pinned.
  const storage = flows[0]?.shape.keyStorage;
  if (storage === undefined) return undefined;
  // The exactly matching flows are the dimension's own list until a masked one is met.
  let exactFlows: Pinned[] | undefined;
  const masked: Pinned[] = [];
  let packed: Float64Array | undefined = flows.length < PLACES ? new Float64Array(flows.length) : undefined;
  let exact = 0;
  for (let i = 0; i < flows.length; i++) {
    const c = flows[i]!;
    if (c.shape.keyStorage !== storage) return undefined;
    if (!c.exact) {
      exactFlows ??= flows.slice(0, i);
      masked.push(c);
      continue;
    }
    exactFlows?.push(c);
    if (packed) {
      const { key } = c;
      if (typeof key === 'number' && key < 2 ** 32) packed[exact] = key * PLACES + exact;
      else packed = undefined;
    }
    exact++;
  }
  const pinned = exactFlows ?? flows;
  return {
    storage,
    exactFlows: pinned,
    masked,
    ...(packed ? packedValues(packed.subarray(0, exact)) : keyedValues(pinned)),
  };
}

type ValueIndex = Pick<SimpleDim, 'size' | 'byValue' | 'packed' | 'starts'>;

/** See SimpleDim.packed: `packed` holds the flows' values and places, to be sorted. */
function packedValues(packed: Float64Array): ValueIndex {
  packed.sort();
  let size = 0;
  // Each value read once: outside optimised code, as a short run reads, each Math.floor is a call.
  for (let p = 0, last = -1; p < packed.length; p++) {
    const value = valueAt(packed, p);
    if (value !== last) size++;
    last = value;
  }
  return { size, byValue: undefined, packed, starts: undefined };
}

/** See SimpleDim.starts: each value's flows gathered in the order first met. */
function keyedValues(flows: readonly Pinned[]): ValueIndex {
  const groups = new Map<ValueKey, number>();
  const groupOf = new Int32Array(flows.length);
  const counts: number[] = [];
  for (let i = 0; i < flows.length; i++) {
    let g = groups.get(flows[i]!.key);
    if (g === undefined) {
      groups.set(flows[i]!.key, (g = counts.length));
      counts.push(0);
    }
    groupOf[i] = g;
    counts[g]!++;
  }
  const next = new Int32Array(counts.length);
  for (let g = 1; g < counts.length; g++) next[g] = next[g - 1]! + counts[g - 1]!;
  const starts = new Map<ValueKey, number>();
  for (const [key, g] of groups) starts.set(key, next[g]!);
  const byValue = new Array<Pinned>(flows.length);
  for (let i = 0; i < flows.length; i++) byValue[next[groupOf[i]!]!++] = flows[i]!;
  return { size: groups.size, byValue, packed: undefined, starts };
}

/** One way to satisfy several simple dimensions on one field: a flow from each. */
type Option = readonly Flow[];

/** Cap on combinations kept per field: any one of them is a witness unless protocols clash. */
const OPTIONS_KEPT = 32;

/** The size of the smallest of `dims` (see sizeOf). */
function smallest(dims: readonly SimpleDim[]): number {
  let min = sizeOf(dims[0]!);
  for (let i = 1; i < dims.length; i++) min = Math.min(min, sizeOf(dims[i]!));
  return min;
}

/**
 * Ways to pick one flow from each of several simple dimensions on one field so their values
 * meet; `dims` is sorted in place, smallest first.
 */
function intersectSimple(dims: SimpleDim[]): { options: Option[]; truncated: boolean } {
  const sorted = sortedSmall(dims, bySize);
  const options: Option[] = [];
  const path: Flow[] = [];
  let truncated = false;
  // Depth-first over the dimensions, each step narrowing the value the packet must carry.
  const extend = (i: number, e: MatchField, exact: boolean, key: ValueKey): void => {
    const dim = sorted[i];
    if (!dim) {
      if (options.length < OPTIONS_KEPT) options.push([...path]);
      else truncated = true;
      return;
    }
    // Indexed loops: most lists here are empty, and millions of calls would each make an iterator.
    if (exact) {
      const start = exactly(dim, key);
      if (start >= 0)
        for (let j = start, end = exactEnd(dim, start, key); j < end && !truncated; j++)
          visit(i, flowByValue(dim, j), e, exact, key);
    } else {
      const list = exactWithin(dim, e);
      for (let j = 0; j < list.length && !truncated; j++) visit(i, list[j]!, e, exact, key);
    }
    const { masked } = dim;
    for (let j = 0; j < masked.length; j++) {
      if (truncated) return;
      const m = masked[j]!;
      const me = m.e;
      if (!entriesMeet(e, me)) continue;
      const merged = { ...me, value: e.value | me.value, mask: e.mask | me.mask };
      const nowExact = merged.mask === fullMask(merged.field);
      path.push(m.flow);
      extend(i + 1, merged, nowExact, nowExact ? exactKey(merged) : '');
      path.pop();
    }
  };
  /** Takes partner `x` of dimension `i`: an exact value narrows the packet to its own. */
  const visit = (i: number, x: Pinned, e: MatchField, exact: boolean, key: ValueKey): void => {
    path.push(x.flow);
    extend(i + 1, exact ? e : x.e, true, exact ? key : x.key);
    path.pop();
  };
  const { exactFlows, masked } = sorted[0]!;
  // A value the next dimension has no flow for (none masked, none of the value) goes no further:
  // the values both have are found from the numbers alone, without reading a flow (a cache miss each).
  const next = sorted[1];
  if (sorted[0]!.packed !== undefined && next?.packed !== undefined && next.masked.length === 0) {
    const shared = sharedValues(sorted[0]!.packed, next.packed);
    for (let j = 0; j < shared.length && !truncated; j++) {
      const x = exactFlows[shared[j]!]!;
      visit(0, x, x.e, true, x.key);
    }
  } else
    for (let j = 0; j < exactFlows.length && !truncated; j++) {
      const x = exactFlows[j]!;
      visit(0, x, x.e, true, x.key);
    }
  for (let j = 0; j < masked.length && !truncated; j++) {
    const x = masked[j]!;
    path.push(x.flow);
    extend(1, x.e, false, '');
    path.pop();
  }
  return { options, truncated };
}

/** One flow per dimension that a single packet satisfies together; undefined if none; 'unknown' past the step budget. */
function commonPacket(
  dims: readonly (readonly ClauseFlow[])[],
  simples: readonly (SimpleDim | undefined)[],
  maxSteps: number,
): Flow[] | undefined | 'unknown' {
  // Slots of the search: per field, the combinations meeting on it; each other dimension's flows.
  // The simple dimensions by field, in the order first met, found by a look along the few fields
  // rather than hashed: a search runs for each of a hundred thousand pairs of conjunctions.
  const fields: SimpleDim[][] = [];
  const generic: (readonly ClauseFlow[])[] = [];
  for (let i = 0; i < dims.length; i++) {
    const s = simples[i];
    if (!s) {
      generic.push(dims[i]!);
      continue;
    }
    let f = 0;
    while (f < fields.length && fields[f]![0]!.storage !== s.storage) f++;
    if (f < fields.length) fields[f]!.push(s);
    else fields.push([s]);
  }
  // Fields whose smallest dimension is small first: most pairs that do not overlap fail there, cheaply.
  sortedSmall(fields, (a, b) => smallest(a) - smallest(b));
  const slots: Option[][] = [];
  let truncated = false;
  for (const g of fields) {
    const meet = intersectSimple(g);
    if (meet.options.length === 0) return undefined;
    truncated ||= meet.truncated;
    slots.push(meet.options);
  }
  for (const d of generic) slots.push(d.map((c) => [c.flow]));
  sortedSmall(slots, (a, b) => a.length - b.length);
  const chosen: Flow[] = [];
  let steps = 0;
  const search = (i: number, acc: Constraint): boolean | 'unknown' => {
    const slot = slots[i];
    if (!slot) return true;
    for (const option of slot) {
      if (++steps > maxSteps) return 'unknown';
      let next: Constraint | undefined = acc;
      for (const f of option) if (next) next = combine(next, f);
      if (!next) continue;
      chosen.push(...option);
      const r = search(i + 1, next);
      if (r !== false) return r;
      chosen.length -= option.length;
    }
    return false;
  };
  const r = search(0, new Map());
  if (r === 'unknown') return r;
  // Combinations left out of a truncated slot might have fitted the other fields' protocols.
  if (!r) return truncated ? 'unknown' : undefined;
  return [...new Set(chosen)];
}

/**
 * Candidate partners, list by list: those without the pinned field, then those sharing each of
 * the subject's values (or everyone, when nothing is pinned). Made as they are walked: buckets of
 * a popular value hold thousands, and the search stops after a few candidates.
 */
function* candidateLists<S>(
  values: readonly ValueKey[] | undefined,
  unpinned: readonly S[],
  byValue: ReadonlyMap<ValueKey, readonly S[]>,
  group: readonly S[],
): Generator<readonly S[]> {
  if (!values) {
    yield group;
    return;
  }
  yield unpinned;
  for (const v of values) {
    const list = byValue.get(v);
    if (list) yield list;
  }
}

/**
 * Finds overlapping pairs among subjects that share a table and priority. `simples`: each
 * subject's dimensions as simple ones (undefined: not simple), by the subject's place in the group.
 */
export function findOverlaps<S extends OverlapSubject>(
  group: readonly S[],
  limits: OverlapLimits,
  simples: readonly (readonly (SimpleDim | undefined)[])[] = group.map((s) => s.dims.map(simpleDim)),
): OverlapResult<S> {
  // Bucket by the field most subjects pin to exact values: partners must share one of them.
  const pins = new Map<S, Map<string, SimpleDim>>();
  const votes = new Map<string, number>();
  group.forEach((s, i) => {
    const mine = new Map<string, SimpleDim>();
    for (const sd of simples[i]!) {
      if (!sd || sd.masked.length > 0) continue;
      const prev = mine.get(sd.storage);
      if (!prev || sd.size < prev.size) mine.set(sd.storage, sd);
    }
    pins.set(s, mine);
    for (const storage of mine.keys()) votes.set(storage, (votes.get(storage) ?? 0) + 1);
  });
  let pinned: string | undefined;
  for (const [storage, n] of votes) if (pinned === undefined || n > votes.get(pinned)!) pinned = storage;
  const byValue = new Map<ValueKey, S[]>();
  const unpinned: S[] = [];
  // Each subject's values of the pinned field.
  const valuesOfPin = new Map<S, ValueKey[]>();
  for (const s of group) {
    const dim = pinned === undefined ? undefined : pins.get(s)!.get(pinned);
    if (!dim) {
      unpinned.push(s);
      continue;
    }
    const values = valuesOf(dim);
    valuesOfPin.set(s, values);
    for (const v of values) pushTo(byValue, v, s);
  }

  const pairs: { a: S; b: S; witness: Flow[] }[] = [];
  const found = new Map<S, number>();
  const incomplete = new Set<S>();
  const checked = new Set<number>();
  const index = new Map(group.map((s, i) => [s, i]));
  for (let i = 0; i < group.length; i++) {
    const a = group[i]!;
    if (!a.wanted || (found.get(a) ?? 0) >= limits.maxFound) continue;
    const values = valuesOfPin.get(a);
    const seen = new Set<S>([a]);
    let tried = 0;
    search: for (const list of candidateLists(values, unpinned, byValue, group)) {
      for (const b of list) {
        if (seen.has(b)) continue;
        seen.add(b);
        if ((found.get(a) ?? 0) >= limits.maxFound) break search;
        const j = index.get(b)!;
        const pair = i < j ? i * group.length + j : j * group.length + i;
        if (checked.has(pair)) continue;
        if (++tried > limits.maxCandidates) {
          incomplete.add(a);
          break search;
        }
        checked.add(pair);
        const witness = commonPacket(a.dims.concat(b.dims), simples[i]!.concat(simples[j]!), limits.maxSteps);
        if (witness === 'unknown') incomplete.add(a);
        if (witness === undefined || witness === 'unknown') continue;
        pairs.push({ a, b, witness });
        found.set(a, (found.get(a) ?? 0) + 1);
        found.set(b, (found.get(b) ?? 0) + 1);
      }
    }
  }
  return { pairs, incomplete };
}
