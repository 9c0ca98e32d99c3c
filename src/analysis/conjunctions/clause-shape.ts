/**
 * What the conjunction analyses need to know about one clause flow's match, computed once per
 * flow: Antrea shares a clause flow between every rule that uses the same address or port, so a
 * flow can serve thousands of conjunctions.
 */
import { FIELDS, type FieldDef } from '../../model/fields.ts';
import { type Flow, type Match, type MatchField, withAddress } from '../../model/flow.ts';
import { ShapeTrie } from '../../model/flow-index.ts';
import { portNameOnly } from '../../model/match.ts';
import { ones, prefixLength } from '../../model/values.ts';
import { fullMask } from '../../syntax/field-value.ts';

/** Protocol fields: they qualify a term ("TCP port") rather than being its subject. */
export const QUALIFIER_STORAGES: ReadonlySet<string> = new Set(['eth_type', 'nw_proto']);

export interface Interval {
  readonly first: bigint;
  readonly last: bigint;
}

/**
 * Flows with the same protocol values and the same other fields form one term. One object per
 * shape, so flows are grouped by identity rather than by a key string.
 */
export interface TermShape {
  /** Protocol fields of the match (the first flow's entries: the shape fixes their values). */
  readonly qualifier: Match;
  /** How many other fields the flows match. */
  readonly keyCount: number;
  /** The storage of every field the flows match, protocol fields included. */
  readonly storages: readonly string[];
  /** The storage of the one other field, when there is one (see `ClauseFlow.single`). */
  readonly keyStorage: string | undefined;
}

/** A match entry with its hash key and, for prefix masks, the interval it accepts. */
export class SingleEntry {
  /**
   * The entry, or undefined until it is first read when it is `like`'s with the value `order`: a
   * clause flow of an outline (see ClauseShapes) is made without an entry and a bigint of its own,
   * most of a million never read.
   */
  protected made: MatchField | undefined;
  /** The entry, or one of the same field and mask (see `made`). */
  protected readonly like: MatchField;
  /** Matched on every bit. */
  readonly exact: boolean;
  /** Hash key of the value (see `exactKey`). */
  readonly key: ValueKey;
  /** `last` when the mask is a prefix of fewer than all bits. */
  protected readonly prefixLast: bigint | undefined;
  /** `first` as a number, rounded past 2^53: sorts by a number compare, ties by the bigint. */
  readonly order: number;

  constructor(e: MatchField) {
    this.made = e;
    this.like = e;
    this.exact = e.mask === fullMask(e.field);
    this.key = exactKey(e);
    this.prefixLast = this.exact ? undefined : intervalOf(e.field, e)?.last;
    this.order = Number(e.value);
  }

  get e(): MatchField {
    return (this.made ??= { field: this.like.field, value: BigInt(this.order), mask: this.like.mask });
  }

  /** Its value: the first it accepts. */
  get first(): bigint {
    return this.e.value;
  }

  /**
   * The last value it accepts when its mask is a prefix; undefined for other masks. Held here
   * rather than in an interval object: sorting and merging millions of them read one object each.
   */
  get last(): bigint | undefined {
    return this.exact ? this.e.value : this.prefixLast;
  }
}

/** Stands in for the single entry of a clause flow that has none. */
const NO_ENTRY: MatchField = { field: FIELDS[0]!, value: 0n, mask: 0n };

/**
 * A clause flow, with its single entry (when it has one) held in the same object: a large dump
 * has a million clause flows, and one object each rather than two halves what they cost to make.
 */
export class ClauseFlow extends SingleEntry {
  // Made by ClauseFlow.make, never by a constructor: the fields are declared here, set there.
  declare readonly flow: Flow;
  declare readonly shape: TermShape;
  /** The hard flow that always takes precedence over this one (null: none); set once asked. */
  declare cover: Flow | null | undefined;

  /**
   * `key` is the one non-protocol entry, or undefined when the flow matches none or several;
   * `exact` and `valueKey` are said by a caller that knows them already (a flow of an outline: see
   * ClauseShapes). An object literal, not `new`: V8 puts the objects of a literal that mostly
   * outlive their first collections straight in the old generation (see LineFlow.make), and a
   * million clause flows are not each copied twice by the young generation's collector.
   */
  static make(
    flow: Flow,
    shape: TermShape,
    key: MatchField | undefined,
    exact = key !== undefined && key.mask === fullMask(key.field),
    valueKey: ValueKey = exactKey(key ?? NO_ENTRY),
  ): ClauseFlow {
    // Without a single entry the entry fields are never read (`single` is undefined).
    const e = key ?? NO_ENTRY;
    return ClauseFlow.literal(flow, shape, e, e, exact, valueKey, exact ? undefined : intervalOf(e.field, e)?.last);
  }

  /**
   * A clause flow whose one key entry matches exactly the IPv4 address `address` in the field
   * and mask of `like`, its entry made when first read (see SingleEntry.made).
   */
  static ofAddress(flow: Flow, shape: TermShape, like: MatchField, address: number): ClauseFlow {
    return ClauseFlow.literal(flow, shape, undefined, like, true, address, undefined);
  }

  private static literal(
    flow: Flow,
    shape: TermShape,
    made: MatchField | undefined,
    like: MatchField,
    exact: boolean,
    key: ValueKey,
    prefixLast: bigint | undefined,
  ): ClauseFlow {
    const fields = {
      __proto__: ClauseFlow.prototype,
      made,
      like,
      exact,
      key,
      prefixLast,
      order: made === undefined ? (key as number) : Number(made.value),
      flow,
      shape,
      cover: undefined,
    };
    return fields as unknown as ClauseFlow;
  }

  /** Set when exactly one key field is matched. */
  get single(): SingleEntry | undefined {
    return this.like === NO_ENTRY ? undefined : this;
  }
}

/** A match entry's value under `mask` as a hash key; a port known only by name keys by that name. */
export function valueKey(e: MatchField, mask: bigint = e.mask): string {
  const name = portNameOnly(e);
  return name === undefined ? (e.value & mask).toString(16) : `"${name}"`;
}

/** A value as a hash key (see `exactKey`). */
export type ValueKey = number | string;

/**
 * Hash key of an entry's value: the value itself when the field fits a number exactly (hashing a
 * number costs less than making and hashing a string), else `valueKey`.
 */
export function exactKey(e: MatchField): ValueKey {
  return e.field.bits <= 53 && portNameOnly(e) === undefined ? Number(e.value) : valueKey(e);
}

/** The values a prefix-masked entry accepts, or undefined for a mask with holes. */
export function intervalOf(
  field: FieldDef,
  entry: { readonly value: bigint; readonly mask: bigint },
): Interval | undefined {
  const len = prefixLength(entry.mask & ones(field.bits), field.bits);
  return len < 0 ? undefined : { first: entry.value, last: entry.value | ones(field.bits - len) };
}

/** Orders single entries by the first value they accept (their value when the mask has holes). */
export function compareEntries(a: SingleEntry, b: SingleEntry): number {
  if (a.order !== b.order) return a.order - b.order;
  return a.first < b.first ? -1 : a.first > b.first ? 1 : 0;
}

/** A shape, and where its one key entry stands in the match (-1: it has none or several). */
interface PlacedShape {
  readonly shape: TermShape;
  readonly keyAt: number;
}

/**
 * The shape of an outline match, and what its flows' key entries share: the entry's mask, so
 * whether it is exact; its value too, and so its hash key, unless the entry is the outline's address.
 */
interface PlacedOutline extends PlacedShape {
  readonly exact: boolean;
  readonly key: ValueKey | undefined;
}

/** Clause flows of one analysis, their shapes shared through a trie over the match's fields. */
export class ClauseShapes {
  /**
   * Steps: a field, then (for protocol fields) its value, as a number (protocol values are 16
   * bits at most, and a number hashes much faster than a bigint).
   */
  private readonly root = new ShapeTrie<FieldDef | number, TermShape>();
  /**
   * By the outline match that lazily read flows share (see FlowOutline): their shape is found
   * once per outline, and their match is never made; a million clause flows share a few hundred.
   */
  private readonly byOutline = new Map<Match, PlacedOutline>();

  /**
   * The flow's outline read by its parts (see Flow.outlineMatch): a lazily read flow makes a new
   * outline object each time it is asked for one, a million of them for a large dump's clause flows.
   */
  of(flow: Flow): ClauseFlow {
    const match = flow.outlineMatch;
    if (match === undefined || flow.outlineVarying !== undefined) {
      const { shape, keyAt } = this.place(flow.match);
      return ClauseFlow.make(flow, shape, keyAt < 0 ? undefined : flow.match.fields[keyAt]);
    }
    // The outline's values are the flow's but for one address entry's.
    const entry = flow.outlineEntry!;
    let placed = this.byOutline.get(match);
    if (placed === undefined) this.byOutline.set(match, (placed = this.placeOutline(match, entry)));
    const { shape, keyAt, exact } = placed;
    if (keyAt < 0) return ClauseFlow.make(flow, shape, undefined);
    const e = match.fields[keyAt]!;
    if (keyAt !== entry) return ClauseFlow.make(flow, shape, e, exact, placed.key);
    // An IPv4 address: its number is its hash key (see exactKey).
    const address = flow.outlineAddress!;
    if (exact) return ClauseFlow.ofAddress(flow, shape, e, address);
    return ClauseFlow.make(flow, shape, withAddress(e, address), exact, address);
  }

  /** `entry`: the outline's (see FlowOutline). */
  private placeOutline(match: Match, entry: number): PlacedOutline {
    const placed = this.place(match);
    const e = placed.keyAt < 0 ? undefined : match.fields[placed.keyAt]!;
    return {
      ...placed,
      exact: e !== undefined && e.mask === fullMask(e.field),
      key: e === undefined || placed.keyAt === entry ? undefined : exactKey(e),
    };
  }

  /** The shape of a match whose protocol values (not the others) are the flow's. */
  private place(match: Match): PlacedShape {
    let node = this.root;
    let keyCount = 0;
    let keyAt = -1;
    const { fields } = match;
    for (let i = 0; i < fields.length; i++) {
      const e = fields[i]!;
      node = node.step(e.field);
      if (QUALIFIER_STORAGES.has(e.field.storage)) node = node.step(Number(e.value));
      else {
        keyCount++;
        keyAt = i;
      }
    }
    node.value ??= {
      qualifier: { fields: fields.filter((e) => QUALIFIER_STORAGES.has(e.field.storage)) },
      keyCount,
      storages: fields.map((e) => e.field.storage),
      keyStorage: keyCount === 1 ? fields[keyAt]!.field.storage : undefined,
    };
    return { shape: node.value, keyAt: keyCount === 1 ? keyAt : -1 };
  }
}
