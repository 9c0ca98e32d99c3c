/**
 * A flow of a dump whose match and actions are read when first asked for. A million-flow dump is
 * mostly lines whose match and action list the reader has met before in a clean line (the same
 * text, or the same text but for the last address, see address-variants.ts and recurring.ts):
 * such a line is known to read without any problem as soon as those parts are found among the
 * recurring ones, so its diagnostics (none) are known without making its objects. So is a line of
 * the same shape as a clean one but for some numbers, each within its range (see line-shape.ts),
 * read again from its text when its match or actions are asked for. Commands that
 * look at a few tables of such a dump, or at its statistics alone, never make the rest.
 */
import type { Action } from '../model/actions.ts';
import type {
  ConjunctionVisitor,
  Flow,
  FlowFlag,
  FlowOutline,
  FlowStats,
  LineSpan,
  Match,
  Origin,
} from '../model/flow.ts';
import { EMPTY_MATCH } from '../model/match.ts';
import type { TableRef } from '../model/tables.ts';
import { eachListConjunction, isPlainConjunctionList, plainConjunctions } from './actions.ts';
import { addressAt, templateVariant, withAddress } from './address-variants.ts';
import { NO_FLAGS, TABLE_REFS } from './interned.ts';
import { type LineShape, type LineShapes, writtenNumbers } from './line-shape.ts';
import { DecimalRun } from './numbers.ts';
import { shapedActions } from './shaped-actions.ts';
import {
  HARD_AGE,
  HARD_TIMEOUT,
  IDLE_AGE,
  IDLE_TIMEOUT,
  IMPORTANCE,
  type PrintedStats,
  printedKeys,
  readPrintedKeys,
  statsEndingAt,
} from './printed-stats.ts';
import type { RecurringParts } from './recurring.ts';

/** Lists longer than this (in characters) name several conjunctions, a set rarely repeated. */
export const LONG_LIST = 100;

/** Whether the action list `text[start, end)` is one read directly (see readActions). */
export function isLongConjunctionList(text: string, start: number, end: number): boolean {
  return end - start > LONG_LIST && text.startsWith('conjunction(', start);
}

/**
 * What knownMatch found: the shared match, and which entry takes which address (index -1: none),
 * given where it starts in the text (foundAddressAt, -1: none) or as a number (foundAddress);
 * what knownShape found: the shape (index REREAD). Held in variables of the module, not in an
 * object's fields: outside optimised code, as a short run reads, each use of a field is a call.
 */
let foundShape: Match | LineShape = EMPTY_MATCH;
let foundIndex = -1;
let foundAddress = 0;
let foundAddressAt = -1;

/**
 * Whether the match `text[start, end)` is one of the recurring parts: a clean match met before,
 * or a template's with another last address (into foundShape, foundIndex and foundAddress). An
 * empty match (start at end) is always known.
 */
function knownMatch(text: string, start: number, end: number, parts: RecurringParts): boolean {
  foundIndex = -1;
  foundAddress = 0;
  foundAddressAt = -1;
  if (start >= end) {
    foundShape = EMPTY_MATCH;
    return true;
  }
  const template = templateVariant(text, start, end, parts.templates);
  if (template) {
    foundShape = template.match;
    foundIndex = template.index;
    foundAddressAt = start + template.addressAt;
    return true;
  }
  const match = parts.matches.get(text.slice(start, end));
  if (match === undefined) return false;
  foundShape = match;
  return true;
}

/**
 * The action list `text[start, end)` when it is a recurring clean one that needs no check against
 * the match; undefined for any other.
 */
function knownActions(text: string, start: number, end: number, parts: RecurringParts): readonly Action[] | undefined {
  const known = parts.actions.get(text.slice(start, end));
  return known === undefined || known.checked ? undefined : known.actions;
}

/** `index` of a flow whose match and actions are read again from its line (one of a shape). */
const REREAD = -2;

/** The shape (see line-shape.ts) that `text[start, end)` has among `shapes` (into foundShape and foundIndex). */
function knownShape(text: string, start: number, end: number, shapes: LineShapes): LineShape | undefined {
  if (shapes.size === 0) return undefined;
  const shape = shapes.find(text, start, end);
  if (shape === undefined) return undefined;
  foundShape = shape;
  foundIndex = REREAD;
  foundAddress = 0;
  foundAddressAt = -1;
  return shape;
}

/** The file a dump was read from and the recurring parts its lines were read with, shared by its lazy flows. */
export interface LineSource {
  readonly file: string;
  readonly parts: RecurringParts;
  /**
   * The match of a line of `shape`, `text` or a line of it (see shapedLineMatch), read as when the
   * parts were (with the same port names).
   */
  readonly readMatch: (text: string, statsEnd: number, keyword: number, shape: LineShape) => Match;
  /** The actions of a line of a shape, from `start` in `text`, whose match is `match`, read so too. */
  readonly readActions: (text: string, start: number, match: Match) => readonly Action[];
}

const conjIdDigits = new DecimalRun();

/** The statistics last read (see LineFlow.stats), and of which flow. */
const lastStats: { of: LineFlow | undefined; stats: FlowStats } = { of: undefined, stats: {} };

/**
 * How a LineFlow packs its small numbers, two words instead of eight: a million flows are a
 * million objects the collector copies. `head`: the table (8 bits), the priority (16) and the
 * outline's entry index + 2 (6); `ends`: where the statistics end (10 bits) and where the actions
 * start (19), from the line's start, whether both counters are 0 (1) and whether `address` is yet
 * to be read (1). A line whose numbers do not fit is read at once.
 */
const PRIORITY_SHIFT = 8;
const INDEX_SHIFT = 24;
/** The head's index bits of a line of a shape (REREAD + 2). */
const REREAD_HEAD = 0;
const MAX_INDEX = 61;
const STATS_BITS = 10;
/**
 * One past where the statistics may end. Powers are computed once, here: `2 ** STATS_BITS` in a
 * method is a call of the math library each time it runs outside optimised code, as a short run's does.
 */
const STATS_LIMIT = 2 ** STATS_BITS;
const ACTIONS_BITS = 19;
const MAX_ACTIONS_START = 2 ** ACTIONS_BITS - 1;
const ZERO_COUNTERS = 2 ** (STATS_BITS + ACTIONS_BITS);
/** Set while `address` says where the address starts, from the line's start, not the address itself. */
const ADDRESS_UNREAD = 2 * ZERO_COUNTERS;

export class LineFlow implements Flow {
  // Declared, set by the constructor alone: a field defined in the class body is defined (as
  // undefined) on each new object before the constructor sets it, twice the stores per flow.
  declare readonly cookie: bigint;
  /**
   * The text the line is part of, and where the line starts in it: a large dump's lines are read
   * from its whole text, and are not each made a string unless asked for (see origin).
   */
  declare private readonly text: string;
  declare private readonly at: number;
  declare private readonly source: LineSource;
  declare private readonly line: number;
  declare private readonly head: number;
  declare private ends: number;
  /**
   * The shared match, and the address its entry `index` (see head) holds instead of the shared
   * match's, as int32 (where it starts in the line until first asked for: see entryAddress); for
   * a line of a shape (index REREAD), the shape.
   */
  declare private readonly shape: Match | LineShape;
  declare private address: number;
  declare private readonly sharedActions: readonly Action[] | 'conjunctions';
  declare private decodedMatch: Match | undefined;
  declare private decodedActions: readonly Action[] | undefined;

  /**
   * A flow of the line, its outline in foundShape, foundIndex and foundAddress. Made with `new`, not as an object literal with
   * `__proto__`: setting a literal's prototype is a call into the runtime for each of a million
   * flows (1M `tables`: about 0.1 s of CPU), and the collector copies either kind alike.
   */
  private constructor(
    table: number,
    priority: number,
    cookie: bigint,
    text: string,
    at: number,
    source: LineSource,
    line: number,
    ends: number,
    sharedActions: readonly Action[] | 'conjunctions',
  ) {
    this.cookie = cookie;
    this.text = text;
    this.at = at;
    this.source = source;
    this.line = line;
    this.head = table | (priority << PRIORITY_SHIFT) | ((foundIndex + 2) << INDEX_SHIFT);
    // Most of a dump's addresses are never asked for: each is read from the line when first it is.
    const unread = foundAddressAt >= 0;
    this.ends = unread ? ends | ADDRESS_UNREAD : ends;
    this.shape = foundShape;
    this.address = unread ? foundAddressAt - at : foundAddress | 0;
    this.sharedActions = sharedActions;
    this.decodedMatch = undefined;
    this.decodedActions = undefined;
  }

  /**
   * The flow of line `line`, `text[at, end)`, in the printed form with its statistics (`stats`)
   * and a plain priority (the timeouts and ages printed between them are read from the line when
   * asked for, see readKeys), whose match (from `matchStart` to `keyword`) and actions (from
   * `actionsStart`) are both known clean recurring parts, or which is of a clean line's shape;
   * undefined for any other line, which is then read at once.
   */
  static of(
    stats: PrintedStats,
    priority: number,
    text: string,
    at: number,
    end: number,
    source: LineSource,
    line: number,
    matchStart: number,
    keyword: number,
    actionsStart: number,
  ): LineFlow | undefined {
    const statsEnd = stats.end - at;
    if (statsEnd >= STATS_LIMIT || actionsStart - at > MAX_ACTIONS_START) return undefined;
    const ends = statsEnd | ((actionsStart - at) << STATS_BITS) | (stats.zero ? ZERO_COUNTERS : 0);
    // 255 means "all tables": an addition with it lands in table 0.
    const table = stats.table === 255 ? 0 : stats.table;
    const { cookie } = stats;
    const { parts } = source;
    // A list of plain conjunctions (of any length) is clean and needs no check against any match:
    // told without looking it up among the recurring lists, most of which it is not.
    const conjunctions =
      text.startsWith('conjunction(', actionsStart) && isPlainConjunctionList(text, actionsStart, end);
    if (knownMatch(text, matchStart, keyword, parts)) {
      const actions = conjunctions ? 'conjunctions' : knownActions(text, actionsStart, end, parts);
      if (actions !== undefined && foundIndex <= MAX_INDEX)
        return new LineFlow(table, priority, cookie, text, at, source, line, ends, actions);
    }
    // A long list of conjunctions is no line's shape (see keepShape's caller): its ids are as many as the rules it serves.
    const shape = isLongConjunctionList(text, actionsStart, end)
      ? undefined
      : knownShape(text, matchStart, end, parts.shapes);
    if (shape) return new LineFlow(table, priority, cookie, text, at, source, line, ends, shape.actions);
    // The match alone of a list of conjunctions alone may be of a shape.
    if (!conjunctions) return undefined;
    const matchShape = knownShape(text, matchStart, keyword, parts.matchShapes);
    return matchShape && new LineFlow(table, priority, cookie, text, at, source, line, ends, 'conjunctions');
  }

  /**
   * The flow of another dump's line, `text` from `at`, whose statistics are `stats` and whose
   * text after them is this line's (see ReadAlong): its cookie, statistics and place its own, its
   * table this one's and its match and actions too, known clean without reading them again.
   * Undefined when its statistics are too long to pack.
   */
  twin(stats: PrintedStats, text: string, at: number, source: LineSource, line: number): LineFlow | undefined {
    const statsEnd = stats.end - at;
    const actionsStart = this.actionsStart - this.at - this.statsEnd + statsEnd;
    if (statsEnd >= STATS_LIMIT || actionsStart > MAX_ACTIONS_START) return undefined;
    const ends = statsEnd | (actionsStart << STATS_BITS) | (stats.zero ? ZERO_COUNTERS : 0);
    foundShape = this.shape;
    foundIndex = this.index;
    // Its line is this one's after the statistics: an address yet to be read lies as far from their end.
    const unread = (this.ends & ADDRESS_UNREAD) !== 0;
    foundAddress = unread ? 0 : this.address;
    foundAddressAt = unread ? at + statsEnd + this.address - this.statsEnd : -1;
    return new LineFlow(
      this.head & 0xff,
      this.priority,
      stats.cookie,
      text,
      at,
      source,
      line,
      ends,
      this.sharedActions,
    );
  }

  /**
   * Whether a line whose statistics take `statsEnd` characters and whose text after them is
   * `written` characters long, that of a flow read lazily, makes its twin (see twin): its numbers
   * then fit (a bound: the actions start within the text after the statistics).
   */
  static twins(statsEnd: number, written: number): boolean {
    return statsEnd < STATS_LIMIT && statsEnd + written <= MAX_ACTIONS_START;
  }

  get table(): TableRef {
    return TABLE_REFS[this.head & 0xff]!;
  }

  get priority(): number {
    return (this.head >>> PRIORITY_SHIFT) & 0xffff;
  }

  /** The outline's entry that holds another address (-1: none), or REREAD. */
  private get index(): number {
    return (this.head >>> INDEX_SHIFT) - 2;
  }

  /** Where the statistics end, from the line's start. */
  private get statsEnd(): number {
    return this.ends & (STATS_LIMIT - 1);
  }

  /** Where the actions start in the text. */
  private get actionsStart(): number {
    return this.at + ((this.ends >>> STATS_BITS) & MAX_ACTIONS_START);
  }

  get zeroCounters(): boolean {
    return (this.ends & ZERO_COUNTERS) !== 0;
  }

  /** Where the line ends in the text. */
  private get end(): number {
    const end = this.text.indexOf('\n', this.actionsStart);
    return end < 0 ? this.text.length : end;
  }

  /** The line's text, made when asked for. */
  private get lineText(): string {
    const { text, at } = this;
    const end = this.end;
    return at === 0 && end === text.length ? text : text.slice(at, end);
  }

  get match(): Match {
    return (this.decodedMatch ??= this.makeMatch());
  }

  get actions(): readonly Action[] {
    const shared = this.sharedActions;
    if (shared !== 'conjunctions' && this.index !== REREAD) return shared;
    return (this.decodedActions ??= this.makeActions());
  }

  get outline(): FlowOutline {
    const index = this.index;
    if (index !== REREAD)
      return { match: this.shape as Match, actions: this.sharedActions, entry: index, address: this.entryAddress };
    const { match, varying } = this.shape as LineShape;
    return { match, actions: this.sharedActions, shaped: true, varying, entry: -1, address: 0 };
  }

  get outlineActions(): readonly Action[] | 'conjunctions' {
    return this.sharedActions;
  }

  // The outline's parts below read the head themselves rather than through `index`: they are asked
  // of every flow of a dump, and outside optimised code each getter is a call.
  get outlineMatch(): Match {
    return this.head >>> INDEX_SHIFT === REREAD_HEAD ? (this.shape as LineShape).match : (this.shape as Match);
  }

  get outlineVarying(): ReadonlySet<string> | undefined {
    return this.head >>> INDEX_SHIFT === REREAD_HEAD ? (this.shape as LineShape).varying : undefined;
  }

  get outlineEntry(): number {
    const head = this.head >>> INDEX_SHIFT;
    return head === REREAD_HEAD ? -1 : head - 2;
  }

  /** 0 on a line of a shape, whose knownShape left foundAddress 0. */
  get outlineAddress(): number {
    return this.entryAddress;
  }

  /** The address the outline's entry holds instead of its own (see FlowOutline), read from the line when first asked for. */
  private get entryAddress(): number {
    if ((this.ends & ADDRESS_UNREAD) !== 0) {
      this.address = addressAt(this.text, this.at + this.address) | 0;
      this.ends &= ~ADDRESS_UNREAD;
    }
    return this.address >>> 0;
  }

  writtenNumbers(storages: ReadonlySet<string>): string | undefined {
    return this.index === REREAD
      ? writtenNumbers(this.shape as LineShape, this.text, this.actionsStart, storages)
      : undefined;
  }

  /**
   * Read from the line each time, not kept: most commands never look at most flows' counters, and
   * those that do look once, so a million flows need not each hold theirs. The last flow's are
   * kept, for a caller that asks for its packets, then its bytes.
   */
  get stats(): FlowStats {
    if (lastStats.of !== this) {
      lastStats.of = this;
      const stats = statsEndingAt(this.text, this.at + this.statsEnd);
      if (this.readKeys()) {
        const idleAge = printedKeys[IDLE_AGE]!;
        const hardAge = printedKeys[HARD_AGE]!;
        lastStats.stats = {
          ...stats,
          ...(idleAge >= 0 ? { idleAge } : {}),
          ...(hardAge >= 0 ? { hardAge } : {}),
        };
      } else lastStats.stats = stats;
    }
    return lastStats.stats;
  }

  /**
   * Reads the keys printed between the statistics and the priority into printedKeys; false, with
   * nothing read, for the usual line, whose priority follows the statistics at once.
   */
  private readKeys(): boolean {
    const from = this.at + this.statsEnd;
    return readPrintedKeys(this.text, from, this.actionsStart) > from;
  }

  /** One of the keys printed between the statistics and the priority (see readPrintedKeys), 0 when not printed. */
  private printedKey(key: number): number {
    return this.readKeys() ? Math.max(0, printedKeys[key]!) : 0;
  }

  /**
   * When its actions are a plain list of conjunctions, each told to `visit` as numbers, read from
   * the text without making the line's string or its actions (see eachListConjunction); false
   * for any other flow.
   */
  eachConjunction(visit: ConjunctionVisitor): boolean {
    return this.sharedActions === 'conjunctions' && eachListConjunction(this.text, this.actionsStart, this.end, visit);
  }

  printedConjId(): number | undefined {
    const { text } = this;
    const from = this.at + this.statsEnd;
    const keyword = text.indexOf('conj_id=', from);
    if (keyword < 0 || keyword >= this.actionsStart) return undefined;
    const start = keyword + 'conj_id='.length;
    if (!conjIdDigits.read(text, start)) return undefined;
    const { value, end } = conjIdDigits;
    const next = text.charCodeAt(end);
    return end - start <= 10 && value <= 0xffffffff && (next === 0x2c || next === 0x20) ? value : undefined;
  }

  /** Made anew each time: few commands keep it, and a million flows would each hold one. */
  get origin(): Origin {
    return { file: this.source.file, line: this.line, text: this.lineText, statsEnd: this.statsEnd };
  }

  get originFile(): string {
    return this.source.file;
  }

  get originLine(): number {
    return this.line;
  }

  /**
   * Whether this flow is of table `table` and its line says after its statistics what
   * `text[start, end)` does, a line's text after its statistics: told without looking for where
   * this line ends, as it must end where that text does (a line holds no line break).
   */
  writtenAs(table: number, text: string, start: number, end: number): boolean {
    if ((this.head & 0xff) !== table) return false;
    const own = this.text;
    const from = this.at + this.statsEnd;
    const to = from + end - start;
    return (to === own.length || own.charCodeAt(to) === 0x0a) && own.slice(from, to) === text.slice(start, end);
  }

  lineInto(span: LineSpan): void {
    span.text = this.text;
    span.start = this.at;
    span.end = this.end;
    span.statsEnd = this.statsEnd;
  }

  get idleTimeout(): number {
    return this.printedKey(IDLE_TIMEOUT);
  }

  get hardTimeout(): number {
    return this.printedKey(HARD_TIMEOUT);
  }

  get importance(): number {
    return this.printedKey(IMPORTANCE);
  }

  get flags(): readonly FlowFlag[] {
    return NO_FLAGS;
  }

  /**
   * The shared match, with its address entry given this line's address (as matchFromTemplate makes
   * it); a flow of a shape's, read again from its line, its actions left for when they are asked
   * for (a trace's lookups read the matches of a whole table, the actions of a few flows).
   */
  private makeMatch(): Match {
    if (this.index === REREAD) {
      // Read in the whole text: the line's own string is not needed.
      const { text, actionsStart } = this;
      const keyword = actionsStart - (text.startsWith('actions=', actionsStart - 8) ? 8 : 7);
      return this.source.readMatch(text, this.at + this.statsEnd, keyword, this.shape as LineShape);
    }
    const shared = this.shape as Match;
    if (this.index < 0) return shared;
    return withAddress(shared, this.index, this.entryAddress);
  }

  /**
   * A plain conjunction list, shared through the recurring parts as the reader shares a short one;
   * a flow of a shape's, read again from its line with its match.
   */
  private makeActions(): readonly Action[] {
    if (this.index === REREAD) {
      // A line of a shape whose actions are its own (not a list of conjunctions alone, which is no shape's) is made from the shape's.
      const made =
        this.sharedActions === 'conjunctions'
          ? undefined
          : shapedActions(this.shape as LineShape, this.text, this.actionsStart, this.source.readActions);
      return made ?? this.source.readActions(this.lineText, this.actionsStart - this.at, this.match);
    }
    const { text, actionsStart: start, end } = this;
    const { parts } = this.source;
    if (isLongConjunctionList(text, start, end)) return plainConjunctions(text, start, end)!;
    const key = text.slice(start, end);
    const known = parts.actions.get(key);
    if (known) return known.actions;
    const actions = plainConjunctions(text, start, end)!;
    parts.actions.set(key, { actions, checked: false });
    return actions;
  }
}
