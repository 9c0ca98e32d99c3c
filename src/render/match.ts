/**
 * Prints a normalised match exactly as ovs-ofctl does (lib/match.c match_format): fixed field
 * order, protocol keywords folded from eth_type/nw_proto, per-field number styles.
 */
import type { Match, MatchField } from '../model/flow.ts';
import type { PortMap } from '../model/ports.ts';
import { formatMac, ones } from '../model/values.ts';
import {
  formatFlags,
  formatIpv4Masked,
  formatIpv6Masked,
  formatPacketType,
  formatPort,
} from '../syntax/field-value.ts';
import { ETH_TYPE, IP_PROTO, PROTOCOL_KEYWORDS } from '../syntax/match.ts';

export interface MatchFormatOptions {
  /** Print port names instead of numbers where the map knows them. */
  readonly portNames?: PortMap;
}

const hex = (v: bigint): string => v.toString(16);
/** C's `%#x`: `0` for zero, else `0x…`. */
const altHex = (v: bigint): string => (v === 0n ? '0' : '0x' + hex(v));

/** `%#x` value and, unless exact, `/%#x` mask (format_uint32_masked, format_be64_masked). */
function altHexMasked(e: MatchField): string {
  return e.mask === ones(e.field.bits) ? altHex(e.value) : `${altHex(e.value)}/${altHex(e.mask)}`;
}

/** Decimal when exact, `0x…/0x…` otherwise (format_be16_masked and friends). */
function decimalOrHexMasked(e: MatchField, full: bigint): string {
  return e.mask === full ? String(e.value) : `0x${hex(e.value)}/0x${hex(e.mask)}`;
}

/** Names of the numbered fields, made once: a match looks each of them up every time it is printed. */
const REGS = Array.from({ length: 32 }, (_, i) => `reg${i}`);
const TUN_METADATA = Array.from({ length: 64 }, (_, i) => `tun_metadata${i}`);

/** `ds_put_hex`: minimal hex with 0x, `0` for zero. */
const putHex = altHex;

function macMasked(e: MatchField): string {
  return e.mask === ones(48) ? formatMac(e.value) : `${formatMac(e.value)}/${formatMac(e.mask)}`;
}

// Formatters of one entry, made once here rather than as arrows in each call: a report may
// print a million matches, each going over every field.
const decimal = (e: MatchField): string => String(e.value);
const hexValue = (e: MatchField): string => hex(e.value);
const altHexValue = (e: MatchField): string => altHex(e.value);
/** `ds_put_hex` value and, unless exact, mask. */
const hexMasked = (e: MatchField): string =>
  e.mask === ones(e.field.bits) ? putHex(e.value) : `${putHex(e.value)}/${putHex(e.mask)}`;
const ipv4Masked = (e: MatchField): string => formatIpv4Masked(e.value, e.mask);
const ipv6Masked = (e: MatchField): string => formatIpv6Masked(e.value, e.mask);
const decimalOrHex16 = (e: MatchField): string => decimalOrHexMasked(e, 0xffffn);
const decimalOrHex32 = (e: MatchField): string => decimalOrHexMasked(e, ones(32));
const l4Value = (e: MatchField): string => decimalOrHexMasked(e, ones(e.field.bits));
const ctStateFlags = (e: MatchField): string => formatFlags(e.field, e.value, e.mask & 0xffn, 0xffn);
const tcpFlags = (e: MatchField): string => formatFlags(e.field, e.value, e.mask & 0xfffn, 0xfffn);
const tunnelFlags = (e: MatchField): string => formatFlags(e.field, e.value, e.mask, 0xfn);
const tosBits = (e: MatchField): string => String(e.value & 0xfcn);
const ecnBits = (e: MatchField): string => String(e.value & 3n);
const fragText = (e: MatchField): string => fragWord(e.value, e.mask);
const flowLabel = (e: MatchField): string =>
  e.mask === ones(20)
    ? `0x${hex(e.value).padStart(5, '0')}`
    : `0x${hex(e.value).padStart(5, '0')}/0x${hex(e.mask).padStart(5, '0')}`;

/** The keyword an eth_type is printed as, and those that fold an IP protocol into it: the reader's first of each. */
const PROTOCOL_WORDS = new Map<bigint, { readonly word: string; readonly byProto: Map<bigint, string> }>();
for (const [word, { ethType, proto }] of PROTOCOL_KEYWORDS) {
  let words = PROTOCOL_WORDS.get(ethType);
  if (!words) PROTOCOL_WORDS.set(ethType, (words = { word, byProto: new Map() }));
  if (proto !== undefined && !words.byProto.has(proto)) words.byProto.set(proto, word);
}

/** A field printed under its own name, and how. */
type Printed = readonly [storage: string, format: (e: MatchField) => string];

// Runs of formatMatch's fixed order (lib/match.c), each printed only when its family is present.
const METADATA_PRINTED: readonly Printed[] = [
  ['pkt_mark', altHexMasked],
  ['recirc_id', altHexMasked],
  ['dp_hash', altHexMasked],
  ['conj_id', decimal],
  ['skb_priority', altHexValue],
];
const CONNTRACK_PRINTED: readonly Printed[] = [
  ['ct_state', ctStateFlags],
  ['ct_zone', decimalOrHex16],
  ['ct_mark', altHexMasked],
  ['ct_label', hexMasked],
  ['ct_nw_src', ipv4Masked],
  ['ct_ipv6_src', ipv6Masked],
  ['ct_nw_dst', ipv4Masked],
  ['ct_ipv6_dst', ipv6Masked],
];
/** Shown only with ct_nw_proto. */
const CONNTRACK_TUPLE_PRINTED: readonly Printed[] = [
  ['ct_nw_proto', decimal],
  ['ct_tp_src', decimalOrHex16],
  ['ct_tp_dst', decimalOrHex16],
];
const IP_HEADER_PRINTED: readonly Printed[] = [
  ['nw_tos', tosBits],
  ['nw_ecn', ecnBits],
  ['nw_ttl', decimal],
];
const MPLS_PRINTED: readonly Printed[] = [
  ['mpls_label', decimal],
  ['mpls_tc', decimal],
  ['mpls_ttl', decimal],
  ['mpls_bos', decimal],
];

/** Families of fields that formatMatch prints together and can skip together. */
const FAMILY = { metadata: 1, conntrack: 2, registers: 4, tunnel: 8, ipHeader: 16, mpls: 32 } as const;
const METADATA_STORAGES = new Set([
  'pkt_mark',
  'recirc_id',
  'dp_hash',
  'conj_id',
  'skb_priority',
  'actset_output',
  'metadata',
]);
const IP_HEADER_STORAGES = new Set(['nw_tos', 'nw_ecn', 'nw_ttl', 'ip_frag']);

function familyOf(storage: string): number {
  if (METADATA_STORAGES.has(storage)) return FAMILY.metadata;
  if (IP_HEADER_STORAGES.has(storage)) return FAMILY.ipHeader;
  if (storage.startsWith('ct_')) return FAMILY.conntrack;
  if (storage.startsWith('reg')) return FAMILY.registers;
  if (storage.startsWith('tun_')) return FAMILY.tunnel;
  if (storage.startsWith('mpls_')) return FAMILY.mpls;
  return 0;
}

/**
 * One match being printed: its entries, and the printed parts so far. An object with methods
 * rather than closures made in each call: a report may print a million matches.
 */
class MatchWriter {
  readonly out: string[] = [];
  private readonly fields: readonly MatchField[];
  private readonly portNames: PortMap | undefined;

  constructor(fields: readonly MatchField[], portNames: PortMap | undefined) {
    this.fields = fields;
    this.portNames = portNames;
  }

  /** A match holds a few entries, one per storage: a scan finds one sooner than a map made per call. */
  get(storage: string): MatchField | undefined {
    const { fields } = this;
    for (let i = fields.length - 1; i >= 0; i--) if (fields[i]!.field.storage === storage) return fields[i];
    return undefined;
  }

  put(name: string, text: string): void {
    this.out.push(name + '=' + text);
  }

  each(storage: string, name: string, fmt: (e: MatchField) => string): void {
    const e = this.get(storage);
    if (e) this.put(name, fmt(e));
  }

  eachOf(list: readonly Printed[]): void {
    for (const [storage, fmt] of list) this.each(storage, storage, fmt);
  }

  port(storage: string): void {
    const e = this.get(storage);
    if (e) this.put(storage, formatPort(e.value, e.port, this.portNames));
  }
}

/** The protocol word that folds `proto` into the Ethernet type's word, if any. */
/** The match exactly as `ovs-ofctl` prints it (lib/match.c match_format order), without priority. */
export function formatMatch(match: Match, options: MatchFormatOptions = {}): string {
  const { fields } = match;
  // Whole families of fields are skipped when the match has none: most matches have few.
  let families = 0;
  for (const e of fields) families |= familyOf(e.field.storage);
  const w = new MatchWriter(fields, options.portNames);
  const { out } = w;
  if (families & FAMILY.metadata) {
    w.eachOf(METADATA_PRINTED);
    w.port('actset_output');
  }
  if (families & FAMILY.conntrack) {
    w.eachOf(CONNTRACK_PRINTED);
    if (w.get('ct_nw_proto')) w.eachOf(CONNTRACK_TUPLE_PRINTED);
  }

  const ethTypeEntry = w.get('eth_type');
  let ethType = ethTypeEntry?.value;
  const pt = w.get('packet_type');
  if (pt) {
    w.put('packet_type', formatPacketType(pt.value));
    if (pt.value >> 16n === 1n) ethType = pt.value & 0xffffn;
  } else if (w.get('recirc_id') && fields.some((e) => e.field.prerequisite !== 'none')) {
    // Datapath-style matches (recirc_id) show the Ethernet packet type that L2+ fields imply.
    out.push('eth');
  }
  const protoEntry = w.get('nw_proto');
  const proto = protoEntry?.value;
  let typeShown = false;
  let protoShown = false;
  if (ethTypeEntry && ethType !== undefined) {
    typeShown = true;
    const words = PROTOCOL_WORDS.get(ethType);
    const folded = words && proto !== undefined ? words.byProto.get(proto) : undefined;
    if (folded !== undefined) {
      protoShown = true;
      out.push(folded);
    } else if (words) out.push(words.word);
    else typeShown = false;
  }

  if (families & FAMILY.registers) for (const reg of REGS) w.each(reg, reg, altHexMasked);
  if (families & FAMILY.tunnel) formatTunnel(w);
  if (families & FAMILY.metadata) w.each('metadata', 'metadata', altHexMasked);
  w.port('in_port');
  const vlan = w.get('vlan_tci');
  if (vlan) out.push(...formatVlan(vlan));
  w.each('eth_src', 'dl_src', macMasked);
  w.each('eth_dst', 'dl_dst', macMasked);
  if (!typeShown && ethTypeEntry) w.put('dl_type', `0x${hex(ethType ?? 0n).padStart(4, '0')}`);

  const arp = ethType === ETH_TYPE.arp || ethType === ETH_TYPE.rarp;
  if (ethType === ETH_TYPE.ipv6) {
    w.each('ipv6_src', 'ipv6_src', ipv6Masked);
    w.each('ipv6_dst', 'ipv6_dst', ipv6Masked);
    w.each('ipv6_label', 'ipv6_label', flowLabel);
  } else if (arp) {
    w.each('nw_src', 'arp_spa', ipv4Masked);
    w.each('nw_dst', 'arp_tpa', ipv4Masked);
  } else if (ethType === ETH_TYPE.nsh) {
    formatNsh(w);
  } else {
    w.each('nw_src', 'nw_src', ipv4Masked);
    w.each('nw_dst', 'nw_dst', ipv4Masked);
  }
  if (!protoShown && protoEntry) w.put(arp ? 'arp_op' : 'nw_proto', String(protoEntry.value & 0xffn));
  if (arp) {
    w.each('arp_sha', 'arp_sha', macMasked);
    w.each('arp_tha', 'arp_tha', macMasked);
  }
  if (families & FAMILY.ipHeader) w.eachOf(IP_HEADER_PRINTED);
  if (families & FAMILY.mpls) w.eachOf(MPLS_PRINTED);
  if (families & FAMILY.ipHeader) w.each('ip_frag', 'nw_frag', fragText);

  if (
    (ethType === ETH_TYPE.ip && proto === IP_PROTO.icmp) ||
    (ethType === ETH_TYPE.ipv6 && proto === IP_PROTO.icmpv6)
  ) {
    w.each('tp_src', 'icmp_type', l4Value);
    w.each('tp_dst', 'icmp_code', l4Value);
    if (ethType === ETH_TYPE.ipv6) {
      w.each('nd_target', 'nd_target', ipv6Masked);
      w.each('arp_sha', 'nd_sll', macMasked);
      w.each('arp_tha', 'nd_tll', macMasked);
      w.each('nd_reserved', 'nd_reserved', decimalOrHex32);
      w.each('tcp_flags', 'nd_options_type', decimal);
    }
  } else {
    w.each('tp_src', 'tp_src', l4Value);
    w.each('tp_dst', 'tp_dst', l4Value);
  }
  if ((ethType === ETH_TYPE.ip || ethType === ETH_TYPE.ipv6) && proto === IP_PROTO.tcp) {
    w.each('tcp_flags', 'tcp_flags', tcpFlags);
  }
  return out.join(',');
}

/** The entries that decide under which name and in which syntax the others print. */
const PROTOCOL_STORAGES = new Set(['eth_type', 'nw_proto']);

/**
 * One entry as formatMatch prints it in `within`: under the name its protocol gives it
 * (`arp_spa`, `icmp_type`, `tp_dst`), or, for a protocol entry, the keyword it makes (`tcp`).
 */
export function formatMatchEntry(entry: MatchField, within: Match, options: MatchFormatOptions = {}): string {
  const context = within.fields.filter(
    (e) => PROTOCOL_STORAGES.has(e.field.storage) && e.field.storage !== entry.field.storage,
  );
  const alone = new Set(formatMatch({ fields: context }).split(','));
  return formatMatch({ fields: [...context, entry] }, options)
    .split(',')
    .filter((part) => !alone.has(part))
    .join(',');
}

/** dl_vlan/dl_vlan_pcp when the tag is required and VID/PCP are each all-or-nothing, else vlan_tci. */
function formatVlan(e: MatchField): string[] {
  const vid = e.mask & 0x0fffn;
  const pcp = e.mask & 0xe000n;
  const cfi = e.mask & 0x1000n;
  if (cfi && e.value & 0x1000n && (vid === 0n || vid === 0x0fffn) && (pcp === 0n || pcp === 0xe000n) && (vid || pcp)) {
    const out: string[] = [];
    if (vid) out.push(`dl_vlan=${e.value & 0x0fffn}`);
    if (pcp) out.push(`dl_vlan_pcp=${(e.value >> 13n) & 7n}`);
    return out;
  }
  const h = (v: bigint): string => `0x${v.toString(16).padStart(4, '0')}`;
  return [e.mask === 0xffffn ? `vlan_tci=${h(e.value)}` : `vlan_tci=${h(e.value)}/${h(e.mask)}`];
}

function fragWord(value: bigint, mask: bigint): string {
  switch (mask & 3n) {
    case 3n:
      return value & 1n ? (value & 2n ? 'later' : 'first') : value & 2n ? '<error>' : 'no';
    case 1n:
      return value & 1n ? 'yes' : 'no';
    default:
      return value & 2n ? 'later' : 'not_later';
  }
}

/** lib/match.c format_flow_tunnel. */
function formatTunnel(w: MatchWriter): void {
  w.each('tun_id', 'tun_id', altHexMasked);
  w.each('tun_src', 'tun_src', ipv4Masked);
  w.each('tun_dst', 'tun_dst', ipv4Masked);
  w.each('tun_ipv6_src', 'tun_ipv6_src', ipv6Masked);
  w.each('tun_ipv6_dst', 'tun_ipv6_dst', ipv6Masked);
  w.each('tun_gbp_id', 'tun_gbp_id', decimalOrHex16);
  w.each('tun_gbp_flags', 'tun_gbp_flags', altHexValue);
  w.each('tun_tos', 'tun_tos', hexValue);
  w.each('tun_ttl', 'tun_ttl', decimal);
  const ver = w.get('tun_erspan_ver');
  w.each('tun_erspan_ver', 'tun_erspan_ver', decimal);
  // The index belongs to ERSPAN version 1, direction and hardware id to version 2.
  if (ver?.value === 1n) w.each('tun_erspan_idx', 'tun_erspan_idx', altHexValue);
  if (ver?.value === 2n) {
    w.each('tun_erspan_dir', 'tun_erspan_dir', decimal);
    w.each('tun_erspan_hwid', 'tun_erspan_hwid', altHexValue);
  }
  w.each('tun_gtpu_flags', 'gtpu_flags', altHexValue);
  w.each('tun_gtpu_msgtype', 'gtpu_msgtype', decimal);
  // Only oam is settable from OpenFlow, but the printer compares against all four tunnel flags.
  w.each('tun_flags', 'tun_flags', tunnelFlags);
  // An option matched for its presence alone prints as its bare name (tun_metadata_match_format).
  for (const name of TUN_METADATA) {
    const e = w.get(name);
    if (e?.mask === 0n) w.out.push(name);
    else if (e) w.put(name, hexMasked(e));
  }
}

/** lib/match.c format_nsh_masked. */
function formatNsh(w: MatchWriter): void {
  const u8 = (storage: string, name: string): void => {
    const e = w.get(storage);
    if (!e) return;
    w.put(
      name,
      e.mask === 0xffn
        ? String(e.value)
        : `0x${e.value.toString(16).padStart(2, '0')}/0x${e.mask.toString(16).padStart(2, '0')}`,
    );
  };
  const hex32 = (storage: string, name: string): void => {
    const e = w.get(storage);
    if (!e) return;
    w.put(name, e.mask === ones(e.field.bits) ? `0x${hex(e.value)}` : `0x${hex(e.value)}/0x${hex(e.mask)}`);
  };
  u8('nsh_flags', 'nsh_flags');
  u8('nsh_ttl', 'nsh_ttl');
  u8('nsh_mdtype', 'nsh_mdtype');
  u8('nsh_np', 'nsh_np');
  hex32('nsh_spi', 'nsh_spi');
  u8('nsh_si', 'nsh_si');
  const md = w.get('nsh_mdtype');
  // Context headers exist only in MD type 1.
  if (md && md.value === 1n) for (const i of [1, 2, 3, 4]) hex32(`nsh_c${i}`, `nsh_c${i}`);
}
