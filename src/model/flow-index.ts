/**
 * Flows found as the OVS classifier finds them (lib/classifier.c): grouped into subtables by the
 * bits they match, each subtable a hash from the masked values to its flows in match order
 * (highest priority first, the order given among equals). Its cost depends on the number of
 * distinct masks, not on the number of flows. One home for every question of that kind: which
 * flow a packet hits (trace), and which higher flow matches every packet another flow matches
 * (shadowed flows, pre-empted conjunction clauses).
 *
 * A match is seen as terms: a term is one field under one mask, stored in one or more slots
 * (bits of storage, each with its part of the mask). Flows whose terms are the same share a
 * subtable, found through a trie over term ids, so no key string is made per flow.
 */
import type { Flow, Match, MatchField } from './flow.ts';
import type { FieldDef } from './fields.ts';
import { matchCovers, portNameOnly } from './match.ts';

export interface Ranked {
  readonly priority: number;
}

/** Where a term's bits go: a storage slot and the bits of it. */
export interface TermPart {
  readonly slot: string;
  readonly mask: bigint;
}

/** One field under one mask; ids order a match's terms, and are unique across every kind of term. */
export interface Term {
  readonly id: number;
  readonly parts: readonly TermPart[];
}

let termIds = 0;

/** An id for a new term. */
export function newTermId(): number {
  return termIds++;
}

/** Nodes of a trie that finds a shape from the keys of its steps, without a key string. */
export class ShapeTrie<K, S> {
  value: S | undefined;
  private next: Map<K, ShapeTrie<K, S>> | undefined;

  step(key: K): ShapeTrie<K, S> {
    this.next ??= new Map();
    let n = this.next.get(key);
    if (!n) this.next.set(key, (n = new ShapeTrie()));
    return n;
  }
}

/**
 * Indexes by a whole-number key below 2^53, in open addressing over one typed array of key and
 * index + 1 side by side (one cache line per probe): a Map holds such a key (past 2^31) as a heap
 * number of its own, and a big table's subtable has hundreds of thousands of keys.
 */
class NumberKeys {
  /** Per place: the key, then 1 + its index (0 for an empty place). */
  private places = new Float64Array(32);
  private size = 0;

  /** The index of `key`, or -1. */
  find(key: number): number {
    return this.places[this.placeOf(key, this.places) + 1]! - 1;
  }

  /** The index of `key`, given `next` (returned) when it has none yet. */
  take(key: number, next: number): number {
    if ((this.size + 1) * 4 > this.places.length) this.grow();
    const at = this.placeOf(key, this.places);
    const head = this.places[at + 1]!;
    if (head !== 0) return head - 1;
    this.places[at] = key;
    this.places[at + 1] = next + 1;
    this.size++;
    return next;
  }

  /** Where `key` is, or the empty place where it would go. */
  private placeOf(key: number, places: Float64Array): number {
    const mask = (places.length >>> 1) - 1;
    let h = Math.imul((key >>> 0) ^ Math.imul((key / 0x100000000) | 0, 0x9e3779b1), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    let at = (h ^ (h >>> 16)) & mask;
    while (places[2 * at + 1] !== 0 && places[2 * at] !== key) at = (at + 1) & mask;
    return 2 * at;
  }

  private grow(): void {
    const old = this.places;
    this.places = new Float64Array(old.length * 2);
    for (let i = 0; i < old.length; i += 2) {
      if (old[i + 1] === 0) continue;
      const at = this.placeOf(old[i]!, this.places);
      this.places[at] = old[i]!;
      this.places[at + 1] = old[i + 1]!;
    }
  }
}

/** A subtable: the flows with one set of terms, by their values under its masks. */
export class Subtable<T extends Ranked> {
  readonly slots: readonly string[];
  readonly masks: readonly bigint[];
  /** Per term of the subtable (in id order), the slot index of each of its parts. */
  readonly placement: readonly (readonly number[])[];
  /**
   * 2^(bit length) of each mask when all of them fit in one exact JavaScript number together
   * (most matches do: eth_type + nw_src is 48 bits); the key is then that number rather than a
   * string, made with number arithmetic (exact below 2^53).
   */
  private readonly scales: readonly number[] | undefined;
  /** The best priority of its flows. */
  maxPriority = -1;
  /** Where the first flow at `maxPriority` was given: subtables of one priority are probed in that order. */
  firstPlace = 0;
  /** Each list's index by the packed key when the masks fit one number (`scales`), else by the joined key. */
  private readonly numbers: NumberKeys | undefined;
  private readonly strings: Map<string, number> | undefined;
  /**
   * The flows with one key each: a key's one flow alone until another joins it or it is looked up
   * (a policy table's subtable has hundreds of thousands of keys, most with one flow).
   */
  private readonly lists: (T | T[])[] = [];
  /**
   * Per list: the priority of its last flow, or -1 once given a flow of higher priority than its
   * last: not in match order yet. Kept beside the lists, not read off a flow, which a big table
   * holds anywhere in memory.
   */
  private readonly lows: number[] = [];

  constructor(terms: readonly Term[]) {
    const slots: string[] = [];
    const masks: bigint[] = [];
    this.placement = terms.map((t) =>
      t.parts.map((p) => {
        let i = slots.indexOf(p.slot);
        if (i < 0) {
          i = slots.push(p.slot) - 1;
          masks.push(0n);
        }
        masks[i] = masks[i]! | p.mask;
        return i;
      }),
    );
    this.slots = slots;
    this.masks = masks;
    const widths = masks.map((m) => m.toString(2).length);
    this.scales = widths.reduce((a, b) => a + b, 0) <= 53 ? widths.map((w) => 2 ** w) : undefined;
    if (this.scales) this.numbers = new NumberKeys();
    else this.strings = new Map();
  }

  private packed(values: readonly bigint[]): number {
    const scales = this.scales!;
    let packed = 0;
    for (let i = 0; i < values.length; i++) packed = packed * scales[i]! + Number(values[i]!);
    return packed;
  }

  private joined(values: readonly bigint[]): string {
    let key = '';
    for (const v of values) key += v.toString(16) + '/';
    return key;
  }

  /** Files `item` under `values` (slot order, within the masks) after every flow of its priority or above. */
  insert(values: readonly bigint[], item: T, place: number): void {
    const { priority } = item;
    this.rank(priority, place);
    const { lists, lows } = this;
    const next = lists.length;
    let at: number;
    if (this.numbers) at = this.numbers.take(this.packed(values), next);
    else {
      const key = this.joined(values);
      at = this.strings!.get(key) ?? next;
      if (at === next) this.strings!.set(key, next);
    }
    if (at === next) {
      lists.push(item);
      lows.push(priority);
      return;
    }
    const list = lists[at]!;
    if (Array.isArray(list)) list.push(item);
    else lists[at] = [list, item];
    // Put in match order when first looked up: a policy table's list holds a hundred flows of one
    // address given in no order of priority, and moving each into place cost a walk of the list.
    const low = lows[at]!;
    if (low >= 0) lows[at] = low < priority ? -1 : priority;
  }

  /**
   * Counts a flow of this priority given at `place` towards the subtable's rank, as the classifier
   * does for every flow it holds (one no packet can match included).
   */
  rank(priority: number, place: number): void {
    if (priority > this.maxPriority) {
      this.maxPriority = priority;
      this.firstPlace = place;
    }
  }

  /** The flows with these values (slot order, within the masks), in match order. */
  get(values: readonly bigint[]): readonly T[] | undefined {
    const at = this.numbers ? this.numbers.find(this.packed(values)) : (this.strings!.get(this.joined(values)) ?? -1);
    if (at < 0) return undefined;
    const one = this.lists[at]!;
    const list = Array.isArray(one) ? one : (this.lists[at] = [one]);
    if (this.lows[at]! < 0) {
      // A stable sort: flows of one priority stay in the order given.
      list.sort((a, b) => b.priority - a.priority);
      this.lows[at] = list[list.length - 1]!.priority;
    }
    return list;
  }

  /** The flows whose values a packet has, in match order; `read` gives the packet's bits of a slot. */
  probe(read: (slot: string) => bigint): readonly T[] | undefined {
    const values: bigint[] = [];
    for (let i = 0; i < this.slots.length; i++) values.push(read(this.slots[i]!) & this.masks[i]!);
    return this.get(values);
  }
}

/** Subtables of one table, found by their terms. */
export class FlowIndex<T extends Ranked> {
  private readonly shapes = new ShapeTrie<number, Subtable<T>>();
  private readonly made: Subtable<T>[] = [];
  private ordered: Subtable<T>[] | undefined;

  /** The subtable of flows with the first `length` of `terms` (sorted by id), made when new. */
  subtable(terms: readonly Term[], length: number = terms.length): Subtable<T> {
    let node = this.shapes;
    for (let i = 0; i < length; i++) node = node.step(terms[i]!.id);
    if (!node.value) {
      node.value = new Subtable(terms.slice(0, length));
      this.made.push(node.value);
    }
    return node.value;
  }

  insert(sub: Subtable<T>, values: readonly bigint[], item: T, place: number): void {
    sub.insert(values, item, place);
    this.ordered = undefined;
  }

  /** A flow that no packet can match, which still ranks its subtable. */
  rank(sub: Subtable<T>, priority: number, place: number): void {
    sub.rank(priority, place);
    this.ordered = undefined;
  }

  /** Subtables in the order they were made. */
  get subtables(): readonly Subtable<T>[] {
    return this.made;
  }

  /** Subtables in lookup order: by best priority, then by where that flow was given. */
  get inLookupOrder(): readonly Subtable<T>[] {
    return (this.ordered ??= [...this.made].sort(
      (a, b) => b.maxPriority - a.maxPriority || a.firstPlace - b.firstPlace,
    ));
  }
}

/**
 * A match's entries as terms of one part each, the slot being the entry's storage. A port known
 * only by its name (a `--names` dump without a port map) is a slot of its own, named after the
 * port with the value 0: it meets only entries that name the same port, as a port name is all
 * that is known of it.
 */
class EntryTerms {
  /** By field, or by the port's slot for a port known by name; then by mask. */
  private readonly terms = new Map<FieldDef | string, Map<bigint, Term>>();

  of(e: MatchField): Term {
    const name = portNameOnly(e);
    const owner = name === undefined ? e.field : `${e.field.storage} "${name}"`;
    let byMask = this.terms.get(owner);
    if (!byMask) this.terms.set(owner, (byMask = new Map()));
    let term = byMask.get(e.mask);
    if (!term)
      byMask.set(
        e.mask,
        (term = {
          id: newTermId(),
          parts: [{ slot: typeof owner === 'string' ? owner : owner.storage, mask: e.mask }],
        }),
      );
    return term;
  }
}

/** A match's terms in id order, and its values in the same order (0 for a port known by name). */
interface Entries {
  readonly terms: Term[];
  readonly values: bigint[];
  length: number;
}

/**
 * Flows of one table indexed by their matches, for "which flow at this priority or above matches
 * every packet this one matches" (`matchCovers`): only the subtables whose bits the flow matches
 * too can hold one, and in each the flow's own values under the subtable's masks find it.
 */
export class MatchIndex<F extends Flow> {
  private readonly index = new FlowIndex<F>();
  private readonly terms = new EntryTerms();
  private readonly entries: Entries = { terms: [], values: [], length: 0 };
  /** Per shape of a flow asked about: the subtables that fit it, among the first `seen`. */
  private readonly fitting = new ShapeTrie<number, { readonly subtables: Subtable<F>[]; seen: number }>();
  private added = 0;
  /** The best priority added: asked for more, no flow need be looked at. */
  private top = -1;

  /** Adds a flow, after every flow added before it of its priority or above. */
  add(flow: F): void {
    if (flow.priority > this.top) this.top = flow.priority;
    const entries = this.read(flow.match);
    const sub = this.index.subtable(entries.terms, entries.length);
    this.index.insert(sub, entries.values.slice(0, entries.length), flow, this.added++);
  }

  /**
   * The flow of the highest priority at `minPriority` or above that matches every packet `match`
   * matches; of several, the one in the subtable made first, then the first in match order.
   */
  covering(match: Match, minPriority: number): F | undefined {
    if (minPriority > this.top) return undefined;
    const entries = this.read(match);
    let node = this.fitting;
    for (let i = 0; i < entries.length; i++) node = node.step(entries.terms[i]!.id);
    const fit = (node.value ??= { subtables: [], seen: 0 });
    const all = this.index.subtables;
    for (; fit.seen < all.length; fit.seen++) if (fits(all[fit.seen]!, entries)) fit.subtables.push(all[fit.seen]!);
    let best: F | undefined;
    const values: bigint[] = [];
    for (const sub of fit.subtables) {
      if (sub.maxPriority < minPriority || (best && sub.maxPriority <= best.priority)) continue;
      values.length = 0;
      for (let i = 0; i < sub.slots.length; i++) values.push(valueAt(entries, sub.slots[i]!) & sub.masks[i]!);
      const bucket = sub.get(values);
      if (!bucket) continue;
      for (const c of bucket) {
        if (c.priority < minPriority || (best && c.priority <= best.priority)) break;
        if (matchCovers(c.match, match)) {
          best = c;
          break;
        }
      }
    }
    return best;
  }

  /** The match's terms and values, sorted by term id, in arrays reused from call to call. */
  private read(match: Match): Entries {
    const out = this.entries;
    const fields = match.fields;
    out.length = fields.length;
    for (let i = 0; i < fields.length; i++) {
      const e = fields[i]!;
      const term = this.terms.of(e);
      // Insertion sort: matches hold a few fields, nearly always in order already.
      let j = i;
      for (; j > 0 && out.terms[j - 1]!.id > term.id; j--) {
        out.terms[j] = out.terms[j - 1]!;
        out.values[j] = out.values[j - 1]!;
      }
      out.terms[j] = term;
      out.values[j] = portNameOnly(e) === undefined ? e.value : 0n;
    }
    return out;
  }
}

/** Whether a match with these entries has every slot of the subtable, with at least its bits. */
function fits(sub: Subtable<Ranked>, entries: Entries): boolean {
  for (let i = 0; i < sub.slots.length; i++) {
    const part = partAt(entries, sub.slots[i]!);
    if (!part || (part.mask & sub.masks[i]!) !== sub.masks[i]!) return false;
  }
  return true;
}

function partAt(entries: Entries, slot: string): TermPart | undefined {
  for (let i = 0; i < entries.length; i++) {
    const part = entries.terms[i]!.parts[0]!;
    if (part.slot === slot) return part;
  }
  return undefined;
}

function valueAt(entries: Entries, slot: string): bigint {
  for (let i = 0; i < entries.length; i++) if (entries.terms[i]!.parts[0]!.slot === slot) return entries.values[i]!;
  return 0n;
}
