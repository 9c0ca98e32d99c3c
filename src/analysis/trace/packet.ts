/**
 * The state of a packet being traced: every field's storage held as bigint, the way OVS keeps
 * a `struct flow`. Fields that share bits (`tcp_dst` and `udp_dst`, `arp_spa` and `nw_src`,
 * `xreg0` and `reg0`/`reg1`, `ip_dscp` inside `nw_tos`) are views onto one storage slot, so a
 * write through one name is seen through every other.
 */
import { CT_STATE } from '../../model/ct-state.ts';
import type { Subfield } from '../../model/actions.ts';
import { FIELDS, type FieldDef, fieldByName, matchFieldNames } from '../../model/fields.ts';
import { closestName } from '../../model/spelling.ts';
import type { PortNumbers } from '../../model/ports.ts';
import { ones } from '../../model/values.ts';
import { fullMask, parseFieldValue } from '../../syntax/field-value.ts';
import { scanKeyValues } from '../../syntax/tokens.ts';
import { ownEntry } from '../../model/own-key.ts';
import { ProblemError } from '../../model/problems.ts';

/** A piece of a field: `bits` bits of the field starting at `fieldShift` live in `slot` at `slotShift`. */
export interface SlotPart {
  readonly slot: string;
  readonly slotShift: number;
  readonly fieldShift: number;
  readonly bits: number;
}

function part(slot: string, bits: number, slotShift = 0, fieldShift = 0): SlotPart {
  return { slot, slotShift, fieldShift, bits };
}

function regParts(first: number, count: number): SlotPart[] {
  // The lowest-numbered register holds the most significant bits.
  return Array.from({ length: count }, (_, i) => part(`reg${first + i}`, 32, 0, (count - 1 - i) * 32));
}

function computeParts(f: FieldDef): readonly SlotPart[] {
  const xreg = /^xreg(\d+)$/.exec(f.name);
  if (xreg) return regParts(2 * Number(xreg[1]), 2);
  const xxreg = /^xxreg(\d+)$/.exec(f.name);
  if (xxreg) return regParts(4 * Number(xxreg[1]), 4);
  switch (f.name) {
    // The VID views carry the 0x1000 "tag present" bit, as OVS's vlan_vid does.
    case 'vlan_vid':
      return [part('vlan_tci', 13)];
    case 'dl_vlan':
      return [part('vlan_tci', 12)];
    case 'vlan_pcp':
    case 'dl_vlan_pcp':
      return [part('vlan_tci', 3, 13)];
    case 'ip_dscp':
      return [part('nw_tos', 6, 2)];
    // nw_tos is the DSCP bits in place; the low two bits of the byte are nw_ecn.
    case 'nw_tos':
      return [part('nw_tos', 6, 2, 2)];
    case 'nw_ecn':
      return [part('nw_tos', 2)];
    default:
      return [part(f.storage, f.bits)];
  }
}

const partsCache = new Map<FieldDef, readonly SlotPart[]>();

/** Where a field's bits live. */
export function fieldParts(f: FieldDef): readonly SlotPart[] {
  let p = partsCache.get(f);
  if (!p) partsCache.set(f, (p = computeParts(f)));
  return p;
}

/** Reserved OF1.1+ port numbers (0xffffff00 and up) as the 16-bit numbers OVS stores in in_port. */
export function port16(n: bigint): bigint {
  return n >= 0xffffff00n ? n - 0xffff0000n : n;
}

/** A 16-bit port number as a 32-bit OF1.1+ one (reserved ports move up). */
export function port32(n: bigint): bigint {
  return n >= 0xff00n ? n + 0xffff0000n : n;
}

/**
 * The TCI of a second (inner) VLAN tag, which only push_vlan on a tagged packet makes. No field
 * matches it; ofproto/trace prints it as `vlan_tci1`.
 */
export const INNER_VLAN = 'vlan_tci1';

/**
 * The tunnel metadata options a packet carries, a bit per option (OVS's present map): an option
 * of value 0 is there all the same. Written with the option; no field names it.
 */
export const TUN_METADATA_PRESENT = 'tun_metadata_present';
const PRESENCE_BITS = new Map<FieldDef, bigint>(
  FIELDS.filter((f) => f.presence).map((f) => [f, 1n << BigInt(/\d+$/.exec(f.name)?.[0] ?? 0)]),
);

/** The bit of TUN_METADATA_PRESENT that says the packet carries `f`, for fields matched by presence. */
export function presenceBit(f: FieldDef): bigint | undefined {
  return f.presence ? PRESENCE_BITS.get(f) : undefined;
}

/** Fields the conntrack module fills and `ct` without `table=`/`ct_clear` empties. */
const CT_SLOTS = [
  'ct_state',
  'ct_zone',
  'ct_mark',
  'ct_label',
  'ct_nw_proto',
  'ct_nw_src',
  'ct_nw_dst',
  'ct_ipv6_src',
  'ct_ipv6_dst',
  'ct_tp_src',
  'ct_tp_dst',
];

/** Every field's storage; absent slots read as zero. */
export class Packet {
  private readonly slots: Map<string, bigint>;

  constructor(slots?: ReadonlyMap<string, bigint>) {
    this.slots = new Map(slots);
  }

  clone(): Packet {
    return new Packet(this.slots);
  }

  slot(name: string): bigint {
    return this.slots.get(name) ?? 0n;
  }

  setSlot(name: string, value: bigint): void {
    if (value === 0n) this.slots.delete(name);
    else this.slots.set(name, value);
  }

  get(f: FieldDef): bigint {
    if (f.name === 'in_port_oxm') return port32(this.slot('in_port'));
    let v = 0n;
    for (const p of fieldParts(f))
      v |= ((this.slot(p.slot) >> BigInt(p.slotShift)) & ones(p.bits)) << BigInt(p.fieldShift);
    return v;
  }

  /** Writes the bits of `value` selected by `mask` (both aligned to the whole field). */
  set(f: FieldDef, value: bigint, mask: bigint = ones(f.bits)): void {
    if (f.name === 'in_port_oxm') {
      this.setSlot('in_port', port16((this.get(f) & ~mask) | (value & mask)) & 0xffffn);
      return;
    }
    for (const p of fieldParts(f)) {
      const m = ((mask >> BigInt(p.fieldShift)) & ones(p.bits)) << BigInt(p.slotShift);
      if (m === 0n) continue;
      const v = ((value >> BigInt(p.fieldShift)) & ones(p.bits)) << BigInt(p.slotShift);
      this.setSlot(p.slot, (this.slot(p.slot) & ~m) | (v & m));
    }
    const present = presenceBit(f);
    if (present !== undefined) this.setSlot(TUN_METADATA_PRESENT, this.slot(TUN_METADATA_PRESENT) | present);
  }

  /** Whether the packet carries a field matched by presence (a tunnel metadata option). */
  carries(f: FieldDef): boolean {
    const bit = presenceBit(f);
    return bit !== undefined && (this.slot(TUN_METADATA_PRESENT) & bit) !== 0n;
  }

  getSubfield(sf: Subfield): bigint {
    return (this.get(sf.field) >> BigInt(sf.start)) & ones(sf.bits);
  }

  setSubfield(sf: Subfield, value: bigint): void {
    this.set(sf.field, (value & ones(sf.bits)) << BigInt(sf.start), ones(sf.bits) << BigInt(sf.start));
  }

  /**
   * push_vlan: a new outer tag with VID 0 and PCP 0 before the packet's tag, which becomes the
   * inner one. OVS keeps two tags (FLOW_MAX_VLAN_HEADERS); a third push loses the innermost.
   */
  pushVlan(): void {
    this.setSlot(INNER_VLAN, this.slot('vlan_tci'));
    this.setSlot('vlan_tci', 0x1000n);
  }

  /** pop_vlan/strip_vlan: the inner tag, if any, becomes the outer one. */
  popVlan(): void {
    this.setSlot('vlan_tci', this.slot(INNER_VLAN));
    this.setSlot(INNER_VLAN, 0n);
  }

  clearConntrack(): void {
    for (const s of CT_SLOTS) this.slots.delete(s);
  }

  equals(other: Packet): boolean {
    if (this.slots.size !== other.slots.size) return false;
    for (const [k, v] of this.slots) if (other.slots.get(k) !== v) return false;
    return true;
  }

  /** Non-zero slots in registry order. */
  entries(): [string, bigint][] {
    return [...this.slots.entries()].sort((a, b) => slotOrder(a[0]) - slotOrder(b[0]));
  }
}

const SLOT_ORDER = new Map<string, number>();
for (const f of FIELDS) if (!SLOT_ORDER.has(f.storage)) SLOT_ORDER.set(f.storage, SLOT_ORDER.size);
function slotOrder(slot: string): number {
  return SLOT_ORDER.get(slot) ?? SLOT_ORDER.size;
}

/** Per storage, the widest field kept in it: reading that field reads the whole storage. */
const WIDEST = new Map<string, FieldDef>();
for (const f of FIELDS) if ((WIDEST.get(f.storage)?.bits ?? -1) < f.bits) WIDEST.set(f.storage, f);

/** The packet's bits per storage, as `matchesPacket` reads them (fields it does not set read as 0). */
export function storageReader(packet: Packet): (storage: string) => bigint {
  return (storage) => {
    const f = WIDEST.get(storage);
    return f ? packet.get(f) : 0n;
  };
}

/** The field that names a storage slot (`tp_dst` → tcp_dst's storage), for printing. */
export function slotField(slot: string): FieldDef | undefined {
  return FIELDS.find((f) => f.name === slot) ?? FIELDS.find((f) => f.storage === slot);
}

export const ETH_TYPE = {
  ipv4: 0x0800n,
  ipv6: 0x86ddn,
  arp: 0x0806n,
  rarp: 0x8035n,
  mpls: 0x8847n,
  mplsm: 0x8848n,
} as const;

/** Protocol keywords of the flow syntax: Ethernet type and IP protocol they stand for. */
const PROTOCOLS: Readonly<Record<string, { readonly ethType?: bigint; readonly proto?: bigint }>> = {
  eth: {},
  ip: { ethType: ETH_TYPE.ipv4 },
  ipv4: { ethType: ETH_TYPE.ipv4 },
  ipv6: { ethType: ETH_TYPE.ipv6 },
  arp: { ethType: ETH_TYPE.arp },
  rarp: { ethType: ETH_TYPE.rarp },
  mpls: { ethType: ETH_TYPE.mpls },
  mplsm: { ethType: ETH_TYPE.mplsm },
  icmp: { ethType: ETH_TYPE.ipv4, proto: 1n },
  igmp: { ethType: ETH_TYPE.ipv4, proto: 2n },
  tcp: { ethType: ETH_TYPE.ipv4, proto: 6n },
  udp: { ethType: ETH_TYPE.ipv4, proto: 17n },
  sctp: { ethType: ETH_TYPE.ipv4, proto: 132n },
  icmp6: { ethType: ETH_TYPE.ipv6, proto: 58n },
  tcp6: { ethType: ETH_TYPE.ipv6, proto: 6n },
  udp6: { ethType: ETH_TYPE.ipv6, proto: 17n },
  sctp6: { ethType: ETH_TYPE.ipv6, proto: 132n },
};

const f = (name: string): FieldDef => {
  const d = fieldByName(name);
  if (!d) throw new Error(`field registry lacks ${name}`);
  return d;
};

export const FIELD = {
  inPort: f('in_port'),
  ethType: f('eth_type'),
  nwProto: f('nw_proto'),
  nwTtl: f('nw_ttl'),
  ipSrc: f('ip_src'),
  ipDst: f('ip_dst'),
  ipv6Src: f('ipv6_src'),
  ipv6Dst: f('ipv6_dst'),
  tpSrc: f('tcp_src'),
  tpDst: f('tcp_dst'),
  ctState: f('ct_state'),
  ctZone: f('ct_zone'),
  ctMark: f('ct_mark'),
  ctLabel: f('ct_label'),
  recircId: f('recirc_id'),
  conjId: f('conj_id'),
  vlanTci: f('vlan_tci'),
  mplsTtl: f('mpls_ttl'),
  actsetOutput: f('actset_output'),
  metadata: f('metadata'),
} as const;

/**
 * Storage from the IP header on (struct flow from nw_src to its end): what a first MPLS label
 * hides, so OVS clears it (lib/flow.c flow_push_mpls), with dp_hash.
 */
const BELOW_MPLS = [
  'nw_src',
  'nw_dst',
  'ct_nw_src',
  'ct_nw_dst',
  'ipv6_src',
  'ipv6_dst',
  'ct_ipv6_src',
  'ct_ipv6_dst',
  'ipv6_label',
  'ip_frag',
  'nw_tos',
  'nw_ttl',
  'nw_proto',
  'nd_target',
  'arp_sha',
  'arp_tha',
  'tcp_flags',
  'nd_reserved',
  'nsh_flags',
  'nsh_mdtype',
  'nsh_np',
  'nsh_spi',
  'nsh_si',
  'nsh_c1',
  'nsh_c2',
  'nsh_c3',
  'nsh_c4',
  'nsh_ttl',
  'tp_src',
  'tp_dst',
  'ct_tp_src',
  'ct_tp_dst',
  'dp_hash',
];
/**
 * The label stack entries under the top one (label << 12 | tc << 9 | bos << 8 | ttl), as OVS
 * keeps them (FLOW_MAX_MPLS_LABELS is 3) and ofproto/trace prints them. No field matches them.
 */
export const MPLS_LSES_BELOW = ['mpls_lse1', 'mpls_lse2'] as const;
/** OVS's bound on the labels a packet may carry. */
export const MAX_MPLS_LABELS = 3;
const MPLS_BOS = 0x100n;

export function isMpls(p: Packet): boolean {
  const t = p.get(FIELD.ethType);
  return t === ETH_TYPE.mpls || t === ETH_TYPE.mplsm;
}

function topLse(p: Packet): bigint {
  return (p.slot('mpls_label') << 12n) | (p.slot('mpls_tc') << 9n) | (p.slot('mpls_bos') << 8n) | p.slot('mpls_ttl');
}

function setTopLse(p: Packet, lse: bigint): void {
  p.setSlot('mpls_label', lse >> 12n);
  p.setSlot('mpls_tc', (lse >> 9n) & 7n);
  p.setSlot('mpls_bos', (lse >> 8n) & 1n);
  p.setSlot('mpls_ttl', lse & 0xffn);
}

/** flow_count_mpls_labels: down to the bottom of the stack, or the non-zero entries when none is marked. */
export function mplsLabels(p: Packet): number {
  if (!isMpls(p)) return 0;
  const lses = [topLse(p), ...MPLS_LSES_BELOW.map((s) => p.slot(s))];
  let count = 0;
  for (const [i, lse] of lses.entries()) {
    if ((lse & MPLS_BOS) !== 0n) return i + 1;
    if (lse !== 0n) count++;
  }
  return count;
}

/**
 * push_mpls as OVS applies it (the caller checks MAX_MPLS_LABELS): on an MPLS packet the labels
 * move down one and the new top copies the old top, its bottom-of-stack bit cleared; otherwise a
 * first label, explicit null (2 for IPv6), TC from the DSCP's low bits, TTL from the IP TTL (64
 * without one), and the headers below it cleared.
 */
export function pushMpls(p: Packet, ethertype: number): void {
  const n = mplsLabels(p);
  if (n > 0) {
    const top = topLse(p);
    if (n > 1) p.setSlot('mpls_lse2', p.slot('mpls_lse1'));
    p.setSlot('mpls_lse1', top);
    p.setSlot('mpls_bos', 0n);
  } else {
    const ip = isIp(p);
    const ttl = ip && p.slot('nw_ttl') !== 0n ? p.slot('nw_ttl') : 64n;
    const tc = ip ? (p.slot('nw_tos') >> 2n) & 7n : 0n;
    const label = p.get(FIELD.ethType) === ETH_TYPE.ipv6 ? 2n : 0n;
    for (const slot of BELOW_MPLS) p.setSlot(slot, 0n);
    p.setSlot('mpls_label', label);
    p.setSlot('mpls_tc', tc);
    p.setSlot('mpls_bos', 1n);
    p.setSlot('mpls_ttl', ttl);
  }
  p.set(FIELD.ethType, BigInt(ethertype));
}

/**
 * pop_mpls (flow_pop_mpls): the top label goes, those under it move up, and the packet takes
 * `ethertype`; false when there is no label, or a full stack whose last entry is not its bottom.
 */
export function popMpls(p: Packet, ethertype: number): boolean {
  const n = mplsLabels(p);
  if (n === 0) return false;
  if (n === MAX_MPLS_LABELS && (p.slot('mpls_lse2') & MPLS_BOS) === 0n) return false;
  setTopLse(p, p.slot('mpls_lse1'));
  p.setSlot('mpls_lse1', p.slot('mpls_lse2'));
  p.setSlot('mpls_lse2', 0n);
  p.set(FIELD.ethType, BigInt(ethertype));
  return true;
}

export function isIp(p: Packet): boolean {
  const t = p.get(FIELD.ethType);
  return t === ETH_TYPE.ipv4 || t === ETH_TYPE.ipv6;
}

/** nw_frag's bit for a fragment after the first, which carries no transport header. */
const FRAG_LATER = 0x2n;
const ND_SOLICIT = 135n;
const ND_ADVERT = 136n;

/** Whether the packet carries the headers a field belongs to (lib/meta-flow.c mf_are_prereqs_ok). */
export function prerequisiteMet(field: FieldDef, p: Packet): boolean {
  const type = p.get(FIELD.ethType);
  const proto = p.get(FIELD.nwProto);
  const ipv4 = type === ETH_TYPE.ipv4;
  const ipv6 = type === ETH_TYPE.ipv6;
  const l4 = (n: bigint): boolean => (ipv4 || ipv6) && proto === n && (p.slot('ip_frag') & FRAG_LATER) === 0n;
  const nd = (): boolean =>
    ipv6 && proto === 58n && p.slot('tp_dst') === 0n && [ND_SOLICIT, ND_ADVERT].includes(p.slot('tp_src'));
  switch (field.prerequisite) {
    case 'none':
      return true;
    case 'ethernet':
      return p.slot('packet_type') === 0n;
    case 'ct':
      // A tracked connection the switch knows: new, established or reply.
      return (p.get(FIELD.ctState) & (CT_STATE.new | CT_STATE.est | CT_STATE.rpl)) !== 0n;
    case 'vlan':
      return (p.get(FIELD.vlanTci) & 0x1000n) !== 0n;
    case 'arp':
      return type === ETH_TYPE.arp || type === ETH_TYPE.rarp;
    case 'ipv4':
      return ipv4;
    case 'ipv6':
      return ipv6;
    case 'ip-any':
      return ipv4 || ipv6;
    case 'mpls':
      return type === ETH_TYPE.mpls || type === ETH_TYPE.mplsm;
    case 'tcp':
      return l4(6n);
    case 'udp':
      return l4(17n);
    case 'sctp':
      return l4(132n);
    case 'icmpv4':
      return ipv4 && proto === 1n;
    case 'icmpv6':
      return ipv6 && proto === 58n;
    case 'nd':
      return nd();
    case 'nd-solicit':
      return nd() && p.slot('tp_src') === ND_SOLICIT;
    case 'nd-advert':
      return nd() && p.slot('tp_src') === ND_ADVERT;
    case 'nsh':
      return type === 0x894fn;
  }
}

const VLAN_PRESENT = 0x1000n;
/** Fields that give a tag's ID or priority without its present bit. */
const TAG_VIEWS: ReadonlySet<string> = new Set(['dl_vlan', 'dl_vlan_pcp', 'vlan_pcp']);

/** Why a text is no packet in ofproto/trace flow syntax (render/words/packet-spec.ts says it). */
export type PacketSpecProblem =
  /** A key that is neither a field nor a protocol, with the name closest to it if one is close. */
  | { readonly kind: 'unknown-field'; readonly key: string; readonly closest?: string }
  | { readonly kind: 'missing-value'; readonly key: string }
  | { readonly kind: 'repeated-field'; readonly key: string }
  /** A value the field cannot hold, with the reader's diagnostic of it. */
  | { readonly kind: 'bad-value'; readonly key: string; readonly value: string; readonly reason: string }
  /** A port name, as written, that neither the port map nor the flows give a number. */
  | { readonly kind: 'unknown-port'; readonly value: string }
  /** A mask or prefix: a packet has every bit of its fields. */
  | { readonly kind: 'wildcard'; readonly key: string; readonly value: string }
  /** A field set without the protocol it belongs to. */
  | { readonly kind: 'prerequisite'; readonly field: string };

/** Text that is no packet in ofproto/trace flow syntax; `problem` says why, its message only as data. */
export class PacketSpecError extends ProblemError<PacketSpecProblem> {
  override readonly name = 'PacketSpecError';
}

export type PacketSpecResult =
  { readonly ok: true; readonly packet: Packet } | { readonly ok: false; readonly problem: PacketSpecProblem };

/**
 * Parses a packet in `ofproto/trace` flow syntax: `in_port=…,tcp,nw_src=…,tp_dst=…`. Unlike
 * ofproto/trace, fields may come in any order and the generic names work for every protocol
 * (`tp_dst` on a udp packet, `icmp_type` on an ICMPv6 one); prerequisites are checked once the whole spec is read. Every field
 * not given is zero. Port names resolve through `ports` (a Tracer's `ports.forPackets` knows the
 * names the flows use as well as those of the port map).
 */
export function parsePacketSpec(text: string, ports?: PortNumbers): PacketSpecResult {
  const packet = new Packet();
  const given: FieldDef[] = [];
  const seen = new Set<string>();
  for (const tok of scanKeyValues(text, 0, text.length)) {
    const proto = ownEntry(PROTOCOLS, tok.key);
    if (proto && tok.value === undefined) {
      if (proto.ethType !== undefined) packet.set(FIELD.ethType, proto.ethType);
      if (proto.proto !== undefined) packet.set(FIELD.nwProto, proto.proto);
      continue;
    }
    const field = fieldByName(tok.key);
    if (!field) {
      const closest = closestName(tok.key, [...matchFieldNames(), ...Object.keys(PROTOCOLS)]);
      return { ok: false, problem: { kind: 'unknown-field', key: tok.key, ...(closest ? { closest } : {}) } };
    }
    if (tok.value === undefined) return { ok: false, problem: { kind: 'missing-value', key: tok.key } };
    if (seen.has(field.name)) return { ok: false, problem: { kind: 'repeated-field', key: tok.key } };
    seen.add(field.name);
    const r = parseFieldValue(field, tok.value, ports);
    if (!r.ok) return { ok: false, problem: { kind: 'bad-value', key: tok.key, value: tok.value, reason: r.error } };
    if (r.port?.kind === 'name' && ports?.number(r.port.name) === undefined)
      return { ok: false, problem: { kind: 'unknown-port', value: tok.value } };
    if (r.mask !== fullMask(field)) return { ok: false, problem: { kind: 'wildcard', key: tok.key, value: tok.value } };
    packet.set(field, field.format === 'port' && field.bits === 16 ? port16(r.value) : r.value);
    // A VLAN ID or priority means a tagged packet, as OVS prints one (`dl_vlan=10,dl_vlan_pcp=0`).
    if (TAG_VIEWS.has(field.name)) packet.set(FIELD.vlanTci, packet.get(FIELD.vlanTci) | VLAN_PRESENT);
    given.push(field);
  }
  for (const field of given) {
    // tp_src/tp_dst name TCP's ports but serve every transport protocol here.
    const l4 = field.prerequisite === 'tcp' && (field.storage === 'tp_src' || field.storage === 'tp_dst');
    if (l4 && isIp(packet) && [6n, 17n, 132n].includes(packet.get(FIELD.nwProto))) continue;
    // icmp_type and icmp_code, as OVS prints ICMPv6's too.
    const icmp =
      field.prerequisite === 'icmpv4' &&
      packet.get(FIELD.ethType) === ETH_TYPE.ipv6 &&
      packet.get(FIELD.nwProto) === 58n;
    if (icmp) continue;
    if (!prerequisiteMet(field, packet)) return { ok: false, problem: { kind: 'prerequisite', field: field.name } };
  }
  return { ok: true, packet };
}
