/**
 * Builds the normalised match of a flow from its key/value tokens, the way ovs-ofctl does
 * (lib/ofp-flow.c parse_ofp_str__, lib/meta-flow.c mf_set, lib/ofp-match.c
 * ofputil_normalize_match): aliases resolve to one field, protocol keywords become eth_type and
 * nw_proto, fields sharing bits (dl_vlan and vlan_tci, ip_dscp and nw_tos, xreg and reg) are
 * merged into one entry, and fields whose protocol the match does not pin are dropped.
 * See model/match.ts for what the resulting entries look like.
 */
import { FIELDS, fieldByName } from '../model/fields.ts';
import type { FieldDef } from '../model/fields.ts';
import type { Match, MatchField } from '../model/flow.ts';
import type { PortMap, PortRef } from '../model/ports.ts';
import type { ProblemSink } from '../model/problems.ts';
import { ones } from '../model/values.ts';
import { parseFieldValue } from './field-value.ts';
import { parseSubfield } from './subfield.ts';
import type { KeyValueToken } from './tokens.ts';

export interface MatchContext {
  readonly sink: ProblemSink;
  readonly portMap?: PortMap;
}

/** Ethertypes and IP protocols the printer folds into keywords. */
export const ETH_TYPE = {
  ip: 0x0800n,
  arp: 0x0806n,
  rarp: 0x8035n,
  ipv6: 0x86ddn,
  mpls: 0x8847n,
  mplsm: 0x8848n,
  nsh: 0x894fn,
} as const;
export const IP_PROTO = { icmp: 1n, tcp: 6n, udp: 17n, sctp: 132n, icmpv6: 58n } as const;

export interface ProtocolKeyword {
  readonly ethType: bigint;
  readonly proto?: bigint;
}

/** The IP protocols with keywords of their own: the IPv4 keyword and protocol, then the IPv6 ones. */
const L4_KEYWORDS = [
  ['icmp', IP_PROTO.icmp, 'icmp6', IP_PROTO.icmpv6],
  ['tcp', IP_PROTO.tcp, 'tcp6', IP_PROTO.tcp],
  ['udp', IP_PROTO.udp, 'udp6', IP_PROTO.udp],
  ['sctp', IP_PROTO.sctp, 'sctp6', IP_PROTO.sctp],
] as const;

/**
 * Protocol keywords: the eth_type they set and, for L4 keywords, the nw_proto. The first keyword
 * of an eth_type (and protocol) is the one `ovs-ofctl` prints.
 */
export const PROTOCOL_KEYWORDS: ReadonlyMap<string, ProtocolKeyword> = new Map<string, ProtocolKeyword>([
  ...['ip', 'ipv4', 'ip4'].map((w): [string, ProtocolKeyword] => [w, { ethType: ETH_TYPE.ip }]),
  ...L4_KEYWORDS.map(([w, proto]): [string, ProtocolKeyword] => [w, { ethType: ETH_TYPE.ip, proto }]),
  ...['ipv6', 'ip6'].map((w): [string, ProtocolKeyword] => [w, { ethType: ETH_TYPE.ipv6 }]),
  ...L4_KEYWORDS.map(([, , w, proto]): [string, ProtocolKeyword] => [w, { ethType: ETH_TYPE.ipv6, proto }]),
  ...(['arp', 'rarp', 'mpls', 'mplsm'] as const).map((w): [string, ProtocolKeyword] => [w, { ethType: ETH_TYPE[w] }]),
]);

const F = (name: string): FieldDef => {
  const f = fieldByName(name);
  if (!f) throw new Error(`field registry lacks ${name}`);
  return f;
};

/** Bits of one storage being built; `field` is the field that names the whole storage. */
interface Slot {
  readonly field: FieldDef;
  value: bigint;
  mask: bigint;
  port?: PortRef;
  /** Where the last token that wrote it is, for warnings. */
  offset: number;
  length: number;
  /** The name the user wrote, for warnings. */
  written: string;
}

/** A write of `value/mask` into `bits` (a mask over the storage) of a storage. */
interface Write {
  readonly storage: FieldDef;
  readonly bits: bigint;
  readonly value: bigint;
  readonly mask: bigint;
  readonly port?: PortRef;
}

const VLAN_VID = 0x0fffn;
const VLAN_CFI = 0x1000n;
const VLAN_PCP = 0xe000n;
const IP_DSCP = 0xfcn;
/** OpenFlow 1.0's "no VLAN tag" value of dl_vlan. */
const OFP10_VLAN_NONE = 0xffffn;

const ETH_TYPE_FIELD = F('eth_type');
const NW_PROTO_FIELD = F('nw_proto');

/** xregN and xxregN: the 32-bit registers they are made of, and where each sits in the wide value. */
const WIDE_REGISTERS: ReadonlyMap<FieldDef, readonly { readonly reg: FieldDef; readonly shift: bigint }[]> = new Map(
  FIELDS.flatMap((f) => {
    const m = /^(x{1,2})reg(\d+)$/.exec(f.name);
    if (!m) return [];
    // xregN is reg2N (high half) and reg2N+1; xxregN is reg4N (most significant) .. reg4N+3.
    const parts = m[1] === 'x' ? 2 : 4;
    const first = Number(m[2]) * parts;
    const regs = Array.from({ length: parts }, (_, i) => ({
      reg: fieldByName(`reg${first + i}`),
      shift: BigInt(32 * (parts - 1 - i)),
    }));
    return [[f, regs.flatMap(({ reg, shift }) => (reg ? [{ reg, shift }] : []))] as const];
  }),
);

/** A write of a whole storage; `field` is the field the value was written for. */
function whole(field: FieldDef, storage: FieldDef, value: bigint, mask: bigint, port: PortRef | undefined): Write {
  // An exact match of a narrower field (icmp_type in tp_src) is an exact match of the storage.
  const sm = storage !== field && mask === ones(field.bits) ? ones(storage.bits) : mask;
  const bits = ones(storage.bits);
  return port ? { storage, bits, value: value & sm, mask: sm, port } : { storage, bits, value: value & sm, mask: sm };
}

/** How a parsed field value lands in storage (lib/meta-flow.c mf_set_value / mf_set). */
function writesFor(field: FieldDef, value: bigint, mask: bigint, port: PortRef | undefined): Write[] {
  const exact = mask !== 0n;
  switch (field.name) {
    case 'in_port_oxm': {
      // OF1.1+ numbers of reserved ports map back onto the 16-bit ones.
      const v = value >= 0xffffff00n ? value - 0xffff0000n : value;
      return [whole(field, F('in_port'), v, mask === 0n ? 0n : 0xffffn, port)];
    }
    case 'dl_vlan': {
      const tci = F('vlan_tci');
      if (!exact) return [{ storage: tci, bits: VLAN_VID | VLAN_CFI, value: 0n, mask: 0n }];
      if (value === OFP10_VLAN_NONE) return [whole(field, tci, 0n, 0xffffn, port)];
      return [
        { storage: tci, bits: VLAN_VID | VLAN_CFI, value: VLAN_CFI | (value & VLAN_VID), mask: VLAN_VID | VLAN_CFI },
      ];
    }
    case 'vlan_vid': {
      const m = mask & (VLAN_VID | VLAN_CFI);
      return [{ storage: F('vlan_tci'), bits: VLAN_VID | VLAN_CFI, value: value & m, mask: m }];
    }
    case 'dl_vlan_pcp':
    case 'vlan_pcp': {
      const bits = VLAN_PCP | VLAN_CFI;
      if (!exact) return [{ storage: F('vlan_tci'), bits, value: 0n, mask: 0n }];
      return [{ storage: F('vlan_tci'), bits, value: VLAN_CFI | ((value & 7n) << 13n), mask: bits }];
    }
    case 'nw_tos':
      return [{ storage: field, bits: IP_DSCP, value: value & IP_DSCP & mask, mask: exact ? IP_DSCP : 0n }];
    case 'ip_dscp':
      return [
        {
          storage: F('nw_tos'),
          bits: IP_DSCP,
          value: ((value & 0x3fn) << 2n) & (exact ? IP_DSCP : 0n),
          mask: exact ? IP_DSCP : 0n,
        },
      ];
    case 'ct_state':
      return [whole(field, field, value, mask & 0xffn, port)];
    default:
      break;
  }
  const regs = WIDE_REGISTERS.get(field);
  if (regs) {
    return regs.map(({ reg, shift }) =>
      whole(field, reg, (value >> shift) & 0xffffffffn, (mask >> shift) & 0xffffffffn, port),
    );
  }
  const storage = field.storage === field.name ? field : (fieldByName(field.storage) ?? field);
  return [whole(field, storage, value, mask, port)];
}

/** Where a write came from, for warnings. */
interface Written {
  readonly offset: number;
  readonly length: number;
  readonly written: string;
}

function apply(slots: Map<string, Slot>, w: Write, at: Written): void {
  const key = w.storage.storage;
  const old = slots.get(key);
  const full = ones(w.storage.bits);
  const keep = w.bits === full ? 0n : full ^ w.bits;
  const value = ((old?.value ?? 0n) & keep) | (w.value & w.bits);
  const mask = ((old?.mask ?? 0n) & keep) | (w.mask & w.bits);
  // No bits matched: no constraint, but for an option whose presence alone is asked.
  if (mask === 0n && !w.storage.presence) {
    slots.delete(key);
    return;
  }
  const slot: Slot = {
    field: w.storage,
    value: value & mask,
    mask,
    offset: at.offset,
    length: at.length,
    written: at.written,
  };
  const port = w.port ?? (w.bits === full ? undefined : old?.port);
  if (port) slot.port = port;
  slots.set(key, slot);
}

/** The protocol facts that decide which fields a match may use (ofputil_normalize_match). */
interface Protocol {
  readonly ethernet: boolean;
  readonly ethType: bigint | undefined;
  readonly proto: bigint | undefined;
  /** ICMPv6 type, when matched exactly (Neighbor Discovery fields depend on it). */
  readonly icmpv6Type: bigint | undefined;
}

function exactValue(slots: Map<string, Slot>, storage: string): bigint | undefined {
  const s = slots.get(storage);
  return s && s.mask === ones(s.field.bits) ? s.value : undefined;
}

function protocolOf(slots: Map<string, Slot>): Protocol {
  const pt = slots.get('packet_type');
  const ethernet = !pt || pt.value === 0n;
  // A packet_type of (1, ethertype) names the ethertype of a non-Ethernet packet.
  const ethType = ethernet ? exactValue(slots, 'eth_type') : pt.value >> 16n === 1n ? pt.value & 0xffffn : undefined;
  const isIp = ethType === ETH_TYPE.ip || ethType === ETH_TYPE.ipv6;
  const proto =
    isIp || ethType === ETH_TYPE.arp || ethType === ETH_TYPE.rarp ? exactValue(slots, 'nw_proto') : undefined;
  const icmpv6Type = ethType === ETH_TYPE.ipv6 && proto === IP_PROTO.icmpv6 ? exactValue(slots, 'tp_src') : undefined;
  return { ethernet, ethType, proto, icmpv6Type };
}

const ND_SOLICIT = 135n;
const ND_ADVERT = 136n;

/** Whether the protocol lets a storage be matched; OVS silently drops the field otherwise. */
function allowed(storage: string, p: Protocol, slots: Map<string, Slot>): boolean {
  const ip4 = p.ethType === ETH_TYPE.ip;
  const ip6 = p.ethType === ETH_TYPE.ipv6;
  const arp = p.ethType === ETH_TYPE.arp || p.ethType === ETH_TYPE.rarp;
  const nd = ip6 && p.proto === IP_PROTO.icmpv6 && (p.icmpv6Type === ND_SOLICIT || p.icmpv6Type === ND_ADVERT);
  switch (storage) {
    case 'eth_src':
    case 'eth_dst':
    case 'eth_type':
    case 'vlan_tci':
      return p.ethernet;
    case 'nw_src':
    case 'nw_dst':
      return ip4 || arp;
    case 'nw_proto':
      return ip4 || ip6 || arp;
    case 'nw_tos':
    case 'nw_ecn':
    case 'nw_ttl':
    case 'ip_frag':
      return ip4 || ip6;
    case 'ipv6_src':
    case 'ipv6_dst':
    case 'ipv6_label':
      return ip6;
    case 'tp_src':
    case 'tp_dst':
      return (
        (ip4 &&
          (p.proto === IP_PROTO.tcp ||
            p.proto === IP_PROTO.udp ||
            p.proto === IP_PROTO.sctp ||
            p.proto === IP_PROTO.icmp)) ||
        (ip6 &&
          (p.proto === IP_PROTO.tcp ||
            p.proto === IP_PROTO.udp ||
            p.proto === IP_PROTO.sctp ||
            p.proto === IP_PROTO.icmpv6))
      );
    case 'tcp_flags':
      return ((ip4 || ip6) && p.proto === IP_PROTO.tcp) || nd;
    case 'arp_sha':
      return arp || (nd && p.icmpv6Type === ND_SOLICIT);
    case 'arp_tha':
      return arp || (nd && p.icmpv6Type === ND_ADVERT);
    case 'nd_target':
    case 'nd_reserved':
      return nd;
    case 'mpls_label':
    case 'mpls_tc':
    case 'mpls_bos':
    case 'mpls_ttl':
      return p.ethType === ETH_TYPE.mpls || p.ethType === ETH_TYPE.mplsm;
    case 'ct_nw_proto':
    case 'ct_nw_src':
    case 'ct_nw_dst':
    case 'ct_ipv6_src':
    case 'ct_ipv6_dst':
    case 'ct_tp_src':
    case 'ct_tp_dst':
      return ctValid(slots.get('ct_state'));
    default:
      return !storage.startsWith('nsh_') || p.ethType === ETH_TYPE.nsh;
  }
}

const CS_TRACKED = 0x20n;
const CS_INVALID = 0x10n;
/** new, est, rel, rpl, snat, dnat: states that imply a conntrack entry. */
const CS_ENTRY = 0x01n | 0x02n | 0x04n | 0x08n | 0x40n | 0x80n;

/** ct_nw_* and ct_tp_* need a ct_state that guarantees a conntrack entry (lib/flow.h is_ct_valid). */
function ctValid(ct: Slot | undefined): boolean {
  if (!ct) return false;
  return (
    (ct.value & CS_ENTRY) !== 0n ||
    ((ct.value & CS_TRACKED) !== 0n && (ct.mask & CS_INVALID) !== 0n && (ct.value & CS_INVALID) === 0n)
  );
}

/** The field OVS names a shared storage by, given the protocol (what it prints). */
function canonicalField(slot: Slot, p: Protocol): FieldDef {
  const arp = p.ethType === ETH_TYPE.arp || p.ethType === ETH_TYPE.rarp;
  const ip6 = p.ethType === ETH_TYPE.ipv6;
  const l4 = (tcp: string, udp: string, sctp: string, icmp: string, icmp6: string): FieldDef => {
    if (p.proto === IP_PROTO.tcp) return F(tcp);
    if (p.proto === IP_PROTO.udp) return F(udp);
    if (p.proto === IP_PROTO.sctp) return F(sctp);
    return F(ip6 ? icmp6 : icmp);
  };
  switch (slot.field.storage) {
    case 'nw_src':
      return arp ? F('arp_spa') : F('ip_src');
    case 'nw_dst':
      return arp ? F('arp_tpa') : F('ip_dst');
    case 'nw_proto':
      return arp ? F('arp_op') : F('nw_proto');
    case 'tp_src':
      return l4('tcp_src', 'udp_src', 'sctp_src', 'icmp_type', 'icmpv6_type');
    case 'tp_dst':
      return l4('tcp_dst', 'udp_dst', 'sctp_dst', 'icmp_code', 'icmpv6_code');
    case 'arp_sha':
      return ip6 ? F('nd_sll') : F('arp_sha');
    case 'arp_tha':
      return ip6 ? F('nd_tll') : F('arp_tha');
    case 'tcp_flags':
      return ip6 && p.proto === IP_PROTO.icmpv6 ? F('nd_options_type') : F('tcp_flags');
    default:
      return slot.field;
  }
}

/** Re-expresses a storage entry in the width of the field that names it. */
function entry(slot: Slot, field: FieldDef): MatchField {
  let { value, mask } = slot;
  if (field.bits !== slot.field.bits) {
    const storageFull = ones(slot.field.bits);
    const full = ones(field.bits);
    // Unmaskable fields (icmp_type, arp_op) are all-or-nothing; widen or narrow the exact mask.
    mask = mask === storageFull ? full : mask & full;
    value &= mask;
  }
  return slot.port ? { field, value, mask, port: slot.port } : { field, value, mask };
}

const REGISTRY_ORDER = new Map(FIELDS.map((f, i) => [f, i]));

/**
 * Builds the normalised match from the key/value tokens that are match fields or protocol
 * keywords (the caller has already removed flow-level keys such as priority, table, cookie,
 * stats, timeouts, flags). Unknown keyword → error problem at the token (OVS text: `unknown
 * keyword X`); prerequisite not met → the field is dropped with a warning (that is what ovs-ofctl
 * does); field repeated → warning `field X set multiple times`, the last value wins (ovs-ofctl
 * accepts it the same way). Never throws.
 */
export function buildMatch(tokens: readonly KeyValueToken[], ctx: MatchContext): Match {
  const slots = new Map<string, Slot>();
  const seen = new Set<FieldDef>();
  for (const t of tokens) {
    const at: Written = { offset: t.keyOffset, length: t.end - t.keyOffset, written: t.key };
    const keyword = t.value === undefined ? PROTOCOL_KEYWORDS.get(t.key) : undefined;
    if (keyword) {
      apply(slots, { storage: ETH_TYPE_FIELD, bits: 0xffffn, value: keyword.ethType, mask: 0xffffn }, at);
      if (keyword.proto !== undefined)
        apply(slots, { storage: NW_PROTO_FIELD, bits: 0xffn, value: keyword.proto, mask: 0xffn }, at);
      slots.delete('packet_type');
      continue;
    }
    if (t.value === undefined && t.key === 'eth') {
      slots.delete('packet_type');
      continue;
    }
    const field = fieldByName(t.key);
    if (!field) {
      if (t.key.includes('[')) {
        subfieldMatch(t, slots, ctx, at);
        continue;
      }
      if (t.value === undefined || t.value === '')
        ctx.sink.error(`field ${t.key} missing value`, t.keyOffset, t.key.length);
      else ctx.sink.error(`unknown keyword ${t.key}`, t.keyOffset, t.key.length);
      continue;
    }
    if (field.datapathOnly) {
      ctx.sink.error(`${t.key}: field cannot be matched in OpenFlow flows`, t.keyOffset, t.key.length);
      continue;
    }
    // A key without a value only asks for the field to exist: it matches anything.
    const text = t.value === undefined || t.value === '' ? '*' : t.value;
    const r = parseFieldValue(field, text, ctx.portMap);
    if (!r.ok) {
      ctx.sink.error(
        r.error,
        t.value === undefined ? t.keyOffset : t.valueOffset,
        t.value === undefined ? t.key.length : t.value.length,
      );
      continue;
    }
    if (seen.has(field)) ctx.sink.warning(`field ${t.key} set multiple times`, t.keyOffset, t.key.length);
    seen.add(field);
    for (const w of writesFor(field, r.value, r.mask, r.port)) apply(slots, w, at);
  }
  // packet_type=(0,0) is the default (Ethernet) and is not a constraint.
  if (slots.get('packet_type')?.value === 0n) slots.delete('packet_type');

  const p = protocolOf(slots);
  // Entries in registry order, by insertion (stable): a match holds only a few.
  const fields: MatchField[] = [];
  const order: number[] = [];
  slots.forEach((slot, storage) => {
    if (!allowed(storage, p, slots)) {
      ctx.sink.warning(
        `prerequisites not met for setting ${slot.written}; the field is ignored`,
        slot.offset,
        slot.written.length,
      );
      return;
    }
    const e = entry(slot, canonicalField(slot, p));
    const rank = REGISTRY_ORDER.get(e.field) ?? 0;
    let i = fields.length;
    for (; i > 0 && order[i - 1]! > rank; i--) {
      fields[i] = fields[i - 1]!;
      order[i] = order[i - 1]!;
    }
    fields[i] = e;
    order[i] = rank;
  });
  return { fields };
}

/** `reg0[0..3]=5`: sets some bits of a field, keeping the others (lib/ofp-flow.c parse_subfield). */
function subfieldMatch(t: KeyValueToken, slots: Map<string, Slot>, ctx: MatchContext, at: Written): void {
  const sf = parseSubfield(t.key);
  if (!sf.ok) {
    ctx.sink.error(sf.error, t.keyOffset, t.key.length);
    return;
  }
  const { field, start, bits } = sf.subfield;
  const raw = t.value ?? '';
  const n = /^0[xX][0-9a-fA-F]+$/.test(raw) ? BigInt(raw.toLowerCase()) : /^\d+$/.test(raw) ? BigInt(raw) : undefined;
  if (n === undefined || n > ones(field.bytes * 8)) {
    ctx.sink.error(`${t.key}: cannot parse integer value: ${raw}`, t.valueOffset, Math.max(1, raw.length));
    return;
  }
  if (n > ones(bits)) {
    ctx.sink.error(`${t.key}: value ${raw} does not fit into ${bits} bits`, t.valueOffset, raw.length);
    return;
  }
  const range = ones(bits) << BigInt(start);
  // Only the subfield's bits change; the rest of the field keeps what earlier keys set.
  for (const w of writesFor(field, n << BigInt(start), range, undefined)) apply(slots, { ...w, bits: w.mask }, at);
}

/**
 * Whether a built match pins the protocol a field needs (OVS prerequisites), so that the flow may
 * match or write it. Actions are checked against the match this way (OFPBAC_MATCH_INCONSISTENT).
 */
export function matchAllows(match: Match, field: FieldDef): boolean {
  const slots = new Map<string, Slot>();
  for (const f of match.fields)
    slots.set(f.field.storage, {
      field: f.field,
      value: f.value,
      mask: f.mask,
      offset: 0,
      length: 0,
      written: f.field.name,
    });
  return allowed(field.storage, protocolOf(slots), slots);
}
