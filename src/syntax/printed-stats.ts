/**
 * The statistics that open each line of `ovs-ofctl dump-flows`, in the one form it prints them.
 */
import type { FlowStats } from '../model/flow.ts';
import { bigintOf } from './interned.ts';
import { hexDigit } from '../model/values.ts';
import { DecimalRun, plainNumberAt } from './numbers.ts';

/** Whether `text[start, end)` is `123.456s`: seconds as printed, then `s`. */
export function isDuration(text: string, start: number, end: number): boolean {
  if (end - start < 2 || text.charCodeAt(end - 1) !== 0x73) return false;
  let dot = -1;
  for (let i = start; i < end - 1; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x2e && dot < 0 && i > start) dot = i;
    else if (ch < 0x30 || ch > 0x39) return false;
  }
  return dot !== end - 2;
}

/** `123.456s` in `text[start, end)`: the seconds as printed, or undefined. */
export function durationAt(text: string, start: number, end: number): string | undefined {
  return isDuration(text, start, end) ? text.slice(start, end - 1) : undefined;
}

/** A number as plainNumberAt reads it: up to 15 decimal digits, or `0x` and up to 13 hex digits. */
const NUMBER = '(?:0[xX][0-9a-fA-F]{1,13}|\\d{1,15})';

/**
 * The statistics exactly as `ovs-ofctl dump-flows` prints them, each value as its reader takes
 * it (a duration as isDuration, the table's digits checked against 255 afterwards). A pattern is
 * several times faster than the same checks written out character by character.
 */
const PRINTED = new RegExp(
  ` ?cookie=${NUMBER}, duration=\\d+(?:\\.\\d+)?s, table=\\d+, n_packets=${NUMBER}, n_bytes=${NUMBER}, `,
  'y',
);

/** What scanPrintedStats found, held in one place rather than made anew for each line. */
export interface PrintedStats {
  cookie: bigint;
  /** As printed: 255 ("all tables") is table 0 for a flow. */
  table: number;
  /** Where the statistics end. */
  end: number;
  /** Whether the packet and byte counters are both printed as `0`. */
  zero: boolean;
}

export const printed: PrintedStats = { cookie: 0n, table: 0, end: 0, zero: false };

/** How the statistics end when no packet has met the flow: after its table. */
const ZERO_COUNTERS = ', n_packets=0, n_bytes=0, ';

/**
 * The value of the cookie last read, and its bigint: a dump prints the same cookie on run after
 * run of lines. Told by its value, read from the line, not by its text cut out of the line: a cut of
 * 13 characters or more is a slice of the whole dump, which V8 compares through the runtime.
 */
let lastCookieValue = 0;
let lastCookie = 0n;

/**
 * The cookie from `start`, as the statistics' pattern accepts it (a plain number below 2^53,
 * followed by a comma), read in the one pass that finds where it ends; `cookieEnd` is set there.
 */
let cookieEnd = 0;
function cookieFrom(text: string, start: number): bigint {
  let value = 0;
  let at = start;
  if (text.charCodeAt(at) === 0x30 && (text.charCodeAt(at + 1) | 0x20) === 0x78)
    for (let c = text.charCodeAt((at += 2)); c !== 0x2c; c = text.charCodeAt(++at)) value = value * 16 + hexDigit(c);
  else for (let c = text.charCodeAt(at); c !== 0x2c; c = text.charCodeAt(++at)) value = value * 10 + c - 0x30;
  cookieEnd = at;
  if (value !== lastCookieValue) {
    lastCookieValue = value;
    lastCookie = bigintOf(value);
  }
  return lastCookie;
}

/**
 * The statistics scanPrintedStats last accepted, as printed ('' when none is kept): a dump prints
 * the same ones on run after run of lines (flows added together that no packet has met), which
 * need no reading again. The pattern reads the same text the same way wherever it stands, so what
 * `printed` holds stands.
 */
let lastPrinted = '';
/**
 * Lines in a row whose statistics were not those kept, and lines left to read without looking at
 * them: a dump whose lines seldom repeat theirs (flows added over days, counters of a busy switch)
 * would pay more for the comparing and keeping than it saves (a million flows: about 0.15 s).
 */
let misses = 0;
let unlooked = 0;
const MISSES_BEFORE_PAUSE = 8;
const PAUSE_LINES = 256;

/**
 * Forgets the statistics kept (see lastPrinted) once a text is read: kept, they are a slice of
 * that text, which would stay in memory after its flows are gone.
 */
export function forgetPrintedStats(): void {
  lastPrinted = '';
  misses = 0;
  unlooked = 0;
}

/**
 * The statistics that open each line of `ovs-ofctl dump-flows`, exactly as it prints them:
 * ` cookie=0x…, duration=…s, table=N, n_packets=N, n_bytes=N, `. They are most of what a dump
 * says about a flow besides its match and actions, so this form is read at once: its cookie,
 * table and end into `printed` (the rest when asked for, see statsEndingAt). False when the line
 * is in any other form, which the general reader then takes from its start. The line starts at
 * `start` in `text`, which may hold more lines.
 */
export function scanPrintedStats(text: string, start: number): boolean {
  if (unlooked > 0) unlooked--;
  else if (lastPrinted !== '') {
    // The statistics of the line before again: `printed` holds what they say.
    if (text.startsWith(lastPrinted, start)) {
      misses = 0;
      printed.end = start + lastPrinted.length;
      return true;
    }
    if (++misses === MISSES_BEFORE_PAUSE) {
      misses = 0;
      unlooked = PAUSE_LINES;
    }
  }
  PRINTED.lastIndex = start;
  if (!PRINTED.test(text)) return false;
  const end = PRINTED.lastIndex;
  // The layout is known now, stepped through by hand (each part a few characters): the cookie ends
  // at the first comma, the table follows the duration's `s`.
  const cookie = cookieFrom(text, start + (text.charCodeAt(start) === 0x20 ? 8 : 7));
  // `n_packets=0, n_bytes=0, `: no packet has met the flow (most flows of a large policy dump).
  const zero =
    text.charCodeAt(end - 3) === 0x30 &&
    text.charCodeAt(end - 4) === 0x3d &&
    text.charCodeAt(end - 14) === 0x30 &&
    text.charCodeAt(end - 15) === 0x3d;
  // Such a flow's table ends where those counters start: found without stepping over the duration.
  let at = zero ? valueStart(text, end - ZERO_COUNTERS.length) : cookieEnd + ', duration='.length;
  if (!zero) {
    while (text.charCodeAt(at) !== 0x73) at++;
    at += 's, table='.length;
  }
  let table = 0;
  for (let c = text.charCodeAt(at); c !== 0x2c; c = text.charCodeAt(++at)) table = table * 10 + c - 0x30;
  if (table > 255) return false;
  printed.cookie = cookie;
  printed.table = table;
  printed.end = end;
  printed.zero = zero;
  lastPrinted = unlooked > 0 ? '' : text.slice(start, end);
  return true;
}

/**
 * Where the value that ends at `end` starts: after the `=` of its key. Stepped back to by hand:
 * values are a few characters, and lastIndexOf is a call into the runtime each time.
 */
function valueStart(text: string, end: number): number {
  let i = end;
  while (text.charCodeAt(i - 1) !== 0x3d) i--;
  return i;
}

/**
 * The statistics of a line that scanPrintedStats has accepted, whose statistics end at `end` (its
 * `printed.end`): read back from there, value by value, without checking again what was checked
 * then, nor reading the cookie and table, which are kept elsewhere.
 */
export function statsEndingAt(text: string, end: number): FlowStats {
  const bytesEnd = end - 2;
  const bytesStart = valueStart(text, bytesEnd);
  const packetsEnd = bytesStart - ', n_bytes='.length;
  const packetsStart = valueStart(text, packetsEnd);
  const tableStart = valueStart(text, packetsStart - ', n_packets='.length);
  const durationEnd = tableStart - ', table='.length;
  return {
    duration: text.slice(valueStart(text, durationEnd), durationEnd - 1),
    packets: bigintOf(plainNumberAt(text, packetsStart, packetsEnd)),
    bytes: bigintOf(plainNumberAt(text, bytesStart, bytesEnd)),
  };
}

/**
 * The keys ovs-ofctl prints between the statistics and the priority when a flow has them, in the
 * order it prints them (`hard_timeout=300, ` of a learned flow, `idle_age=5, ` of an OpenFlow 1.0
 * dump), each with the largest value it takes.
 */
const PRINTED_KEYS = [
  ['idle_timeout=', 0xffff],
  ['hard_timeout=', 0xffff],
  ['importance=', 0xffff],
  ['idle_age=', 0xffffffff],
  ['hard_age=', 0xffffffff],
] as const;

/**
 * What readPrintedKeys found, by PRINTED_KEYS' order (-1: not printed), held in one place: only
 * when it found any (it returned more than where it started).
 */
export const printedKeys = new Float64Array(PRINTED_KEYS.length);
export const IDLE_TIMEOUT = 0;
export const HARD_TIMEOUT = 1;
export const IMPORTANCE = 2;
export const IDLE_AGE = 3;
export const HARD_AGE = 4;

const keyDigits = new DecimalRun();

/**
 * Reads the keys printed after the statistics that end at `from`, each once, in ovs-ofctl's order,
 * a plain decimal within its range followed by `, `, into `printedKeys`; returns where they end
 * (`from` when there is none), before `limit`. What follows is the priority or something the
 * general reader takes from the statistics' end.
 */
export function readPrintedKeys(text: string, from: number, limit: number): number {
  // The usual line: its priority follows the statistics at once (no key starts with `p`).
  if (text.charCodeAt(from) === 0x70) return from;
  printedKeys.fill(-1);
  let at = from;
  for (let k = 0; k < PRINTED_KEYS.length; k++) {
    const [key, max] = PRINTED_KEYS[k]!;
    if (!text.startsWith(key, at)) continue;
    const start = at + key.length;
    if (!keyDigits.read(text, start)) break;
    const { value, end } = keyDigits;
    if (end - start > 10 || value > max || end + 2 > limit || text.charCodeAt(end) !== 0x2c) break;
    if (text.charCodeAt(end + 1) !== 0x20) break;
    printedKeys[k] = value;
    at = end + 2;
  }
  return at;
}
