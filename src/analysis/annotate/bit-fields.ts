/**
 * Registers, marks and labels read as the pipeline state a profile says they carry:
 * `reg0=0x10000/0x10000` → OFPortFound, `load:0x2->NXM_NX_REG0[0..15]` → PktSource = FromLocal.
 * Also the cookie, split into the profile's spans.
 */
import type { FieldDef } from '../../model/fields.ts';
import { fieldByName } from '../../model/fields.ts';
import { formatIpv4, formatIpv6, ones } from '../../model/values.ts';
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

/** One piece of pipeline state found in a match or a write. */
export interface DecodedBits {
  /** The profile's name for the bits (`PktSource`). */
  readonly name: string;
  readonly field: string;
  readonly start: number;
  readonly end: number;
  /** How the bits' value reads (a flag, a port, an address…). */
  readonly format: BitFieldFormat;
  /** The value of the bits, shifted down to bit 0; for bits only partly given, of those bits. */
  readonly value: bigint;
  /** The named value, when the bits hold one (`FromLocal`). */
  readonly valueName?: string;
  /** `PktSource = FromLocal (sent by a local Pod)`. */
  readonly text: string;
  /** Only some of the bits were matched or written. */
  readonly partial: boolean;
}

/** Words for a port number inside a bit field (`TargetOFPort = local Pod x (port 3)`). */
export type PortWords = (n: number) => string;

/** The name of a table by number, when the profile knows it (`PacketInTable = SpoofGuard (table 4)`). */
export type TableWords = (n: number) => string | undefined;

/** The address of the Node a `node` span's value stands for, as the dump's flows show it. */
export type NodeWords = (span: BitSpan, value: bigint) => string | undefined;

export class BitFieldDecoder {
  private readonly fields: readonly BitField[];
  private readonly cookie: readonly CookieSpan[];
  private readonly release: string;
  private readonly portWords: PortWords;
  private readonly tableWords: TableWords;
  private readonly cookies = new Map<bigint, readonly DecodedBits[]>();
  private readonly byStorage = new Map<string, readonly BitField[]>();
  private lastCookie: { readonly cookie: bigint; readonly bits: readonly DecodedBits[] } | undefined;

  private readonly nodeWords: NodeWords;

  constructor(
    profile: Profile | undefined,
    release: string,
    portWords: PortWords,
    tableWords: TableWords,
    nodeWords: NodeWords = () => undefined,
  ) {
    this.release = release;
    this.portWords = portWords;
    this.tableWords = tableWords;
    this.nodeWords = nodeWords;
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
    const applies = (b: BitField): boolean =>
      b.tables === undefined ||
      (table !== undefined && b.tables.some((k) => k === table.name || (table.aliases ?? []).includes(k)));
    const here = this.fieldsOf(field).filter(applies);
    const scoped = here.filter((b) => b.tables !== undefined);
    const hidden = (b: BitField): boolean =>
      b.tables === undefined && scoped.some((s) => s.start <= b.end && b.start <= s.end);
    const out: DecodedBits[] = [];
    for (const b of here) {
      if (hidden(b)) continue;
      const d = this.decodeSpan(b, b.field, value, mask);
      if (d) out.push(d);
    }
    return out;
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
    const base = { name: b.name, field, start: b.start, end: b.end, format: b.format };
    if (given !== spanMask) {
      const bits = given >> BigInt(b.start);
      return { ...base, value: v, partial: true, text: `${b.name} bits 0x${bits.toString(16)} = 0x${v.toString(16)}` };
    }
    const named = this.namedValue(b, v);
    return {
      ...base,
      value: v,
      partial: false,
      ...(named ? { valueName: named.name } : {}),
      text: this.valueText(b, v, named),
    };
  }

  private namedValue(b: BitSpan, v: bigint): NamedValue | undefined {
    return (b.values ?? []).find((n) => n.value === v && inVersion(n, this.release));
  }

  /** The value alone, as a template shows it: the named value, else the value in the span's format. */
  valueWords(b: BitSpan, v: bigint): string {
    const named = this.namedValue(b, v);
    if (named && b.format !== 'flag') return named.name;
    switch (b.format) {
      case 'flag':
        return named?.name ?? String(v);
      case 'bitmask': {
        const names = (b.values ?? [])
          .filter((n) => n.value !== 0n && (v & n.value) === n.value && inVersion(n, this.release))
          .map((n) => n.name);
        return names.length > 0 ? names.join('|') : `0x${v.toString(16)}`;
      }
      case 'port':
        return this.portWords(Number(v));
      case 'ipv4':
        return formatIpv4(v);
      case 'ipv6':
        return formatIpv6(v);
      case 'table': {
        const name = this.tableWords(Number(v));
        return name === undefined ? `table ${v}` : `${name} (table ${v})`;
      }
      case 'group':
        return `group ${v}`;
      case 'node': {
        const node = this.nodeWords(b, v);
        return node === undefined ? `0x${v.toString(16)}` : `Node ${node} (0x${v.toString(16)})`;
      }
      case 'hex':
        return `0x${v.toString(16)}`;
      case 'enum':
      case 'number':
        return String(v);
    }
  }

  private valueText(b: BitSpan, v: bigint, named: NamedValue | undefined): string {
    if (b.format === 'flag') {
      if (v === 1n) return `${b.name} (${b.meaning})`;
      return `not ${b.name}${named ? ` (${named.meaning})` : ''}`;
    }
    const words = this.valueWords(b, v);
    return named ? `${b.name} = ${words} (${named.meaning})` : `${b.name} = ${words}`;
  }
}
