/**
 * Lines two dumps share. Two dumps of one switch, taken an hour apart, differ in their statistics
 * and in a few flows: a line of the later one that says after its statistics what a line of the
 * earlier one says is that line's flow again, with its own statistics, table and cookie. It is
 * read as such, neither parsed nor checked: a diff of two million-flow dumps reads the second
 * almost for the cost of splitting it into lines.
 *
 * Only lines read clean (no diagnostic) and without port names are kept, and only lines read
 * without port names are found among them: the same text then reads the same in both dumps.
 */
import type { Action } from '../model/actions.ts';
import type { Flow, FlowFlag, FlowOutline, FlowStats, Match, Origin, SameLine } from '../model/flow.ts';
import type { TableRef } from '../model/tables.ts';
import { sameWritten, writtenHash } from '../model/written-line.ts';
import { LineFlow } from './line-flow.ts';
import { printed, printedTable, scanPrintedStats, statsEndingAt } from './printed-stats.ts';

/** How a dump read uses the lines of SameLines: `keep` files its clean lines, `find` reads its lines among them. */
export interface LineSharing {
  readonly lines: SameLines;
  readonly role: 'keep' | 'find';
}

/**
 * Whether the flow is what its printed statistics and the rest of its line make of it apart: no
 * key after the statistics sets the table, cookie or counters again. A lazily read flow is by
 * construction (its priority follows the statistics, and its match holds no flow key).
 */
function readsAsPrinted(flow: Flow, text: string): boolean {
  if (flow instanceof LineFlow) return true;
  if (!scanPrintedStats(text, 0)) return false;
  const own = flow.stats;
  const printedStats = statsEndingAt(text, printed.end);
  return (
    flow.table === printedTable() &&
    flow.cookie === printed.cookie &&
    own !== undefined &&
    own.duration === printedStats.duration &&
    own.packets === printedStats.packets &&
    own.bytes === printedStats.bytes
  );
}

/** Int32s per slot of SameLines' table: the text's hash, 1 + its entry, where the text is in the joined texts, its length. */
const SLOT = 4;

/** The clean lines of one dump in the printed form, by their text after the statistics. */
export class SameLines {
  /** The kept lines, until the first lookup files them (see `slots`) and joins their texts. */
  private lines: string[] = [];
  private ends: number[] = [];
  /**
   * The kept texts after the statistics joined, each at the place its slot gives: a lookup reads
   * one place in one string, rather than a string object (and its parent) per text, wherever
   * it lies in memory.
   */
  private joined = '';
  private readonly flows: Flow[] = [];
  private readonly indices: number[] = [];
  /**
   * Open addressing, SLOT numbers a slot (1 + entry; 0: free): what a lookup needs in one place,
   * since the entries lie scattered in memory (two dumps of one switch list their flows in any
   * order) and each place read is a cache miss. The entry is negative for a text its dump holds
   * more than once: not found (a diff pairs such copies in order). Made when first looked in.
   */
  private slots: Int32Array | undefined;

  /** Keeps a flow read clean and without port names, the `index`-th flow of its dump. */
  keep(flow: Flow, index: number): void {
    const { text, statsEnd } = flow.origin;
    if (!statsEnd || !readsAsPrinted(flow, text) || this.slots !== undefined) return;
    this.lines.push(text);
    this.ends.push(statsEnd);
    this.flows.push(flow);
    this.indices.push(index);
  }

  /** The slots of the kept lines, filed in dump order: the kept texts are read one after the other. */
  private file(): Int32Array {
    let size = 16;
    while (size < 2 * this.lines.length) size *= 2;
    const slots = new Int32Array(size * SLOT);
    const mask = size - 1;
    const texts: string[] = [];
    let length = 0;
    for (let e = 0; e < this.lines.length; e++) {
      const text = this.lines[e]!;
      const end = this.ends[e]!;
      const h = writtenHash(text, end);
      let s = h & mask;
      for (; slots[s * SLOT + 1] !== 0; s = (s + 1) & mask) {
        const at = s * SLOT;
        if (
          slots[at] === h &&
          sameWritten(this.lines[Math.abs(slots[at + 1]!) - 1]!, this.ends[Math.abs(slots[at + 1]!) - 1]!, text, end)
        )
          break;
      }
      const at = s * SLOT;
      if (slots[at + 1] !== 0) {
        slots[at + 1] = -Math.abs(slots[at + 1]!);
        continue;
      }
      const written = text.slice(end);
      slots[at] = h;
      slots[at + 1] = e + 1;
      slots[at + 2] = length;
      slots[at + 3] = written.length;
      texts.push(written);
      length += written.length;
    }
    this.joined = texts.join('');
    this.lines = [];
    this.ends = [];
    return slots;
  }

  /**
   * The flow of line `line` of `file`, `text` from `start` to `end` (the whole text of a dump, or
   * the line), read without port names, when it is in the printed form and says after its
   * statistics what one kept line (and no other) says; else undefined.
   */
  find(text: string, start: number, end: number, file: string, line: number): Flow | undefined {
    if (this.flows.length === 0 || !scanPrintedStats(text, start)) return undefined;
    const slots = (this.slots ??= this.file());
    const statsEnd = printed.end;
    const h = writtenHash(text, statsEnd, end);
    const length = end - statsEnd;
    const mask = slots.length / SLOT - 1;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const at = s * SLOT;
      const e = slots[at + 1]!;
      if (e === 0) return undefined;
      if (slots[at] !== h || slots[at + 3] !== length) continue;
      const kept = this.joined.slice(slots[at + 2], slots[at + 2]! + length);
      if (kept !== text.slice(statsEnd, end)) continue;
      if (e < 0) return undefined;
      const where = { text, at: start, end, statsEnd };
      return SameLineFlow.make(printedTable(), printed.cookie, where, file, line, this, e - 1);
    }
  }

  /** The flow kept as `entry`. */
  flow(entry: number): Flow {
    return this.flows[entry]!;
  }

  /** The place among its dump's flows of the flow kept as `entry`. */
  index(entry: number): number {
    return this.indices[entry]!;
  }
}

/** What a flow whose line says what a kept line says after its statistics takes from the kept line's flow. */
const SHARED = [
  'priority',
  'match',
  'actions',
  'outline',
  'idleTimeout',
  'hardTimeout',
  'importance',
  'flags',
] as const;

/** A flow whose line says after its statistics what a kept line says: that line's flow, but for its statistics, table and cookie. */
class SameLineFlow implements Flow {
  // Made by SameLineFlow.make, never by a constructor: the fields are declared here, set there.
  declare readonly table: TableRef;
  declare readonly cookie: bigint;
  /** The text the line lies in, where it starts and ends there, and where its statistics end. */
  declare private readonly text: string;
  declare private readonly at: number;
  declare private readonly end: number;
  declare private readonly statsEnd: number;
  declare private readonly file: string;
  declare private readonly line: number;
  declare private readonly lines: SameLines;
  declare private readonly entry: number;

  /** An object literal, not `new`: as LineFlow.make, so that V8 makes a million of them in the old generation. */
  static make(
    table: TableRef,
    cookie: bigint,
    where: { readonly text: string; readonly at: number; readonly end: number; readonly statsEnd: number },
    file: string,
    line: number,
    lines: SameLines,
    entry: number,
  ): SameLineFlow {
    const { text, at, end, statsEnd } = where;
    const fields = {
      __proto__: SameLineFlow.prototype,
      table,
      cookie,
      text,
      at,
      end,
      statsEnd,
      file,
      line,
      lines,
      entry,
    };
    return fields as unknown as SameLineFlow;
  }

  /** The kept line's flow. */
  private get same(): Flow {
    return this.lines.flow(this.entry);
  }

  declare readonly priority: number;
  declare readonly match: Match;
  declare readonly actions: readonly Action[];
  declare readonly outline: FlowOutline | undefined;
  declare readonly idleTimeout: number;
  declare readonly hardTimeout: number;
  declare readonly importance: number;
  declare readonly flags: readonly FlowFlag[];

  static {
    // What the text after the statistics says is the kept line's flow's: read from it when asked.
    for (const key of SHARED)
      Object.defineProperty(SameLineFlow.prototype, key, {
        get(this: SameLineFlow) {
          return this.same[key];
        },
      });
  }

  /** This line's counters; the ages printed after them (`idle_age=`) are in the text both lines share. */
  get stats(): FlowStats {
    const own = statsEndingAt(this.text, this.statsEnd);
    const ages = this.same.stats;
    return ages?.idleAge === undefined && ages?.hardAge === undefined ? own : { ...ages, ...own };
  }

  get origin(): Origin {
    const { text, at, end } = this;
    return { file: this.file, line: this.line, text: text.slice(at, end), statsEnd: this.statsEnd - at };
  }

  get sameLine(): SameLine {
    return { flow: this.same, index: this.lines.index(this.entry) };
  }
}
