/**
 * Values of match fields in their own text syntax (`10.0.0.0/8`, `+est+trk`, `0x5/0xff`,
 * `"antrea-gw0"`), as accepted after `FIELD=` in a match, in `set_field:VALUE->FIELD` and in
 * `learn(FIELD=VALUE)`. Parsing follows ovs-ofctl (lib/meta-flow.c `mf_parse`), including its
 * error texts; printing follows `mf_format`, the form OVS uses inside actions.
 */
import { CT_STATE } from '../model/ct-state.ts';
import type { FieldDef, FieldFormat } from '../model/fields.ts';
import { RESERVED_PORT_NUMBERS, reservedPortByName, reservedPortByNumber } from '../model/ports.ts';
import type { PortMap, PortNumbers, PortRef } from '../model/ports.ts';
import {
  formatIpv4,
  formatIpv6,
  formatMac,
  ones,
  parseIpv4,
  parseIpv6,
  parseMac,
  prefixLength,
  prefixMask,
} from '../model/values.ts';
import { bigintOf } from './interned.ts';
import { plainNumberAt } from './numbers.ts';
import { unquoteName } from './tokens.ts';

export type FieldValueResult =
  | { readonly ok: true; readonly value: bigint; readonly mask: bigint; readonly port?: PortRef }
  | { readonly ok: false; readonly error: string };

const fail = (error: string): FieldValueResult => ({ ok: false, error });

// ---------------------------------------------------------------------------------------------
// Flag fields

interface FlagSet {
  /** Field name as OVS says it in "unknown X flag(s)". */
  readonly noun: string;
  /** Bits that may be written (ovs-ofctl rejects others). */
  readonly allowed: bigint;
  readonly names: ReadonlyMap<bigint, string>;
}

const CT_STATE_FLAGS: FlagSet = {
  noun: 'ct_state',
  allowed: 0xffn,
  names: new Map(Object.entries(CT_STATE).map(([name, bit]) => [bit, name])),
};

const TCP_FLAGS: FlagSet = {
  noun: 'TCP',
  allowed: 0xfffn,
  names: new Map([
    [0x001n, 'fin'],
    [0x002n, 'syn'],
    [0x004n, 'rst'],
    [0x008n, 'psh'],
    [0x010n, 'ack'],
    [0x020n, 'urg'],
    [0x040n, 'ece'],
    [0x080n, 'cwr'],
    [0x100n, 'ns'],
    // The reserved bits have no names; OVS writes them as their hex value in brackets.
    [0x200n, '[200]'],
    [0x400n, '[400]'],
    [0x800n, '[800]'],
  ]),
};

/** Only `oam` may be matched or set from OpenFlow; the others exist for datapath flows. */
const TUN_FLAGS: FlagSet = {
  noun: 'tunnel',
  allowed: 0x1n,
  names: new Map([
    [0x1n, 'oam'],
    [0x2n, 'df'],
    [0x4n, 'csum'],
    [0x8n, 'key'],
  ]),
};

/** The flag table of a flag-valued field, if it is one. */
export function flagSetOf(field: FieldDef): FlagSet | undefined {
  return SYNTAX[field.format].flags;
}

/** The mask that makes a flag field an exact match (every writable bit). */
export function exactFlagMask(field: FieldDef): bigint | undefined {
  return flagSetOf(field)?.allowed;
}

function flagByName(set: FlagSet, name: string): bigint | undefined {
  for (const [bit, n] of set.names) if (n === name) return bit;
  return undefined;
}

/** C `%i`: 0x hex, leading-0 octal, decimal, optional sign (a negative wraps and is rejected later). */
function parseCInteger(text: string): bigint | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/.exec(text);
  if (!m) return undefined;
  const body = m[2]!;
  const v = /^0[xX]/.test(body)
    ? BigInt(body.toLowerCase())
    : body.length > 1 && body.startsWith('0')
      ? BigInt('0o' + body.slice(1))
      : BigInt(body);
  return m[1] === '-' ? -v : v;
}

function parseFlags(set: FlagSet, text: string): FieldValueResult {
  const unknown = (at: string): FieldValueResult => fail(`${at}: unknown ${set.noun} flag(s)`);
  const numeric = /^([^/]+)\/([^/]+)$/.exec(text);
  if (numeric) {
    const v = parseCInteger(numeric[1]!);
    const m = parseCInteger(numeric[2]!);
    if (v !== undefined && m !== undefined) {
      if (v < 0n || m < 0n || (v & ~set.allowed) !== 0n || (m & ~set.allowed) !== 0n) return unknown(text);
      return { ok: true, value: v & m, mask: m };
    }
  }
  if (text.startsWith('+') || text.startsWith('-')) {
    let value = 0n;
    let mask = 0n;
    const re = /([+-])([^+-]*)/y;
    let i = 0;
    while (i < text.length) {
      re.lastIndex = i;
      const m = re.exec(text);
      if (!m) return fail(`${text.slice(i)}: ${set.noun} must be preceded by '+' (for SET) or '-' (NOT SET)`);
      const bit = flagByName(set, m[2]!);
      if (bit === undefined || (bit & set.allowed) === 0n) return unknown(text.slice(i + 1));
      if ((mask & bit) !== 0n) return fail(`${text.slice(i + 1)}: Each ${set.noun} flag can only be specified once`);
      if (m[1] === '+') value |= bit;
      mask |= bit;
      i = re.lastIndex;
    }
    return { ok: true, value, mask };
  }
  // `a|b|0x4`: the listed flags set, every other writable flag clear.
  let value = 0n;
  for (const part of text.split('|')) {
    const n = parseCInteger(part);
    const bit = n ?? flagByName(set, part);
    if (bit === undefined || bit < 0n || (bit & ~set.allowed) !== 0n) return unknown(text);
    value |= bit;
  }
  return { ok: true, value, mask: set.allowed };
}

/** ovs-ofctl's `format_flags_masked`: `a|b` (or `0`) when `mask` equals `max`, else `+a-b`. */
export function formatFlags(field: FieldDef, value: bigint, mask: bigint, max: bigint): string {
  const set = flagSetOf(field);
  const name = (bit: bigint): string => set?.names.get(bit) ?? `0x${bit.toString(16)}`;
  if (mask === max) {
    const parts: string[] = [];
    for (let bit = 1n; bit <= value; bit <<= 1n) if ((value & bit) !== 0n) parts.push(name(bit));
    return parts.length === 0 ? '0' : parts.join('|');
  }
  if (mask === 0n) return '0/0';
  let out = '';
  for (let bit = 1n; bit <= mask; bit <<= 1n) {
    if ((mask & bit) === 0n) continue;
    out += ((value & bit) !== 0n ? '+' : '-') + (set?.names.get(bit) ?? '[Unknown]');
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Fragment words

const A = 1n; // FLOW_NW_FRAG_ANY
const L = 2n; // FLOW_NW_FRAG_LATER

/** (word, mask, value) in OVS's lookup order: parsing takes the first word, printing the first pair. */
const FRAGS: readonly (readonly [string, bigint, bigint])[] = [
  ['no', A | L, 0n],
  ['first', A | L, A],
  ['later', A | L, A | L],
  ['no', A, 0n],
  ['yes', A, A],
  ['not_later', L, 0n],
  ['later', L, L],
];

function parseFrag(text: string): FieldValueResult {
  const hit = FRAGS.find(([w]) => w === text.toLowerCase());
  if (!hit) return fail(`${text}: unknown fragment type (valid types are "no", "yes", "first", "later", "not_later"`);
  return { ok: true, value: hit[2], mask: hit[1] };
}

export function formatFrag(value: bigint, mask: bigint): string {
  const m = mask & (A | L);
  const hit = FRAGS.find(([, hm, hv]) => hm === m && hv === (value & m));
  return hit ? hit[0] : '<error>';
}

// ---------------------------------------------------------------------------------------------
// Integers

type IntResult = { readonly v: bigint } | { readonly err: 'range' | 'syntax' };

/** OVS `parse_int_string`: 0x hex of any length that fits the bytes, else strtoull base 0. */
function parseIntString(text: string, bytes: number): IntResult {
  const plain = plainNumberAt(text, 0, text.length);
  // Plain hex, or decimal without the leading zero that makes C read octal.
  if (plain >= 0 && (text.length === 1 || text.charCodeAt(0) !== 0x30 || (text.charCodeAt(1) | 0x20) === 0x78)) {
    // Significant hex digits fit the bytes exactly when the value does; plain values are exact numbers.
    return plain <= 2 ** (bytes * 8) - 1 ? { v: bigintOf(plain) } : { err: 'range' };
  }
  if (/^0[xX]/.test(text)) {
    const digits = text.slice(2).replace(/[ \t\r\n]/g, '');
    if (!/^[0-9a-fA-F]*$/.test(digits)) return { err: 'syntax' };
    const significant = digits.replace(/^0+/, '');
    if (Math.ceil(significant.length / 2) > bytes) return { err: 'range' };
    return { v: significant === '' ? 0n : BigInt('0x' + significant) };
  }
  const v = parseCInteger(text.replace(/^[ \t]+/, ''));
  if (v === undefined) return { err: 'syntax' };
  // strtoull wraps negative numbers to huge ones, which then do not fit.
  if (v < 0n || v > ones(bytes * 8)) return { err: 'range' };
  return { v };
}

function parseInteger(field: FieldDef, text: string): FieldValueResult {
  const slash = text.indexOf('/');
  const invalid = (r: { readonly err: 'range' | 'syntax' }, what: 'value' | 'mask'): FieldValueResult =>
    fail(
      r.err === 'range'
        ? `${text}: ${what} too large for ${field.bytes}-byte field ${field.name}`
        : `${text}: bad syntax for ${field.name} ${what}`,
    );
  const value = parseIntString(slash < 0 ? text : text.slice(0, slash), field.bytes);
  if ('err' in value) return invalid(value, 'value');
  if (slash < 0) return { ok: true, value: value.v, mask: ones(field.bytes * 8) };
  const mask = parseIntString(text.slice(slash + 1), field.bytes);
  if ('err' in mask) return invalid(mask, 'mask');
  return { ok: true, value: value.v, mask: mask.v };
}

// ---------------------------------------------------------------------------------------------
// Ports

/** OF1.0 number of a port written as a number, reserved name, quoted or bare name. */
function parsePort(text: string, portMap: PortNumbers | undefined): { number: number; port?: PortRef } | undefined {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (n < 0xff00) return { number: n };
    if (n <= 0xffff) {
      const reserved = reservedPortByNumber(n);
      return reserved ? { number: n, port: { kind: 'reserved', name: reserved } } : { number: n };
    }
    if (n >= 0xffffff00 && n <= 0xffffffff) {
      const reserved = reservedPortByNumber(n);
      return reserved
        ? { number: n - 0xffff0000, port: { kind: 'reserved', name: reserved } }
        : { number: n - 0xffff0000 };
    }
    return undefined;
  }
  // Numbers with junk (`1/1`, `0x1`) are not names; OVS would print such a name quoted.
  if (/^[-\d]/.test(text) || (!text.startsWith('"') && text.includes('/'))) return undefined;
  const reserved = reservedPortByName(text);
  if (reserved) return { number: RESERVED_PORT_NUMBERS[reserved], port: { kind: 'reserved', name: reserved } };
  const name = unquoteName(text);
  if (name === undefined || name === '') return undefined;
  const n = portMap?.number(name);
  // Dumps printed with --names carry names we may have no map for; keep the name, number unknown.
  return { number: n ?? 0, port: { kind: 'name', name } };
}

function portResult(field: FieldDef, text: string, portMap: PortNumbers | undefined): FieldValueResult {
  const p = parsePort(text, portMap);
  if (!p) {
    return fail(
      field.bits === 16
        ? `${text}: invalid or unknown port for ${field.name}`
        : `${text}: port value out of range for ${field.name}`,
    );
  }
  // 32-bit port fields hold OF1.1+ numbers: reserved ports live at 0xffffff00 and up.
  const value = field.bits === 32 && p.number >= 0xff00 ? BigInt(p.number) + 0xffff0000n : BigInt(p.number);
  return { ok: true, value, mask: ones(field.bits), ...(p.port ? { port: p.port } : {}) };
}

/** A port number (OF1.0 or OF1.1+ numbering) as OVS prints it: reserved ports by name. */
export function formatPortNumber(n: bigint, portNames?: PortMap): string {
  const num = Number(n);
  const reserved = reservedPortByNumber(num);
  if (reserved) return reserved;
  const name = portNames?.name(num);
  return name === undefined ? String(num) : quotePortName(name);
}

/** A port name bare when it is a letter followed by letters and digits, else as a JSON string. */
export function quotePortName(name: string): string {
  return /^[A-Za-z][A-Za-z0-9]*$/.test(name) ? name : JSON.stringify(name);
}

/** The port as written: a name stays a name, a reserved port its name, else the number. */
export function formatPort(value: bigint, port: PortRef | undefined, portNames?: PortMap): string {
  if (port?.kind === 'name') return quotePortName(port.name);
  // Reserved ports print by number's name: `none` and `any` are both ANY.
  return formatPortNumber(value, portNames);
}

// ---------------------------------------------------------------------------------------------
// Addresses

/** How one IP family is written: OVS's words for it in errors, its width and its address syntax. */
interface IpFamily {
  readonly bits: number;
  readonly parse: (text: string) => bigint | undefined;
  readonly print: (value: bigint) => string;
  /** OVS's errors: `invalid X address`, `Y network prefix bits …`, and a mask that is neither. */
  readonly noun: string;
  readonly prefixNoun: string;
  readonly badMask: string;
}

const IPV4: IpFamily = {
  bits: 32,
  parse: parseIpv4,
  print: formatIpv4,
  noun: 'IP',
  prefixNoun: 'IPv4',
  badMask: 'invalid IP address',
};
const IPV6: IpFamily = {
  bits: 128,
  parse: parseIpv6,
  print: formatIpv6,
  noun: 'IPv6',
  prefixNoun: 'IPv6',
  badMask: 'Invalid IPv6 mask',
};

/** An address with an optional `/prefix` or `/mask` (OVS `ip_parse_masked`, `ipv6_parse_masked`). */
function parseIpMasked(family: IpFamily, text: string): FieldValueResult {
  const { bits } = family;
  const slash = text.indexOf('/');
  const addr = family.parse(slash < 0 ? text : text.slice(0, slash));
  if (addr === undefined) return fail(`${text}: invalid ${family.noun} address`);
  if (slash < 0) return { ok: true, value: addr, mask: ones(bits) };
  const rest = text.slice(slash + 1);
  if (/^[+-]?\d+$/.test(rest)) {
    const len = Number(rest);
    if (len < 0 || len > bits)
      return fail(`${text}: ${family.prefixNoun} network prefix bits not between 0 and ${bits}, inclusive`);
    const mask = prefixMask(len, bits);
    return { ok: true, value: addr & mask, mask };
  }
  const mask = family.parse(rest);
  if (mask === undefined) return fail(`${text}: ${family.badMask}`);
  return { ok: true, value: addr & mask, mask };
}

/** The address, `/N` for a prefix mask, `/mask` otherwise. */
function formatIpMasked(family: IpFamily, value: bigint, mask: bigint): string {
  if (mask === ones(family.bits)) return family.print(value);
  const len = prefixLength(mask, family.bits);
  return `${family.print(value)}/${len >= 0 ? String(len) : family.print(mask)}`;
}

export function formatIpv4Masked(value: bigint, mask: bigint): string {
  return formatIpMasked(IPV4, value, mask);
}

export function formatIpv6Masked(value: bigint, mask: bigint): string {
  return formatIpMasked(IPV6, value, mask);
}

function parseMacMasked(text: string): FieldValueResult {
  const slash = text.indexOf('/');
  const addr = parseMac(slash < 0 ? text : text.slice(0, slash));
  const mask = slash < 0 ? ones(48) : parseMac(text.slice(slash + 1));
  if (addr === undefined || mask === undefined) return fail(`${text}: invalid Ethernet address`);
  return { ok: true, value: addr & mask, mask };
}

/** `(ns,type)`: namespace in the high 16 bits, type in the low 16. */
function parsePacketType(text: string): FieldValueResult {
  const m = /^\(([^,]*),([^)]*)\)$/.exec(text);
  if (!m) return fail(`${text}: bad syntax for packet type ${text.startsWith('(') ? "missing ')'" : "missing '('"}`);
  const ns = parseIntString(m[1]!, 2);
  const type = parseIntString(m[2]!, 2);
  if ('err' in ns) return fail(`${text}: bad syntax for packet type ns`);
  if ('err' in type) return fail(`${text}: bad syntax for packet type ns_type`);
  return { ok: true, value: (ns.v << 16n) | type.v, mask: ones(32) };
}

export function formatPacketType(value: bigint): string {
  const type = value & 0xffffn;
  return `(${value >> 16n},${type === 0n ? '0' : '0x' + type.toString(16)})`;
}

// ---------------------------------------------------------------------------------------------

/** The mask an exact match of `field` carries after parsing. */
export function fullMask(field: FieldDef): bigint {
  const flags = exactFlagMask(field);
  if (flags !== undefined) return flags;
  if (field.format === 'frag') return A | L;
  // vlan_vid values carry the 0x1000 "tag present" bit above the 12-bit VID; dl_vlan=0xffff
  // is OpenFlow 1.0's "no tag".
  if (field.name === 'vlan_vid') return ones(13);
  if (field.name === 'dl_vlan') return ones(16);
  return ones(field.bits);
}

/**
 * Parses a value (and optional /mask) in the field's own syntax: decimal/0x hex, IPv4 (CIDR or
 * dotted mask), IPv6, MAC, ct_state/tcp_flags/tun_flags flag syntax, nw_frag words, port
 * names/numbers (PortMap lookup; unknown names kept as PortRef name with value 0),
 * packet_type=(ns,type). mask defaults to all ones of the field width; value is normalised
 * (value & mask). `*` means "any value" (mask 0).
 */
export function parseFieldValue(field: FieldDef, text: string, portMap?: PortNumbers): FieldValueResult {
  if (text === '*') return { ok: true, value: 0n, mask: 0n };
  const r = SYNTAX[field.format].parse(field, text, portMap);
  if (!r.ok) return r;
  if (field.name.startsWith('tun_metadata')) return tunnelMetadata(field, text, r.value, r.mask);
  const wide = ones(field.bytes * 8);
  // Bits beyond the field's width but inside its container are dropped, as OVS does when it
  // stores the value (dl_vlan=5000 matches VLAN 904).
  const full = fullMask(field);
  const exact = r.mask === wide || r.mask === full;
  const mask = exact ? full : r.mask & full;
  // Fields that cannot be masked take only "all bits" or "no bits" (lib/meta-flow.c mf_is_mask_valid).
  if (!field.maskable && r.mask !== wide && r.mask !== 0n) return fail(`${text}: invalid mask for field ${field.name}`);
  const value = r.value & mask;
  return r.port ? { ok: true, value, mask, port: r.port } : { ok: true, value, mask };
}

/**
 * Tunnel metadata has no fixed width: without the switch's TLV map OVS takes the option's length
 * from the mask as written (else the value), so `0xef/0xff` is an exact one-byte match.
 */
function tunnelMetadata(field: FieldDef, text: string, value: bigint, mask: bigint): FieldValueResult {
  const slash = text.indexOf('/');
  const digits = (slash < 0 ? text : text.slice(slash + 1)).replace(/^0x/i, '').length;
  const width = ones(Math.ceil(digits / 2) * 8);
  if (slash >= 0 && mask !== width) return { ok: true, value: value & mask, mask };
  return { ok: true, value: value & width, mask: ones(field.bits) };
}

function hexString(v: bigint): string {
  return v === 0n ? '0' : '0x' + v.toString(16);
}

/** Prints a value the way OVS prints it inside set_field / learn (field's own syntax). */
export function formatFieldValue(field: FieldDef, value: bigint, mask?: bigint, portNames?: PortMap): string {
  const full = fullMask(field);
  const m = mask === undefined || mask === full || mask === ones(field.bytes * 8) ? undefined : mask;
  if (m === 0n) return 'ANY';
  return SYNTAX[field.format].format(field, value, m, full, portNames);
}

// ---------------------------------------------------------------------------------------------
// Each format's syntax: one entry per format, so that a new format does not compile without both.

interface ValueSyntax {
  /** The value and mask as written, before the field's width and maskability apply. */
  readonly parse: (field: FieldDef, text: string, portMap?: PortNumbers) => FieldValueResult;
  /** `mask` is undefined for an exact match; `full` is the field's exact mask. */
  readonly format: (
    field: FieldDef,
    value: bigint,
    mask: bigint | undefined,
    full: bigint,
    portNames?: PortMap,
  ) => string;
  readonly flags?: FlagSet;
}

/** A number: the value as `show` writes it, a mask in hex. */
function integer(show: (value: bigint) => string): ValueSyntax {
  return {
    parse: parseInteger,
    format: (_field, value, mask) => (mask === undefined ? show(value) : `${show(value)}/${hexString(mask)}`),
  };
}

/**
 * Flags: `within` keeps a mask to the field's writable bits when printing (tcp_flags, tun_flags);
 * ct_state prints the mask as given.
 */
function flags(set: FlagSet, within: boolean): ValueSyntax {
  return {
    parse: (_field, text) => parseFlags(set, text),
    format: (field, value, mask, full) =>
      formatFlags(field, value, within ? (mask ?? full) & full : (mask ?? full), full),
    flags: set,
  };
}

/** An IP address, with a prefix or a mask. */
function ipAddress(family: IpFamily): ValueSyntax {
  return {
    parse: (_field, text) => parseIpMasked(family, text),
    format: (_field, value, mask) => formatIpMasked(family, value, mask ?? ones(family.bits)),
  };
}

const HEX = integer(hexString);

const SYNTAX: { readonly [F in FieldFormat]: ValueSyntax } = {
  decimal: integer(String),
  hex: HEX,
  'vlan-tci': HEX,
  'ipv6-label': HEX,
  port: {
    parse: portResult,
    format: (_field, value, mask, _full, portNames) =>
      mask === undefined ? formatPortNumber(value, portNames) : `${value}/${hexString(mask)}`,
  },
  ipv4: ipAddress(IPV4),
  ipv6: ipAddress(IPV6),
  mac: {
    parse: (_field, text) => parseMacMasked(text),
    format: (_field, value, mask) => (mask === undefined ? formatMac(value) : `${formatMac(value)}/${formatMac(mask)}`),
  },
  'ct-state': flags(CT_STATE_FLAGS, false),
  'tcp-flags': flags(TCP_FLAGS, true),
  'tun-flags': flags(TUN_FLAGS, true),
  frag: {
    parse: (_field, text) => parseFrag(text),
    format: (_field, value, mask, full) => formatFrag(value, mask ?? full),
  },
  'packet-type': { parse: (_field, text) => parsePacketType(text), format: (_field, value) => formatPacketType(value) },
};
