/**
 * One flow line → Flow. Accepts every layout ovs-ofctl prints (dump-flows with or without stats,
 * `--names`, flow-mod print form `table:N`) and add-flows syntax; the match and actions are
 * delegated to their own parsers. Problems are collected, never thrown.
 */
import { DEFAULT_PRIORITY, FLOW_FLAGS, type Flow, type FlowFlag, type FlowStats, type Origin } from '../model/flow.ts';
import type { PortMap } from '../model/ports.ts';
import type { ProblemSink } from '../model/problems.ts';
import type { TableRef } from '../model/tables.ts';
import { parseActions } from './actions.ts';
import { FlowChecker } from './consistency.ts';
import { buildMatch } from './match.ts';
import { type KeyValueToken, scanKeyValues, skipQuoted, unquoteName } from './tokens.ts';

export interface FlowLineContext {
  readonly sink: ProblemSink;
  readonly portMap?: PortMap;
}

const FLAG_SET = new Set<string>(FLOW_FLAGS);

/** Offset of the `actions=` (or `action=`) keyword that starts the action list, or -1. */
export function findActions(text: string): { keyword: number; start: number } {
  for (const word of ['actions=', 'action=']) {
    let from = 0;
    for (;;) {
      const at = indexOutsideQuotes(text, word, from);
      if (at < 0) break;
      const before = at === 0 ? ' ' : text[at - 1]!;
      if (before === ' ' || before === ',' || before === '\t') return { keyword: at, start: at + word.length };
      from = at + 1;
    }
  }
  return { keyword: -1, start: -1 };
}

function indexOutsideQuotes(text: string, word: string, from: number): number {
  let at = text.indexOf(word, from);
  if (at < 0 || !text.includes('"')) return at;
  for (let i = 0; i < text.length && at >= 0; ) {
    const q = text.indexOf('"', i);
    if (q < 0 || q > at) return at;
    const end = skipQuoted(text, q, text.length);
    if (at < end) at = text.indexOf(word, end);
    i = end;
  }
  return at;
}

function parseUint(text: string | undefined, max: bigint): bigint | undefined {
  if (text === undefined) return undefined;
  const t = text.trim();
  let v: bigint;
  if (/^0x[0-9a-f]+$/i.test(t)) v = BigInt(t);
  else if (/^\d+$/.test(t)) v = BigInt(t);
  else return undefined;
  return v <= max ? v : undefined;
}

interface Header {
  table: TableRef;
  priority: number;
  cookie: bigint;
  idleTimeout: number;
  hardTimeout: number;
  importance: number;
  flags: FlowFlag[];
  stats: { -readonly [K in keyof FlowStats]: FlowStats[K] };
  hasStats: boolean;
}

/** Handles one flow-level key; returns false when the token is not one (it belongs to the match). */
function takeFlowKey(t: KeyValueToken, h: Header, sink: ProblemSink): boolean {
  const bad = (what: string): void => sink.error(`${t.value ?? ''}: invalid ${what}`, t.valueOffset, Math.max(1, t.end - t.valueOffset));
  const u16 = (what: string): number | undefined => {
    const v = parseUint(t.value, 0xffffn);
    if (v === undefined) bad(what);
    return v === undefined ? undefined : Number(v);
  };
  switch (t.key) {
    case 'table': {
      const v = t.value ?? '';
      if (/^\d+$/.test(v)) {
        const n = Number(v);
        if (n > 255) sink.error(`invalid table id ${v}`, t.valueOffset, v.length);
        // 255 means "all tables": an addition with it lands in table 0.
        else h.table = { kind: 'number', number: n === 255 ? 0 : n };
      } else {
        const name = unquoteName(v);
        if (name === undefined || name === '') bad('table name');
        else h.table = { kind: 'name', name };
      }
      return true;
    }
    case 'priority': {
      const v = u16('priority');
      if (v !== undefined) h.priority = v;
      return true;
    }
    case 'cookie': {
      const v = t.value ?? '';
      if (v.includes('/')) sink.error('flow additions cannot use a cookie mask', t.keyOffset, t.end - t.keyOffset);
      else {
        const c = parseUint(v, 0xffffffffffffffffn);
        if (c === undefined) bad('cookie');
        else h.cookie = c;
      }
      return true;
    }
    case 'idle_timeout':
    case 'hard_timeout':
    case 'importance': {
      const v = u16(t.key.replace('_', ' '));
      if (v !== undefined) {
        if (t.key === 'idle_timeout') h.idleTimeout = v;
        else if (t.key === 'hard_timeout') h.hardTimeout = v;
        else h.importance = v;
      }
      return true;
    }
    // Statistics are read when they are numbers and otherwise ignored, as ovs-ofctl ignores
    // them on input (test suites print `duration=?s` or `<cleared>`).
    case 'duration': {
      const m = /^(\d+(?:\.\d+)?)s$/.exec(t.value ?? '');
      if (m) h.stats.duration = m[1]!;
      h.hasStats = true;
      return true;
    }
    case 'n_packets':
    case 'n_bytes': {
      const v = t.value === '?' ? null : parseUint(t.value, 0xffffffffffffffffn);
      if (v !== undefined) {
        if (t.key === 'n_packets') h.stats.packets = v;
        else h.stats.bytes = v;
      }
      h.hasStats = true;
      return true;
    }
    case 'idle_age':
    case 'hard_age': {
      const v = parseUint(t.value, 0xffffffffn);
      if (v !== undefined) {
        if (t.key === 'idle_age') h.stats.idleAge = Number(v);
        else h.stats.hardAge = Number(v);
      }
      h.hasStats = true;
      return true;
    }
    default:
      if (t.value === undefined && FLAG_SET.has(t.key)) {
        if (!h.flags.includes(t.key as FlowFlag)) h.flags.push(t.key as FlowFlag);
        return true;
      }
      return false;
  }
}

/** Parses a flow line into a fresh per-line sink; undefined when the line has errors (they are in the sink). */
export function parseFlowLine(text: string, origin: Origin, ctx: FlowLineContext): Flow | undefined {
  const { sink } = ctx;
  const { keyword, start } = findActions(text);
  if (keyword < 0) {
    sink.error('must specify an action', Math.max(0, text.length - 1));
    return undefined;
  }
  const h: Header = {
    table: { kind: 'number', number: 0 },
    priority: DEFAULT_PRIORITY,
    cookie: 0n,
    idleTimeout: 0,
    hardTimeout: 0,
    importance: 0,
    flags: [],
    stats: {},
    hasStats: false,
  };
  const matchTokens: KeyValueToken[] = [];
  for (const t of scanKeyValues(text, 0, keyword)) {
    if (!takeFlowKey(t, h, sink)) matchTokens.push(t);
  }
  const match = buildMatch(matchTokens, { sink, ...(ctx.portMap ? { portMap: ctx.portMap } : {}) });
  const actions = parseActions(text, start, text.length, { sink, match, ...(ctx.portMap ? { portMap: ctx.portMap } : {}) });
  if (sink.hasErrors) return undefined;
  const checker = new FlowChecker(match, sink, { offset: keyword, length: text.length - keyword });
  checker.checkMatch();
  checker.checkActions(actions);
  return {
    table: h.table,
    priority: h.priority,
    cookie: h.cookie,
    match,
    actions,
    idleTimeout: h.idleTimeout,
    hardTimeout: h.hardTimeout,
    importance: h.importance,
    flags: h.flags,
    ...(h.hasStats ? { stats: h.stats } : {}),
    origin,
  };
}
