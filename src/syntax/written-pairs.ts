/**
 * Flows of two dumps whose lines say the same after their statistics, paired by that text alone:
 * two dumps of one switch are mostly such lines, and pairing them spares reading their matches
 * and actions, or even, for the second dump read along the first (ReadAlong), its lines.
 */
import { type Flow, type LineSpan, lineSpan } from '../model/flow.ts';
import { mix } from '../model/slot-index.ts';
import type { TableRef } from '../model/tables.ts';
import { tableRefOf } from './interned.ts';
import { LineFlow, type LineSource } from './line-flow.ts';
import { type PrintedStats, printed, scanPrintedStats } from './printed-stats.ts';

/**
 * A hash of `text[start, end)`, the text of a dump line after its statistics, from its length and
 * a sample of its characters: the first 40 (priority and match, where flows of one table differ
 * most), the last 12 and 12 spread between. Lines that hash alike are compared whole; reading
 * every character of two million-flow dumps cost more than the rest of a diff.
 */
function writtenHash(text: string, start: number, end: number): number {
  let h = Math.imul(0x811c9dc5 ^ (end - start), 0x01000193);
  if (end - start <= 64) {
    for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    return mix(h) & 0x3fffffff;
  }
  for (let i = start; i < start + 40; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  const stride = Math.floor((end - 12 - (start + 40)) / 12) || 1;
  for (let i = start + 40; i < end - 12; i += stride) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  for (let i = end - 12; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return mix(h) & 0x3fffffff;
}

/**
 * Where the flow's line, in the printed form with its statistics, says the flow itself (after
 * them), into `span` as `span.start`; false for a line in any other form.
 */
function writtenPart(f: Flow, span: LineSpan): boolean {
  lineSpan(f, span);
  span.start += span.statsEnd;
  return span.statsEnd !== 0;
}

/**
 * Whether `a` from `i` and `b` from `j` hold the same `length` characters. Two slices compared
 * whole: V8 makes a slice of a long string without copying it and compares flat strings as memory
 * (six times faster than a loop of charCodeAt on two million-flow dumps' lines).
 */
function sameText(a: string, i: number, b: string, j: number, length: number): boolean {
  return a.slice(i, i + length) === b.slice(j, j + length);
}

/**
 * The position of the first flow, in dump order, whose written part is `text[start, end)` and whose
 * key is `key`, of those not `paired` (1 there); -1 when none.
 */
type FindWritten = (text: string, start: number, end: number, key: number, paired: Uint8Array) => number;

/**
 * The flows filed by their written part (see writtenPart) and a key (what the statistics say that
 * counts, such as the table), for finding the first in dump order that a line reads as. The flows
 * are visited in dump order once: their keys and where their lines lie are kept in typed arrays, so
 * that confirming a line reads no flow object (the two dumps of a comparison list their flows in
 * different orders, and each read of a flow is a cache miss: asking the flows again for their lines
 * and tables took a fifth longer on two million-flow dumps). A closure over local arrays rather
 * than an object's fields: a short run finds lines in unoptimised code, where each field read costs.
 */
function writtenIndex(flows: readonly Flow[], key: (f: Flow) => number): FindWritten {
  let slots = 16;
  while (slots < flows.length * 2) slots *= 2;
  const mask = slots - 1;
  // As SlotIndex: a hash at 2s, 1 + the first flow with it at 2s + 1; then chains in dump order.
  const table = new Int32Array(slots * 2);
  const next = new Int32Array(flows.length);
  const last = new Int32Array(slots);
  // Each flow's key, and where its written part lies: in its dump's whole text, or a line read whole.
  const keys = new Int32Array(flows.length);
  const starts = new Int32Array(flows.length);
  const ends = new Int32Array(flows.length);
  const texts = new Array<string>(flows.length);
  const slotOf = (h: number): number => {
    let s = h & mask;
    while (table[2 * s + 1] !== 0 && table[2 * s] !== h) s = (s + 1) & mask;
    return s;
  };
  const x: LineSpan = { text: '', start: 0, end: 0, statsEnd: 0 };
  for (let i = 0; i < flows.length; i++) {
    const flow = flows[i]!;
    if (!writtenPart(flow, x)) continue;
    keys[i] = key(flow);
    starts[i] = x.start;
    ends[i] = x.end;
    texts[i] = x.text;
    const h = writtenHash(x.text, x.start, x.end);
    const s = slotOf(h);
    if (table[2 * s + 1] === 0) {
      table[2 * s] = h;
      table[2 * s + 1] = i + 1;
    } else next[last[s]! - 1] = i + 1;
    last[s] = i + 1;
  }
  return (text, start, end, key, paired) => {
    const length = end - start;
    for (let j = table[2 * slotOf(writtenHash(text, start, end)) + 1]! - 1; j >= 0; j = next[j]! - 1) {
      if (paired[j] === 1 || keys[j] !== key || ends[j]! - starts[j]! !== length) continue;
      if (sameText(text, start, texts[j]!, starts[j]!, length)) return j;
    }
    return -1;
  };
}

/**
 * What two lines that say the same after their statistics must share to be one flow (see
 * pairWritten): their table, and their cookie when cookies count, as a number. Without cookies a
 * numbered table's is its number (numbers run to 254); otherwise one per table object (a dump
 * shares one among a table's flows) and cookie.
 */
export function lineKeys(cookies: boolean): (table: TableRef, cookie: bigint) => number {
  let count = 0;
  if (!cookies) {
    const named = new Map<TableRef, number>();
    return (table) => {
      if (table.kind === 'number') return table.number;
      let id = named.get(table);
      if (id === undefined) named.set(table, (id = 256 + count++));
      return id;
    };
  }
  const byCookie = new Map<TableRef, Map<bigint, number>>();
  return (table, cookie) => {
    let ids = byCookie.get(table);
    if (ids === undefined) byCookie.set(table, (ids = new Map()));
    let id = ids.get(cookie);
    if (id === undefined) ids.set(cookie, (id = count++));
    return id;
  };
}

/**
 * Flows of two dumps written alike, paired without reading their matches: a flow of `a` in the
 * printed form with its statistics is paired with the first flow of `b`, in dump order, not yet
 * paired whose line reads the same after its statistics and whose `key` is the same (what the
 * statistics say that counts, such as the table). Each is paired at most once, so where a dump
 * holds one line twice (two dumps concatenated), the first of its copies pairs first. Returns, per
 * dump, 1 for each flow paired. The lines are found where they lie in their dumps' texts (see
 * lineSpan): neither a string nor an object is made per flow.
 */
export function pairWritten(
  a: readonly Flow[],
  b: readonly Flow[],
  key: (f: Flow) => number,
): { readonly a: Uint8Array; readonly b: Uint8Array } {
  const pairedA = new Uint8Array(a.length);
  const pairedB = new Uint8Array(b.length);
  const find = writtenIndex(b, key);
  const x: LineSpan = { text: '', start: 0, end: 0, statsEnd: 0 };
  for (let i = 0; i < a.length; i++) {
    const flow = a[i]!;
    if (!writtenPart(flow, x)) continue;
    const j = find(x.text, x.start, x.end, key(flow), pairedB);
    if (j < 0) continue;
    pairedA[i] = 1;
    pairedB[j] = 1;
  }
  return { a: pairedA, b: pairedB };
}

/** A flow of the first dump that ReadAlong has twinned. */
const PAIRED = 1;
/** A flow of the first dump whose kind ReadAlong leaves to pairWritten (see ReadAlong). */
const LEFT = 2;

/**
 * The second of two dumps read along the first. A line of the second in the printed form whose
 * text after its statistics is that of a flow of the first, in the same table (with the same
 * cookie, when cookies count), is that flow but for its statistics: when the first's flow was read
 * lazily, known clean (see LineFlow), the line is made its twin (see LineFlow.twin) without its
 * match and actions being read again, and the two are paired. On two dumps of one switch this
 * reads most of the second dump's lines in a fraction of the time, and pairs them on the way.
 *
 * Pairs are made as pairWritten makes them: the first line of the second dump that reads as some
 * flows of the first with the first of those not yet paired, and so on in dump order. A line of
 * the second read any other way (told by `passed`) would have paired there too: the flows of the
 * first that read as it does are left from then on, for pairWritten to pair with what the second
 * dump leaves, in order as ever.
 */
export class ReadAlong {
  private readonly first: readonly Flow[];
  private readonly cookies: boolean;
  /** Per flow of the first: 0, PAIRED or LEFT. */
  private readonly state: Uint8Array;
  /** The twins made, in the order read. */
  private readonly twins: Flow[] = [];
  /** Made when the first line is taken: the second side may be a bundle or a live switch, read otherwise. */
  private findWritten: FindWritten | undefined;
  /** What a line of the second must share with one of the first to pair (see lineKeys). */
  private readonly key: (table: TableRef, cookie: bigint) => number;
  private readonly span: LineSpan = { text: '', start: 0, end: 0, statsEnd: 0 };

  constructor(first: readonly Flow[], cookies: boolean) {
    this.first = first;
    this.cookies = cookies;
    this.state = new Uint8Array(first.length);
    this.key = lineKeys(cookies);
  }

  private find(text: string, start: number, end: number, key: number): number {
    this.findWritten ??= writtenIndex(this.first, (f) =>
      f.table.kind === 'number' ? this.key(f.table, f.cookie) : -1,
    );
    return this.findWritten(text, start, end, key, this.state);
  }

  /**
   * The twin of the flow of the first dump that the line `text[start, end)`, number `line`, reads
   * as, now paired with it; undefined when there is none, and the line is to be read as ever.
   */
  take(text: string, start: number, end: number, line: number, source: LineSource): Flow | undefined {
    if (!scanPrintedStats(text, start)) return undefined;
    const stats: PrintedStats = printed;
    const key = this.key(tableRefOf(stats.table === 255 ? 0 : stats.table), stats.cookie);
    const j = this.find(text, stats.end, end, key);
    if (j < 0 || this.state[j] === LEFT) return undefined;
    const flow = this.first[j]!;
    const twin = flow instanceof LineFlow ? flow.twin(stats, text, start, source, line) : undefined;
    if (twin === undefined) {
      this.state[j] = LEFT;
      return undefined;
    }
    this.state[j] = PAIRED;
    this.twins.push(twin);
    return twin;
  }

  /** A flow of the second dump read otherwise: the flows of the first that read as it does are left. */
  passed(flow: Flow): void {
    const x = this.span;
    const { table } = flow;
    if (!writtenPart(flow, x) || table.kind !== 'number') return;
    const j = this.find(x.text, x.start, x.end, this.key(table, flow.cookie));
    if (j >= 0) this.state[j] = LEFT;
  }

  /**
   * The pairs made, per dump 1 for each flow paired, when `first` and `second` are the dumps read
   * (the flows of the second, its twins among them in the order read) and cookies count as they did.
   */
  pairs(
    first: readonly Flow[],
    second: readonly Flow[],
    cookies: boolean,
  ): { readonly a: Uint8Array; readonly b: Uint8Array } | undefined {
    if (first !== this.first || cookies !== this.cookies) return undefined;
    const b = new Uint8Array(second.length);
    let k = 0;
    for (let i = 0; i < second.length && k < this.twins.length; i++) {
      if (second[i] !== this.twins[k]) continue;
      b[i] = 1;
      k++;
    }
    if (k < this.twins.length) return undefined;
    return { a: this.state.map((s) => (s === PAIRED ? 1 : 0)), b };
  }
}
