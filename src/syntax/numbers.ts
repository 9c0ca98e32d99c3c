/**
 * Unsigned integers as ovs-ofctl reads them in flow keys and action arguments: decimal or `0x`
 * hexadecimal. The common short spellings are read straight from the line's characters; anything
 * else goes through the general reader.
 */
import { hexDigit, ones } from '../model/values.ts';
import { bigintOf } from './interned.ts';

/**
 * Value of a plain decimal (up to 15 digits) or `0x` hex (up to 13 digits) number in
 * `text[start, end)`, else -1. Both limits keep the value below 2^53, exact as a number.
 */
export function plainNumberAt(text: string, start: number, end: number): number {
  let n = 0;
  if (end - start > 2 && text.charCodeAt(start) === 0x30 && (text.charCodeAt(start + 1) | 0x20) === 0x78) {
    if (end - start > 15) return -1;
    for (let i = start + 2; i < end; i++) {
      const d = hexDigit(text.charCodeAt(i));
      if (d < 0) return -1;
      n = n * 16 + d;
    }
    return n;
  }
  if (end === start || end - start > 15) return -1;
  for (let i = start; i < end; i++) {
    const d = text.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/** Value of `text[start, end)` when it is all decimal digits (inexact beyond 2^53), else -1. */
export function decimalAt(text: string, start: number, end: number): number {
  if (end <= start) return -1;
  let n = 0;
  for (let i = start; i < end; i++) {
    const d = text.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/** Unsigned integer in OVS syntax (decimal or 0x hex, white space around ignored) no larger than `max`. */
export function parseUint(text: string, max: bigint): bigint | undefined {
  const plain = plainNumberAt(text, 0, text.length);
  // A plain number is below 2^53, so comparing it with max as a number is exact.
  if (plain >= 0) return plain <= Number(max) ? bigintOf(plain) : undefined;
  const t = text.trim();
  let v: bigint;
  if (/^0x[0-9a-f]+$/i.test(t)) v = BigInt(t.toLowerCase());
  else if (/^\d+$/.test(t)) v = BigInt(t);
  else return undefined;
  return v <= max ? v : undefined;
}

/** parseUint of `text[start, end)` with a limit of `bits` bits, without cutting the text in the common case. */
export function uintAt(text: string, start: number, end: number, bits: 16 | 32 | 64): bigint | undefined {
  const plain = plainNumberAt(text, start, end);
  if (plain >= 0) return plain <= 2 ** bits - 1 ? bigintOf(plain) : undefined;
  return parseUint(text.slice(start, end), ones(bits));
}

/** uintAt for values that fit a JavaScript number. */
export function smallUintAt(text: string, start: number, end: number, bits: 16 | 32): number | undefined {
  const plain = plainNumberAt(text, start, end);
  if (plain >= 0) return plain <= 2 ** bits - 1 ? plain : undefined;
  const v = parseUint(text.slice(start, end), ones(bits));
  return v === undefined ? undefined : Number(v);
}

/**
 * A run of decimal digits read in one pass, where its end is not known beforehand: its value
 * (inexact beyond 2^53, so callers bound it) and the offset just past it. One instance is reused
 * by a reader, so nothing is allocated per number.
 */
export class DecimalRun {
  value = 0;
  end = 0;

  /** Reads the run at `i`; false when there is no digit there. */
  read(text: string, i: number): boolean {
    let n = 0;
    let at = i;
    for (let c = text.charCodeAt(at); c >= 0x30 && c <= 0x39; c = text.charCodeAt(++at)) n = n * 10 + c - 0x30;
    this.value = n;
    this.end = at;
    return at > i;
  }
}
