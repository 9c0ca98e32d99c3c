/**
 * One flow line → Flow. Accepts every layout ovs-ofctl prints (dump-flows with or without stats,
 * `--names`, the flow-mod print form of `ovs-ofctl parse-flow` with `table:N`, `idle:N`) and
 * add-flows syntax; the match and actions are delegated to their own parsers. Problems are
 * collected, never thrown.
 */
import type { Action } from '../model/actions.ts';
import {
  DEFAULT_PRIORITY,
  FLOW_FLAGS,
  type Flow,
  type FlowFlag,
  type FlowStats,
  type Match,
  type Origin,
} from '../model/flow.ts';
import { EMPTY_MATCH } from '../model/match.ts';
import type { PortMap } from '../model/ports.ts';
import type { ProblemSink } from '../model/problems.ts';
import type { TableRef } from '../model/tables.ts';
import { parsePortRef } from './action-args.ts';
import { isPlainConjunctionList, parseActionList, plainConjunctions } from './actions.ts';
import { type AddressTemplate, matchFromTemplate, templateOf } from './address-variants.ts';
import { FlowChecker } from './consistency.ts';
import { NO_FLAGS, tableRefOf } from './interned.ts';
import { isLongConjunctionList, LineFlow, type LineSource } from './line-flow.ts';
import { keepShape, type LineShape, shapedMatch, shapeHash } from './line-shape.ts';
import { durationAt, printed, readPrintedKeys, scanPrintedStats, statsEndingAt } from './printed-stats.ts';
import { buildMatch } from './match.ts';
import { DecimalRun, decimalAt, smallUintAt, uintAt } from './numbers.ts';
import type { RecurringParts } from './recurring.ts';
import { isSeparator, KeyValueCursor, type KeyValueToken, skipQuoted, unquoteName } from './tokens.ts';

export interface FlowLineContext {
  readonly sink: ProblemSink;
  readonly portMap?: PortMap;
  /** Matches and action lists met earlier in the same dump, read under the same port map. */
  readonly recurring?: RecurringParts;
  /** The file and those recurring parts, when lines may be read lazily (see LineFlow). */
  readonly source?: LineSource;
}

const TABLE_0 = tableRefOf(0);

/**
 * Offset of the `actions=` (or `action=`) keyword that starts the action list of the line
 * `text[from, end)`, or -1; `quoteFree` when the line is known to hold no quote. Where the
 * list starts is actionsAfter(text, keyword).
 */
function actionsKeyword(text: string, from = 0, end = text.length, quoteFree = false): number {
  const keyword = keywordAt(text, 'actions=', from, end, quoteFree);
  return keyword >= 0 ? keyword : keywordAt(text, 'action=', from, end, quoteFree);
}

/** Where the action list starts after its keyword at `keyword` (found by actionsKeyword). */
function actionsAfter(text: string, keyword: number): number {
  return keyword + (text.charCodeAt(keyword + 6) === 0x73 ? 'actions='.length : 'action='.length);
}

/** The first quote of `text[from, end)`, or -1. */
function quoteIn(text: string, from: number, end: number): number {
  const quote = text.indexOf('"', from);
  return quote < end ? quote : -1;
}

/**
 * Where `word` starts as a key of its own (after a separator) outside quotes in `text[from,
 * end)`, or -1. One pass forward over the occurrences and the quotes together: a long action
 * list holds thousands.
 */
function keywordAt(text: string, word: string, from: number, end: number, quoteFree: boolean): number {
  let at = text.indexOf(word, from);
  let quote = quoteFree ? -1 : quoteIn(text, from, end);
  while (at >= 0 && at < end) {
    // Step over the quoted strings that open before this occurrence; one may hold it.
    while (quote >= 0 && quote < at) {
      const after = skipQuoted(text, quote, end);
      if (at < after) at = text.indexOf(word, after);
      if (at < 0 || at >= end) return -1;
      quote = quoteIn(text, after, end);
    }
    if (at === from || isSeparator(text.charCodeAt(at - 1))) return at;
    at = text.indexOf(word, at + 1);
  }
  return -1;
}

interface Header {
  table: TableRef;
  priority: number;
  cookie: bigint;
  idleTimeout: number;
  hardTimeout: number;
  importance: number;
  flags: readonly FlowFlag[];
  /** Present once the line has shown a statistic, even an unreadable one. */
  stats: { -readonly [K in keyof FlowStats]: FlowStats[K] } | undefined;
}

/** The keys a flow line may hold besides its match, flags aside. */
const FLOW_KEYS = [
  'cookie',
  'duration',
  'table',
  'n_packets',
  'n_bytes',
  'priority',
  'idle_timeout',
  'hard_timeout',
  'importance',
  'idle_age',
  'hard_age',
] as const;
type FlowKey = (typeof FLOW_KEYS)[number] | 'buf' | 'out_port';

/**
 * The keys only the flow-mod print form writes (ofputil_flow_mod_format, what `ovs-ofctl
 * parse-flow` and `fmt` print), always with a colon: `idle:`, `hard:` and `pri:` are the timeouts
 * and the priority under short names; `buf:` and `out_port:` belong to the request, not the flow.
 */
const PRINT_FORM_KEYS: readonly (readonly [string, FlowKey])[] = [
  ['idle', 'idle_timeout'],
  ['hard', 'hard_timeout'],
  ['pri', 'priority'],
  ['buf', 'buf'],
  ['out_port', 'out_port'],
];

function flowKeyOf(c: KeyValueCursor): FlowKey | undefined {
  for (const k of FLOW_KEYS) if (c.keyIs(k)) return k;
  if (c.colon) for (const [word, key] of PRINT_FORM_KEYS) if (c.keyIs(word)) return key;
  return undefined;
}

function bad(c: KeyValueCursor, sink: ProblemSink, what: string): void {
  sink.error(`${c.value ?? ''}: invalid ${what}`, c.valueOffset, Math.max(1, c.end - c.valueOffset));
}

/** The value as a number of at most `bits` bits, or undefined (also for a bare key). */
function smallValue(text: string, c: KeyValueCursor, bits: 16 | 32): number | undefined {
  return c.hasValue ? smallUintAt(text, c.valueOffset, c.valueEnd, bits) : undefined;
}

function stats(h: Header): NonNullable<Header['stats']> {
  return (h.stats ??= {});
}

/**
 * The printed statistics (see scanPrintedStats) into `h`, but for the statistics themselves,
 * which are made only for a line not read lazily. Returns where the rest of the line starts, or
 * 0 (with `h` untouched) when the line is in any other form.
 */
function readPrintedStats(text: string, h: Header): number {
  if (!scanPrintedStats(text, 0)) return 0;
  h.cookie = printed.cookie;
  // 255 means "all tables": an addition with it lands in table 0.
  h.table = tableRefOf(printed.table === 255 ? 0 : printed.table);
  return printed.end;
}

/**
 * Where a plain `priority=N` at `from` ends, as ovs-ofctl prints it after the statistics (and as
 * most additions start), its value left in `digits`: read at once, since every flow of a dump
 * has one. `from` when anything about it needs the general reader.
 */
function plainPriorityEnd(text: string, from: number, limit: number): number {
  if (!text.startsWith('priority=', from) || !digits.read(text, from + 'priority='.length)) return from;
  const { value, end } = digits;
  if (value > 0xffff || end > limit || (end < limit && !isSeparator(text.charCodeAt(end)))) return from;
  return end;
}

const digits = new DecimalRun();

/** Handles one flow-level key; returns false when the element is not one (it belongs to the match). */
function takeFlowKey(text: string, c: KeyValueCursor, h: Header, sink: ProblemSink): boolean {
  const key = flowKeyOf(c);
  if (key === undefined) return takeFlag(c, h);
  switch (key) {
    case 'table': {
      const n = decimalAt(text, c.valueOffset, c.valueEnd);
      if (n > 255) sink.error(`invalid table id ${c.value ?? ''}`, c.valueOffset, c.valueEnd - c.valueOffset);
      // 255 means "all tables": an addition with it lands in table 0.
      else if (n >= 0) h.table = tableRefOf(n === 255 ? 0 : n);
      else {
        const name = unquoteName(c.value ?? '');
        if (name === undefined || name === '') bad(c, sink, 'table name');
        else h.table = { kind: 'name', name };
      }
      return true;
    }
    case 'priority': {
      const v = smallValue(text, c, 16);
      if (v === undefined) bad(c, sink, 'priority');
      else h.priority = v;
      return true;
    }
    case 'cookie': {
      const v = c.hasValue ? uintAt(text, c.valueOffset, c.valueEnd, 64) : undefined;
      if (v !== undefined) h.cookie = v;
      else if (c.value?.includes('/'))
        sink.error('flow additions cannot use a cookie mask', c.keyOffset, c.end - c.keyOffset);
      else bad(c, sink, 'cookie');
      return true;
    }
    case 'idle_timeout':
    case 'hard_timeout':
    case 'importance': {
      const v = smallValue(text, c, 16);
      if (v === undefined) bad(c, sink, key.replace('_', ' '));
      else if (key === 'idle_timeout') h.idleTimeout = v;
      else if (key === 'hard_timeout') h.hardTimeout = v;
      else h.importance = v;
      return true;
    }
    // A buffered packet to apply the flow to, and the port a modification or deletion is limited
    // to: checked, but nothing the installed flow keeps.
    case 'buf':
      if (smallValue(text, c, 32) === undefined) bad(c, sink, 'buffer id');
      return true;
    case 'out_port':
      if (parsePortRef(c.value ?? '', undefined) === undefined) bad(c, sink, 'out_port');
      return true;
    // Statistics are read when they are numbers and otherwise ignored, as ovs-ofctl ignores
    // them on input (test suites print `duration=?s` or `<cleared>`).
    case 'duration': {
      const s = stats(h);
      const v = c.hasValue ? durationAt(text, c.valueOffset, c.valueEnd) : undefined;
      if (v !== undefined) s.duration = v;
      return true;
    }
    case 'n_packets':
    case 'n_bytes': {
      const s = stats(h);
      const question = c.valueEnd - c.valueOffset === 1 && text.charCodeAt(c.valueOffset) === 0x3f;
      const v = !c.hasValue ? undefined : question ? null : uintAt(text, c.valueOffset, c.valueEnd, 64);
      if (v !== undefined) {
        if (key === 'n_packets') s.packets = v;
        else s.bytes = v;
      }
      return true;
    }
    case 'idle_age':
    case 'hard_age': {
      const s = stats(h);
      const v = smallValue(text, c, 32);
      if (v !== undefined) {
        if (key === 'idle_age') s.idleAge = v;
        else s.hardAge = v;
      }
      return true;
    }
  }
}

/** A bare flag word (`send_flow_rem`); false for anything else. */
function takeFlag(c: KeyValueCursor, h: Header): boolean {
  if (c.hasValue) return false;
  // Compared in place: bare words are mostly match keywords (`ip`, `tcp`), not worth cutting out.
  for (const flag of FLOW_FLAGS) {
    if (!c.keyIs(flag)) continue;
    if (!h.flags.includes(flag)) h.flags = [...h.flags, flag];
    return true;
  }
  return false;
}

interface ReadMatch {
  readonly match: Match;
  /** Built from this line's text, not reused. */
  readonly fresh: boolean;
  /** Under what text to share it once the whole line proves it clean. */
  readonly key?: string;
  /** The template it makes for matches that differ only in their last address, once proved clean. */
  readonly template?: { readonly key: string; readonly template: AddressTemplate };
}

const NO_MATCH: ReadMatch = { match: EMPTY_MATCH, fresh: false };

/** The match of a line whose match elements start at the cursor (which is on the first). */
function readMatch(text: string, c: KeyValueCursor, end: number, h: Header, ctx: FlowLineContext): ReadMatch {
  const { recurring } = ctx;
  const start = c.keyOffset;
  const varied = recurring ? matchFromTemplate(text, start, end, recurring.templates) : undefined;
  if (varied) return { match: varied, fresh: false };
  const key = recurring ? text.slice(start, end) : undefined;
  const known = key === undefined ? undefined : recurring?.matches.get(key);
  if (known) return { match: known, fresh: false };
  const tokens = [c.token()];
  let flowKeys = false;
  while (c.next()) {
    if (takeFlowKey(text, c, h, ctx.sink)) flowKeys = true;
    else tokens.push(c.token());
  }
  const before = ctx.sink.problems.length;
  const match = buildMatch(tokens, ctx);
  // Flow keys among the match elements would be skipped on reuse: such lines are read in full.
  const shareable = !flowKeys && ctx.sink.problems.length === before;
  if (!shareable || key === undefined) return { match, fresh: true };
  const template = templateOf(text, start, end, tokens, match);
  return template ? { match, fresh: true, key, template } : { match, fresh: true, key };
}

interface ReadActions {
  readonly actions: readonly Action[];
  /** Whether the flow's actions must be checked against its match; unknown for a fresh list. */
  readonly checked?: boolean;
  /** Under what text to share a fresh list once it is checked. */
  readonly key?: string;
}

/** A list of plain conjunction actions needs no checking against any match. */
const CONJUNCTIONS_CHECKED = false;

function readActions(text: string, start: number, match: Match, ctx: FlowLineContext): ReadActions {
  // Long conjunction lists are read faster than they are found among the lists met before: most
  // are unique (one per address, naming every rule that uses it), and would only swell that table.
  const conjunctions = isLongConjunctionList(text, start, text.length)
    ? plainConjunctions(text, start, text.length)
    : undefined;
  if (conjunctions) return { actions: conjunctions, checked: CONJUNCTIONS_CHECKED };
  const recurring = ctx.recurring;
  const key = recurring ? text.slice(start) : undefined;
  const known = key === undefined ? undefined : recurring?.actions.get(key);
  if (known) return known;
  const { sink, portMap } = ctx;
  const before = sink.problems.length;
  const { actions, readsMatch } = parseActionList(
    text,
    start,
    text.length,
    portMap ? { sink, match, portMap } : { sink, match },
  );
  return key !== undefined && !readsMatch && sink.problems.length === before ? { actions, key } : { actions };
}

/**
 * The match of a line of `shape` (see line-shape.ts), `text` or a line of it: in the usual dump
 * form, its statistics ending at `statsEnd`, its actions keyword at `keyword`, and all its elements
 * after the priority its match's. Made from the shape's match when the shape says how, else read
 * as the match alone, in `ctx()`.
 */
export function shapedLineMatch(
  text: string,
  statsEnd: number,
  keyword: number,
  shape: LineShape,
  ctx: () => FlowLineContext,
): Match {
  let from = plainPriorityEnd(text, readPrintedKeys(text, statsEnd, keyword), keyword);
  while (from < keyword && isSeparator(text.charCodeAt(from))) from++;
  const made = shapedMatch(shape, text, from);
  if (made) return made;
  const cursor = new KeyValueCursor(text, from, keyword);
  const tokens: KeyValueToken[] = [];
  while (cursor.next()) tokens.push(cursor.token());
  return tokens.length === 0 ? EMPTY_MATCH : buildMatch(tokens, ctx());
}

/** The actions, from `start`, of a clean line whose match is `match`. */
export function cleanLineActions(text: string, start: number, match: Match, ctx: FlowLineContext): readonly Action[] {
  return readActions(text, start, match, ctx).actions;
}

/**
 * The flow of the usual dump line `text[start, end)` (the statistics as printed, then any
 * timeouts and ages as ovs-ofctl prints them, a plain priority, a match and action list both
 * known clean or of a clean line's shape: see LineFlow), read lazily; undefined for any other
 * line, which is then read at once. `text` may be the whole dump: nothing outside the line is
 * read. The line holds no quote (quoted names are read at once).
 */
export function lazyFlow(text: string, start: number, end: number, line: number, source: LineSource): Flow | undefined {
  if (!scanPrintedStats(text, start)) return undefined;
  const statsEnd = printed.end;
  // No key of the statistics is an actions keyword. The usual line's is its first `actions=`, after a
  // space: told so without stepping through occurrences and separators (a call for each, outside optimised code).
  const first = text.indexOf('actions=', statsEnd);
  const usual = first > statsEnd && first < end && text.charCodeAt(first - 1) === 0x20;
  const keyword = usual ? first : actionsKeyword(text, statsEnd, end, true);
  if (keyword < 0) return undefined;
  const actionsStart = usual ? first + 'actions='.length : actionsAfter(text, keyword);
  // The usual line's priority follows its statistics at once (see readPrintedKeys).
  const keysEnd = text.charCodeAt(statsEnd) === 0x70 ? statsEnd : readPrintedKeys(text, statsEnd, keyword);
  const afterPriority = plainPriorityEnd(text, keysEnd, keyword);
  if (afterPriority === keysEnd) return undefined;
  let matchStart = afterPriority;
  // The usual line has one comma there: isSeparator written out, a call less per character.
  for (let c = text.charCodeAt(matchStart); matchStart < keyword && (c === 0x2c || c === 0x20 || c === 0x09);)
    c = text.charCodeAt(++matchStart);
  return LineFlow.of(printed, digits.value, text, start, end, source, line, matchStart, keyword, actionsStart);
}

/**
 * Parses line `line` of `file`; undefined when the line has errors (they are in the sink). The
 * usual dump line, read with a source, waits to have its match and actions read until asked for
 * when both are known clean, unless `lazyTried` says lazyFlow has turned it down already.
 */
export function parseFlowLine(
  text: string,
  file: string,
  line: number,
  ctx: FlowLineContext,
  lazyTried = false,
): Flow | undefined {
  const { sink, source } = ctx;
  const lazy = source && !lazyTried && !text.includes('"') ? lazyFlow(text, 0, text.length, line, source) : undefined;
  if (lazy) return lazy;
  const keyword = actionsKeyword(text);
  if (keyword < 0) {
    sink.error('must specify an action', Math.max(0, text.length - 1));
    return undefined;
  }
  const start = actionsAfter(text, keyword);
  const h: Header = {
    table: TABLE_0,
    priority: DEFAULT_PRIORITY,
    cookie: 0n,
    idleTimeout: 0,
    hardTimeout: 0,
    importance: 0,
    flags: NO_FLAGS,
    stats: undefined,
  };
  // Flow-level keys lead the line in every layout ovs-ofctl prints; the match follows.
  const statsEnd = readPrintedStats(text, h);
  // Keys printed after the statistics (timeouts, ages) are read by the general reader below.
  const keysEnd = statsEnd > 0 ? readPrintedKeys(text, statsEnd, keyword) : 0;
  const priorityEnd = plainPriorityEnd(text, keysEnd, keyword);
  if (priorityEnd > keysEnd) h.priority = digits.value;
  const afterPriority = keysEnd > statsEnd ? statsEnd : priorityEnd;
  // Where the match of a line in the usual dump form starts, its shape worth keeping if it reads clean.
  let shapeFrom = -1;
  if (statsEnd > 0) {
    if (priorityEnd > keysEnd && source) {
      shapeFrom = priorityEnd;
      while (shapeFrom < keyword && isSeparator(text.charCodeAt(shapeFrom))) shapeFrom++;
    }
    h.stats = statsEndingAt(text, statsEnd);
  }
  const problemsBefore = sink.problems.length;
  const origin = { file, line, text, statsEnd };
  const cursor = new KeyValueCursor(text, afterPriority, keyword);
  let inMatch = false;
  while (cursor.next()) {
    if (!takeFlowKey(text, cursor, h, sink)) {
      inMatch = true;
      break;
    }
  }
  const matchAt = inMatch ? cursor.keyOffset : keyword;
  const read = inMatch ? readMatch(text, cursor, keyword, h, ctx) : NO_MATCH;
  const { match } = read;
  const acts = readActions(text, start, match, ctx);
  const { actions } = acts;
  if (sink.problems.length > 0 && sink.hasErrors) return undefined;
  if (read.fresh || acts.checked !== false) check(text, keyword, read, acts, ctx);
  // A shape is kept from a line without problems whose elements after the priority are all its match's,
  // unless its actions are a long list of conjunctions: lines rarely share so many ids but for their values.
  const matchOnly = matchAt === shapeFrom && (!read.fresh || read.key !== undefined);
  const { recurring } = ctx;
  if (shapeFrom >= 0 && matchOnly && sink.problems.length === problemsBefore && recurring) {
    const end = text.length;
    if (!isLongConjunctionList(text, start, end))
      keepShape(
        recurring.shapes,
        shapeHash(text, shapeFrom, end),
        text,
        shapeFrom,
        keyword,
        start,
        end,
        match,
        actions,
      );
    // The match of a line of conjunctions alone, for lines whose list no line's shape fits.
    if (text.startsWith('conjunction(', start) && isPlainConjunctionList(text, start, end)) {
      const hash = shapeHash(text, shapeFrom, keyword);
      keepShape(recurring.matchShapes, hash, text, shapeFrom, keyword, keyword, keyword, match, []);
    }
  }
  return flowOf(h, match, actions, origin);
}

/** Checks the actions against the match, and the match itself when it is fresh; shares what proves clean. */
function check(text: string, keyword: number, read: ReadMatch, acts: ReadActions, ctx: FlowLineContext): void {
  const { sink, recurring } = ctx;
  const checker = new FlowChecker(read.match, sink, { offset: keyword, length: text.length - keyword });
  // A shared match was checked on the line that first had it, and found clean.
  if (read.fresh) {
    const before = sink.problems.length;
    checker.checkMatch();
    if (read.key !== undefined && sink.problems.length === before) {
      // A match with a template is found through it, not among the whole matches.
      if (read.template) recurring?.templates.set(read.template.key, read.template.template);
      else recurring?.matches.set(read.key, read.match);
    }
  }
  const checked = checker.checkActions(acts.actions);
  if (acts.key !== undefined) recurring?.actions.set(acts.key, { actions: acts.actions, checked });
}

function flowOf(h: Header, match: Match, actions: readonly Action[], origin: Origin): Flow {
  const { table, priority, cookie, idleTimeout, hardTimeout, importance, flags, stats } = h;
  return stats
    ? { table, priority, cookie, match, actions, idleTimeout, hardTimeout, importance, flags, stats, origin }
    : { table, priority, cookie, match, actions, idleTimeout, hardTimeout, importance, flags, origin };
}
