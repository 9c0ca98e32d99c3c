/**
 * What the conjunction analyses need to know about one clause flow's match, computed once per
 * flow: Antrea shares a clause flow between every rule that uses the same address or port, so a
 * flow can serve thousands of conjunctions.
 */
import type { FieldDef } from '../model/fields.ts';
import type { Flow, Match, MatchField } from '../model/flow.ts';
import { ones, prefixLength } from '../model/values.ts';
import { fullMask } from '../syntax/field-value.ts';

/** Protocol fields: they qualify a term ("TCP port") rather than being its subject. */
export const QUALIFIER_STORAGES: ReadonlySet<string> = new Set(['eth_type', 'nw_proto']);

export interface Interval {
  readonly first: bigint;
  readonly last: bigint;
}

/** The flow's one non-protocol match entry. */
export interface SingleEntry {
  readonly e: MatchField;
  /** Matched on every bit. */
  readonly exact: boolean;
  /** Hash key of the value (see `valueKey`). */
  readonly key: string;
  /** The values it accepts when its mask is a prefix; undefined for other masks. */
  readonly interval: Interval | undefined;
}

export interface ClauseFlow {
  readonly flow: Flow;
  /** Protocol fields of the match. */
  readonly qualifier: Match;
  /** The other fields. */
  readonly keys: readonly MatchField[];
  /** Equal for flows with the same qualifier and the same key fields: they form one term. */
  readonly sig: string;
  /** Set when exactly one key field is matched. */
  readonly single: SingleEntry | undefined;
}

/** A match entry's value under `mask` as a hash key; a port known only by name keys by that name. */
export function valueKey(e: MatchField, mask: bigint = e.mask): string {
  return e.port?.kind === 'name' && e.value === 0n ? `"${e.port.name}"` : (e.value & mask).toString(16);
}

/** The values a prefix-masked entry accepts, or undefined for a mask with holes. */
export function intervalOf(field: FieldDef, entry: { readonly value: bigint; readonly mask: bigint }): Interval | undefined {
  const len = prefixLength(entry.mask & ones(field.bits), field.bits);
  return len < 0 ? undefined : { first: entry.value, last: entry.value | ones(field.bits - len) };
}

/** A match entry with its hash key and, for prefix masks, the interval it accepts. */
export function singleEntry(e: MatchField): SingleEntry {
  const exact = e.mask === fullMask(e.field);
  return { e, exact, key: valueKey(e), interval: exact ? { first: e.value, last: e.value } : intervalOf(e.field, e) };
}

export function clauseFlow(flow: Flow): ClauseFlow {
  const qualifier: MatchField[] = [];
  const keys: MatchField[] = [];
  for (const e of flow.match.fields) (QUALIFIER_STORAGES.has(e.field.storage) ? qualifier : keys).push(e);
  let sig = '';
  for (const e of qualifier) sig += `${e.field.storage}=${e.value},`;
  sig += '|';
  for (const e of keys) sig += `${e.field.name},`;
  const single = keys.length === 1 ? singleEntry(keys[0]!) : undefined;
  return { flow, qualifier: { fields: qualifier }, keys, sig, single };
}
