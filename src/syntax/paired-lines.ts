/**
 * The lines of a dump read along another (see ReadAlong) that are flows of the other but for their
 * statistics, kept as numbers rather than flows: which flow of the other each pairs, where its
 * line lies, and where it goes among the flows read otherwise. A comparison needs of such a line
 * only that it pairs, and what its flow of the other says (two dumps of one switch: most of a
 * million lines); its own flow, the other's twin (see LineFlow.twin), is made when asked for.
 */
import type { Flow, Group } from '../model/flow.ts';
import type { PortMap } from '../model/ports.ts';
import type { LineFlow, LineSource } from './line-flow.ts';
import { forgetPrintedStats, printed, scanPrintedStats } from './printed-stats.ts';
import { strangerPorts } from './table-resubmits.ts';

/** The fields of a pair in PairedLines.claimed, after its flow of the first dump. */
const START = 1;
const LINE = 2;
const TEXT = 3;
const BEFORE = 4;
const FIELDS = 5;

/** What the pairs leave of the first dump, and how many each table holds (see PairedLines.tally). */
interface PairTally {
  readonly firstUnpaired: readonly Flow[];
  readonly byTable: Int32Array;
}

export class PairedLines {
  /** The dump read along, and whether cookies counted in pairing (see lineKeys). */
  readonly first: readonly Flow[];
  readonly cookies: boolean;
  /** The lines claimed. */
  size = 0;
  /** The flows read otherwise, in dump order (see settle). */
  unpaired: readonly Flow[] = [];
  /**
   * Per line claimed, side by side: its flow of the first dump, where it starts, its number, its
   * text (in `texts`) and how many flows read otherwise come before it; and its table.
   */
  private claimed = new Int32Array(0);
  private tables = new Uint8Array(0);
  private readonly texts: string[] = [];
  private readonly sources: LineSource[] = [];
  private all: Flow[] | undefined;
  private tallied: PairTally | undefined;

  /** Whether a flow of the first dump may resubmit to a port by name (see settle). */
  private readonly namedPortResubmits: boolean;

  constructor(first: readonly Flow[], cookies: boolean, namedPortResubmits: boolean) {
    this.first = first;
    this.cookies = cookies;
    this.namedPortResubmits = namedPortResubmits;
  }

  /** Claims the line of `text` from `start`, number `line` of table `table`, read with `source`, after `before` flows read otherwise, as the pair of flow `j` of the first dump. */
  add(j: number, text: string, start: number, line: number, source: LineSource, before: number, table: number): void {
    const r = this.size++;
    if (r === this.tables.length) {
      // Room at first for as many as the first dump has flows: two dumps of one switch pair most.
      const room = r === 0 ? Math.max(64, this.first.length) : r * 2;
      const claimed = new Int32Array(room * FIELDS);
      claimed.set(this.claimed);
      this.claimed = claimed;
      const tables = new Uint8Array(room);
      tables.set(this.tables);
      this.tables = tables;
    }
    const { texts, sources, claimed } = this;
    if (texts[texts.length - 1] !== text || sources[sources.length - 1] !== source) {
      texts.push(text);
      sources.push(source);
    }
    const at = r * FIELDS;
    claimed[at] = j;
    claimed[at + START] = start;
    claimed[at + LINE] = line;
    claimed[at + TEXT] = texts.length - 1;
    claimed[at + BEFORE] = before;
    this.tables[r] = table;
  }

  /**
   * The text is read, its flows read otherwise are `unpaired`. Whether the lines may stay claimed:
   * not when a flow or bucket resubmits to a port by a name the dump does not know (see
   * readTableResubmits), which the tables of the dump decide; then the pairs' flows are made, and
   * `unpaired` becomes every flow of the text, in place. The first dump's flows are looked through
   * only when it was read with some (a million flows read again otherwise).
   */
  settle(unpaired: Flow[], groups: readonly Group[], ports: PortMap): boolean {
    this.unpaired = unpaired;
    if (
      strangerPorts(unpaired, groups, ports).size === 0 &&
      !(this.namedPortResubmits && strangerPorts(this.first, [], ports).size > 0)
    )
      return true;
    const all = this.flows();
    unpaired.length = 0;
    for (const f of all) unpaired.push(f);
    this.size = 0;
    this.all = undefined;
    this.tallied = undefined;
    return false;
  }

  /** The first dump's flow of pair `r`. */
  firstOf(r: number): number {
    return this.claimed[r * FIELDS]!;
  }

  /** The table of pair `r`. */
  tableOf(r: number): number {
    return this.tables[r]!;
  }

  /** How many flows read otherwise come before pair `r`. */
  beforeOf(r: number): number {
    return this.claimed[r * FIELDS + BEFORE]!;
  }

  /** The flows of the first dump that no line pairs, in their order. */
  firstUnpaired(): readonly Flow[] {
    return this.tally().firstUnpaired;
  }

  /** How many lines are claimed in each table, by number (a claimed line's table is always a number). */
  byTable(): Int32Array {
    return this.tally().byTable;
  }

  /** firstUnpaired and byTable, found once, in one pass over the pairs (a comparison asks for both). */
  private tally(): PairTally {
    if (this.tallied) return this.tallied;
    const { claimed, tables, size, first } = this;
    const paired = new Uint8Array(first.length);
    const byTable = new Int32Array(256);
    for (let r = 0; r < size; r++) {
      paired[claimed[r * FIELDS]!] = 1;
      byTable[tables[r]!]!++;
    }
    const firstUnpaired: Flow[] = [];
    for (let i = 0; i < paired.length; i++) if (paired[i] === 0) firstUnpaired.push(first[i]!);
    return (this.tallied = { firstUnpaired, byTable });
  }

  /** The flow of pair `r`, made now. */
  flow(r: number): Flow {
    const flow = this.twin(r);
    // The statistics read are kept as a slice of the text (see forgetPrintedStats).
    forgetPrintedStats();
    return flow;
  }

  private twin(r: number): Flow {
    const { claimed } = this;
    const at = r * FIELDS;
    const text = this.texts[claimed[at + TEXT]!]!;
    const start = claimed[at + START]!;
    scanPrintedStats(text, start);
    const first = this.first[claimed[at]!] as LineFlow;
    // Claimed only where it can be made (see ReadAlong.lookUpBatch).
    return first.twin(printed, text, start, this.sources[claimed[at + TEXT]!]!, claimed[at + LINE]!)!;
  }

  /** Every flow of the text, in dump order: the pairs' made (once) among those read otherwise. */
  flows(): Flow[] {
    if (this.all) return this.all;
    const { unpaired, size } = this;
    const all: Flow[] = [];
    let u = 0;
    for (let r = 0; r < size; r++) {
      for (const to = this.beforeOf(r); u < to; u++) all.push(unpaired[u]!);
      all.push(this.twin(r));
    }
    for (; u < unpaired.length; u++) all.push(unpaired[u]!);
    forgetPrintedStats();
    return (this.all = all);
  }
}

/** `result` with its flows those of the pairs too (made when first asked for), and the pairs. */
export function withPairs<R extends { readonly flows: Flow[] }>(
  result: R,
  paired: PairedLines,
): R & { readonly paired: PairedLines } {
  return Object.defineProperty({ ...result, paired }, 'flows', {
    get: () => paired.flows(),
    enumerable: true,
    configurable: true,
  });
}
