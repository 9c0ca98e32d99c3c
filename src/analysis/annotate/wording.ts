/**
 * The names a report gives what flows refer to — tables, ports, addresses, register bits,
 * subfields, conntrack zones — in the words of a pipeline when its profile knows them
 * (`Annotator.wording`), else plainly (`PLAIN_WORDING`). The sentences around them are
 * written by `render/words/`.
 */
import type { Subfield } from '../../model/actions.ts';
import type { FieldDef } from '../../model/fields.ts';
import type { PortRef } from '../../model/ports.ts';
import { reservedPortByNumber } from '../../model/ports.ts';
import type { TableRef } from '../../model/tables.ts';
import { ones } from '../../model/values.ts';
import type { AddressLabel } from './address-book.ts';
import type { DecodedBits } from './bit-fields.ts';

/** How names and pipeline knowledge enter the generic words. */
export interface Wording {
  /** A table: its name when known, else `table N`. */
  table(ref: TableRef): string;
  /** A table of the profile, given by the profile's name for it: the name the report uses for it. */
  profileTable(key: string): string;
  /** A port given by reference or by number. */
  port(port: PortRef | bigint): string;
  /** Who an address (value under mask) belongs to, when known (`local Pod coredns5-8ec607` in words). */
  addressRole(field: FieldDef, value: bigint, mask: bigint): AddressLabel | undefined;
  /** Named pipeline state the bits stand for, when known: `PktSource = FromPod (sent by a local Pod)`. */
  bits(field: FieldDef, value: bigint, mask: bigint): string | undefined;
  /** The same state piece by piece, each with its bits: for words about some of them. */
  states(field: FieldDef, value: bigint, mask: bigint): readonly DecodedBits[];
  /** A subfield, with its pipeline name when it has one. */
  subfield(sf: Subfield): NamedSubfield;
  /** A conntrack zone, with its pipeline name when it has one. */
  zone(zone: number): NamedZone;
}

/** A subfield and the pipeline's name for its bits (`TargetOFPort`), when it has one. */
export interface NamedSubfield {
  readonly subfield: Subfield;
  readonly name?: string;
}

/** A conntrack zone and the pipeline's name for it, when it has one. */
export interface NamedZone {
  readonly zone: number;
  readonly name?: string;
}

/** `reg0[16]`, `reg0[0..3]`, `reg1` (the whole field), with registry names rather than NXM names. */
export function shortSubfield(sf: Subfield): string {
  if (sf.start === 0 && sf.bits === sf.field.bits) return sf.field.name;
  if (sf.bits === 1) return `${sf.field.name}[${sf.start}]`;
  return `${sf.field.name}[${sf.start}..${sf.start + sf.bits - 1}]`;
}

function plainPort(port: PortRef | bigint): string {
  if (typeof port === 'bigint') {
    const reserved = reservedPortByNumber(Number(port));
    return reserved ?? `port ${port}`;
  }
  if (port.kind === 'number') return `port ${port.number}`;
  if (port.kind === 'name') return `port ${port.name}`;
  return port.name;
}

/** Words without any pipeline knowledge. */
export const PLAIN_WORDING: Wording = {
  table: (ref) => (ref.kind === 'number' ? `table ${ref.number}` : ref.name),
  profileTable: (key) => key,
  port: plainPort,
  addressRole: () => undefined,
  bits: () => undefined,
  states: () => [],
  subfield: (subfield) => ({ subfield }),
  zone: (zone) => ({ zone }),
};

/** Bits under a contiguous mask as `reg0[16] = 1`; other masks as `reg0 & 0xf0f = 0x101`. */
export function maskedBits(field: FieldDef, value: bigint, mask: bigint): string {
  if (mask === ones(field.bits)) return `${field.name} = 0x${value.toString(16)}`;
  const low = mask === 0n ? 0 : (mask & -mask).toString(2).length - 1;
  const run = mask >> BigInt(low);
  if ((run & (run + 1n)) === 0n) {
    const bits = run.toString(2).length;
    const v = value >> BigInt(low);
    return `${shortSubfield({ field, start: low, bits })} = ${bits === 1 ? v.toString() : `0x${v.toString(16)}`}`;
  }
  return `${field.name} & 0x${mask.toString(16)} = 0x${value.toString(16)}`;
}
