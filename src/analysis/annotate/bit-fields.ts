/**
 * Registers, marks and labels read as the pipeline state a profile says they carry:
 * `reg0=0x10000/0x10000` → OFPortFound, `load:0x2->NXM_NX_REG0[0..15]` → PktSource = FromLocal.
 * Also the cookie, split into the profile's spans.
 */
import type { FieldDef } from '../../model/fields.ts';
import { fieldByName } from '../../model/fields.ts';
import { ones } from '../../model/values.ts';
import type {
  BitField,
  BitFieldFormat,
  BitSpan,
  CookieSpan,
  NamedValue,
  Profile,
  TableSpec,
} from '../../profiles/types.ts';
import { inVersion } from '../../profiles/versions.ts';
import type { PortReading } from '../fit/port-roles.ts';

/**
 * What a bit field's value stands for (render/words/bits.ts says it): its named value when it has
 * one, and what the pipeline knows of the value in the field's format.
 */
export type BitsValue = { readonly value: bigint; readonly valueName?: string } & (
  | { readonly format: 'flag' | 'enum' | 'number' | 'hex' | 'ipv4' | 'ipv6' | 'group' }
  /** The names of the values whose bits are all set. */
  | { readonly format: 'bitmask'; readonly names: readonly string[] }
  | { readonly format: 'port'; readonly port: PortReading }
  /** The table's name, when the profile knows the table. */
  | { readonly format: 'table'; readonly tableName?: string }
  /** The address of the Node the value stands for, when the dump's flows show it. */
  | { readonly format: 'node'; readonly node?: string }
);

/** Where the bits are, by the profile's name for them (`PktSource`). */
interface BitsPlace {
  readonly name: string;
  readonly field: string;
  readonly start: number;
  readonly end: number;
}

/** One piece of pipeline state found in a match or a write: `PktSource = FromLocal (sent by a local Pod)` in words. */
export type DecodedBits = BitsPlace &
  (
    | (BitsValue & {
        readonly partial: false;
        /** What the profile says the value means: a flag's meaning when set, else the named value's. */
        readonly meaning?: string;
      })
    | {
        /** Only some of the bits were matched or written. */
        readonly partial: true;
        readonly format: BitFieldFormat;
        /** The value of the bits given, shifted down to bit 0. */
        readonly value: bigint;
        /** Which bits of the span were given, shifted down to bit 0. */
        readonly given: bigint;
        /** Some bits have no named value. */
        readonly valueName?: never;
      }
  );

/** A port number inside a bit field, as reports name it (`TargetOFPort = local Pod x (port 3)`). */
export type PortReader = (n: number) => PortReading;

/** The name of a table by number, when the profile knows it (`PacketInTable = SpoofGuard (table 4)` in words). */
export type TableNames = (n: number) => string | undefined;

/** The address of the Node a `node` span's value stands for, as the dump's flows show it. */
export type NodeAddresses = (span: BitSpan, value: bigint) => string | undefined;

export class BitFieldDecoder {
  private readonly fields: readonly BitField[];
  private readonly cookie: readonly CookieSpan[];
  private readonly release: string;
  private readonly ports: PortReader;
  private readonly tableNames: TableNames;
  private readonly cookies = new Map<bigint, readonly DecodedBits[]>();
  private readonly byStorage = new Map<string, readonly BitField[]>();
  /** What decode reads, by table and storage (see readIn). */
  private readonly readings = new Map<TableSpec | undefined, Map<string, readonly BitField[]>>();
  private lastCookie: { readonly cookie: bigint; readonly bits: readonly DecodedBits[] } | undefined;

  private readonly nodes: NodeAddresses;

  constructor(
    profile: Profile | undefined,
    release: string,
    ports: PortReader,
    tableNames: TableNames,
    nodes: NodeAddresses = () => undefined,
  ) {
    this.release = release;
    this.ports = ports;
    this.tableNames = tableNames;
    this.nodes = nodes;
    this.fields = (profile?.bitFields ?? []).filter((b) => inVersion(b, release));
    this.cookie = (profile?.cookie ?? []).filter((c) => inVersion(c, release));
  }

  /** The bit fields of the profile that live in `field`'s storage (worked out once per storage). */
  fieldsOf(field: FieldDef): readonly BitField[] {
    let found = this.byStorage.get(field.storage);
    if (!found)
      this.byStorage.set(
        field.storage,
        (found = this.fields.filter((b) => fieldByName(b.field)?.storage === field.storage)),
      );
    return found;
  }

  /** A bit field of this profile and release by name. */
  byName(name: string): BitField | undefined {
    return this.fields.find((b) => b.name === name);
  }

  /**
   * The named pieces of state that `value/mask` of `field` set or test in `table` (absent: in a
   * group bucket); bits no bit field covers are left out. Of readings that share bits, those
   * scoped to the table win; readings scoped to other tables are left out.
   */
  decode(field: FieldDef, value: bigint, mask: bigint, table?: TableSpec): DecodedBits[] {
    const out: DecodedBits[] = [];
    for (const b of this.readIn(field, table)) {
      const d = this.decodeSpan(b, b.field, value, mask);
      if (d) out.push(d);
    }
    return out;
  }

  /** The bit fields of `field`'s storage that `decode` reads in `table` (worked out once per table and storage). */
  private readIn(field: FieldDef, table: TableSpec | undefined): readonly BitField[] {
    let byStorage = this.readings.get(table);
    if (byStorage === undefined) this.readings.set(table, (byStorage = new Map()));
    let found = byStorage.get(field.storage);
    if (found === undefined) {
      const applies = (b: BitField): boolean =>
        b.tables === undefined ||
        (table !== undefined && b.tables.some((k) => k === table.name || (table.aliases ?? []).includes(k)));
      const here = this.fieldsOf(field).filter(applies);
      const scoped = here.filter((b) => b.tables !== undefined);
      const hidden = (b: BitField): boolean =>
        b.tables === undefined && scoped.some((s) => s.start <= b.end && b.start <= s.end);
      byStorage.set(field.storage, (found = here.filter((b) => !hidden(b))));
    }
    return found;
  }

  /** Mask bits of `field` that no bit field of the profile covers. */
  uncovered(field: FieldDef, mask: bigint): bigint {
    let rest = mask;
    for (const b of this.fieldsOf(field)) rest &= ~(ones(b.end - b.start + 1) << BigInt(b.start));
    return rest;
  }

  /**
   * The cookie split into the profile's spans (spans that are zero are left out). A dump holds a
   * few cookies in a million flows: each is decoded once, and its reading shared.
   */
  decodeCookie(cookie: bigint): readonly DecodedBits[] {
    if (this.lastCookie !== undefined && this.lastCookie.cookie === cookie) return this.lastCookie.bits;
    let bits = this.cookies.get(cookie);
    if (!bits) {
      const out: DecodedBits[] = [];
      for (const c of this.cookie) {
        const d = this.decodeSpan(c, 'cookie', cookie, ones(64));
        if (d && d.value !== 0n) out.push(d);
      }
      this.cookies.set(cookie, (bits = out));
    }
    this.lastCookie = { cookie, bits };
    return bits;
  }

  private decodeSpan(b: BitSpan, field: string, value: bigint, mask: bigint): DecodedBits | undefined {
    const width = b.end - b.start + 1;
    const spanMask = ones(width) << BigInt(b.start);
    const given = mask & spanMask;
    if (given === 0n) return undefined;
    const v = (value & spanMask) >> BigInt(b.start);
    const place = { name: b.name, field, start: b.start, end: b.end };
    if (given !== spanMask)
      return { ...place, format: b.format, value: v, partial: true, given: given >> BigInt(b.start) };
    const named = this.namedValue(b, v);
    const meaning = b.format === 'flag' && v === 1n ? b.meaning : named?.meaning;
    return { ...place, ...this.reading(b, v), partial: false, ...(meaning !== undefined ? { meaning } : {}) };
  }

  private namedValue(b: BitSpan, v: bigint): NamedValue | undefined {
    return (b.values ?? []).find((n) => n.value === v && inVersion(n, this.release));
  }

  /** What a value of the span stands for: its named value, and what the pipeline knows of it in the span's format. */
  reading(b: BitSpan, v: bigint): BitsValue {
    const named = this.namedValue(b, v);
    const base = { value: v, ...(named ? { valueName: named.name } : {}) };
    switch (b.format) {
      case 'bitmask':
        return {
          ...base,
          format: b.format,
          names: (b.values ?? [])
            .filter((n) => n.value !== 0n && (v & n.value) === n.value && inVersion(n, this.release))
            .map((n) => n.name),
        };
      case 'port':
        return { ...base, format: b.format, port: this.ports(Number(v)) };
      case 'table': {
        const tableName = this.tableNames(Number(v));
        return { ...base, format: b.format, ...(tableName !== undefined ? { tableName } : {}) };
      }
      case 'node': {
        const node = this.nodes(b, v);
        return { ...base, format: b.format, ...(node !== undefined ? { node } : {}) };
      }
      default:
        return { ...base, format: b.format };
    }
  }
}
