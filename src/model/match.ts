/**
 * Questions asked of a normalised match: field lookup, semantic identity, coverage and
 * evaluation against a packet.
 *
 * A `Match` built by `syntax/match.ts` holds at most one entry per storage (the bits in the
 * packet metadata that a field names), under the field OVS would print for the flow's protocol:
 * `tcp_dst` for TCP, `udp_dst` for UDP, `icmp_type` for ICMP, `icmpv6_type` for ICMPv6, `arp_spa`
 * for ARP. Two matches that OVS treats as the same (`tcp,tp_dst=80` and `ip,nw_proto=6,tcp_dst=80`)
 * therefore hold the same entries. Every entry's value is already `value & mask`.
 *
 * Masks are in the field's own width, with two documented exceptions that mirror how OVS stores
 * them: `nw_tos` carries mask 0xfc (the DSCP bits; ECN is the separate `nw_ecn` entry) and
 * `ct_state` carries mask 0xff (only eight state bits exist).
 */
import { fieldByName } from './fields.ts';
import type { FieldDef } from './fields.ts';
import type { Match, MatchField } from './flow.ts';

export const EMPTY_MATCH: Match = { fields: [] };

/** The entry for a field given by any match name or alias (`tp_dst` finds a `udp_dst` entry). */
export function matchField(match: Match, fieldName: string): MatchField | undefined {
  const f = fieldByName(fieldName);
  if (!f) return undefined;
  return match.fields.find((e) => e.field.storage === f.storage);
}

/** Whether the match constrains the bits of `field` at all. */
export function matchHas(match: Match, field: FieldDef): boolean {
  return match.fields.some((e) => e.field.storage === field.storage);
}

/** The name of a port a match field knows only by name (read without a port map), else undefined. */
export function portNameOnly(e: MatchField): string | undefined {
  return e.port?.kind === 'name' && e.value === 0n ? e.port.name : undefined;
}

function entryKey(e: MatchField): string {
  // A port known only by name (no port map) is identified by that name.
  const name = portNameOnly(e);
  const port = name === undefined ? e.value.toString(16) : `"${name}"`;
  return `${e.field.storage}=${port}/${e.mask.toString(16)}`;
}

/** A string that is equal for two matches exactly when they match the same packets the same way. */
export function matchKey(match: Match): string {
  return match.fields.map(entryKey).sort().join(',');
}

export function sameMatch(a: Match, b: Match): boolean {
  return matchKey(a) === matchKey(b);
}

function sameNamedPort(a: MatchField, b: MatchField): boolean {
  const name = portNameOnly(a);
  return name === undefined || (b.port?.kind === 'name' && b.port.name === name);
}

/**
 * Whether every packet that matches `b` also matches `a` (a is equal or more general). Used to
 * find flows shadowed by a higher-priority flow.
 */
export function matchCovers(a: Match, b: Match): boolean {
  for (const ea of a.fields) {
    const eb = b.fields.find((e) => e.field.storage === ea.field.storage);
    if (!eb) return false;
    if ((eb.mask & ea.mask) !== ea.mask) return false;
    if ((eb.value & ea.mask) !== ea.value) return false;
    if (!sameNamedPort(ea, eb)) return false;
  }
  return true;
}

/**
 * Whether a packet matches. `get(storage)` returns the packet's bits for a storage name
 * (`tp_dst`, `nw_src`, `vlan_tci`, `reg0`, `nw_tos` as the whole TOS byte, `nw_ecn` as the two
 * ECN bits); fields the packet lacks should read as 0, as in OVS.
 */
export function matchesPacket(match: Match, get: (storage: string) => bigint): boolean {
  return match.fields.every((e) => (get(e.field.storage) & e.mask) === e.value);
}
