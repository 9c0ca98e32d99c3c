/**
 * The statistics that open each line of `ovs-ofctl dump-flows`, in the one form it prints them.
 */
import type { FlowStats } from '../model/flow.ts';
import { bigintOf } from './interned.ts';
import { decimalAt, plainNumberAt } from './numbers.ts';

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

/** Where the value starting at `from` ends in printed statistics (`, ` follows it), or -1. */
function printedValueEnd(text: string, from: number): number {
  const comma = text.indexOf(',', from);
  return comma > from && text.charCodeAt(comma + 1) === 0x20 ? comma : -1;
}

/** The keys printed after the cookie, in their order. */
const KEYS_AFTER_COOKIE = ['duration=', 'table=', 'n_packets=', 'n_bytes='] as const;
/** The printed values by their place: the cookie, then those of KEYS_AFTER_COOKIE. */
const [COOKIE, DURATION, TABLE, PACKETS, BYTES] = [0, 1, 2, 3, 4] as const;
/** Where each value of the line being scanned starts and ends, kept from line to line. */
const starts = new Int32Array(5);
const ends = new Int32Array(5);

/** What scanPrintedStats found, held in one place rather than made anew for each line. */
export const printed = { cookie: 0, table: 0, packets: 0, bytes: 0, durationStart: 0, durationEnd: 0, end: 0 };

/**
 * The statistics that open each line of `ovs-ofctl dump-flows`, exactly as it prints them:
 * ` cookie=0x…, duration=…s, table=N, n_packets=N, n_bytes=N, `. They are most of what a dump
 * says about a flow besides its match and actions, so this form is read in one pass, into
 * `printed`. False when the line is in any other form, which the general reader then takes from
 * its start.
 */
export function scanPrintedStats(text: string): boolean {
  // Each value starts right after its `key=` and ends before the `, ` that leads to the next key.
  let start = text.charCodeAt(0) === 0x20 ? 8 : 7;
  if (!text.startsWith('cookie=', start - 7)) return false;
  for (let k = 0; ; k++) {
    const end = printedValueEnd(text, start);
    if (end < 0) return false;
    starts[k] = start;
    ends[k] = end;
    if (k === KEYS_AFTER_COOKIE.length) break;
    const key = KEYS_AFTER_COOKIE[k]!;
    if (!text.startsWith(key, end + 2)) return false;
    start = end + 2 + key.length;
  }
  const cookie = plainNumberAt(text, starts[COOKIE]!, ends[COOKIE]!);
  const table = decimalAt(text, starts[TABLE]!, ends[TABLE]!);
  const packets = plainNumberAt(text, starts[PACKETS]!, ends[PACKETS]!);
  const bytes = plainNumberAt(text, starts[BYTES]!, ends[BYTES]!);
  if (cookie < 0 || table < 0 || table > 255 || packets < 0 || bytes < 0) return false;
  if (!isDuration(text, starts[DURATION]!, ends[DURATION]!)) return false;
  printed.cookie = cookie;
  printed.table = table;
  printed.packets = packets;
  printed.bytes = bytes;
  printed.durationStart = starts[DURATION]!;
  printed.durationEnd = ends[DURATION]!;
  printed.end = ends[BYTES]! + 2;
  return true;
}

/** The statistics of a line that scanPrintedStats has read, as the last one it read. */
export function statsOfPrinted(text: string): FlowStats {
  const { durationStart, durationEnd, packets, bytes } = printed;
  return { duration: text.slice(durationStart, durationEnd - 1), packets: bigintOf(packets), bytes: bigintOf(bytes) };
}

/** The statistics of a line in the printed form (see scanPrintedStats). */
export function printedStats(text: string): FlowStats | undefined {
  return scanPrintedStats(text) ? statsOfPrinted(text) : undefined;
}
