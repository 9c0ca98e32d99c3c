/**
 * Values that a dump repeats in flow after flow (table numbers, zero counters, the cookie of a
 * whole category of flows), one shared instance each. Sharing is safe because the model is
 * immutable: tables are readonly records and bigints are values, equal whatever their instance.
 */
import type { FlowFlag } from '../model/flow.ts';
import type { TableRef } from '../model/tables.ts';

/**
 * The reference to each table (0–255), made at once: a lazily read flow's table is asked of every
 * flow, and looked up here in place (see LineFlow.table) it costs no call.
 */
export const TABLE_REFS: readonly TableRef[] = Array.from({ length: 256 }, (_, n) => ({ kind: 'number', number: n }));

/** The reference to table `n` (0–255). */
export function tableRefOf(n: number): TableRef {
  return TABLE_REFS[n]!;
}

const SMALL = Array.from({ length: 256 }, (_, i) => BigInt(i));
let lastNumber = -1;
let lastBigint = 0n;

/** `BigInt(n)` for a safe integer n ≥ 0, sharing small values and runs of one value (cookies). */
export function bigintOf(n: number): bigint {
  if (n < 256) return SMALL[n]!;
  if (n !== lastNumber) {
    lastNumber = n;
    lastBigint = BigInt(n);
  }
  return lastBigint;
}

/** The flags of a flow that has none. */
export const NO_FLAGS: readonly FlowFlag[] = Object.freeze([]);
