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
  const cookieStart = text.charCodeAt(0) === 0x20 ? 8 : 7;
  if (!text.startsWith('cookie=', cookieStart - 7)) return false;
  const cookieEnd = printedValueEnd(text, cookieStart);
  if (cookieEnd < 0 || !text.startsWith('duration=', cookieEnd + 2)) return false;
  const durationStart = cookieEnd + 2 + 'duration='.length;
  const durationEnd = printedValueEnd(text, durationStart);
  if (durationEnd < 0 || !text.startsWith('table=', durationEnd + 2)) return false;
  const tableStart = durationEnd + 2 + 'table='.length;
  const tableEnd = printedValueEnd(text, tableStart);
  if (tableEnd < 0 || !text.startsWith('n_packets=', tableEnd + 2)) return false;
  const packetsStart = tableEnd + 2 + 'n_packets='.length;
  const packetsEnd = printedValueEnd(text, packetsStart);
  if (packetsEnd < 0 || !text.startsWith('n_bytes=', packetsEnd + 2)) return false;
  const bytesStart = packetsEnd + 2 + 'n_bytes='.length;
  const bytesEnd = printedValueEnd(text, bytesStart);
  if (bytesEnd < 0) return false;
  const cookie = plainNumberAt(text, cookieStart, cookieEnd);
  const table = decimalAt(text, tableStart, tableEnd);
  const packets = plainNumberAt(text, packetsStart, packetsEnd);
  const bytes = plainNumberAt(text, bytesStart, bytesEnd);
  if (cookie < 0 || table < 0 || table > 255 || packets < 0 || bytes < 0) return false;
  if (!isDuration(text, durationStart, durationEnd)) return false;
  printed.cookie = cookie;
  printed.table = table;
  printed.packets = packets;
  printed.bytes = bytes;
  printed.durationStart = durationStart;
  printed.durationEnd = durationEnd;
  printed.end = bytesEnd + 2;
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
