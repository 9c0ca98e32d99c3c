/**
 * Typed scalar values of OpenFlow fields. Everything is held as bigint bits so that
 * masks, prefixes and comparisons work the same for 1-bit flags and 128-bit addresses;
 * the branded types keep a MAC from being mistaken for an IPv4 address or a plain number.
 */

export type MacAddress = bigint & { readonly __mac: unique symbol };
export type Ipv4Address = bigint & { readonly __ipv4: unique symbol };
export type Ipv6Address = bigint & { readonly __ipv6: unique symbol };

/** Masks of the widths fields have (up to the 992 bits of tunnel metadata), built once each. */
const ONES: bigint[] = [];
const ONES_CACHED = 1024;

/** All-ones mask of the given width. */
export function ones(bits: number): bigint {
  if (!(bits >= 0 && bits < ONES_CACHED && Number.isInteger(bits))) return (1n << BigInt(bits)) - 1n;
  return (ONES[bits] ??= (1n << BigInt(bits)) - 1n);
}

/** Number of leading one bits if `mask` is a CIDR-style prefix mask of `bits` width, else -1. */
export function prefixLength(mask: bigint, bits: number): number {
  const all = ones(bits);
  // Most masks are those of a single address.
  if (mask === all) return bits;
  const inverted = all ^ mask;
  // A prefix mask's complement is 2^k - 1.
  if ((inverted & (inverted + 1n)) !== 0n) return -1;
  return bits - inverted.toString(2).replace(/^0$/, '').length;
}

export function prefixMask(length: number, bits: number): bigint {
  return ones(bits) ^ ones(bits - length);
}

/** Value of a hexadecimal digit's character code, or -1. */
export function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

/** Six groups of one or two hex digits separated by colons. */
export function parseMac(text: string): MacAddress | undefined {
  // 48 bits fit a double exactly, so the address is summed as a number and converted once.
  let v = 0;
  let i = 0;
  for (let group = 0; group < 6; group++) {
    if (group > 0 && text.charCodeAt(i++) !== 0x3a) return undefined;
    const start = i;
    let byte = 0;
    for (let d; i - start < 2 && (d = hexDigit(text.charCodeAt(i))) >= 0; i++) byte = byte * 16 + d;
    if (i === start) return undefined;
    v = v * 256 + byte;
  }
  return i === text.length ? (BigInt(v) as MacAddress) : undefined;
}

export function formatMac(value: bigint): string {
  const parts: string[] = [];
  for (let i = 5; i >= 0; i--) parts.push(((value >> BigInt(i * 8)) & 0xffn).toString(16).padStart(2, '0'));
  return parts.join(':');
}

/** Dotted quad: four decimal parts of one to three digits (leading zeros allowed), each ≤ 255. */
export function parseIpv4(text: string): Ipv4Address | undefined {
  return parseIpv4At(text, 0, text.length);
}

/** parseIpv4 of `text[start, end)`. */
export function parseIpv4At(text: string, start: number, end: number): Ipv4Address | undefined {
  const v = ipv4NumberAt(text, start, end);
  return v < 0 ? undefined : (BigInt(v) as Ipv4Address);
}

/** The address in `text[start, end)` as a number (0 to 2^32 - 1), or -1: no bigint is made. */
export function ipv4NumberAt(text: string, start: number, end: number): number {
  let v = 0;
  let i = start;
  for (let part = 0; part < 4; part++) {
    if (part > 0 && (i >= end || text.charCodeAt(i++) !== 0x2e)) return -1;
    const from = i;
    let n = 0;
    for (let c; i < end && i - from < 3 && (c = text.charCodeAt(i)) >= 0x30 && c <= 0x39; i++) n = n * 10 + c - 0x30;
    if (i === from || n > 255) return -1;
    v = v * 256 + n;
  }
  return i === end ? v : -1;
}

/** The decimal text of each octet value, made once. */
const OCTETS = Array.from({ length: 256 }, (_, i) => String(i));

export function formatIpv4(value: bigint): string {
  // One conversion (no bigint arithmetic, which allocates, for a value that fits), then number
  // arithmetic and made octet texts: reports of big dumps print millions of addresses.
  return formatIpv4Number(value <= 0xffffffffn ? Number(value) : Number(value & 0xffffffffn));
}

/** formatIpv4 of an address held as a number (0 to 2^32 - 1). */
export function formatIpv4Number(n: number): string {
  return (
    OCTETS[n >>> 24]! + '.' + OCTETS[(n >>> 16) & 0xff]! + '.' + OCTETS[(n >>> 8) & 0xff]! + '.' + OCTETS[n & 0xff]!
  );
}

export function parseIpv6(text: string): Ipv6Address | undefined {
  let head = text;
  let tailV4: bigint | undefined;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    const v4 = parseIpv4(text.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tailV4 = v4;
    head = text.slice(0, lastColon + 1) + '0:0';
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const toGroups = (s: string): string[] => (s === '' ? [] : s.split(':'));
  const left = toGroups(halves[0]!);
  const right = halves.length === 2 ? toGroups(halves[1]!) : [];
  const missing = 8 - left.length - right.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...right];
  let v = 0n;
  for (const g of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    v = (v << 16n) | BigInt(parseInt(g, 16));
  }
  if (tailV4 !== undefined) v = (v & ~0xffffffffn) | tailV4;
  return v as Ipv6Address;
}

/** RFC 5952 text, as inet_ntop prints it (which is what OVS shows), including ::ffff:a.b.c.d. */
export function formatIpv6(value: bigint): string {
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((value >> BigInt(i * 16)) & 0xffffn));
  // inet_ntop keeps dotted quads for IPv4-mapped and IPv4-compatible addresses.
  const v4Tail = (): string => formatIpv4(value & 0xffffffffn);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return `::ffff:${v4Tail()}`;
  if (groups.slice(0, 6).every((g) => g === 0) && groups[6]! !== 0) return `::${v4Tail()}`;
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  const left = hex.slice(0, bestStart).join(':');
  const right = hex.slice(bestStart + bestLen).join(':');
  return `${left}::${right}`;
}

/** Parses an unsigned integer the way OVS does for field values: 0x hex, otherwise decimal. */
export function parseUnsigned(text: string): bigint | undefined {
  if (/^0x[0-9a-fA-F]+$/i.test(text)) return BigInt(text.toLowerCase());
  if (/^\d+$/.test(text)) return BigInt(text);
  return undefined;
}
