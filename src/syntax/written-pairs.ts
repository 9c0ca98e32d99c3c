/**
 * Flows of two dumps whose lines say the same after their statistics, paired by that text alone:
 * two dumps of one switch are mostly such lines, and pairing them spares reading their matches
 * and actions, or even, for the second dump read along the first (ReadAlong), its lines.
 */
import { type Flow, type Group, type LineSpan, lineSpan } from '../model/flow.ts';
import type { PortMap } from '../model/ports.ts';
import { mix } from '../model/slot-index.ts';
import type { TableRef } from '../model/tables.ts';
import { tableRefOf } from './interned.ts';
import { LineFlow, type LineSource } from './line-flow.ts';
import { PairedLines } from './paired-lines.ts';
import { printed, scanPrintedStats } from './printed-stats.ts';
import type { ParseResult } from './reader.ts';

/** The FNV prime, by which each step of writtenHash multiplies. */
const FNV = 0x01000193;

/** The four characters of `text` from `i` as one number, a byte each (for a hash: higher bits of a character mix with the next's). */
function fourAt(text: string, i: number): number {
  return (
    text.charCodeAt(i) | (text.charCodeAt(i + 1) << 8) | (text.charCodeAt(i + 2) << 16) | (text.charCodeAt(i + 3) << 24)
  );
}

/**
 * A hash of `text[start, end)`, the text of a dump line after its statistics, from its length and
 * a sample of its characters: the first 40 (priority and match, where flows of one table differ
 * most), the last 12 and 12 spread between. Lines that hash alike are compared whole; reading
 * every character of two million-flow dumps cost more than the rest of a diff. Each step takes
 * four characters, the spread ones gathered apart: a step waits for the one before it, and one a
 * character made the hash of a million lines take a fifth longer.
 */
function writtenHash(text: string, start: number, end: number): number {
  let h = Math.imul(0x811c9dc5 ^ (end - start), FNV);
  if (end - start <= 64) {
    let i = start;
    for (; i + 4 <= end; i += 4) h = Math.imul(h ^ fourAt(text, i), FNV);
    for (; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV);
    return mix(h) & 0x3fffffff;
  }
  for (let i = start; i < start + 40; i += 4) h = Math.imul(h ^ fourAt(text, i), FNV);
  const stride = Math.floor((end - 12 - (start + 40)) / 12) || 1;
  let spread = 0;
  for (let i = start + 40; i < end - 12; i += stride) spread = ((spread << 7) | (spread >>> 25)) ^ text.charCodeAt(i);
  h = Math.imul(h ^ spread, FNV);
  for (let i = end - 12; i < end; i += 4) h = Math.imul(h ^ fourAt(text, i), FNV);
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

/** Lines looked up together: see ReadAlong. */
const BATCH = 256;

/** A flow's state in a pairing: 0 free, PAIRED once paired; ReadAlong adds its own (see there). */
const PAIRED = 1;

/**
 * The flows filed by their written part (see writtenPart) and a key (what the statistics say that
 * counts, such as the table), for finding the first in dump order that a line reads as. The flows
 * are visited in dump order once: their keys and where their lines lie are kept in typed arrays, so
 * that confirming a line reads no flow object (the two dumps of a comparison list their flows in
 * different orders, and each read of a flow is a cache miss: asking the flows again for their lines
 * and tables took a fifth longer on two million-flow dumps).
 */
class WrittenIndex {
  private readonly mask: number;
  /** As SlotIndex: a hash at 2s, 1 + the first flow with it at 2s + 1; then chains in dump order. */
  private readonly table: Int32Array;
  /** Per flow, 1 + the next with its hash (0: none). */
  private readonly next: Int32Array;
  /**
   * Per flow, side by side, so that one cache miss brings them all: where its written part starts
   * and its length (-1: none) in its dump's whole text (or a line read whole), its key, and that
   * text's place in `texts` times two, plus 1 when the flow was read lazily (a LineFlow): only such
   * a flow has twins (see LineFlow.twin).
   */
  private readonly lines: Int32Array;
  private readonly texts: string[] = [];
  /** What the reads made only to bring memory in summed to: kept, so that they are not left out as unused. */
  touched = 0;

  constructor(flows: readonly Flow[], key: (f: Flow) => number) {
    let slots = 16;
    while (slots < flows.length * 2) slots *= 2;
    this.mask = slots - 1;
    const table = (this.table = new Int32Array(slots * 2));
    const next = (this.next = new Int32Array(flows.length));
    const lines = (this.lines = new Int32Array(flows.length * 4).fill(-1));
    // The hashes are held in `next` until each flow is filed (a million flows' hashes in an array
    // of their own, memory outside the heap, came near starting a full collection of the heap).
    const hashes = next;
    const { texts } = this;
    const x: LineSpan = { text: '', start: 0, end: 0, statsEnd: 0 };
    // In passes over one thing each, in order, so that the memory each reads streams in: the flows
    // (where their lines lie), the texts (their hashes), then the slots, read at random.
    for (let i = 0; i < flows.length; i++) {
      const flow = flows[i]!;
      if (!writtenPart(flow, x)) continue;
      if (texts[texts.length - 1] !== x.text) texts.push(x.text);
      lines[4 * i] = x.start;
      lines[4 * i + 1] = x.end - x.start;
      lines[4 * i + 2] = key(flow);
      lines[4 * i + 3] = ((texts.length - 1) << 1) | (flow instanceof LineFlow ? 1 : 0);
    }
    for (let i = 0; i < flows.length; i++) {
      const start = lines[4 * i]!;
      if (start >= 0) hashes[i] = writtenHash(this.textOf(i), start, start + lines[4 * i + 1]!);
    }
    // Filed last to first, each ahead of those filed before it: chains run in dump order. The
    // slots of BATCH flows are read before any of them is filed, so that their cache misses
    // overlap rather than follow each other (as ReadAlong looks lines up).
    let touched = 0;
    for (let top = flows.length - 1; top >= 0; top -= BATCH) {
      const low = Math.max(0, top - BATCH + 1);
      for (let i = top; i >= low; i--) touched += table[2 * (hashes[i]! & this.mask) + 1]!;
      for (let i = top; i >= low; i--) {
        if (lines[4 * i]! < 0) continue;
        const h = hashes[i]!;
        const s = this.slotOf(h);
        table[2 * s] = h;
        next[i] = table[2 * s + 1]!;
        table[2 * s + 1] = i + 1;
      }
    }
    this.touched = touched;
  }

  private slotOf(h: number): number {
    const { table, mask } = this;
    let s = h & mask;
    while (table[2 * s + 1] !== 0 && table[2 * s] !== h) s = (s + 1) & mask;
    return s;
  }

  /** The text flow `j`'s line lies in. */
  private textOf(j: number): string {
    return this.texts[this.lines[4 * j + 3]! >>> 1]!;
  }

  /** The first flow, in dump order, whose written part hashes to `hash` (see writtenHash); -1 when none. */
  head(hash: number): number {
    return this.table[2 * this.slotOf(hash) + 1]! - 1;
  }

  /**
   * Where the flow's written part starts (its length -1: it has none): read before confirming
   * lines in a batch (see ReadAlong), so that their cache misses overlap rather than follow each other.
   */
  startOf(j: number): number {
    return this.lines[4 * j]!;
  }

  /**
   * The characters of the flow's written part a cache line apart (its first, every 64th and its
   * last), read for the same reason as startOf: a line of a dump spans three or four cache lines.
   */
  charsOf(j: number): number {
    const { lines } = this;
    const length = lines[4 * j + 1]!;
    if (length <= 0) return 0;
    const text = this.textOf(j);
    const start = lines[4 * j]!;
    let sum = text.charCodeAt(start + length - 1);
    for (let at = start; at < start + length; at += 64) sum += text.charCodeAt(at);
    return sum;
  }

  /**
   * The first flow from `j` on in its chain (`j` from head), in dump order, whose written part is
   * `text[start, end)` and whose key is `key`, of those whose `state` is neither PAIRED nor
   * `claimed`; -1 when none.
   */
  find(j: number, text: string, start: number, end: number, key: number, state: Uint8Array, claimed = PAIRED): number {
    const { lines, next } = this;
    const length = end - start;
    for (; j >= 0; j = next[j]! - 1) {
      const s = state[j]!;
      if (s === PAIRED || s === claimed || lines[4 * j + 1] !== length || lines[4 * j + 2] !== key) continue;
      if (sameText(text, start, this.textOf(j), lines[4 * j]!, length)) return j;
    }
    return -1;
  }

  /** Whether flow `j` has a twin in a line whose statistics take `statsEnd` characters (see LineFlow.twins). */
  twins(j: number, statsEnd: number): boolean {
    return (this.lines[4 * j + 3]! & 1) === 1 && LineFlow.twins(statsEnd, this.lines[4 * j + 1]!);
  }

  /** Whether flows `i` and `j` have the same written part and key. */
  alike(i: number, j: number): boolean {
    const { lines } = this;
    const length = lines[4 * i + 1]!;
    return (
      length === lines[4 * j + 1] &&
      lines[4 * i + 2] === lines[4 * j + 2] &&
      sameText(this.textOf(i), lines[4 * i]!, this.textOf(j), lines[4 * j]!, length)
    );
  }

  /** Visits every flow from `j` on in its chain whose written part and key are those of `j`, `j` too. */
  eachCopy(j: number, visit: (k: number) => void): void {
    for (let k = j; k >= 0; k = this.next[k]! - 1) if (k === j || this.alike(j, k)) visit(k);
  }
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
  const index = new WrittenIndex(b, key);
  const x: LineSpan = { text: '', start: 0, end: 0, statsEnd: 0 };
  for (let i = 0; i < a.length; i++) {
    const flow = a[i]!;
    if (!writtenPart(flow, x)) continue;
    const j = index.find(index.head(writtenHash(x.text, x.start, x.end)), x.text, x.start, x.end, key(flow), pairedB);
    if (j < 0) continue;
    pairedA[i] = PAIRED;
    pairedB[j] = PAIRED;
  }
  return { a: pairedA, b: pairedB };
}

/** A line's text after its statistics, `text[start, end)`, and its key (see lineKeys). */
interface LineText {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  readonly key: number;
}

/**
 * Where ReadAlong keeps a line left of key `key` and `length` characters: lines of one table are
 * told apart by length before their text is read. Keys and lengths that share a slot are told
 * apart by readsAsAny.
 */
function leftSlot(key: number, length: number): number {
  return key * 0x200000 + (length & 0x1fffff);
}

/** Whether `text[start, end)` with key `key` reads as one of `lines`. */
function readsAsAny(lines: readonly LineText[], text: string, start: number, end: number, key: number): boolean {
  const length = end - start;
  // A loop, not `some`: this runs for many lines of a dump read along, and a closure each time costs.
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.key === key && l.end - l.start === length && sameText(l.text, l.start, text, start, length)) return true;
  }
  return false;
}

/** What ReadAlong.follow returns for a line that ends reading in order. */
const OUT_OF_ORDER = -2;

/** A flow of the first dump that ReadAlong has looked up for a line of the second, not yet taken. */
const RESERVED = 2;
/** A flow of the first dump whose kind ReadAlong leaves to pairWritten (see ReadAlong). */
const LEFT = 3;

/** The lines of a batch: where each starts, its written part, key, table and hash, and what it found. */
class Batch {
  size = 0;
  readonly lines = new Int32Array(BATCH);
  readonly starts = new Int32Array(BATCH);
  readonly writtenStarts = new Int32Array(BATCH);
  readonly ends = new Int32Array(BATCH);
  readonly keys = new Int32Array(BATCH);
  readonly tables = new Uint8Array(BATCH);
  readonly hashes = new Int32Array(BATCH);
  readonly found = new Int32Array(BATCH);
  /** What the reads made only to bring memory in summed to: kept, so that they are not left out as unused. */
  touched = 0;
}

/**
 * The second of two dumps read along the first. A line of the second in the printed form whose
 * text after its statistics is that of a flow of the first, in the same table (with the same
 * cookie, when cookies count), is that flow but for its statistics: when the first's flow was read
 * lazily, known clean (see LineFlow), the line is claimed as its pair, kept as numbers (see
 * PairedLines) rather than read: its flow, the first's twin (see LineFlow.twin), is made only when
 * asked for. On two dumps of one switch this reads most of the second dump's lines in a fraction
 * of the time, and pairs them on the way.
 *
 * Pairs are made as pairWritten makes them: the first line of the second dump that reads as some
 * flows of the first with the first of those not yet paired, and so on in dump order. A line of
 * the second read any other way (told by `passed`) would have paired there too: the flows of the
 * first that read as it does are left from then on, for pairWritten to pair with what the second
 * dump leaves, in order as ever.
 *
 * The lines are looked up ahead of the reader, BATCH at a time from the line it offers, stage by
 * stage (every line's slot, then every flow found, then its text): the first dump's index and
 * text are read at random, and a line's cache misses then overlap those of the others rather than
 * wait for each other (half the time of looking each line up as it is read, on two million-flow
 * dumps). The first dump's flows themselves are not read: what a pair needs of them is in the
 * index. A flow looked up is RESERVED until its line is claimed. While the lines come in the
 * order of the first dump's flows (a dump compared with itself), each is compared with the next
 * flow instead, and the index is made only if the order breaks (see inOrder).
 */
export class ReadAlong {
  private readonly first: readonly Flow[];
  private readonly cookies: boolean;
  /** Whether a flow of the first may resubmit to a port by name (see PairedLines.settle). */
  private readonly namedPortResubmits: boolean;
  /** Per flow of the first: 0, PAIRED, RESERVED or LEFT. */
  private readonly state: Uint8Array;
  /** The lines claimed in the text being read (see settle). */
  private paired: PairedLines;
  /** Made when the first line is offered: the second side may be a bundle or a live switch, read otherwise. */
  private index: WrittenIndex | undefined;
  /** What a line of the second must share with one of the first to pair (see lineKeys). */
  private readonly key: (table: TableRef, cookie: bigint) => number;
  private readonly span: LineSpan = { text: '', start: 0, end: 0, statsEnd: 0 };
  /**
   * While the second dump lists its lines as the first lists its flows (a dump compared with
   * itself, or a copy of it), the flow of the first the next line is to read as: every flow before
   * it is paired or left. -1 once a line reads otherwise: lines are looked up in the index from
   * then on, which is made only then (see follow).
   */
  private inOrder = 0;
  /**
   * The lines left while reading in order (see leave), by key and length (see leftSlot: told
   * without reading the text, unlike a hash), each text once: the flows of the first that read as
   * one are left too.
   */
  private readonly leftLines = new Map<number, LineText[]>();
  /** The table of the line follow last claimed. */
  private followed = 0;
  /** The text looked up ahead (see lookUp), its `count` lines from line `firstLine`, and the source it is read with. */
  private text = '';
  private source: LineSource | undefined;
  private firstLine = 0;
  private count = 0;
  /** Per line looked up ahead: where it starts, the flow of the first it pairs (-1: none) and its table. */
  private readonly starts = new Int32Array(BATCH);
  private readonly found = new Int32Array(BATCH).fill(-1);
  private readonly tables = new Uint8Array(BATCH);
  private readonly batch = new Batch();

  /** Told once when the lines stop coming in the order of the first's flows (see inOrder). */
  private readonly unordered: () => void;

  constructor(
    first: Pick<ParseResult, 'flows' | 'namedPortResubmits'>,
    cookies: boolean,
    unordered: () => void = () => {},
  ) {
    this.first = first.flows;
    this.cookies = cookies;
    this.unordered = unordered;
    this.namedPortResubmits = first.namedPortResubmits !== false;
    this.state = new Uint8Array(this.first.length);
    this.key = lineKeys(cookies);
    this.paired = new PairedLines(this.first, cookies, this.namedPortResubmits);
  }

  private indexed(): WrittenIndex {
    return (this.index ??= new WrittenIndex(this.first, (f) =>
      f.table.kind === 'number' ? this.key(f.table, f.cookie) : -1,
    ));
  }

  /**
   * Whether the line `text[start, end)`, number `line`, read with `source`, pairs a flow of
   * the first dump: then it is claimed (see PairedLines), after the `kept` flows the reader has
   * kept of its text; else it is to be read as ever.
   */
  claim(text: string, start: number, end: number, line: number, source: LineSource, kept: number): boolean {
    if (this.inOrder >= 0) {
      const j = this.follow(text, start, end);
      if (j >= 0) this.paired.add(j, text, start, line, source, kept, this.followed);
      if (j !== OUT_OF_ORDER) return j >= 0;
    }
    let i = line - this.firstLine;
    if (text !== this.text || source !== this.source || i < 0 || i >= this.count || this.starts[i] !== start) {
      this.lookUp(text, start, line, source);
      i = 0;
    }
    const j = this.found[i]!;
    // Left since it was looked up (see passed).
    if (j < 0 || this.state[j] !== RESERVED) return false;
    this.state[j] = PAIRED;
    this.paired.add(j, text, start, line, source, kept, this.tables[i]!);
    return true;
  }

  /**
   * Looks up the next BATCH lines of `text` from `from` (line `line`), as eachLogicalLine counts
   * them, and finds the flows of the first dump they pair. The flows looked up before and not
   * claimed are free again.
   */
  private lookUp(text: string, from: number, line: number, source: LineSource): void {
    const { state, starts, found, batch } = this;
    for (let n = 0; n < this.count; n++) {
      const j = found[n]!;
      if (j >= 0 && state[j] === RESERVED) state[j] = 0;
      found[n] = -1;
    }
    this.text = text;
    this.source = source;
    this.firstLine = line;
    let n = 0;
    for (let at = from; at < text.length && n < BATCH; n++) {
      let end = text.indexOf('\n', at);
      if (end < 0) end = text.length;
      starts[n] = at;
      if (scanPrintedStats(text, at)) {
        const b = batch.size++;
        // 255 means "all tables": an addition with it lands in table 0.
        const table = printed.table === 255 ? 0 : printed.table;
        batch.lines[b] = n;
        batch.starts[b] = at;
        batch.writtenStarts[b] = printed.end;
        batch.ends[b] = end;
        batch.keys[b] = this.key(tableRefOf(table), printed.cookie);
        batch.tables[b] = table;
        batch.hashes[b] = writtenHash(text, printed.end, end);
      }
      at = end + 1;
    }
    this.count = n;
    this.lookUpBatch(batch);
  }

  /** The lines of the batch looked up, stage by stage (see ReadAlong); the batch emptied. */
  private lookUpBatch(batch: Batch): void {
    const index = this.indexed();
    const { state, text } = this;
    const { size, found } = batch;
    for (let b = 0; b < size; b++) found[b] = index.head(batch.hashes[b]!);
    let touched = 0;
    for (let b = 0; b < size; b++) if (found[b]! >= 0) touched += index.startOf(found[b]!) + state[found[b]!]!;
    for (let b = 0; b < size; b++) if (found[b]! >= 0) touched += index.charsOf(found[b]!);
    for (let b = 0; b < size; b++) {
      const j =
        found[b]! < 0
          ? -1
          : index.find(found[b]!, text, batch.writtenStarts[b]!, batch.ends[b]!, batch.keys[b]!, state, RESERVED);
      // The first flow not yet paired that reads as the line is left: so is the line.
      found[b] = j < 0 || state[j] === LEFT ? -1 : j;
      if (found[b]! >= 0) state[j] = RESERVED;
    }
    for (let b = 0; b < size; b++) {
      const j = found[b]!;
      if (j < 0) continue;
      const n = batch.lines[b]!;
      if (index.twins(j, batch.writtenStarts[b]! - batch.starts[b]!)) {
        this.found[n] = j;
        this.tables[n] = batch.tables[b]!;
        continue;
      }
      // A flow that cannot be twinned is left, and the later lines of the batch that read as it did.
      state[j] = LEFT;
      for (let c = b + 1; c < size; c++) {
        const k = found[c]!;
        if (k >= 0 && index.alike(j, k)) {
          state[k] = LEFT;
          found[c] = -1;
        }
      }
    }
    batch.touched = touched;
    batch.size = 0;
  }

  /** A flow of the second dump read otherwise: the flows of the first that read as it does are left. */
  passed(flow: Flow): void {
    const x = this.span;
    const { table } = flow;
    if (!writtenPart(flow, x) || table.kind !== 'number') return;
    this.leave({ text: x.text, start: x.start, end: x.end, key: this.key(table, flow.cookie) });
  }

  /**
   * The flows of the first not yet paired that read as `line` are left: found in the index, or
   * while reading in order (see follow), when the reading comes to them.
   */
  private leave(line: LineText): void {
    if (this.inOrder >= 0) {
      const slot = leftSlot(line.key, line.end - line.start);
      const lines = this.leftLines.get(slot);
      if (lines === undefined) this.leftLines.set(slot, [line]);
      // A line follow left comes back when it is read otherwise (see passed): kept once.
      else if (!readsAsAny(lines, line.text, line.start, line.end, line.key)) lines.push(line);
      return;
    }
    const index = this.indexed();
    const { state } = this;
    const hash = writtenHash(line.text, line.start, line.end);
    const j = index.find(index.head(hash), line.text, line.start, line.end, line.key, state);
    if (j >= 0)
      index.eachCopy(j, (k) => {
        if (state[k] !== PAIRED) state[k] = LEFT;
      });
  }

  /**
   * Reading in order (see inOrder): the flow of the first that the line `text[start, end)` pairs,
   * as lookUp would find it (the first not yet paired that reads as it: every flow before is
   * paired or left), or -1 when the line pairs none; OUT_OF_ORDER when the line does not read as
   * the next flow, which ends reading in order: the index is made, and what was left is left in it.
   */
  private follow(text: string, start: number, end: number): number {
    // A line in another form pairs nothing (see lookUp).
    if (!scanPrintedStats(text, start)) return -1;
    const writtenStart = printed.end;
    const table = printed.table === 255 ? 0 : printed.table;
    // Without cookies a numbered table's key is its number (see lineKeys).
    const key = this.cookies ? this.key(tableRefOf(table), printed.cookie) : table;
    let j = this.nextFree();
    if (!this.readsAs(j, text, writtenStart, end, key, table)) {
      // The next flow, the flows that read as lines left skipped (see nextInOrder), may read as it.
      if (this.leftLines.size === 0 || !this.readsAs((j = this.nextInOrder()), text, writtenStart, end, key, table))
        return this.outOfOrder();
    } else if (this.leftLines.size > 0 && this.isLeft(text, writtenStart, end, key)) {
      // The flow reads as a line left, as the line does: nextInOrder would leave it, and every
      // flow after it that reads so, and the next would not read as the line.
      return this.outOfOrder();
    }
    if (this.first[j] instanceof LineFlow && LineFlow.twins(writtenStart - start, end - writtenStart)) {
      this.state[j] = PAIRED;
      this.followed = table;
      return j;
    }
    // A flow that cannot be twinned is left, and so is the line (as lookUpBatch leaves them).
    this.state[j] = LEFT;
    this.leave({ text, start: writtenStart, end, key });
    return -1;
  }

  /** Whether flow `j` of the first (none past the last) reads as `text[start, end)` with key `key`, of table `table`. */
  private readsAs(j: number, text: string, start: number, end: number, key: number, table: number): boolean {
    const flow = this.first[j];
    // Most flows of a dump read along: their lines compared where they lie, without a span, and
    // without cookies their key is their table's number.
    if (flow instanceof LineFlow)
      return flow.writtenAs(table, text, start, end) && (!this.cookies || this.key(flow.table, flow.cookie) === key);
    const x = this.span;
    return (
      flow !== undefined &&
      writtenPart(flow, x) &&
      flow.table.kind === 'number' &&
      x.end - x.start === end - start &&
      this.key(flow.table, flow.cookie) === key &&
      sameText(text, start, x.text, x.start, end - start)
    );
  }

  /** Whether `text[start, end)` with key `key` reads as a line left (see leftLines). */
  private isLeft(text: string, start: number, end: number, key: number): boolean {
    const lines = this.leftLines.get(leftSlot(key, end - start));
    return lines !== undefined && readsAsAny(lines, text, start, end, key);
  }

  /** Ends reading in order: the lines left while reading so are left in the index (see follow). */
  private outOfOrder(): number {
    this.inOrder = -1;
    this.unordered();
    for (const lines of this.leftLines.values()) for (const line of lines) this.leave(line);
    this.leftLines.clear();
    return OUT_OF_ORDER;
  }

  /** The first flow of the first, from inOrder on, neither paired nor left. */
  private nextFree(): number {
    const { state } = this;
    let j = this.inOrder;
    while (j < state.length && state[j] !== 0) j++;
    return (this.inOrder = j);
  }

  /** The first flow of the first, from inOrder on, neither paired nor left (a flow that reads as a line left is left). */
  private nextInOrder(): number {
    const { state, first, leftLines } = this;
    const x = this.span;
    let j = this.inOrder;
    for (; j < first.length; j++) {
      if (state[j] !== 0) continue;
      if (leftLines.size === 0) break;
      const flow = first[j]!;
      if (!writtenPart(flow, x) || flow.table.kind !== 'number') break;
      if (!this.isLeft(x.text, x.start, x.end, this.key(flow.table, flow.cookie))) break;
      state[j] = LEFT;
    }
    return (this.inOrder = j);
  }

  /**
   * The lines claimed in a text now read, whose flows the reader kept are `flows` (its groups and
   * ports those given); undefined when none was claimed, or when they could not stay claimed (see
   * PairedLines.settle) and are now among `flows`. The next text starts anew.
   */
  settle(flows: Flow[], groups: readonly Group[], ports: PortMap): PairedLines | undefined {
    const paired = this.paired;
    if (paired.size === 0) return undefined;
    this.paired = new PairedLines(this.first, this.cookies, this.namedPortResubmits);
    return paired.settle(flows, groups, ports) ? paired : undefined;
  }
}
