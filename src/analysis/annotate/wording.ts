/**
 * What a report calls what flows refer to — tables, ports, addresses, register bits, subfields,
 * conntrack zones — as a pipeline knows them when its profile does (`Annotator.wording`), else
 * as the flow gives them (`PLAIN_WORDING`). Names and data only: `render/words/` says them.
 */
import type { Subfield } from '../../model/actions.ts';
import type { FieldDef } from '../../model/fields.ts';
import type { PortRef } from '../../model/ports.ts';
import { reservedPortByNumber } from '../../model/ports.ts';
import type { TableRef } from '../../model/tables.ts';
import type { AddressLabel } from './address-book.ts';
import type { DecodedBits } from './bit-fields.ts';
import type { PortReading } from '../fit/port-roles.ts';

/** How names and pipeline knowledge enter the generic words. */
export interface Wording {
  /** A table as reports name it: by its name when known, else by its number. */
  table(ref: TableRef): TableRef;
  /** A table of the profile, given by the profile's name for it: the name the report uses for it. */
  profileTable(key: string): string;
  /** A port given by reference or by number. */
  port(port: PortRef | bigint): PortReading;
  /** Who an address (value under mask) belongs to, when known (`local Pod coredns5-8ec607` in words). */
  addressRole(field: FieldDef, value: bigint, mask: bigint): AddressLabel | undefined;
  /** Named pipeline state the bits stand for, when known (`PktSource = FromPod (sent by a local Pod)` in words). */
  bits(field: FieldDef, value: bigint, mask: bigint): StateReading | undefined;
  /** The same state piece by piece, each with its bits: for words about some of them. */
  states(field: FieldDef, value: bigint, mask: bigint): readonly DecodedBits[];
  /** A subfield, with its pipeline name when it has one. */
  subfield(sf: Subfield): NamedSubfield;
  /** A conntrack zone, with its pipeline name when it has one. */
  zone(zone: number): NamedZone;
}

/** Named state in a field's bits, for render/words/bits.ts to say. */
export interface StateReading {
  readonly field: FieldDef;
  /** The pieces, grouped by the bits they share: the pieces of a group are readings of the same bits. */
  readonly groups: readonly (readonly DecodedBits[])[];
  /** The bits no bit field of the profile covers, with their value. */
  readonly rest?: { readonly value: bigint; readonly mask: bigint };
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

/** A port as the flow gives it, without knowing who it is. */
function plainPort(port: PortRef | bigint): PortReading {
  if (typeof port === 'bigint') {
    const reserved = reservedPortByNumber(Number(port));
    return reserved !== undefined ? { kind: 'reserved', name: reserved } : { kind: 'port', number: Number(port) };
  }
  if (port.kind === 'number') return { kind: 'port', number: port.number };
  if (port.kind === 'name') return { kind: 'port', name: port.name };
  return { kind: 'reserved', name: port.name };
}

/** Words without any pipeline knowledge. */
export const PLAIN_WORDING: Wording = {
  table: (ref) => ref,
  profileTable: (key) => key,
  port: plainPort,
  addressRole: () => undefined,
  bits: () => undefined,
  states: () => [],
  subfield: (subfield) => ({ subfield }),
  zone: (zone) => ({ zone }),
};
