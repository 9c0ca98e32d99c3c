/**
 * The registry of Open vSwitch match fields (ovs-fields(7)): canonical names, aliases,
 * NXM/OXM names, widths, maskability, prerequisites and how values are written.
 * Aliases and NXM/OXM spellings all resolve to one FieldDef so that the rest of the
 * program never compares field names as strings.
 */

export type FieldFormat =
  | 'decimal'
  | 'hex'
  | 'ipv4'
  | 'ipv6'
  | 'mac'
  | 'port'
  | 'ct-state'
  | 'tcp-flags'
  | 'tun-flags'
  | 'frag'
  | 'vlan-tci'
  | 'ipv6-label'
  | 'packet-type';

export type Prerequisite =
  | 'none'
  | 'ethernet'
  | 'vlan'
  | 'arp'
  | 'ipv4'
  | 'ipv6'
  | 'ip-any'
  | 'mpls'
  | 'tcp'
  | 'udp'
  | 'sctp'
  | 'icmpv4'
  | 'icmpv6'
  | 'nd'
  | 'nd-solicit'
  | 'nd-advert'
  | 'nsh'
  | 'ct';

export interface FieldDef {
  /** Canonical name as in ovs-fields(7). */
  readonly name: string;
  /** Other names accepted in matches and subfield references. */
  readonly aliases: readonly string[];
  /** Name `ovs-ofctl` prints in a match. */
  readonly printed: string;
  /** NXM/OXM names accepted in subfield references; the first is the one OVS prints. */
  readonly nxmNames: readonly string[];
  readonly bits: number;
  /** Bytes OVS uses to hold a value (`n_bytes`): range errors and hex printing are in these terms. */
  readonly bytes: number;
  readonly maskable: boolean;
  readonly prerequisite: Prerequisite;
  readonly writable: boolean;
  readonly format: FieldFormat;
  /**
   * Fields that share bits with another field name the same storage: `tcp_dst`, `udp_dst`,
   * `icmp_code` all live in `tp_dst`. Matching and tracing work on storage.
   */
  readonly storage: string;
  /** Not matchable in OpenFlow flows (datapath-only fields that still appear in traces). */
  readonly datapathOnly?: boolean;
  /** First OVS release that knows the field, when it is newer than 3.1. */
  readonly since?: string;
  /**
   * A match may ask only that the packet carry the field (a tunnel metadata option: `tun_metadata0`
   * with no value); OVS keeps such a match, and a match with a value wants the option present too.
   */
  readonly presence?: boolean;
}

interface Row {
  name: string;
  bits: number;
  /** Only where the container is wider than the bits suggest. */
  bytes?: number;
  format: FieldFormat;
  nxm?: string[];
  aliases?: string[];
  printed?: string;
  maskable?: boolean;
  prereq?: Prerequisite;
  ro?: boolean;
  storage?: string;
  datapathOnly?: boolean;
  since?: string;
  presence?: boolean;
}

/** OVS holds values in u8/be16/be32/MAC/be64/be128 containers (tunnel metadata in whole bytes). */
function storageBytes(bits: number): number {
  for (const b of [1, 2, 4, 6, 8, 16]) if (bits <= b * 8) return b;
  return Math.ceil(bits / 8);
}

function def(r: Row): FieldDef {
  const f: FieldDef = {
    name: r.name,
    aliases: r.aliases ?? [],
    printed: r.printed ?? r.name,
    nxmNames: r.nxm ?? [],
    bits: r.bits,
    bytes: r.bytes ?? storageBytes(r.bits),
    maskable: r.maskable ?? false,
    prerequisite: r.prereq ?? 'none',
    writable: !(r.ro ?? false),
    format: r.format,
    storage: r.storage ?? r.name,
    ...(r.datapathOnly ? { datapathOnly: true } : {}),
    ...(r.since ? { since: r.since } : {}),
    ...(r.presence ? { presence: true } : {}),
  };
  return f;
}

const rows: Row[] = [
  { name: 'dp_hash', bits: 32, format: 'hex', maskable: true, ro: true, nxm: ['NXM_NX_DP_HASH', 'NXOXM_ET_DP_HASH'] },
  { name: 'recirc_id', bits: 32, format: 'decimal', ro: true, nxm: ['NXM_NX_RECIRC_ID'] },
  { name: 'packet_type', bits: 32, format: 'packet-type', ro: true, nxm: ['OXM_OF_PACKET_TYPE'] },
  { name: 'conj_id', bits: 32, format: 'decimal', ro: true, nxm: ['NXM_NX_CONJ_ID'] },
  {
    name: 'tun_id',
    bits: 64,
    format: 'hex',
    maskable: true,
    aliases: ['tunnel_id'],
    nxm: ['NXM_NX_TUN_ID', 'OXM_OF_TUNNEL_ID'],
  },
  { name: 'tun_src', bits: 32, format: 'ipv4', maskable: true, nxm: ['NXM_NX_TUN_IPV4_SRC'] },
  { name: 'tun_dst', bits: 32, format: 'ipv4', maskable: true, nxm: ['NXM_NX_TUN_IPV4_DST'] },
  { name: 'tun_ipv6_src', bits: 128, format: 'ipv6', maskable: true, nxm: ['NXM_NX_TUN_IPV6_SRC'] },
  { name: 'tun_ipv6_dst', bits: 128, format: 'ipv6', maskable: true, nxm: ['NXM_NX_TUN_IPV6_DST'] },
  { name: 'tun_flags', bits: 1, bytes: 2, format: 'tun-flags', maskable: true, nxm: ['NXM_NX_TUN_FLAGS'] },
  { name: 'tun_ttl', bits: 8, format: 'decimal', ro: true, datapathOnly: true },
  { name: 'tun_tos', bits: 8, format: 'decimal', ro: true, datapathOnly: true },
  { name: 'tun_gbp_id', bits: 16, format: 'decimal', maskable: true, nxm: ['NXM_NX_TUN_GBP_ID'] },
  { name: 'tun_gbp_flags', bits: 8, format: 'hex', maskable: true, nxm: ['NXM_NX_TUN_GBP_FLAGS'] },
  { name: 'tun_erspan_idx', bits: 20, format: 'hex', maskable: true, nxm: ['NXOXM_ET_ERSPAN_IDX'] },
  { name: 'tun_erspan_ver', bits: 4, format: 'decimal', maskable: true, nxm: ['NXOXM_ET_ERSPAN_VER'] },
  { name: 'tun_erspan_dir', bits: 1, format: 'decimal', maskable: true, nxm: ['NXOXM_ET_ERSPAN_DIR'] },
  { name: 'tun_erspan_hwid', bits: 6, format: 'hex', maskable: true, nxm: ['NXOXM_ET_ERSPAN_HWID'] },
  {
    name: 'tun_gtpu_flags',
    bits: 8,
    format: 'hex',
    maskable: true,
    ro: true,
    printed: 'gtpu_flags',
    nxm: ['NXOXM_ET_GTPU_FLAGS'],
  },
  {
    name: 'tun_gtpu_msgtype',
    bits: 8,
    format: 'decimal',
    maskable: true,
    ro: true,
    printed: 'gtpu_msgtype',
    nxm: ['NXOXM_ET_GTPU_MSGTYPE'],
  },
  ...Array.from({ length: 64 }, (_, i): Row => ({
    name: `tun_metadata${i}`,
    bits: 992,
    format: 'hex',
    maskable: true,
    presence: true,
    nxm: [`NXM_NX_TUN_METADATA${i}`],
  })),
  { name: 'metadata', bits: 64, format: 'hex', maskable: true, nxm: ['OXM_OF_METADATA'] },
  { name: 'in_port', bits: 16, format: 'port', nxm: ['NXM_OF_IN_PORT'] },
  { name: 'in_port_oxm', bits: 32, format: 'port', printed: 'in_port', storage: 'in_port', nxm: ['OXM_OF_IN_PORT'] },
  {
    name: 'actset_output',
    bits: 32,
    format: 'port',
    ro: true,
    nxm: ['ONFOXM_ET_ACTSET_OUTPUT', 'OXM_OF_ACTSET_OUTPUT'],
  },
  { name: 'skb_priority', bits: 32, format: 'hex', ro: true, datapathOnly: true },
  { name: 'pkt_mark', bits: 32, format: 'hex', maskable: true, nxm: ['NXM_NX_PKT_MARK'] },
  { name: 'ct_state', bits: 32, format: 'ct-state', maskable: true, ro: true, nxm: ['NXM_NX_CT_STATE'] },
  { name: 'ct_zone', bits: 16, format: 'hex', ro: true, nxm: ['NXM_NX_CT_ZONE'] },
  { name: 'ct_mark', bits: 32, format: 'hex', maskable: true, nxm: ['NXM_NX_CT_MARK'] },
  { name: 'ct_label', bits: 128, format: 'hex', maskable: true, nxm: ['NXM_NX_CT_LABEL'] },
  { name: 'ct_nw_proto', bits: 8, format: 'decimal', ro: true, prereq: 'ct', nxm: ['NXM_NX_CT_NW_PROTO'] },
  { name: 'ct_nw_src', bits: 32, format: 'ipv4', maskable: true, ro: true, prereq: 'ct', nxm: ['NXM_NX_CT_NW_SRC'] },
  { name: 'ct_nw_dst', bits: 32, format: 'ipv4', maskable: true, ro: true, prereq: 'ct', nxm: ['NXM_NX_CT_NW_DST'] },
  {
    name: 'ct_ipv6_src',
    bits: 128,
    format: 'ipv6',
    maskable: true,
    ro: true,
    prereq: 'ct',
    nxm: ['NXM_NX_CT_IPV6_SRC'],
  },
  {
    name: 'ct_ipv6_dst',
    bits: 128,
    format: 'ipv6',
    maskable: true,
    ro: true,
    prereq: 'ct',
    nxm: ['NXM_NX_CT_IPV6_DST'],
  },
  { name: 'ct_tp_src', bits: 16, format: 'decimal', maskable: true, ro: true, prereq: 'ct', nxm: ['NXM_NX_CT_TP_SRC'] },
  { name: 'ct_tp_dst', bits: 16, format: 'decimal', maskable: true, ro: true, prereq: 'ct', nxm: ['NXM_NX_CT_TP_DST'] },
  ...Array.from({ length: 32 }, (_, i): Row => ({
    name: `reg${i}`,
    bits: 32,
    format: 'hex',
    maskable: true,
    nxm: [i < 16 ? `NXM_NX_REG${i}` : `NXOXM_ET_REG${i}`],
    ...(i >= 16 ? { since: '3.7' } : {}),
  })),
  ...Array.from({ length: 16 }, (_, i): Row => ({
    name: `xreg${i}`,
    bits: 64,
    format: 'hex',
    maskable: true,
    nxm: [`OXM_OF_PKT_REG${i}`],
    ...(i >= 8 ? { since: '3.7' } : {}),
  })),
  ...Array.from({ length: 8 }, (_, i): Row => ({
    name: `xxreg${i}`,
    bits: 128,
    format: 'hex',
    maskable: true,
    nxm: [i < 4 ? `NXM_NX_XXREG${i}` : `NXOXM_ET_XXREG${i}`],
    ...(i >= 4 ? { since: '3.7' } : {}),
  })),
  {
    name: 'eth_src',
    bits: 48,
    format: 'mac',
    maskable: true,
    prereq: 'ethernet',
    aliases: ['dl_src'],
    printed: 'dl_src',
    nxm: ['NXM_OF_ETH_SRC', 'OXM_OF_ETH_SRC'],
  },
  {
    name: 'eth_dst',
    bits: 48,
    format: 'mac',
    maskable: true,
    prereq: 'ethernet',
    aliases: ['dl_dst'],
    printed: 'dl_dst',
    nxm: ['NXM_OF_ETH_DST', 'OXM_OF_ETH_DST'],
  },
  {
    name: 'eth_type',
    bits: 16,
    format: 'hex',
    ro: true,
    prereq: 'ethernet',
    aliases: ['dl_type'],
    printed: 'dl_type',
    nxm: ['NXM_OF_ETH_TYPE', 'OXM_OF_ETH_TYPE'],
  },
  { name: 'vlan_tci', bits: 16, format: 'vlan-tci', maskable: true, prereq: 'ethernet', nxm: ['NXM_OF_VLAN_TCI'] },
  { name: 'dl_vlan', bits: 12, format: 'decimal', prereq: 'ethernet', storage: 'vlan_tci' },
  {
    name: 'vlan_vid',
    bits: 12,
    format: 'decimal',
    maskable: true,
    prereq: 'ethernet',
    storage: 'vlan_tci',
    nxm: ['OXM_OF_VLAN_VID'],
  },
  { name: 'dl_vlan_pcp', bits: 3, format: 'decimal', prereq: 'ethernet', storage: 'vlan_tci' },
  { name: 'vlan_pcp', bits: 3, format: 'decimal', prereq: 'vlan', storage: 'vlan_tci', nxm: ['OXM_OF_VLAN_PCP'] },
  { name: 'mpls_label', bits: 20, format: 'decimal', prereq: 'mpls', nxm: ['OXM_OF_MPLS_LABEL'] },
  { name: 'mpls_tc', bits: 3, format: 'decimal', prereq: 'mpls', nxm: ['OXM_OF_MPLS_TC'] },
  { name: 'mpls_bos', bits: 1, format: 'decimal', prereq: 'mpls', ro: true, nxm: ['OXM_OF_MPLS_BOS'] },
  { name: 'mpls_ttl', bits: 8, format: 'decimal', prereq: 'mpls', nxm: ['NXM_NX_MPLS_TTL'] },
  {
    name: 'ip_src',
    bits: 32,
    format: 'ipv4',
    maskable: true,
    prereq: 'ipv4',
    aliases: ['nw_src'],
    printed: 'nw_src',
    storage: 'nw_src',
    nxm: ['NXM_OF_IP_SRC', 'OXM_OF_IPV4_SRC'],
  },
  {
    name: 'ip_dst',
    bits: 32,
    format: 'ipv4',
    maskable: true,
    prereq: 'ipv4',
    aliases: ['nw_dst'],
    printed: 'nw_dst',
    storage: 'nw_dst',
    nxm: ['NXM_OF_IP_DST', 'OXM_OF_IPV4_DST'],
  },
  {
    name: 'ipv6_src',
    bits: 128,
    format: 'ipv6',
    maskable: true,
    prereq: 'ipv6',
    nxm: ['NXM_NX_IPV6_SRC', 'OXM_OF_IPV6_SRC'],
  },
  {
    name: 'ipv6_dst',
    bits: 128,
    format: 'ipv6',
    maskable: true,
    prereq: 'ipv6',
    nxm: ['NXM_NX_IPV6_DST', 'OXM_OF_IPV6_DST'],
  },
  {
    name: 'ipv6_label',
    bits: 20,
    format: 'ipv6-label',
    maskable: true,
    prereq: 'ipv6',
    nxm: ['NXM_NX_IPV6_LABEL', 'OXM_OF_IPV6_FLABEL'],
  },
  {
    name: 'nw_proto',
    bits: 8,
    format: 'decimal',
    ro: true,
    prereq: 'ip-any',
    aliases: ['ip_proto'],
    nxm: ['NXM_OF_IP_PROTO', 'OXM_OF_IP_PROTO'],
  },
  { name: 'nw_tos', bits: 8, format: 'decimal', prereq: 'ip-any', nxm: ['NXM_OF_IP_TOS'] },
  {
    name: 'ip_dscp',
    bits: 6,
    format: 'decimal',
    prereq: 'ip-any',
    printed: 'nw_tos',
    storage: 'nw_tos',
    nxm: ['OXM_OF_IP_DSCP'],
  },
  {
    name: 'nw_ecn',
    bits: 2,
    format: 'decimal',
    prereq: 'ip-any',
    aliases: ['ip_ecn'],
    nxm: ['NXM_NX_IP_ECN', 'OXM_OF_IP_ECN'],
  },
  { name: 'nw_ttl', bits: 8, format: 'decimal', prereq: 'ip-any', nxm: ['NXM_NX_IP_TTL'] },
  {
    name: 'ip_frag',
    bits: 2,
    format: 'frag',
    maskable: true,
    ro: true,
    prereq: 'ip-any',
    aliases: ['nw_frag'],
    printed: 'nw_frag',
    nxm: ['NXM_NX_IP_FRAG'],
  },
  {
    name: 'arp_op',
    bits: 16,
    format: 'decimal',
    prereq: 'arp',
    storage: 'nw_proto',
    nxm: ['NXM_OF_ARP_OP', 'OXM_OF_ARP_OP'],
  },
  {
    name: 'arp_spa',
    bits: 32,
    format: 'ipv4',
    maskable: true,
    prereq: 'arp',
    storage: 'nw_src',
    nxm: ['NXM_OF_ARP_SPA', 'OXM_OF_ARP_SPA'],
  },
  {
    name: 'arp_tpa',
    bits: 32,
    format: 'ipv4',
    maskable: true,
    prereq: 'arp',
    storage: 'nw_dst',
    nxm: ['NXM_OF_ARP_TPA', 'OXM_OF_ARP_TPA'],
  },
  {
    name: 'arp_sha',
    bits: 48,
    format: 'mac',
    maskable: true,
    prereq: 'arp',
    nxm: ['NXM_NX_ARP_SHA', 'OXM_OF_ARP_SHA'],
  },
  {
    name: 'arp_tha',
    bits: 48,
    format: 'mac',
    maskable: true,
    prereq: 'arp',
    nxm: ['NXM_NX_ARP_THA', 'OXM_OF_ARP_THA'],
  },
  {
    name: 'tcp_src',
    bits: 16,
    format: 'decimal',
    maskable: true,
    prereq: 'tcp',
    aliases: ['tp_src'],
    printed: 'tp_src',
    storage: 'tp_src',
    nxm: ['NXM_OF_TCP_SRC', 'OXM_OF_TCP_SRC'],
  },
  {
    name: 'tcp_dst',
    bits: 16,
    format: 'decimal',
    maskable: true,
    prereq: 'tcp',
    aliases: ['tp_dst'],
    printed: 'tp_dst',
    storage: 'tp_dst',
    nxm: ['NXM_OF_TCP_DST', 'OXM_OF_TCP_DST'],
  },
  {
    name: 'tcp_flags',
    bits: 12,
    format: 'tcp-flags',
    maskable: true,
    ro: true,
    prereq: 'tcp',
    nxm: ['NXM_NX_TCP_FLAGS', 'ONFOXM_ET_TCP_FLAGS', 'OXM_OF_TCP_FLAGS'],
  },
  {
    name: 'udp_src',
    bits: 16,
    format: 'decimal',
    maskable: true,
    prereq: 'udp',
    printed: 'tp_src',
    storage: 'tp_src',
    nxm: ['NXM_OF_UDP_SRC', 'OXM_OF_UDP_SRC'],
  },
  {
    name: 'udp_dst',
    bits: 16,
    format: 'decimal',
    maskable: true,
    prereq: 'udp',
    printed: 'tp_dst',
    storage: 'tp_dst',
    nxm: ['NXM_OF_UDP_DST', 'OXM_OF_UDP_DST'],
  },
  {
    name: 'sctp_src',
    bits: 16,
    format: 'decimal',
    maskable: true,
    prereq: 'sctp',
    printed: 'tp_src',
    storage: 'tp_src',
    nxm: ['OXM_OF_SCTP_SRC'],
  },
  {
    name: 'sctp_dst',
    bits: 16,
    format: 'decimal',
    maskable: true,
    prereq: 'sctp',
    printed: 'tp_dst',
    storage: 'tp_dst',
    nxm: ['OXM_OF_SCTP_DST'],
  },
  {
    name: 'icmp_type',
    bits: 8,
    format: 'decimal',
    prereq: 'icmpv4',
    storage: 'tp_src',
    nxm: ['NXM_OF_ICMP_TYPE', 'OXM_OF_ICMPV4_TYPE'],
  },
  {
    name: 'icmp_code',
    bits: 8,
    format: 'decimal',
    prereq: 'icmpv4',
    storage: 'tp_dst',
    nxm: ['NXM_OF_ICMP_CODE', 'OXM_OF_ICMPV4_CODE'],
  },
  {
    name: 'icmpv6_type',
    bits: 8,
    format: 'decimal',
    prereq: 'icmpv6',
    printed: 'icmp_type',
    storage: 'tp_src',
    nxm: ['NXM_NX_ICMPV6_TYPE', 'OXM_OF_ICMPV6_TYPE'],
  },
  {
    name: 'icmpv6_code',
    bits: 8,
    format: 'decimal',
    prereq: 'icmpv6',
    printed: 'icmp_code',
    storage: 'tp_dst',
    nxm: ['NXM_NX_ICMPV6_CODE', 'OXM_OF_ICMPV6_CODE'],
  },
  {
    name: 'nd_target',
    bits: 128,
    format: 'ipv6',
    maskable: true,
    prereq: 'nd',
    nxm: ['NXM_NX_ND_TARGET', 'OXM_OF_IPV6_ND_TARGET'],
  },
  {
    name: 'nd_sll',
    bits: 48,
    format: 'mac',
    maskable: true,
    prereq: 'nd-solicit',
    storage: 'arp_sha',
    nxm: ['NXM_NX_ND_SLL', 'OXM_OF_IPV6_ND_SLL'],
  },
  {
    name: 'nd_tll',
    bits: 48,
    format: 'mac',
    maskable: true,
    prereq: 'nd-advert',
    storage: 'arp_tha',
    nxm: ['NXM_NX_ND_TLL', 'OXM_OF_IPV6_ND_TLL'],
  },
  { name: 'nd_reserved', bits: 32, format: 'decimal', prereq: 'nd', nxm: ['ERICOXM_OF_ICMPV6_ND_RESERVED'] },
  {
    name: 'nd_options_type',
    bits: 8,
    format: 'decimal',
    prereq: 'nd',
    storage: 'tcp_flags',
    nxm: ['ERICOXM_OF_ICMPV6_ND_OPTIONS_TYPE'],
  },
  { name: 'nsh_flags', bits: 8, format: 'decimal', maskable: true, prereq: 'nsh', nxm: ['NXOXM_NSH_FLAGS'] },
  { name: 'nsh_mdtype', bits: 8, format: 'decimal', ro: true, prereq: 'nsh', nxm: ['NXOXM_NSH_MDTYPE'] },
  { name: 'nsh_np', bits: 8, format: 'decimal', ro: true, prereq: 'nsh', nxm: ['NXOXM_NSH_NP'] },
  { name: 'nsh_spi', bits: 24, format: 'hex', prereq: 'nsh', aliases: ['nsp'], nxm: ['NXOXM_NSH_SPI'] },
  { name: 'nsh_si', bits: 8, format: 'decimal', prereq: 'nsh', aliases: ['nsi'], nxm: ['NXOXM_NSH_SI'] },
  ...[1, 2, 3, 4].map((i): Row => ({
    name: `nsh_c${i}`,
    bits: 32,
    format: 'hex',
    maskable: true,
    prereq: 'nsh',
    aliases: [`nshc${i}`],
    nxm: [`NXOXM_NSH_C${i}`],
  })),
  { name: 'nsh_ttl', bits: 8, format: 'decimal', prereq: 'nsh', nxm: ['NXOXM_NSH_TTL'] },
];

export const FIELDS: readonly FieldDef[] = rows.map(def);

const byMatchName = new Map<string, FieldDef>();
const bySubfieldName = new Map<string, FieldDef>();
for (const f of FIELDS) {
  for (const n of [f.name, ...f.aliases]) {
    byMatchName.set(n, f);
    bySubfieldName.set(n, f);
  }
  for (const n of f.nxmNames) bySubfieldName.set(n, f);
}
// The name a dump prints, where it is no other name: OVS prints the GTP-U fields without their
// `tun_` prefix (`gtpu_flags=0x30`): its own parser refuses that name, but dumps carry it.
for (const f of FIELDS) if (!byMatchName.has(f.printed)) byMatchName.set(f.printed, f);

/** Every name a match may use for a field. */
export function matchFieldNames(): Iterable<string> {
  return byMatchName.keys();
}

/** A field by the name a match may use (`ip_src`, `nw_src`), not its NXM name. */
export function fieldByName(name: string): FieldDef | undefined {
  return byMatchName.get(name);
}

/** A field by any name a subfield reference may use: match names and NXM/OXM names. */
export function fieldBySubfieldName(name: string): FieldDef | undefined {
  return bySubfieldName.get(name);
}

/** Name OVS prints in subfield references (`NXM_NX_REG0`, `OXM_OF_METADATA`). */
export function subfieldName(f: FieldDef): string {
  return f.nxmNames[0] ?? f.name;
}
