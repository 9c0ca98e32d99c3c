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
import { minOf, pushTo } from '../../model/append.ts';

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
interface SimpleDim {
  readonly storage: string;
  /** Exactly matched values → the flow, or the flows (of different protocols), that match it. */
  readonly exact: ReadonlyMap<ValueKey, Pinned | Pinned[]>;
  /** The exactly matching flows, in order: walked without the entry arrays a map's iterator makes. */
  readonly exactFlows: readonly Pinned[];
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

function sizeOf(d: SimpleDim): number {
  return d.exact.size + d.masked.length;
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

const NONE: readonly Pinned[] = [];

/** The flows of `dim` that match exactly the value keyed `key` (most often one, kept without a list). */
function exactly(dim: SimpleDim, key: ValueKey): Pinned | readonly Pinned[] {
  return dim.exact.get(key) ?? NONE;
}

/** Exact entries of `dim` that a masked entry accepts: a binary search for prefix masks, a scan otherwise. */
function exactWithin(dim: SimpleDim, o: MatchField): readonly Pinned[] {
  const sorted = (dim.sorted ??= [...dim.exactFlows].sort(compareEntries));
  const iv = intervalOf(o.field, o);
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

function simpleDim(flows: readonly ClauseFlow[]): SimpleDim | undefined {
  // The storage from the shape the flows share, not from each flow's own entry: a shape with a
  // key storage has one key field, and its flows are pinned.
  const storage = flows[0]?.shape.keyStorage;
  if (storage === undefined) return undefined;
  const exact = new Map<ValueKey, Pinned | Pinned[]>();
  const exactFlows: Pinned[] = [];
  const masked: Pinned[] = [];
  for (let i = 0; i < flows.length; i++) {
    const c = flows[i]!;
    if (c.shape.keyStorage !== storage) return undefined;
    if (!c.exact) {
      masked.push(c);
      continue;
    }
    exactFlows.push(c);
    const had = exact.get(c.key);
    if (had === undefined) exact.set(c.key, c);
    else if (Array.isArray(had)) had.push(c);
    else exact.set(c.key, [had, c]);
  }
  return { storage, exact, exactFlows, masked };
}

/** One way to satisfy several simple dimensions on one field: a flow from each. */
type Option = readonly Flow[];

/** Cap on combinations kept per field: any one of them is a witness unless protocols clash. */
const OPTIONS_KEPT = 32;

/** Ways to pick one flow from each of several simple dimensions on one field so their values meet. */
function intersectSimple(dims: readonly SimpleDim[]): { options: Option[]; truncated: boolean } {
  const sorted = sortedSmall([...dims], bySize);
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
    const partners = exact ? exactly(dim, key) : exactWithin(dim, e);
    if (!Array.isArray(partners)) visit(i, partners as Pinned, e, exact, key);
    else {
      const list = partners as readonly Pinned[];
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
  const byStorage = new Map<string, SimpleDim[]>();
  const generic: (readonly ClauseFlow[])[] = [];
  for (let i = 0; i < dims.length; i++) {
    const d = dims[i]!;
    const s = simples[i];
    if (!s) {
      generic.push(d);
      continue;
    }
    pushTo(byStorage, s.storage, s);
  }
  // Fields whose smallest dimension is small first: most pairs that do not overlap fail there, cheaply.
  const fields = sortedSmall(
    [...byStorage.values()].map((g) => ({ g, min: minOf(g.map(sizeOf)) })),
    (a, b) => a.min - b.min,
  );
  const slots: Option[][] = [];
  let truncated = false;
  for (const { g } of fields) {
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
  values: ReadonlyMap<ValueKey, unknown> | undefined,
  unpinned: readonly S[],
  byValue: ReadonlyMap<ValueKey, readonly S[]>,
  group: readonly S[],
): Generator<readonly S[]> {
  if (!values) {
    yield group;
    return;
  }
  yield unpinned;
  for (const v of values.keys()) {
    const list = byValue.get(v);
    if (list) yield list;
  }
}

/** Finds overlapping pairs among subjects that share a table and priority. */
export function findOverlaps<S extends OverlapSubject>(group: readonly S[], limits: OverlapLimits): OverlapResult<S> {
  // Each subject's dimensions as simple ones (undefined: not simple), by the subject's place in the group.
  const simples = group.map((s) => s.dims.map(simpleDim));

  // Bucket by the field most subjects pin to exact values: partners must share one of them.
  const pins = new Map<S, Map<string, ReadonlyMap<ValueKey, unknown>>>();
  const votes = new Map<string, number>();
  group.forEach((s, i) => {
    const mine = new Map<string, ReadonlyMap<ValueKey, unknown>>();
    for (const sd of simples[i]!) {
      if (!sd || sd.masked.length > 0) continue;
      const prev = mine.get(sd.storage);
      if (!prev || sd.exact.size < prev.size) mine.set(sd.storage, sd.exact);
    }
    pins.set(s, mine);
    for (const storage of mine.keys()) votes.set(storage, (votes.get(storage) ?? 0) + 1);
  });
  let pinned: string | undefined;
  for (const [storage, n] of votes) if (pinned === undefined || n > votes.get(pinned)!) pinned = storage;
  const byValue = new Map<ValueKey, S[]>();
  const unpinned: S[] = [];
  for (const s of group) {
    const values = pinned === undefined ? undefined : pins.get(s)!.get(pinned);
    if (!values) unpinned.push(s);
    else
      for (const v of values.keys()) {
        pushTo(byValue, v, s);
      }
  }

  const pairs: { a: S; b: S; witness: Flow[] }[] = [];
  const found = new Map<S, number>();
  const incomplete = new Set<S>();
  const checked = new Set<number>();
  const index = new Map(group.map((s, i) => [s, i]));
  for (const a of group) {
    if (!a.wanted || (found.get(a) ?? 0) >= limits.maxFound) continue;
    const values = pinned === undefined ? undefined : pins.get(a)!.get(pinned);
    const seen = new Set<S>([a]);
    let tried = 0;
    search: for (const list of candidateLists(values, unpinned, byValue, group)) {
      for (const b of list) {
        if (seen.has(b)) continue;
        seen.add(b);
        if ((found.get(a) ?? 0) >= limits.maxFound) break search;
        const [i, j] = [index.get(a)!, index.get(b)!];
        const pair = i < j ? i * group.length + j : j * group.length + i;
        if (checked.has(pair)) continue;
        if (++tried > limits.maxCandidates) {
          incomplete.add(a);
          break search;
        }
        checked.add(pair);
        const witness = commonPacket([...a.dims, ...b.dims], [...simples[i]!, ...simples[j]!], limits.maxSteps);
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
