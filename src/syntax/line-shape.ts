/**
 * Lines of the same shape as a clean line read before, but for some numbers: a Service's flows
 * (`tcp,reg3=0xa13a45d,reg4=0x2324f/0x7ffff actions=ct(commit,table=12,zone=65520,
 * nat(dst=10.19.164.93:12879),…)`), a rule's `conj_id=N` flow, a `ct_label=…` flow per rule. Each
 * differs from the others in numbers that decide nothing but themselves: a register's or an
 * address's value, a group or conjunction id, a zone, a NAT port, a learned flow's cookie. Such a
 * line reads without any problem when its text is the clean line's but for those numbers, each
 * within what its place accepts; every other number (a protocol, a mask, a subfield's bits, a
 * table) must be the same, so all that it decides is decided as on the clean line. The line's
 * match and actions are then read when first asked for (see LineFlow).
 *
 * A number here is a run of word characters that starts with a digit after a character that is
 * none (`0x1f`, `65520`, each part of `10.1.2.3`), never part of a name (`reg3`, `NXM_NX_REG0`).
 */
import type { Action } from '../model/actions.ts';
import { type FieldDef, fieldByName } from '../model/fields.ts';
import type { Match } from '../model/flow.ts';
import { scanActionTokens } from './action-args.ts';
import { plainNumberAt } from './numbers.ts';
import type { ActionsRebuild } from './shaped-actions.ts';
import { parseSubfield } from './subfield.ts';
import { isSeparator, KeyValueCursor } from './tokens.ts';

/** A number that must be written as on the clean line. */
export const FIXED = 0;
/** Decimal digits without a leading zero, up to a largest value. */
const DECIMAL = 1;
/** `0x` and lower-case hex digits, up to a number of bits. */
export const HEX = 2;

/**
 * The kind of number a place takes, its limit (largest value, or bits), and the storage whose
 * value it is, when it is one a match entry holds or an action writes.
 */
interface Place {
  readonly kind: typeof DECIMAL | typeof HEX;
  readonly limit: number;
  readonly storage?: string;
  /** Where its bits sit in the storage's value: an IPv4 address's octets are four numbers. */
  readonly shift?: number;
}

/**
 * How the match of a line of a shape is made from the shape's: per number of the match that
 * varies (index into `starts`, in order), the match entry whose value it gives and where its bits
 * sit there; `last` where the entry's next number is another entry's. Every other entry is the
 * shape's own.
 */
interface MatchRebuild {
  readonly places: Int32Array;
  readonly entries: Int32Array;
  readonly shifts: Uint8Array;
  readonly last: Uint8Array;
}

/** A clean line's text from its first match element on, and what each of its numbers may be. */
export interface LineShape {
  readonly text: string;
  /** Where each number starts and ends in `text`, and what it may be (FIXED: as written there). */
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly kinds: Uint8Array;
  readonly limits: Float64Array;
  /** The clean line's match and actions: the same fields, masks, ports, kinds and tables as a line of its shape. */
  readonly match: Match;
  readonly actions: readonly Action[];
  /** How a line's match is made from `match`, when each number of it that varies is an entry's value alone. */
  readonly rebuild: MatchRebuild | undefined;
  /**
   * Storages whose values a line of the shape may hold otherwise than `match` and `actions` do
   * (in a match entry, or written by an action); every other value is theirs.
   */
  readonly varying: ReadonlySet<string>;
  /**
   * Whether it was the first clean line of its hash kept: a line it fits has its hash (the line's
   * text is its text but for numbers where its numbers are), so no other shape is found before it.
   */
  readonly first: boolean;
  /** Told apart from every other shape kept (see writtenNumbers). */
  readonly id: number;
  /** Where the actions start in `text`. */
  readonly actionsAt: number;
  /** The numbers of the actions that vary and give a value an action writes, and the storage it writes each to. */
  readonly writes: Int32Array;
  readonly writeStorages: readonly string[];
  /** How many lines were compared with it character by character, until it has `pattern`. */
  compared: number;
  /** What `fits` tells, as a pattern, for a shape many lines have (see fitsShape). */
  pattern: RegExp | undefined;
  /** How many lines had their actions read again, until it has `actionsRebuild` (see shaped-actions.ts). */
  actionsRead: number;
  /** How its lines' actions are made from `actions`; null when they cannot be, undefined until worked out. */
  actionsRebuild: ActionsRebuild | null | undefined;
}

/** Shapes kept so far, for their ids. */
let shapesKept = 0;

/** Lines of one hash kept at most: beyond them a shape's fixed numbers vary too much to be worth it. */
const SHAPES_PER_HASH = 16;

/** Shapes kept from the first line of their hash, before a second line must show one (see LineShapes.worthKeeping). */
const SHAPES_KEPT_AT_ONCE = 64;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isWordChar(c: number): boolean {
  return isDigit(c) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a) || c === 0x5f;
}

/** Where the number starting at `i` ends. */
export function numberEnd(text: string, i: number, end: number): number {
  let e = i + 1;
  while (e < end && isWordChar(text.charCodeAt(e))) e++;
  return e;
}

/** Whether a number starts at `i` (`from` counts as following a non-word character). */
function startsNumber(text: string, i: number, from: number): boolean {
  return isDigit(text.charCodeAt(i)) && (i === from || !isWordChar(text.charCodeAt(i - 1)));
}

/** A hash of `text[from, end)` with each number's characters left out: lines of one shape share it. */
export function shapeHash(text: string, from: number, end: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = from; i < end;) {
    const c = text.charCodeAt(i);
    // isDigit written out: outside optimised code each call costs more than the test.
    if (c <= 0x39 && c >= 0x30 && (i === from || !isWordChar(text.charCodeAt(i - 1)))) {
      i = numberEnd(text, i, end);
      h = Math.imul(h ^ 0x23, 0x01000193);
    } else {
      h = Math.imul(h ^ c, 0x01000193);
      i++;
    }
  }
  return h;
}

/** Whether `text[s, e)` is a number of the kind and within the limit. */
function numberFits(kind: number, limit: number, text: string, s: number, e: number): boolean {
  if (kind === DECIMAL) {
    if (e - s > 15 || (e - s > 1 && text.charCodeAt(s) === 0x30)) return false;
    let v = 0;
    for (let i = s; i < e; i++) {
      const c = text.charCodeAt(i);
      if (!isDigit(c)) return false;
      v = v * 10 + c - 0x30;
    }
    return v <= limit;
  }
  if (e - s < 3 || text.charCodeAt(s) !== 0x30 || text.charCodeAt(s + 1) !== 0x78) return false;
  let first = s + 2;
  for (let i = first; i < e; i++) {
    const c = text.charCodeAt(i);
    if (!isDigit(c) && (c < 0x61 || c > 0x66)) return false;
  }
  while (first < e - 1 && text.charCodeAt(first) === 0x30) first++;
  // The value's bits: four for each digit after the first, and those of the first.
  const top = text.charCodeAt(first);
  const topValue = isDigit(top) ? top - 0x30 : top - 0x61 + 10;
  const topBits = topValue === 0 ? 0 : 32 - Math.clz32(topValue);
  return (e - first - 1) * 4 + topBits <= limit;
}

/** Whether `text[from, end)` is of the shape, but for numbers its places take. */
export function fits(shape: LineShape, text: string, from: number, end: number): boolean {
  const t = shape.text;
  const { starts, ends, kinds, limits } = shape;
  let i = from;
  let j = 0;
  for (let k = 0; ; k++) {
    const next = k < starts.length ? starts[k]! : t.length;
    if (i + next - j > end) return false;
    for (; j < next; i++, j++) if (text.charCodeAt(i) !== t.charCodeAt(j)) return false;
    if (k === starts.length) return i === end;
    if (!isDigit(text.charCodeAt(i)) || i >= end) return false;
    const e = numberEnd(text, i, end);
    const kind = kinds[k]!;
    if (kind === FIXED) {
      if (e - i !== ends[k]! - j) return false;
      for (; j < ends[k]!; i++, j++) if (text.charCodeAt(i) !== t.charCodeAt(j)) return false;
    } else {
      if (!numberFits(kind, limits[k]!, text, i, e)) return false;
      i = e;
      j = ends[k]!;
    }
  }
}

/** Lines compared with a shape character by character before it is given a pattern, which costs more to make. */
const COMPARED_BEFORE_PATTERN = 8;

/** A number's characters, as numberEnd reads them: what follows a number is none. */
const NUMBER_ENDS = '(?![0-9A-Za-z_])';

/** A pattern of the decimal numbers numberFits takes up to `limit`: no leading zero, at most 15 digits. */
function decimalUpTo(limit: number): string {
  if (limit >= 999_999_999_999_999) return '0|[1-9][0-9]{0,14}';
  const top = String(limit);
  if (top.length === 1) return `[0-${top}]`;
  const alternatives = ['0', `[1-9][0-9]{0,${top.length - 2}}`];
  // As many digits as the limit: its first i digits, a lower one, any after; or the limit itself.
  for (let i = 0; i < top.length; i++) {
    const low = i === 0 ? 1 : 0;
    const digit = Number(top[i]);
    if (digit > low) alternatives.push(`${top.slice(0, i)}[${low}-${digit - 1}][0-9]{${top.length - i - 1}}`);
  }
  alternatives.push(top);
  return alternatives.join('|');
}

/** A pattern of the `0x` numbers numberFits takes of up to `bits` bits: lower-case digits, any leading zeros. */
function hexUpTo(bits: number): string {
  const digits = Math.floor(bits / 4);
  // What the digit before `digits` others may be: its bits are the rest.
  const top = 2 ** (bits % 4) - 1;
  if (digits === 0) return `0x0*[0-${top}]`;
  return top === 0 ? `0x0*[0-9a-f]{1,${digits}}` : `0x0*(?:[0-9a-f]{1,${digits}}|[1-${top}][0-9a-f]{${digits}})`;
}

/**
 * A sticky pattern that matches a line's text from its `from` up to its `end` exactly when `fits`
 * takes it: the shape's text, each number it fixes as written, each other one of its kind within
 * its limit. One call of the pattern, where `fits` steps through a hundred characters.
 */
export function shapePattern(shape: LineShape): RegExp {
  const { text, starts, ends, kinds, limits } = shape;
  let source = '';
  let j = 0;
  for (let k = 0; k <= starts.length; k++) {
    const next = k < starts.length ? starts[k]! : text.length;
    source += text.slice(j, next).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    if (k === starts.length) break;
    const kind = kinds[k]!;
    const number =
      kind === FIXED
        ? text.slice(next, ends[k]!)
        : kind === HEX
          ? hexUpTo(limits[k]!)
          : `(?:${decimalUpTo(limits[k]!)})`;
    source += `${kind === HEX ? `(?:${number})` : number}${NUMBER_ENDS}`;
    j = ends[k]!;
  }
  return new RegExp(source, 'y');
}

/** `fits`, by the shape's pattern once enough lines had the shape to pay for making it. */
export function fitsShape(shape: LineShape, text: string, from: number, end: number): boolean {
  let { pattern } = shape;
  if (pattern === undefined) {
    if (++shape.compared <= COMPARED_BEFORE_PATTERN) return fits(shape, text, from, end);
    shape.pattern = pattern = shapePattern(shape);
  }
  pattern.lastIndex = from;
  return pattern.test(text) && pattern.lastIndex === end;
}

/** Shapes found last that find tries before hashing a line (see LineShapes). */
const RECENT_SHAPES = 4;

/**
 * Clean lines whose shape other lines may have, by shapeHash, and the shapes last found. A dump
 * lists the lines of one shape in runs (a Service's flows, a rule's), runs of a few shapes often
 * in turn: the shapes found last are tried first, and when one fits, and was the first of its
 * hash, it is the one the hash would find, without hashing the line (a pattern's test fails
 * within a few characters, a hash reads them all).
 */
export class LineShapes {
  private readonly byHash = new Map<number, LineShape[]>();
  /** The shapes found last, each the first of its hash, the last found first. */
  private readonly recent: LineShape[] = [];
  /** Shapes kept, and hashes of clean lines no shape was kept for yet (see worthKeeping). */
  private kept = 0;
  private readonly offered = new Set<number>();

  get size(): number {
    return this.byHash.size;
  }

  /** The shape that `text[from, end)` has, if any. */
  find(text: string, from: number, end: number): LineShape | undefined {
    const { recent } = this;
    for (let i = 0; i < recent.length; i++) {
      const shape = recent[i]!;
      if (!fitsShape(shape, text, from, end)) continue;
      if (i > 0) this.remember(shape, i);
      return shape;
    }
    const candidates = this.byHash.get(shapeHash(text, from, end));
    if (candidates === undefined) return undefined;
    for (const shape of candidates)
      if (fitsShape(shape, text, from, end)) {
        if (shape.first) this.remember(shape, Math.min(recent.length, RECENT_SHAPES - 1));
        return shape;
      }
    return undefined;
  }

  /** Puts `shape` first among the recent ones, in place of the one at `at` (or after the last). */
  private remember(shape: LineShape, at: number): void {
    const { recent } = this;
    for (let i = at; i > 0; i--) recent[i] = recent[i - 1]!;
    recent[0] = shape;
  }

  /** How many shapes are kept under `hash`. */
  count(hash: number): number {
    return this.byHash.get(hash)?.length ?? 0;
  }

  /**
   * Whether a shape is kept from a clean line of `hash` that no kept shape fits: from the first
   * such line while few shapes are kept, then from the second. Lines of a shape come in runs, and
   * past a dump's first shapes most lines with a shape of their own are the only ones of it (an
   * OpenShift node's flows, each of its own port and address): a shape costs many times more to
   * make than a line to read in full, and to hold in memory.
   */
  worthKeeping(hash: number): boolean {
    if (this.kept < SHAPES_KEPT_AT_ONCE || this.offered.delete(hash)) return true;
    this.offered.add(hash);
    return false;
  }

  add(hash: number, shape: LineShape): void {
    this.kept++;
    const list = this.byHash.get(hash);
    if (list === undefined) this.byHash.set(hash, [shape]);
    else list.push(shape);
  }
}

/**
 * Keeps the shape of the clean line `text[from, end)` (match from `from` to `keyword`, actions from
 * `actionsStart` to `end`: none when both are `keyword`, for a shape of the match alone), read as
 * `match` and `actions`, under its hash.
 */
export function keepShape(
  shapes: LineShapes,
  hash: number,
  text: string,
  from: number,
  keyword: number,
  actionsStart: number,
  end: number,
  match: Match,
  actions: readonly Action[],
): void {
  const kept = shapes.count(hash);
  if (kept >= SHAPES_PER_HASH || !shapes.worthKeeping(hash)) return;
  // Quoted names read by a port map, and the texts inside quotes, are left to the general reader.
  if (text.includes('"', from)) return;
  const places = new Map<number, Place>();
  matchPlaces(text, from, keyword, places);
  actionPlaces(text, actionsStart, end, places);
  const starts: number[] = [];
  const ends: number[] = [];
  const kinds: number[] = [];
  const limits: number[] = [];
  const varying = new Set<string>();
  const writes: number[] = [];
  const writeStorages: string[] = [];
  for (let i = from; i < end;) {
    if (!startsNumber(text, i, from)) {
      i++;
      continue;
    }
    const e = numberEnd(text, i, end);
    const place = places.get(i);
    const varies = place !== undefined && numberFits(place.kind, place.limit, text, i, e);
    if (varies && place.storage !== undefined) {
      varying.add(place.storage);
      if (i >= actionsStart) {
        writes.push(starts.length);
        writeStorages.push(place.storage);
      }
    }
    starts.push(i - from);
    ends.push(e - from);
    kinds.push(varies ? place.kind : FIXED);
    limits.push(place?.limit ?? 0);
    i = e;
  }
  const shape = {
    text: text.slice(from, end),
    starts: Int32Array.from(starts),
    ends: Int32Array.from(ends),
    kinds: Uint8Array.from(kinds),
    limits: Float64Array.from(limits),
    match,
    actions,
    rebuild: undefined as MatchRebuild | undefined,
    varying,
    first: kept === 0,
    id: ++shapesKept,
    actionsAt: actionsStart - from,
    writes: Int32Array.from(writes),
    writeStorages,
    compared: 0,
    pattern: undefined as RegExp | undefined,
    actionsRead: 0,
    actionsRebuild: undefined as ActionsRebuild | null | undefined,
  };
  shape.rebuild = matchRebuild(shape, keyword - from, places, from);
  shapes.add(hash, shape);
}

/** The storages the match elements of `text[from, end)` write, each with how many write it; undefined when any is not a plain field. */
function writtenStorages(text: string, from: number, end: number): Map<string, number> | undefined {
  const written = new Map<string, number>();
  const c = new KeyValueCursor(text, from, end);
  while (c.next()) {
    const field = fieldByName(text.slice(c.keyOffset, c.keyEnd));
    // A bare word that is no field is a protocol keyword: it writes only deciding storages.
    if (field === undefined) {
      if (c.hasValue) return undefined;
      continue;
    }
    // xregN and xxregN write the 32-bit registers they are made of (see buildMatch).
    if (/^x{1,2}reg\d/.test(field.name)) return undefined;
    written.set(field.storage, (written.get(field.storage) ?? 0) + 1);
  }
  return written;
}

/**
 * How the match of a line of `shape` is made from the shape's (see MatchRebuild), its match being
 * `shape.text` up to `matchEnd`; undefined when a number that varies there is not the whole value
 * of one entry that one element alone writes (a port, a register also written whole or in part
 * by another element), so that the line's match is read in full.
 */
function matchRebuild(
  shape: LineShape,
  matchEnd: number,
  places: ReadonlyMap<number, Place>,
  from: number,
): MatchRebuild | undefined {
  const { text, starts, kinds, match } = shape;
  const found: number[] = [];
  const entries: number[] = [];
  const shifts: number[] = [];
  let written: Map<string, number> | undefined;
  for (let k = 0; k < starts.length && starts[k]! < matchEnd; k++) {
    const place = places.get(from + starts[k]!);
    if (kinds[k] === FIXED) {
      // A number of an entry's value that stays as written would have to be kept in the others'.
      if (place?.storage !== undefined) return undefined;
      continue;
    }
    const storage = place?.storage;
    if (storage === undefined || storage === 'in_port') return undefined;
    written ??= writtenStorages(text, 0, matchEnd);
    if (written?.get(storage) !== 1) return undefined;
    const entry = match.fields.findIndex((e) => e.field.storage === storage);
    if (entry < 0 || match.fields[entry]!.port !== undefined) return undefined;
    found.push(k);
    entries.push(entry);
    shifts.push(place!.shift ?? 0);
  }
  const last = entries.map((e, j) => (entries[j + 1] === e ? 0 : 1));
  const rebuild: MatchRebuild = {
    places: Int32Array.from(found),
    entries: Int32Array.from(entries),
    shifts: Uint8Array.from(shifts),
    last: Uint8Array.from(last),
  };
  // The shape's own match made so is the shape's: a check of the above.
  const own = rebuiltMatch(shape, rebuild, text, 0);
  return own.fields.every((e, i) => e.value === match.fields[i]!.value) ? rebuild : undefined;
}

/** The match of a line of the shape, `text` from `from`, made as `rebuild` says. */
function rebuiltMatch(shape: LineShape, rebuild: MatchRebuild, text: string, from: number): Match {
  const { starts, ends } = shape;
  const { places, entries, shifts, last } = rebuild;
  const fields = shape.match.fields.slice();
  // How much longer than the shape's the line's text is so far: the numbers differ in length.
  let delta = 0;
  let value: number | bigint = 0;
  for (let j = 0; j < places.length; j++) {
    const k = places[j]!;
    const s = from + starts[k]! + delta;
    const e = numberEnd(text, s, text.length);
    delta += e - s - (ends[k]! - starts[k]!);
    // A number of a place is plain (see numberFits): beyond 13 hex digits, a bigint.
    const n = plainNumberAt(text, s, e);
    value =
      n >= 0 && typeof value === 'number'
        ? value + n * 2 ** shifts[j]!
        : BigInt(value) + ((n >= 0 ? BigInt(n) : BigInt(text.slice(s, e))) << BigInt(shifts[j]!));
    if (last[j] === 0) continue;
    const at = entries[j]!;
    const { field, mask } = fields[at]!;
    fields[at] = { field, value: BigInt(value) & mask, mask };
    value = 0;
  }
  return { fields };
}

/**
 * The match of a line of `shape` whose match starts at `from` in `text`: the shape's, the values
 * that vary read from the line; undefined when the shape has no way to make it (see matchRebuild).
 */
export function shapedMatch(shape: LineShape, text: string, from: number): Match | undefined {
  return shape.rebuild && rebuiltMatch(shape, shape.rebuild, text, from);
}

/**
 * What of a line of `shape`, `text` with its actions from `actionsStart`, gives the values its
 * actions write to `storages`: '' when they are the shape's own; else the shape and the text of
 * each number that gives one. Lines of the shape with the same text write the same values there
 * (every other number of their actions being the shape's), so their actions need not be read.
 */
export function writtenNumbers(
  shape: LineShape,
  text: string,
  actionsStart: number,
  storages: ReadonlySet<string>,
): string {
  const { starts, ends, writes, writeStorages } = shape;
  let out = '';
  if (writes.length === 0) return out;
  // From the actions on, the line is the shape's text but for the numbers, which differ in length.
  const first = writes[0]!;
  let k = first;
  while (k > 0 && starts[k - 1]! >= shape.actionsAt) k--;
  let delta = actionsStart - shape.actionsAt;
  for (let w = 0; w < writes.length; w++) {
    for (; ; k++) {
      const s = starts[k]! + delta;
      const e = numberEnd(text, s, text.length);
      delta += e - s - (ends[k]! - starts[k]!);
      if (k !== writes[w]) continue;
      if (storages.has(writeStorages[w]!)) out += `,${k}=${text.slice(s, e)}`;
      k++;
      break;
    }
  }
  return out === '' ? out : `${shape.id}${out}`;
}

/**
 * Storages whose value decides more than itself: the protocol (and so which other fields count),
 * VLAN and ToS bits written in several ways, the conntrack state, ports read by name.
 */
const DECIDING_STORAGES = new Set(['eth_type', 'nw_proto', 'tp_src', 'packet_type', 'vlan_tci', 'nw_tos', 'in_port']);

/** Whether any value of the field in its syntax reads the same way but for the value itself. */
function plainValued(f: FieldDef): boolean {
  return (
    (f.format === 'hex' || f.format === 'decimal' || f.format === 'ipv4') &&
    !DECIDING_STORAGES.has(f.storage) &&
    !f.presence &&
    !f.name.startsWith('tun_metadata')
  );
}

/**
 * A number at `s`, written as the one there, up to `limit` (a value for decimal, bits for hex):
 * the value of `storage`, when given.
 */
function number(text: string, s: number, bits: number, places: Map<number, Place>, storage?: string): void {
  const hex = text.charCodeAt(s) === 0x30 && text.charCodeAt(s + 1) === 0x78;
  const place: Place = hex ? { kind: HEX, limit: bits } : { kind: DECIMAL, limit: 2 ** bits - 1 };
  places.set(s, storage === undefined ? place : { ...place, storage });
}

/**
 * The places of a field's value `text[s, e)` (its mask, after `/`, stays fixed): one number of
 * the field's bytes, or the four of an IPv4 address.
 */
function valuePlaces(text: string, s: number, e: number, field: FieldDef, places: Map<number, Place>): void {
  if (!plainValued(field) || s >= e || !isDigit(text.charCodeAt(s))) return;
  if (field.format === 'ipv4') {
    const octets: number[] = [];
    for (let i = s; octets.length < 4;) {
      const end = numberEnd(text, i, e);
      octets.push(i);
      if (octets.length < 4 && (text.charCodeAt(end) !== 0x2e || !isDigit(text.charCodeAt(end + 1)))) return;
      if (octets.length === 4 && end !== e) return;
      i = end + 1;
    }
    octets.forEach((at, i) => places.set(at, { kind: DECIMAL, limit: 255, storage: field.storage, shift: 24 - 8 * i }));
    return;
  }
  if (numberEnd(text, s, e) === e) number(text, s, field.bytes * 8, places, field.storage);
}

/**
 * The largest port number that reads as a number and nothing else: those above are reserved ports
 * (`LOCAL`, `CONTROLLER`), which read as their names.
 */
const MAX_PLAIN_PORT = 0xfeff;

/** The places of the match's values: `field=value` and `field=value/mask`, and an input port's number. */
function matchPlaces(text: string, from: number, end: number, places: Map<number, Place>): void {
  for (let i = from; i < end;) {
    let e = i;
    while (e < end && !isSeparator(text.charCodeAt(e))) e++;
    const eq = text.indexOf('=', i);
    if (eq > i && eq < e) {
      const field = fieldByName(text.slice(i, eq));
      const slash = text.indexOf('/', eq);
      const valueEnd = slash > eq && slash < e ? slash : e;
      if (field?.storage === 'in_port' && isDigit(text.charCodeAt(eq + 1)) && numberEnd(text, eq + 1, e) === e)
        places.set(eq + 1, { kind: DECIMAL, limit: MAX_PLAIN_PORT, storage: field.storage });
      else if (field) valuePlaces(text, eq + 1, valueEnd, field, places);
    }
    i = e + 1;
  }
}

/** The numbers of an IPv4 address and port `a.b.c.d:p` spanning `text[s, e)`. */
function addressAndPort(text: string, s: number, e: number, places: Map<number, Place>): void {
  const colon = text.lastIndexOf(':', e);
  if (colon <= s || !isDigit(text.charCodeAt(colon + 1)) || numberEnd(text, colon + 1, e) !== e) return;
  const address = new Map<number, Place>();
  valuePlaces(text, s, colon, fieldByName('nw_dst')!, address);
  if (address.size !== 4) return;
  // An address NAT translates to, which no match entry holds and no action writes.
  for (const [at, { kind, limit }] of address) places.set(at, { kind, limit });
  places.set(colon + 1, { kind: DECIMAL, limit: 0xffff });
}

/** The places of the actions' values: what load and set_field write, group and conjunction ids, ct zones and NAT, learn's cookie. */
function actionPlaces(text: string, start: number, end: number, places: Map<number, Place>): void {
  for (const t of scanActionTokens(text, start, end)) {
    const arg = t.arg ?? '';
    const s = t.argOffset;
    const e = s + arg.length;
    const only = arg !== '' && isDigit(arg.charCodeAt(0)) && numberEnd(text, s, e) === e;
    switch (t.name) {
      case 'load': {
        const arrow = arg.indexOf('->');
        const dst = arrow > 0 && !t.paren ? parseSubfield(arg.slice(arrow + 2)) : undefined;
        if (dst?.ok && isDigit(arg.charCodeAt(0)) && numberEnd(text, s, s + arrow) === s + arrow)
          number(text, s, dst.subfield.bits, places, dst.subfield.field.storage);
        break;
      }
      case 'set_field': {
        const arrow = arg.lastIndexOf('->');
        const field = arrow > 0 && !t.paren ? fieldByName(arg.slice(arrow + 2)) : undefined;
        if (field && !arg.slice(0, arrow).includes('/')) valuePlaces(text, s, s + arrow, field, places);
        break;
      }
      case 'group':
        if (only && !t.paren) number(text, s, 32, places);
        break;
      case 'conjunction': {
        const comma = arg.indexOf(',');
        if (t.paren && comma > 0 && isDigit(arg.charCodeAt(0)) && numberEnd(text, s, s + comma) === s + comma)
          number(text, s, 32, places);
        break;
      }
      case 'ct':
        if (t.paren) ctPlaces(text, s, e, places);
        break;
      case 'learn':
        if (t.paren) learnPlaces(text, s, e, places);
        break;
      default:
        break;
    }
  }
}

/**
 * Inside `learn(…)`: the cookie of the flows it adds (Antrea's learned Service flows name their
 * Service in it), a number that says nothing but itself.
 */
function learnPlaces(text: string, start: number, end: number, places: Map<number, Place>): void {
  for (const t of scanActionTokens(text, start, end)) {
    const arg = t.arg ?? '';
    const s = t.argOffset;
    if (
      t.name === 'cookie' &&
      !t.paren &&
      arg !== '' &&
      isDigit(arg.charCodeAt(0)) &&
      numberEnd(text, s, s + arg.length) === s + arg.length
    )
      number(text, s, 64, places);
  }
}

/** Inside `ct(…)`: its zone, its NAT address and port, what its exec writes. */
function ctPlaces(text: string, start: number, end: number, places: Map<number, Place>): void {
  for (const t of scanActionTokens(text, start, end)) {
    const arg = t.arg ?? '';
    const s = t.argOffset;
    const e = s + arg.length;
    if (t.name === 'zone' && !t.paren && arg !== '' && isDigit(arg.charCodeAt(0)) && numberEnd(text, s, e) === e)
      number(text, s, 16, places);
    else if (t.name === 'exec' && t.paren) actionPlaces(text, s, e, places);
    else if (t.name === 'nat' && t.paren) {
      for (const n of scanActionTokens(text, s, e)) {
        const a = n.arg ?? '';
        if ((n.name === 'dst' || n.name === 'src') && !n.paren && a !== '')
          addressAndPort(text, n.argOffset, n.argOffset + a.length, places);
      }
    }
  }
}
