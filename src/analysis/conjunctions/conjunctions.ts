/**
 * Conjunctive matches rebuilt into the rules they implement: for every (table, conjunction id),
 * its clause flows by dimension, its `conj_id` action flows, the member sets each dimension
 * accepts, and what is wrong with it. Semantics follow Open vSwitch's classifier
 * (reference ovs-conjunction.md): ids are scoped per table, clause flows only take part at their
 * own priority, a hard flow at the same or a higher priority wins.
 *
 * Everything is built from one pass over the flows plus hash lookups, so a dump of a million
 * flows is explained in seconds.
 */
import type { FieldDef } from '../../model/fields.ts';
import { type Flow, type Match, originFile, originLine, packetTotal } from '../../model/flow.ts';
import { MatchIndex } from '../../model/flow-index.ts';
import { matchesPacket } from '../../model/match.ts';
import { inMatchOrder, type Pipeline, tableKey } from '../../model/pipeline.ts';
import type { TableRef } from '../../model/tables.ts';
import { fullMask } from '../../syntax/field-value.ts';
import {
  type ClauseFlow,
  ClauseShapes,
  compareEntries,
  type Interval,
  SingleEntry,
  type TermShape,
  type ValueKey,
  valueKey,
} from './clause-shape.ts';
import { findOverlaps, type SimpleDim, simpleDim, sortedExactValues, valueAt } from './conjunction-overlap.ts';
import { ClauseRecords, ConjunctionList, LISTED_WIDTH, type RecordsByOwner } from './clause-records.ts';
import { type MemberNumbers, memberText } from './member-text.ts';
import { AsciiBuilder, asciiBytes } from '../../model/ascii-builder.ts';

/** One element of a dimension's accepted set, in the terms that read best for the field. */
export type Member =
  /** A single value (mask = the field's full mask) or an arbitrary bitwise-masked one. */
  | { readonly kind: 'value'; readonly value: bigint; readonly mask: bigint }
  /** An address block: `value/length`. */
  | { readonly kind: 'prefix'; readonly value: bigint; readonly length: number }
  /** Contiguous addresses or ports, both ends included. */
  | { readonly kind: 'range'; readonly first: bigint; readonly last: bigint };

/** What one group of a dimension's flows accepts, with the flows and what they all match. */
export type DimensionTerm = TermKind & {
  /** Protocol fields (eth_type, nw_proto) every flow of the term also matches. */
  readonly qualifier: Match;
  readonly flows: readonly Flow[];
  /** How many flows: `flows.length`, told without making the list (a report may only count them). */
  readonly flowCount: number;
};

/** A term of a set of values of one field. */
export type SetDimensionTerm = DimensionTerm & { readonly kind: 'set' };

type TermKind =
  /** Flows that differ in one field only: the field must be in `members`. */
  | { readonly kind: 'set'; readonly field: FieldDef; readonly members: readonly Member[] }
  /** Flows that match only protocol fields (Antrea's "any" clause): any such packet. */
  | { readonly kind: 'any' }
  /** Flows that constrain several fields each: one of these matches. */
  | { readonly kind: 'matches' };

export interface Dimension {
  /** 1-based clause index. */
  readonly k: number;
  readonly flows: readonly Flow[];
  readonly terms: readonly DimensionTerm[];
  /**
   * When every clause flow of the dump was read from one file: that file and each flow's line, in
   * the order of `flows`, told without reading the flows (a report may list millions).
   */
  readonly lines?: { readonly file: string; readonly numbers: readonly number[] };
}

/** Something wrong with a conjunction, with the flows that show it. */
export type ConjunctionProblem = ConjunctionFault & {
  /** The flows that carry the fault; for `empty-dimension`, `overlap` and `pre-empted`, as their kinds say. */
  readonly flows: readonly Flow[];
};

type ConjunctionFault =
  /** No flow carries clause k at the conjunction's priority (`flows`: those that carry it at another): it can never complete. */
  | { readonly kind: 'empty-dimension'; readonly severity: 'error'; readonly k: number }
  /** No `conj_id=ID` flow in the table (no flows): a completed match falls to whatever hard flow matches. */
  | { readonly kind: 'no-action-flow'; readonly severity: 'warning' }
  /** A `conj_id=ID` flow without clause flows. */
  | { readonly kind: 'orphan-action-flow'; readonly severity: 'warning' }
  /** Clause flows name different numbers of dimensions: those never complete together. */
  | { readonly kind: 'inconsistent-n'; readonly severity: 'error'; readonly counts: readonly number[] }
  /** Clause flows at several priorities: OVS treats each priority as a separate conjunction. */
  | { readonly kind: 'split-priority'; readonly severity: 'error'; readonly priorities: readonly number[] }
  /** The action flow's priority differs from the clauses': it then only competes with hard flows. */
  | { readonly kind: 'action-priority'; readonly severity: 'info' }
  /**
   * Another conjunction at the same table and priority accepts a common packet: OVS does not
   * define which wins. `flows`: one clause flow per dimension of both that a single packet satisfies.
   */
  | { readonly kind: 'overlap'; readonly severity: 'warning'; readonly otherId: number }
  /**
   * Clause flows a hard flow at the same or a higher priority always takes precedence over
   * (`flows`: each clause flow, then its hard flow). `dimensionDead` when no flow of the
   * dimension escapes.
   */
  | {
      readonly kind: 'pre-empted';
      readonly severity: 'warning' | 'error';
      readonly k: number;
      readonly dimensionDead: boolean;
    };

export interface Conjunction {
  readonly id: number;
  readonly table: TableRef;
  /** The clause flows' priority (the most common one when they disagree). */
  readonly priority: number;
  /** Number of dimensions (the most common one when clause flows disagree); 0 for an orphan action flow. */
  readonly n: number;
  readonly dimensions: readonly Dimension[];
  readonly actionFlows: readonly Flow[];
  /** Packets counted on the action flows; null when a count is unknown, undefined when the dump has no statistics. */
  readonly hits: bigint | null | undefined;
  readonly problems: readonly ConjunctionProblem[];
}

export interface ConjunctionReport {
  readonly conjunctions: readonly Conjunction[];
  /** Conjunctions for which the overlap search gave up before checking every candidate. */
  readonly overlapSearchIncomplete: number;
}

export interface ConjunctionOptions {
  /** Only these conjunction ids (every table); all when absent. */
  readonly ids?: readonly number[];
}

const PORT_STORAGES = new Set(['tp_src', 'tp_dst']);
/**
 * Overlap search bounds: a few partners make the point; candidates and steps keep a dump with
 * thousands of rules at one priority (Antrea's K8s NetworkPolicy tables) within seconds.
 */
const OVERLAP_LIMITS = { maxFound: 2, maxCandidates: 20, maxSteps: 2000 } as const;

interface Entry {
  readonly table: TableRef;
  readonly tableIndex: number;
  readonly id: number;
  /** Its place among the entries as first met: the owner of its clause records. */
  readonly ordinal: number;
  /** How many clause records it has (see ClauseRecords). */
  size: number;
  /** The clause flow added last: a flow's own clauses are its last. */
  lastClause: ClauseFlow | undefined;
  /**
   * Kept while gathering, so that the clause flows themselves are read again only where needed:
   * whether they all share the first one's priority (`p0`) and number of clauses (`n0`), the
   * highest clause index, the lowest priority, and the shapes of their matches.
   */
  consistent: boolean;
  p0: number;
  n0: number;
  width: number;
  minPriority: number;
  readonly shapes: TermShape[];
  /**
   * By clause k - 1: the shape every clause flow of clause k has, null when they differ. Known as
   * they are gathered, so that a dimension's terms need not read every flow again to tell.
   */
  readonly clauseShapes: (TermShape | null)[];
  /** In the order given while gathering, then in match order. */
  actionFlows: Flow[];
  /**
   * Where the entry's first flow in match order stands: its priority, and its place in the dump
   * (see `placeOf`). Entries are searched for overlaps in that order, the order of the flows as
   * the switch matches them, however the dump listed them.
   */
  topPriority: number;
  topPlace: number;
}

function isActionFlow(f: Flow): number | undefined {
  // The outline tells which fields a lazily read flow matches; only an action flow's match is made,
  // and not even that for one read by its shape when its line gives the id as ovs-ofctl prints it.
  const { fields } = f.outlineMatch ?? f.match;
  let conjId = false;
  for (let i = 0; i < fields.length && !conjId; i++) conjId = fields[i]!.field.storage === 'conj_id';
  if (!conjId) return undefined;
  if (f.outlineVarying !== undefined) {
    const id = f.printedConjId?.();
    if (id !== undefined) return id;
  }
  for (const e of f.match.fields) if (e.field.storage === 'conj_id') return Number(e.value);
  return undefined;
}

/** Whether a flow has a conjunction action, told from a lazily read flow's outline (actions of the same kinds). */
function hasConjunction(f: Flow): boolean {
  const actions = f.outlineActions;
  if (actions === 'conjunctions') return true;
  for (const a of actions ?? f.actions) if (a.kind === 'conjunction') return true;
  return false;
}

/** Hard flows of one table in the model's match index: "which hard flow covers this clause flow". */
class CoverIndex {
  private readonly index = new MatchIndex<Flow>();
  /** The hard flows' fields, each set once, with the best priority of a flow matching just those. */
  private readonly fieldSets: { readonly storages: ReadonlySet<string>; top: number }[] = [];
  /** Per clause shape, the best priority of a hard flow whose fields the shape has every one of. */
  private readonly ceilings = new Map<TermShape, number>();

  /** `hard` in match order. */
  constructor(hard: readonly Flow[]) {
    const sets = new Map<string, { storages: ReadonlySet<string>; top: number }>();
    for (const f of hard) {
      // An action flow never matches the first lookup (conj_id is 0).
      if (isActionFlow(f) !== undefined) continue;
      this.index.add(f);
      const storages = f.match.fields.map((e) => e.field.storage).sort();
      const key = storages.join(' ');
      const set = sets.get(key);
      if (set) set.top = Math.max(set.top, f.priority);
      else sets.set(key, { storages: new Set(storages), top: f.priority });
    }
    this.fieldSets.push(...sets.values());
  }

  /**
   * The best priority of a hard flow that could cover flows of this shape: one that matches a
   * field the shape does not match never covers them. Most clause flows are above it, and their
   * match is then never looked up.
   */
  ceiling(shape: TermShape): number {
    let top = this.ceilings.get(shape);
    if (top === undefined) {
      top = -1;
      for (const set of this.fieldSets)
        if (set.top > top && [...set.storages].every((x) => shape.storages.includes(x))) top = set.top;
      this.ceilings.set(shape, top);
    }
    return top;
  }

  /** Whether a hard flow could cover a flow of one of these shapes at `priority` or above. */
  reaches(shapes: readonly TermShape[], priority: number): boolean {
    return shapes.some((s) => this.ceiling(s) >= priority);
  }

  /**
   * The highest-priority hard flow at the clause flow's priority or above that matches every
   * packet it matches; kept on the clause flow, which several conjunctions may share.
   */
  coverOf(clause: ClauseFlow): Flow | undefined {
    if (clause.cover === undefined)
      clause.cover =
        clause.flow.priority > this.ceiling(clause.shape)
          ? null
          : (this.index.covering(clause.flow.match, clause.flow.priority) ?? null);
    return clause.cover ?? undefined;
  }
}

/** The most common value; ties go to the largest. */
function mode(values: readonly number[] | Int32Array): number {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = values[0] ?? 0;
  let bestCount = 0;
  for (const [v, c] of counts) if (c > bestCount || (c === bestCount && v > best)) [best, bestCount] = [v, c];
  return best;
}

// ---------------------------------------------------------------------------------------------
// Member sets

function isAddress(field: FieldDef): boolean {
  return field.format === 'ipv4' || field.format === 'ipv6';
}

/**
 * An address interval as one CIDR block when it is one, otherwise as a range. (Plain bigint
 * arithmetic: ip-num's range types go through binary strings and cost milliseconds per call
 * on dumps with thousands of address sets.)
 */
function addressMember(field: FieldDef, first: bigint, last: bigint): Member {
  if (first === last) return { kind: 'prefix', value: first, length: field.bits };
  const size = last - first + 1n;
  const aligned = (size & (size - 1n)) === 0n && (first & (size - 1n)) === 0n;
  // A power of two converts to a number exactly, however wide.
  if (aligned) return { kind: 'prefix', value: first, length: field.bits - Math.log2(Number(size)) };
  return { kind: 'range', first, last };
}

/**
 * The values a set of single-field entries accepts: prefix-masked addresses and ports become
 * merged blocks and ranges; other masks (OVS allows any bit pattern) and other fields stay as
 * listed values.
 */
export function memberSet(field: FieldDef, entries: readonly { value: bigint; mask: bigint }[]): Member[] {
  return members(
    field,
    memberParts(
      field,
      entries.map(({ value, mask }) => new SingleEntry({ field, value, mask })),
    ),
  );
}

/** `memberSet` of entries keyed, measured and merged already. */
function members(field: FieldDef, parts: MemberParts): Member[] {
  const out: Member[] = [];
  const { merged } = parts;
  if (merged)
    merged.each((first, last) => {
      out.push(numberMember(field, parts.address, first, last));
      return true;
    });
  else for (const iv of parts.wide) out.push(bigintMember(field, parts.address, iv.first, iv.last));
  for (const m of parts.listed) out.push(m);
  return out;
}

/**
 * What a set of entries accepts before its members are made: merged intervals (as numbers for a
 * field of 53 bits or fewer, `merged`, else `wide`), then the values listed as they are, in order.
 */
interface MemberParts {
  readonly address: boolean;
  readonly merged: MergedNumbers | undefined;
  readonly wide: readonly Interval[];
  readonly listed: readonly Member[];
}

/** `sorted`: the entries' values, when they all match exactly, sorted already (see sortedExactValues). */
function memberParts(field: FieldDef, entries: readonly SingleEntry[], sorted?: Float64Array): MemberParts {
  const address = isAddress(field);
  const rangeable = address || PORT_STORAGES.has(field.storage);
  const narrow = field.bits <= 53;
  if (sorted && narrow) return sortedMemberParts(field, address, rangeable, sorted);
  // Intervals of a narrow field are taken as numbers as the entries are read, each entry once.
  const starts = new NumberStarts(narrow && rangeable ? entries.length : 0);
  const wide: SingleEntry[] = [];
  const listed = new Map<ValueKey, Member>();
  for (let i = 0; i < entries.length; i++) {
    const s = entries[i]!;
    if (rangeable && (s.exact || s.last !== undefined)) {
      if (narrow) starts.add(s);
      else wide.push(s);
    } else
      listed.set(s.exact ? s.key : `${valueKey(s.e)}/${s.e.mask.toString(16)}`, {
        kind: 'value',
        value: s.e.value,
        mask: s.e.mask,
      });
  }
  const rest = [...listed.values()].sort((a, b) => {
    const av = a.kind === 'value' ? a.value : 0n;
    const bv = b.kind === 'value' ? b.value : 0n;
    return av < bv ? -1 : av > bv ? 1 : 0;
  });
  return {
    address,
    merged: narrow ? starts.merged() : undefined,
    wide: narrow ? [] : mergedBigints(wide),
    listed: rest,
  };
}

/**
 * memberParts of exact values below 2^32, sorted (see sortedExactValues): runs of them merged, or
 * each value listed once, as memberParts gives them, read in order without a sort or a flow read.
 */
function sortedMemberParts(field: FieldDef, address: boolean, rangeable: boolean, sorted: Float64Array): MemberParts {
  const listed: Member[] = [];
  if (!rangeable) {
    let last = -1;
    for (let p = 0; p < sorted.length; p++) {
      const value = valueAt(sorted, p);
      if (value !== last) listed.push({ kind: 'value', value: BigInt(value), mask: fullMask(field) });
      last = value;
    }
  }
  return { address, merged: new MergedNumbers(rangeable ? sorted : EMPTY, true), wide: [], listed };
}

const EMPTY = new Float64Array(0);

/** The member of an interval of a wider field (IPv6 addresses). */
function bigintMember(field: FieldDef, address: boolean, first: bigint, last: bigint): Member {
  if (address) return addressMember(field, first, last);
  return first === last ? { kind: 'value', value: first, mask: fullMask(field) } : { kind: 'range', first, last };
}

/**
 * `text` of `numberMember(field, address, first, last)`, an IPv4 address or block written from
 * the numbers without making the member (`text` writes those as memberText does).
 */
function numberMemberText(
  field: FieldDef,
  address: boolean,
  first: number,
  last: number,
  text: (m: Member) => string,
): string {
  if (!address || field.format !== 'ipv4') return text(numberMember(field, address, first, last));
  const out = (scratch ??= new AsciiBuilder());
  writeIpv4Member(out, field, first, last);
  return out.take();
}

/** Builds the texts of single members (see numberMemberText). */
let scratch: AsciiBuilder | undefined;

/** An IPv4 address, block or range (`first`–`last`) as memberText writes it. */
function writeIpv4Member(out: AsciiBuilder, field: FieldDef, first: number, last: number): void {
  const length = blockLength(field, first, last);
  out.ipv4(first);
  if (length === undefined) {
    out.char(0x2d); // -
    out.ipv4(last);
  } else if (length !== field.bits) {
    out.char(0x2f); // /
    out.decimal(length);
  }
}

/**
 * A set term whose members are made when first read: a dimension may hold hundreds of thousands,
 * and a report that writes them as text (see termMemberTexts) need not make them at all.
 */
class SetTerm {
  readonly kind = 'set';
  readonly field: FieldDef;
  readonly qualifier: Match;
  private readonly entries: readonly SingleEntry[];
  private readonly listFlows: () => readonly Flow[];
  /** The entries' values, when they all match exactly, sorted already (see sortedExactValues). */
  private readonly sorted: Float64Array | undefined;
  private parts: MemberParts | undefined;
  private made: readonly Member[] | undefined;

  constructor(
    field: FieldDef,
    entries: readonly SingleEntry[],
    qualifier: Match,
    flows: () => readonly Flow[],
    sorted: Float64Array | undefined,
  ) {
    this.field = field;
    this.entries = entries;
    this.qualifier = qualifier;
    this.listFlows = flows;
    this.sorted = sorted;
  }

  get flows(): readonly Flow[] {
    return this.listFlows();
  }

  get flowCount(): number {
    return this.entries.length;
  }

  get members(): readonly Member[] {
    return (this.made ??= members(this.field, this.memberParts()));
  }

  private memberParts(): MemberParts {
    return (this.parts ??= memberParts(this.field, this.entries, this.sorted));
  }

  /** See termMemberTexts. */
  memberTexts(numbers: MemberNumbers, limit: number, named: ((value: bigint) => string) | undefined): MemberTexts {
    const { field } = this;
    const text = (m: Member): string => memberWords(field, m, numbers, named);
    if (this.made) return { texts: this.made.slice(0, limit).map(text), count: this.made.length };
    const { address, merged, wide, listed } = this.memberParts();
    const texts: string[] = [];
    const runs = merged ? merged.count : wide.length;
    if (merged)
      merged.each((first, last) => {
        if (texts.length >= limit) return false;
        texts.push(numberMemberText(field, address, first, last, text));
        return true;
      });
    else
      for (let i = 0; i < runs && texts.length < limit; i++)
        texts.push(text(bigintMember(field, address, wide[i]!.first, wide[i]!.last)));
    for (let i = 0; i < listed.length && texts.length < limit; i++) texts.push(text(listed[i]!));
    return { texts, count: runs + listed.length };
  }

  /**
   * Every member's text (as memberTexts gives it) written into `out`, `separator` between them,
   * when they are IPv4 addresses and blocks alone; false (nothing written) otherwise. A set may
   * hold hundreds of thousands, and a report lists them all.
   */
  writeMembers(out: AsciiBuilder, separator: string): boolean {
    const { field } = this;
    if (this.made || field.format !== 'ipv4') return false;
    const { address, merged, listed } = this.memberParts();
    if (!address || !merged || listed.length > 0) return false;
    const between = asciiBytes(separator);
    let first = true;
    merged.each((from, to) => {
      if (!first) out.copy(between);
      first = false;
      writeIpv4Member(out, field, from, to);
      return true;
    });
    return true;
  }
}

/** The first members of a set as text, and how many there are. */
export interface MemberTexts {
  readonly texts: readonly string[];
  readonly count: number;
}

/** A member as memberText writes it, or one whole value in the words `named` gives it. */
function memberWords(
  field: FieldDef,
  m: Member,
  numbers: MemberNumbers,
  named: ((value: bigint) => string) | undefined,
): string {
  return named && m.kind === 'value' && m.mask === fullMask(field) ? named(m.value) : memberText(field, m, numbers);
}

/**
 * The members of a set term as text (see memberText; `named`, when given, words one whole value),
 * the first `limit` of them, without making them when the term has not yet: text is all a report
 * needs of most.
 */
export function termMemberTexts(
  term: SetDimensionTerm,
  numbers: MemberNumbers = 'field',
  limit = Infinity,
  named?: (value: bigint) => string,
): MemberTexts {
  if (term instanceof SetTerm) return term.memberTexts(numbers, limit, named);
  const texts = term.members.slice(0, limit).map((m) => memberWords(term.field, m, numbers, named));
  return { texts, count: term.members.length };
}

/**
 * Every member of a set term as text (see termMemberTexts) written into `out`, `separator`
 * between them, when that can be done without a string for each (see SetTerm.writeMembers); false
 * (nothing written) otherwise.
 */
export function writeTermMembers(term: SetDimensionTerm, out: AsciiBuilder, separator: string): boolean {
  return term instanceof SetTerm && term.writeMembers(out, separator);
}

/**
 * `member` of an interval of a field of 53 bits or fewer, worked out in numbers: a dimension may
 * hold hundreds of thousands of members, and bigint arithmetic allocates at every step.
 */
function numberMember(field: FieldDef, address: boolean, first: number, last: number): Member {
  const value = BigInt(first);
  const length = address ? blockLength(field, first, last) : undefined;
  if (length !== undefined) return { kind: 'prefix', value, length };
  if (first === last) return { kind: 'value', value, mask: fullMask(field) };
  return { kind: 'range', first: value, last: BigInt(last) };
}

/**
 * The prefix length of the interval `first`–`last` (below 2^53) of an address field when it is
 * one aligned block (a single address: the field's width), else undefined.
 */
function blockLength(field: FieldDef, first: number, last: number): number | undefined {
  if (first === last) return field.bits;
  const size = last - first + 1;
  const log = Math.round(Math.log2(size));
  return 2 ** log === size && first % size === 0 ? field.bits - log : undefined;
}

/**
 * Intervals of values below 2^53 merged where they overlap or touch, walked in ascending order
 * from their starts, sorted: neither an object nor two numbers are kept per interval (a dimension
 * may hold hundreds of thousands, which a report walks once for its first few and once for all).
 */
class MergedNumbers {
  private readonly starts: Float64Array;
  private readonly packed: boolean;
  private readonly blocks: ReadonlyMap<number, number> | undefined;
  private counted: number | undefined;

  /**
   * `starts` ascending: values packed with their places (see valueAt) when `packed`, or the
   * intervals' starts, `blocks` giving the last value of those of more than one.
   */
  constructor(starts: Float64Array, packed: boolean, blocks?: ReadonlyMap<number, number>) {
    this.starts = starts;
    this.packed = packed;
    this.blocks = blocks;
  }

  /** How many intervals. */
  get count(): number {
    return (this.counted ??= this.walk(undefined));
  }

  /** Hands each interval to `visit` in ascending order, until it says false. */
  each(visit: (first: number, last: number) => boolean): void {
    this.walk(visit);
  }

  /**
   * each, telling how many intervals it walked, and counting them once it has walked them all;
   * without `visit`, every one is counted without a call for each (a report counts the intervals
   * of every set, and lists only the first few).
   */
  private walk(visit: ((first: number, last: number) => boolean) | undefined): number {
    const { starts, packed, blocks } = this;
    let first = 0;
    let last = -2;
    let n = 0;
    for (let p = 0; p < starts.length; p++) {
      const start = packed ? valueAt(starts, p) : starts[p]!;
      const end = blocks?.get(start) ?? start;
      if (p > 0 && start <= last + 1) {
        if (end > last) last = end;
        continue;
      }
      if (p > 0) {
        n++;
        if (visit !== undefined && !visit(first, last)) return n;
      }
      first = start;
      last = end;
    }
    if (starts.length > 0) {
      n++;
      visit?.(first, last);
    }
    this.counted = n;
    return n;
  }
}

/**
 * Intervals of values below 2^53, gathered, then merged where they overlap or touch. A native
 * sort of the starting values: a large address set is mostly single addresses, and the few
 * blocks among them are found by their start.
 */
class NumberStarts {
  private readonly starts: Float64Array;
  private count = 0;
  /** The last value of each block (an interval of more than one value), by its start. */
  private blocks: Map<number, number> | undefined;

  /** `capacity`: the most intervals added. */
  constructor(capacity: number) {
    this.starts = new Float64Array(capacity);
  }

  /** Adds the interval of an exact or prefix-masked entry. */
  add(r: SingleEntry): void {
    this.starts[this.count++] = r.order;
    if (r.exact) return;
    const end = Number(r.last);
    this.blocks ??= new Map();
    if ((this.blocks.get(r.order) ?? -1) < end) this.blocks.set(r.order, end);
  }

  merged(): MergedNumbers {
    return new MergedNumbers(this.starts.subarray(0, this.count).sort(), false, this.blocks);
  }
}

/** NumberStarts' merged intervals for wider values (IPv6 addresses), in bigint arithmetic. */
function mergedBigints(runs: readonly SingleEntry[]): Interval[] {
  const out: { first: bigint; last: bigint }[] = [];
  for (const r of [...runs].sort(compareEntries)) {
    const open = out[out.length - 1];
    if (open && r.first <= open.last + 1n) {
      if (r.last! > open.last) open.last = r.last!;
    } else out.push({ first: r.first, last: r.last! });
  }
  return out;
}

/**
 * One term of flows that share a shape; `flows` makes their list, once. `sorted`: their values,
 * when they all match exactly, sorted already (see sortedExactValues).
 */
function term(group: readonly ClauseFlow[], flows: () => readonly Flow[], sorted?: Float64Array): DimensionTerm {
  const { shape, single } = group[0]!;
  const { qualifier } = shape;
  if (shape.keyCount === 0 || !single)
    return {
      kind: shape.keyCount === 0 ? 'any' : 'matches',
      qualifier,
      flowCount: group.length,
      get flows() {
        return flows();
      },
    };
  // A clause flow with a single entry is that entry (see ClauseFlow).
  return new SetTerm(single.e.field, group, qualifier, flows, sorted);
}

/**
 * Splits a dimension's flows into terms: by protocol qualifier and by which other fields they
 * match. `flows` makes the dimension's list of them, once; `sorted`, see term.
 */
function dimensionTerms(
  clauses: readonly ClauseFlow[],
  flows: () => readonly Flow[],
  oneShape: boolean,
  sorted: Float64Array | undefined,
): DimensionTerm[] {
  const shape = clauses[0]?.shape;
  // Most dimensions are one term: it shares the dimension's flow list.
  if (oneShape || clauses.every((c) => c.shape === shape))
    return clauses.length === 0 ? [] : [term(clauses, flows, sorted)];
  const groups = new Map<TermShape, ClauseFlow[]>();
  for (const c of clauses) {
    const g = groups.get(c.shape);
    if (g) g.push(c);
    else groups.set(c.shape, [c]);
  }
  return [...groups.values()].map((group) => {
    let list: readonly Flow[] | undefined;
    return term(group, () => (list ??= group.map((c) => c.flow)));
  });
}

interface Built {
  readonly entry: Entry;
  readonly priority: number;
  readonly n: number;
  /** Clause flows at `priority`, by dimension. */
  readonly dims: ClauseFlow[][];
  /** Their lines, by dimension (see EntryClauses). */
  readonly lines: number[][];
  readonly problems: ConjunctionProblem[];
  wanted: boolean;
  /** The values of each of `dims` sorted by the overlap search, when it searched them (see sortedExactValues). */
  sorted: (Float64Array | undefined)[] | undefined;
}

// ---------------------------------------------------------------------------------------------

/**
 * An entry's clause flows with, at the same index, the clause (k) and the number of clauses (n)
 * their action names; made from its records when the entry is built.
 */
interface EntryClauses {
  readonly clauses: ClauseFlow[];
  readonly ks: Int32Array;
  readonly ns: Int32Array;
  /** The clause flows' lines, read once as they were gathered: reports refer to them by line. */
  readonly lines: Int32Array;
}

/** The clause flows of a dump as gathered, and the line of each. */
interface GatheredClauses {
  readonly flows: readonly ClauseFlow[];
  readonly lines: readonly number[];
}

/** The entry's clause flows, k, n and lines, in the order gathered. */
function entryClauses(
  e: Entry,
  records: ClauseRecords,
  grouped: RecordsByOwner,
  gathered: GatheredClauses,
): EntryClauses {
  const from = grouped.start[e.ordinal]!;
  const clauses = new Array<ClauseFlow>(e.size);
  const ks = new Int32Array(e.size);
  const ns = new Int32Array(e.size);
  const lines = new Int32Array(e.size);
  for (let i = 0; i < e.size; i++) {
    const clause = grouped.clauses[from + i]!;
    clauses[i] = gathered.flows[clause]!;
    lines[i] = gathered.lines[clause]!;
    ks[i] = grouped.ks[from + i]!;
    ns[i] = records.n(grouped.order[from + i]!);
  }
  return { clauses, ks, ns, lines };
}

/** An entry's clause flows (and their k and n) into match order; nearly always they are in it already. */
function sortClausesByPriority({ clauses, ks, ns, lines }: EntryClauses): void {
  let sorted = true;
  for (let i = 1; i < clauses.length && sorted; i++)
    sorted = clauses[i]!.flow.priority <= clauses[i - 1]!.flow.priority;
  if (sorted) return;
  const order = clauses.map((_, i) => i).sort((a, b) => clauses[b]!.flow.priority - clauses[a]!.flow.priority || a - b);
  const [c, k, n, l] = [
    order.map((i) => clauses[i]!),
    order.map((i) => ks[i]!),
    order.map((i) => ns[i]!),
    order.map((i) => lines[i]!),
  ];
  for (let i = 0; i < order.length; i++) [clauses[i], ks[i], ns[i], lines[i]] = [c[i]!, k[i]!, n[i]!, l[i]!];
}

function build(entry: Entry, { clauses, ks, ns, lines }: EntryClauses, cover: CoverIndex | undefined): Built {
  const problems: ConjunctionProblem[] = [];
  if (clauses.length === 0) {
    problems.push({ kind: 'orphan-action-flow', severity: 'warning', flows: entry.actionFlows });
    const priority = entry.actionFlows[0]?.priority ?? 0;
    return { entry, priority, n: 0, dims: [], lines: [], problems, wanted: true, sorted: undefined };
  }
  // A consistent entry (as gathering saw) with clause flows is built by buildConsistent: here its
  // clause flows differ in priority or in number of clauses, which the modes settle.
  let width = entry.width;
  // Made only where needed: a conjunction may have hundreds of thousands of clause flows.
  const flows = (): Flow[] => clauses.map((c) => c.flow);
  const priority = mode(clauses.map((c) => c.flow.priority));
  const n = mode(ns);
  const counts = [...new Set(ns)].sort((a, b) => a - b);
  if (counts.length > 1)
    problems.push({
      kind: 'inconsistent-n',
      severity: 'error',
      counts,
      flows: flows().filter((_, i) => ns[i] !== n),
    });
  const priorities = [...new Set(clauses.map((c) => c.flow.priority))].sort((a, b) => b - a);
  if (priorities.length > 1)
    problems.push({
      kind: 'split-priority',
      severity: 'error',
      priorities,
      flows: flows().filter((f) => f.priority !== priority),
    });
  if (n > width) width = n;
  const dims: ClauseFlow[][] = Array.from({ length: width }, () => []);
  const dimLines: number[][] = Array.from({ length: width }, () => []);
  for (let i = 0; i < clauses.length; i++)
    if (clauses[i]!.flow.priority === priority) {
      dims[ks[i]! - 1]!.push(clauses[i]!);
      dimLines[ks[i]! - 1]!.push(lines[i]!);
    }
  const elsewhere = (k: number): Flow[] => flows().filter((_, j) => ks[j] === k);
  return built(entry, priority, n, { dims, lines: dimLines }, problems, cover, elsewhere);
}

/**
 * build of an entry whose clause flows share one priority and one number of clauses (nearly
 * every one, as gathering saw): its records are dealt straight into its dimensions, without
 * listing its clause flows, k and n first.
 */
function buildConsistent(
  entry: Entry,
  grouped: RecordsByOwner,
  gathered: GatheredClauses,
  cover: CoverIndex | undefined,
): Built {
  const width = Math.max(entry.width, entry.n0);
  const { clauses, ks } = grouped;
  const from = grouped.start[entry.ordinal]!;
  const end = from + entry.size;
  // Each dimension's lists made at their size, counted first: grown by pushes, the lists of a
  // large dump were copied at each growth and made garbage several times their size.
  const counts = new Int32Array(width);
  for (let i = from; i < end; i++) counts[ks[i]! - 1]!++;
  const dims = new Array<ClauseFlow[]>(width);
  const lines = new Array<number[]>(width);
  for (let k = 0; k < width; k++) {
    dims[k] = new Array<ClauseFlow>(counts[k]!);
    lines[k] = new Array<number>(counts[k]!);
    counts[k] = 0;
  }
  for (let i = from; i < end; i++) {
    const clause = clauses[i]!;
    const k = ks[i]! - 1;
    const at = counts[k]!++;
    dims[k]![at] = gathered.flows[clause]!;
    lines[k]![at] = gathered.lines[clause]!;
  }
  // Every clause flow is at the entry's priority: a dimension without one has none elsewhere.
  return built(entry, entry.p0, entry.n0, { dims, lines }, [], cover, () => []);
}

/**
 * The rest of build, once the clause flows at `priority` are dealt into dimensions: what is
 * wrong with each dimension and with the action flows. `elsewhere(k)`: dimension k's flows at
 * other priorities.
 */
function built(
  entry: Entry,
  priority: number,
  n: number,
  { dims, lines }: { readonly dims: ClauseFlow[][]; readonly lines: number[][] },
  problems: ConjunctionProblem[],
  cover: CoverIndex | undefined,
  elsewhere: (k: number) => Flow[],
): Built {
  // No clause flow is looked up when no hard flow of the table could cover a shape of theirs.
  const covers = cover?.reaches(entry.shapes, entry.minPriority) ? cover : undefined;
  dims.forEach((dim, i) => {
    if (dim.length === 0) {
      problems.push({ kind: 'empty-dimension', severity: 'error', k: i + 1, flows: elsewhere(i + 1) });
    } else if (covers) {
      const hits: Flow[] = [];
      for (const c of dim) {
        const h = covers.coverOf(c);
        if (h) hits.push(c.flow, h);
      }
      if (hits.length > 0) {
        const dead = hits.length / 2 === dim.length;
        problems.push({
          kind: 'pre-empted',
          severity: dead ? 'error' : 'warning',
          k: i + 1,
          dimensionDead: dead,
          flows: hits,
        });
      }
    }
  });
  if (entry.actionFlows.length === 0) problems.push({ kind: 'no-action-flow', severity: 'warning', flows: [] });
  const offPriority = entry.actionFlows.filter((f) => f.priority !== priority);
  if (offPriority.length > 0) problems.push({ kind: 'action-priority', severity: 'info', flows: offPriority });
  return { entry, priority, n, dims, lines, problems, wanted: true, sorted: undefined };
}

/**
 * A dimension whose flows and terms are worked out when first read: `check` never reads the
 * terms, the reports never the flows whole (they count a term's flows, and give them by line).
 * `oneShape`: its clause flows are known to share one shape; `sorted`: their values, when the
 * overlap search sorted them (see sortedExactValues).
 */
function dimension(
  k: number,
  clauses: readonly ClauseFlow[],
  lines: readonly number[] | undefined,
  file: string | null | undefined,
  oneShape: boolean,
  sorted: Float64Array | undefined,
  termsByList: Map<readonly ClauseFlow[], readonly DimensionTerm[]>,
): Dimension {
  let flows: readonly Flow[] | undefined;
  let terms: readonly DimensionTerm[] | undefined;
  const d: { -readonly [K in keyof Dimension]: Dimension[K] } = {
    k,
    get flows() {
      return (flows ??= clauses.map((c) => c.flow));
    },
    // Shared by the dimensions of one list (see SameLists): their member sets are made once.
    get terms() {
      if (terms === undefined) {
        terms = termsByList.get(clauses);
        if (terms === undefined)
          termsByList.set(clauses, (terms = dimensionTerms(clauses, () => this.flows, oneShape, sorted)));
      }
      return terms;
    },
  };
  if (lines && file) d.lines = { file, numbers: lines };
  return d;
}

/**
 * Lists of clause flows, each list with the same flows in the same order given as the first one
 * met: Antrea serves every rule that names an address group with the group's clause flows, each
 * flow carrying a conjunction action for each rule, so the dimensions of many conjunctions list
 * the same flows.
 */
class SameLists {
  /** By their first flow. */
  private readonly byFirst = new Map<ClauseFlow, ClauseFlow[][]>();

  of(list: ClauseFlow[]): ClauseFlow[] {
    const first = list[0];
    if (first === undefined) return list;
    const known = this.byFirst.get(first);
    if (known === undefined) {
      this.byFirst.set(first, [list]);
      return list;
    }
    for (const other of known) if (sameItems(other, list)) return other;
    known.push(list);
    return list;
  }
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A table's conjunction entries by id, its hard flows, and where it stands in the pipeline. */
interface TableEntries {
  readonly ref: TableRef;
  readonly index: number;
  /**
   * The entries of ids below SLOTTED_IDS: at an id's place, its entry's ordinal + 1 (0: none yet),
   * grown as the ids need. A dump names an entry millions of times, and a place is found several
   * times faster than a hash entry.
   */
  slots: Int32Array;
  /** The entries of larger ids. */
  readonly ids: Map<number, Entry>;
  /** Flows without conjunction actions, in the order given. */
  readonly hard: Flow[];
}

/** See TableEntries.slots: OVS and Antrea number conjunctions from 1, and a few thousand are in use. */
const SLOTTED_IDS = 1 << 20;
const NO_SLOTS = new Int32Array(0);

/** The table's entry of conjunction `id` (`entries` by ordinal), undefined when there is none yet. */
function entryOf(table: TableEntries, id: number, entries: readonly Entry[]): Entry | undefined {
  if (id >= SLOTTED_IDS) return table.ids.get(id);
  const { slots } = table;
  const slot = id < slots.length ? slots[id]! : 0;
  return slot === 0 ? undefined : entries[slot - 1];
}

/** Files a new entry of the table under its id (see entryOf). */
function fileEntry(table: TableEntries, e: Entry): void {
  const { id } = e;
  if (id >= SLOTTED_IDS) {
    table.ids.set(id, e);
    return;
  }
  if (id >= table.slots.length) {
    let size = Math.max(64, table.slots.length * 2);
    while (size <= id) size *= 2;
    const grown = new Int32Array(size);
    grown.set(table.slots);
    table.slots = grown;
  }
  table.slots[id] = e.ordinal + 1;
}

/** A flow's place in the dump, and the place of one of its actions among them, as one number. */
function placeOf(flowIndex: number, actionIndex: number): number {
  return flowIndex * 0x10000 + actionIndex;
}

/** The entry of conjunction `id` in the table, which the flow at `place` in the dump, of `priority`, belongs to. */
function entryFor(table: TableEntries, id: number, priority: number, place: number, entries: Entry[]): Entry {
  let e = entryOf(table, id, entries);
  if (!e) {
    const { ref, index } = table;
    e = {
      table: ref,
      tableIndex: index,
      id,
      ordinal: entries.length,
      size: 0,
      lastClause: undefined,
      consistent: true,
      p0: 0,
      n0: 0,
      width: 0,
      minPriority: Infinity,
      shapes: [],
      clauseShapes: [],
      actionFlows: [],
      topPriority: priority,
      topPlace: place,
    };
    entries.push(e);
    fileEntry(table, e);
  } else if (priority > e.topPriority) {
    e.topPriority = priority;
    e.topPlace = place;
  }
  return e;
}

/** Every conjunction of the pipeline (or the requested ids), in table order, then by priority and id. */
/** Every conjunction id the flows name, in a clause's action or a conj_id match, ascending. */
export function conjunctionIds(flows: readonly Flow[]): number[] {
  const ids = new Set<number>();
  for (const f of flows) {
    if (hasConjunction(f)) for (const a of f.actions) if (a.kind === 'conjunction') ids.add(a.id);
    const id = isActionFlow(f);
    if (id !== undefined) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}

export function findConjunctions(pipeline: Pipeline, options: ConjunctionOptions = {}): ConjunctionReport {
  const entries: Entry[] = [];
  const tables: TableEntries[] = [];
  const byKey = new Map<string, TableEntries>();
  for (const t of pipeline.tables.values()) {
    const table: TableEntries = { ref: t.ref, index: tables.length, slots: NO_SLOTS, ids: new Map(), hard: [] };
    byKey.set(tableKey(t.ref), table);
    tables.push(table);
  }
  const shapes = new ClauseShapes();
  const clauseFlows: ClauseFlow[] = [];
  const clauseLines: number[] = [];
  // The file every clause flow was read from; null when they come from several.
  let clauseFile: string | null | undefined;
  const records = new ClauseRecords();
  const list = new ConjunctionList();
  // In the order the flows were read, which is how they lie in memory (see Pipeline.flows);
  // entries and hard flows are put in match order afterwards.
  let lastRef: TableRef | undefined;
  let table: TableEntries | undefined;
  const { flows } = pipeline;
  for (let place = 0; place < flows.length; place++) {
    const f = flows[place]!;
    if (f.table !== lastRef) {
      table = byKey.get(tableKey(f.table));
      lastRef = f.table;
    }
    if (!table) continue;
    // A lazily read flow of conjunctions alone is read from its line, its action list never made.
    list.count = 0;
    if (!f.eachConjunction?.(list.add)) {
      list.count = 0;
      if (hasConjunction(f))
        for (const a of f.actions) if (a.kind === 'conjunction') list.add(a.id, a.clause, a.nClauses);
    }
    if (list.count > 0) {
      // Its shape found by the parts of its outline (see ClauseShapes.of).
      const clause = shapes.of(f);
      const { shape } = clause;
      const clauseIndex = clauseFlows.push(clause) - 1;
      clauseLines.push(originLine(f));
      if (clauseFile !== null) {
        const file = originFile(f);
        clauseFile = clauseFile === undefined || clauseFile === file ? file : null;
      }
      const flowRecords = records.count;
      // Read once for the flow, not for each of its actions: outside optimised code, as a short run
      // reads, each getter or method is a call (a lazily read flow's priority is one).
      const { priority } = f;
      const flowPlace = placeOf(place, 0);
      const listed = list.numbers;
      for (let i = 0, at = 0; i < list.count; i++, at += LISTED_WIDTH) {
        const k = listed[at + 1]!;
        const n = listed[at + 2]!;
        // The place of the flow's i-th action (see placeOf).
        const e = entryFor(table, listed[at]!, priority, flowPlace + i, entries);
        // The same conjunction action twice on one flow counts once: this flow's records are the last.
        if (e.lastClause === clause && records.has(flowRecords, e.ordinal, k)) continue;
        if (e.lastClause === undefined) {
          e.p0 = priority;
          e.n0 = n;
        } else if (priority !== e.p0 || n !== e.n0) e.consistent = false;
        if (k > e.width) e.width = k;
        if (priority < e.minPriority) e.minPriority = priority;
        if (e.lastClause?.shape !== shape && !e.shapes.includes(shape)) e.shapes.push(shape);
        const known = e.clauseShapes[k - 1];
        if (known === undefined) e.clauseShapes[k - 1] = shape;
        else if (known !== shape) e.clauseShapes[k - 1] = null;
        e.lastClause = clause;
        e.size++;
        records.add(e.ordinal, clauseIndex, k, n);
      }
      continue;
    }
    table.hard.push(f);
    const id = isActionFlow(f);
    if (id !== undefined) entryFor(table, id, f.priority, placeOf(place, 0), entries).actionFlows.push(f);
  }
  // Nearly every conjunction has one action flow, in match order as it is.
  for (const e of entries) if (e.actionFlows.length > 1) e.actionFlows = inMatchOrder(e.actionFlows);
  const grouped = records.byOwner(entries.length);
  entries.sort((a, b) => a.tableIndex - b.tableIndex || b.topPriority - a.topPriority || a.topPlace - b.topPlace);

  const wanted = options.ids ? new Set(options.ids) : undefined;
  const covers = new Map<number, CoverIndex>();
  const built: Built[] = [];
  for (const e of entries) {
    let cover: CoverIndex | undefined;
    if (e.size > 0 && (!wanted || wanted.has(e.id))) {
      cover = covers.get(e.tableIndex);
      if (!cover) covers.set(e.tableIndex, (cover = new CoverIndex(inMatchOrder(tables[e.tableIndex]!.hard))));
    }
    const gathered = { flows: clauseFlows, lines: clauseLines };
    let b: Built;
    if (e.consistent && e.size > 0) b = buildConsistent(e, grouped, gathered, cover);
    else {
      const clauses = entryClauses(e, records, grouped, gathered);
      sortClausesByPriority(clauses);
      b = build(e, clauses, cover);
    }
    b.wanted = !wanted || wanted.has(e.id);
    built.push(b);
  }

  // A dimension whose clause flows are another's, in the same order, is given that one's list: what
  // is worked out of a list (its simple form, its terms and member sets) is then worked out once.
  const lists = new SameLists();
  for (const b of built) for (let k = 0; k < b.dims.length; k++) b.dims[k] = lists.of(b.dims[k]!);
  const simpleDims = new Map<readonly ClauseFlow[], SimpleDim | undefined>();
  const simpleOf = (dim: readonly ClauseFlow[]): SimpleDim | undefined => {
    let s = simpleDims.get(dim);
    if (s === undefined && !simpleDims.has(dim)) simpleDims.set(dim, (s = simpleDim(dim)));
    return s;
  };

  // Overlaps: conjunctions that can complete, grouped by table and priority.
  const groups = new Map<string, Built[]>();
  for (const b of built) {
    if (b.n === 0 || b.dims.some((d) => d.length === 0) || b.problems.some((p) => p.kind === 'inconsistent-n'))
      continue;
    const key = `${b.entry.tableIndex}/${b.priority}`;
    const g = groups.get(key);
    if (g) g.push(b);
    else groups.set(key, [b]);
  }
  let overlapSearchIncomplete = 0;
  for (const g of groups.values()) {
    if (g.length < 2 || !g.some((b) => b.wanted)) continue;
    const simples = g.map((b) => b.dims.map(simpleOf));
    const result = findOverlaps(g, OVERLAP_LIMITS, simples);
    // Their sorted values alone are kept, for the member sets of the dimensions.
    g.forEach((b, i) => (b.sorted = simples[i]!.map((s) => s && sortedExactValues(s))));
    for (const { a, b, witness } of result.pairs) {
      a.problems.push({ kind: 'overlap', severity: 'warning', otherId: b.entry.id, flows: witness });
      b.problems.push({ kind: 'overlap', severity: 'warning', otherId: a.entry.id, flows: witness });
    }
    overlapSearchIncomplete += result.incomplete.size;
  }

  const terms = new Map<readonly ClauseFlow[], readonly DimensionTerm[]>();
  const conjunctions = built
    .filter((b) => b.wanted)
    .sort((a, b) => a.entry.tableIndex - b.entry.tableIndex || b.priority - a.priority || a.entry.id - b.entry.id)
    .map((b): Conjunction => ({
      id: b.entry.id,
      table: b.entry.table,
      priority: b.priority,
      n: b.n,
      // A dimension's clause flows all of one shape (nearly always), told without reading them: the
      // flows of one clause at one priority are some of those of the clause.
      dimensions: b.dims.map((dim, i) =>
        dimension(
          i + 1,
          dim,
          clauseFile ? b.lines[i]! : undefined,
          clauseFile,
          (b.entry.clauseShapes[i] ?? null) !== null,
          b.sorted?.[i],
          terms,
        ),
      ),
      actionFlows: b.entry.actionFlows,
      hits: packetTotal(b.entry.actionFlows),
      problems: b.problems,
    }));
  return { conjunctions, overlapSearchIncomplete };
}

// ---------------------------------------------------------------------------------------------
// A packet against the conjunctions

export interface PacketDimension {
  readonly k: number;
  /** The dimension's clause flows the packet matches; empty when it fails the dimension. */
  readonly matchedBy: readonly Flow[];
  /** When it fails the dimension: why, term by term. */
  readonly misses: readonly TermMiss[];
}

/**
 * Why a packet fails a term: not of the term's protocol (`qualifier`), its `value` of the field a
 * `set` term lists the members of, or none of the term's flows matches it (`flows`).
 */
export type TermMiss =
  | { readonly reason: 'qualifier'; readonly term: DimensionTerm }
  | { readonly reason: 'value'; readonly term: SetDimensionTerm; readonly value: bigint }
  | { readonly reason: 'flows'; readonly term: DimensionTerm };

function termMiss(term: DimensionTerm, read: StorageReader): TermMiss {
  if (!matchesPacket(term.qualifier, read)) return { reason: 'qualifier', term };
  if (term.kind === 'set') return { reason: 'value', term, value: read(term.field.storage) };
  return { reason: 'flows', term };
}

/** A packet's bits per storage, as `matchesPacket` reads them. */
export type StorageReader = (storage: string) => bigint;

export interface PacketConjunction {
  readonly conjunction: Conjunction;
  readonly dimensions: readonly PacketDimension[];
  /** Every dimension has a matching clause flow. */
  readonly satisfied: boolean;
  /** A hard flow at the clauses' priority or above that matches the packet first (the conjunction is not consulted). */
  readonly preemptedBy?: Flow;
  /** What the `conj_id=ID` lookup returns when the conjunction completes: the action flow, or a higher hard flow. */
  readonly result?: Flow;
}

/**
 * Which dimensions of each conjunction a packet satisfies, for the conjunctions of the tables
 * `readerFor` gives the packet for (undefined: the packet does not reach the table).
 */
export function explainPacket(
  pipeline: Pipeline,
  report: ConjunctionReport,
  readerFor: (table: TableRef) => StorageReader | undefined,
): PacketConjunction[] {
  // Per table, once: the hard flows that match the packet whatever conj_id it carries, in match order.
  const candidates = new Map<string, { flow: Flow; conjId: bigint | undefined }[]>();
  const candidatesOf = (table: TableRef, get: StorageReader): { flow: Flow; conjId: bigint | undefined }[] => {
    const key = tableKey(table);
    let list = candidates.get(key);
    if (!list) {
      list = [];
      for (const f of pipeline.table(table)?.flows ?? []) {
        if (f.actions.some((a) => a.kind === 'conjunction')) continue;
        if (!f.match.fields.every((e) => e.field.storage === 'conj_id' || (get(e.field.storage) & e.mask) === e.value))
          continue;
        list.push({ flow: f, conjId: f.match.fields.find((e) => e.field.storage === 'conj_id')?.value });
      }
      candidates.set(key, list);
    }
    return list;
  };
  return report.conjunctions.flatMap((c): PacketConjunction[] => {
    const read = readerFor(c.table);
    if (!read) return [];
    const dimensions = c.dimensions.map((d): PacketDimension => {
      const matchedBy = d.flows.filter((f) => matchesPacket(f.match, read));
      return { k: d.k, matchedBy, misses: matchedBy.length > 0 ? [] : d.terms.map((t) => termMiss(t, read)) };
    });
    const satisfied = c.n > 0 && dimensions.every((d) => d.matchedBy.length > 0);
    if (!satisfied) return [{ conjunction: c, dimensions, satisfied }];
    const list = candidatesOf(c.table, read);
    // The first lookup sees conj_id 0; the second, after the conjunction completes, conj_id ID.
    const preemptedBy = list.find((x) => x.flow.priority >= c.priority && (x.conjId ?? 0n) === 0n)?.flow;
    const result = list.find((x) => x.conjId === undefined || x.conjId === BigInt(c.id))?.flow;
    return [
      {
        conjunction: c,
        dimensions,
        satisfied,
        ...(preemptedBy ? { preemptedBy } : {}),
        ...(result ? { result } : {}),
      },
    ];
  });
}
