/**
 * The registry of Open vSwitch match fields (ovs-fields(7)): canonical names, aliases,
 * NXM/OXM names, widths, maskability, prerequisites and how values are written.
 * Aliases and NXM/OXM spellings all resolve to one FieldDef so that the rest of the
 * program never compares field names as strings.
 */

/** How a field's values are written; syntax/field-value.ts reads and prints each. */
const FORMATS = [
  'decimal',
  'hex',
  'ipv4',
  'ipv6',
  'mac',
  'port',
  'ct-state',
  'tcp-flags',
  'tun-flags',
  'frag',
  'vlan-tci',
  'ipv6-label',
  'packet-type',
] as const;

export type FieldFormat = (typeof FORMATS)[number];

/** What a match must also ask for before it may match a field. */
const PREREQUISITES = [
  'none',
  'ethernet',
  'vlan',
  'arp',
  'ipv4',
  'ipv6',
  'ip-any',
  'mpls',
  'tcp',
  'udp',
  'sctp',
  'icmpv4',
  'icmpv6',
  'nd',
  'nd-solicit',
  'nd-advert',
  'nsh',
  'ct',
] as const;

export type Prerequisite = (typeof PREREQUISITES)[number];

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

/**
 * The fields, one a line as ovs-fields(7) tables them: name, bits and format, then only what
 * differs from the usual, in words — `F-L` a family of numbered fields (`{i}` in the line's names
 * stands for each number from F to L); `if=` its prerequisite (default none); `maskable`; `ro`,
 * not writable; `datapath-only`; `presence`; `bytes=` the container's bytes where wider than the
 * bits suggest; `alias=` another name a match may use; `printed=` the name ovs-ofctl prints
 * (default the name); `storage=` the field whose bits it shares (default itself); `since=` the
 * first OVS release that knows it, when newer than 3.1 — and last the NXM/OXM names of subfield
 * references, the one OVS prints first.
 */
const TABLE = `
dp_hash           32 hex         maskable ro NXM_NX_DP_HASH NXOXM_ET_DP_HASH
recirc_id         32 decimal     ro NXM_NX_RECIRC_ID
packet_type       32 packet-type ro OXM_OF_PACKET_TYPE
conj_id           32 decimal     ro NXM_NX_CONJ_ID
tun_id            64 hex         maskable alias=tunnel_id NXM_NX_TUN_ID OXM_OF_TUNNEL_ID
tun_src           32 ipv4        maskable NXM_NX_TUN_IPV4_SRC
tun_dst           32 ipv4        maskable NXM_NX_TUN_IPV4_DST
tun_ipv6_src     128 ipv6        maskable NXM_NX_TUN_IPV6_SRC
tun_ipv6_dst     128 ipv6        maskable NXM_NX_TUN_IPV6_DST
tun_flags          1 tun-flags   maskable bytes=2 NXM_NX_TUN_FLAGS
tun_ttl            8 decimal     ro datapath-only
tun_tos            8 decimal     ro datapath-only
tun_gbp_id        16 decimal     maskable NXM_NX_TUN_GBP_ID
tun_gbp_flags      8 hex         maskable NXM_NX_TUN_GBP_FLAGS
tun_erspan_idx    20 hex         maskable NXOXM_ET_ERSPAN_IDX
tun_erspan_ver     4 decimal     maskable NXOXM_ET_ERSPAN_VER
tun_erspan_dir     1 decimal     maskable NXOXM_ET_ERSPAN_DIR
tun_erspan_hwid    6 hex         maskable NXOXM_ET_ERSPAN_HWID
tun_gtpu_flags     8 hex         maskable ro printed=gtpu_flags NXOXM_ET_GTPU_FLAGS
tun_gtpu_msgtype   8 decimal     maskable ro printed=gtpu_msgtype NXOXM_ET_GTPU_MSGTYPE
tun_metadata{i}  992 hex         0-63 maskable presence NXM_NX_TUN_METADATA{i}
metadata          64 hex         maskable OXM_OF_METADATA
in_port           16 port        NXM_OF_IN_PORT
in_port_oxm       32 port        printed=in_port storage=in_port OXM_OF_IN_PORT
actset_output     32 port        ro ONFOXM_ET_ACTSET_OUTPUT OXM_OF_ACTSET_OUTPUT
skb_priority      32 hex         ro datapath-only
pkt_mark          32 hex         maskable NXM_NX_PKT_MARK
ct_state          32 ct-state    maskable ro NXM_NX_CT_STATE
ct_zone           16 hex         ro NXM_NX_CT_ZONE
ct_mark           32 hex         maskable NXM_NX_CT_MARK
ct_label         128 hex         maskable NXM_NX_CT_LABEL
ct_nw_proto        8 decimal     if=ct ro NXM_NX_CT_NW_PROTO
ct_nw_src         32 ipv4        if=ct maskable ro NXM_NX_CT_NW_SRC
ct_nw_dst         32 ipv4        if=ct maskable ro NXM_NX_CT_NW_DST
ct_ipv6_src      128 ipv6        if=ct maskable ro NXM_NX_CT_IPV6_SRC
ct_ipv6_dst      128 ipv6        if=ct maskable ro NXM_NX_CT_IPV6_DST
ct_tp_src         16 decimal     if=ct maskable ro NXM_NX_CT_TP_SRC
ct_tp_dst         16 decimal     if=ct maskable ro NXM_NX_CT_TP_DST
reg{i}            32 hex         0-15 maskable NXM_NX_REG{i}
reg{i}            32 hex         16-31 maskable since=3.7 NXOXM_ET_REG{i}
xreg{i}           64 hex         0-7 maskable OXM_OF_PKT_REG{i}
xreg{i}           64 hex         8-15 maskable since=3.7 OXM_OF_PKT_REG{i}
xxreg{i}         128 hex         0-3 maskable NXM_NX_XXREG{i}
xxreg{i}         128 hex         4-7 maskable since=3.7 NXOXM_ET_XXREG{i}
eth_src           48 mac         if=ethernet maskable alias=dl_src printed=dl_src NXM_OF_ETH_SRC OXM_OF_ETH_SRC
eth_dst           48 mac         if=ethernet maskable alias=dl_dst printed=dl_dst NXM_OF_ETH_DST OXM_OF_ETH_DST
eth_type          16 hex         if=ethernet ro alias=dl_type printed=dl_type NXM_OF_ETH_TYPE OXM_OF_ETH_TYPE
vlan_tci          16 vlan-tci    if=ethernet maskable NXM_OF_VLAN_TCI
dl_vlan           12 decimal     if=ethernet storage=vlan_tci
vlan_vid          12 decimal     if=ethernet maskable storage=vlan_tci OXM_OF_VLAN_VID
dl_vlan_pcp        3 decimal     if=ethernet storage=vlan_tci
vlan_pcp           3 decimal     if=vlan storage=vlan_tci OXM_OF_VLAN_PCP
mpls_label        20 decimal     if=mpls OXM_OF_MPLS_LABEL
mpls_tc            3 decimal     if=mpls OXM_OF_MPLS_TC
mpls_bos           1 decimal     if=mpls ro OXM_OF_MPLS_BOS
mpls_ttl           8 decimal     if=mpls NXM_NX_MPLS_TTL
ip_src            32 ipv4        if=ipv4 maskable alias=nw_src printed=nw_src storage=nw_src NXM_OF_IP_SRC OXM_OF_IPV4_SRC
ip_dst            32 ipv4        if=ipv4 maskable alias=nw_dst printed=nw_dst storage=nw_dst NXM_OF_IP_DST OXM_OF_IPV4_DST
ipv6_src         128 ipv6        if=ipv6 maskable NXM_NX_IPV6_SRC OXM_OF_IPV6_SRC
ipv6_dst         128 ipv6        if=ipv6 maskable NXM_NX_IPV6_DST OXM_OF_IPV6_DST
ipv6_label        20 ipv6-label  if=ipv6 maskable NXM_NX_IPV6_LABEL OXM_OF_IPV6_FLABEL
nw_proto           8 decimal     if=ip-any ro alias=ip_proto NXM_OF_IP_PROTO OXM_OF_IP_PROTO
nw_tos             8 decimal     if=ip-any NXM_OF_IP_TOS
ip_dscp            6 decimal     if=ip-any printed=nw_tos storage=nw_tos OXM_OF_IP_DSCP
nw_ecn             2 decimal     if=ip-any alias=ip_ecn NXM_NX_IP_ECN OXM_OF_IP_ECN
nw_ttl             8 decimal     if=ip-any NXM_NX_IP_TTL
ip_frag            2 frag        if=ip-any maskable ro alias=nw_frag printed=nw_frag NXM_NX_IP_FRAG
arp_op            16 decimal     if=arp storage=nw_proto NXM_OF_ARP_OP OXM_OF_ARP_OP
arp_spa           32 ipv4        if=arp maskable storage=nw_src NXM_OF_ARP_SPA OXM_OF_ARP_SPA
arp_tpa           32 ipv4        if=arp maskable storage=nw_dst NXM_OF_ARP_TPA OXM_OF_ARP_TPA
arp_sha           48 mac         if=arp maskable NXM_NX_ARP_SHA OXM_OF_ARP_SHA
arp_tha           48 mac         if=arp maskable NXM_NX_ARP_THA OXM_OF_ARP_THA
tcp_src           16 decimal     if=tcp maskable alias=tp_src printed=tp_src storage=tp_src NXM_OF_TCP_SRC OXM_OF_TCP_SRC
tcp_dst           16 decimal     if=tcp maskable alias=tp_dst printed=tp_dst storage=tp_dst NXM_OF_TCP_DST OXM_OF_TCP_DST
tcp_flags         12 tcp-flags   if=tcp maskable ro NXM_NX_TCP_FLAGS ONFOXM_ET_TCP_FLAGS OXM_OF_TCP_FLAGS
udp_src           16 decimal     if=udp maskable printed=tp_src storage=tp_src NXM_OF_UDP_SRC OXM_OF_UDP_SRC
udp_dst           16 decimal     if=udp maskable printed=tp_dst storage=tp_dst NXM_OF_UDP_DST OXM_OF_UDP_DST
sctp_src          16 decimal     if=sctp maskable printed=tp_src storage=tp_src OXM_OF_SCTP_SRC
sctp_dst          16 decimal     if=sctp maskable printed=tp_dst storage=tp_dst OXM_OF_SCTP_DST
icmp_type          8 decimal     if=icmpv4 storage=tp_src NXM_OF_ICMP_TYPE OXM_OF_ICMPV4_TYPE
icmp_code          8 decimal     if=icmpv4 storage=tp_dst NXM_OF_ICMP_CODE OXM_OF_ICMPV4_CODE
icmpv6_type        8 decimal     if=icmpv6 printed=icmp_type storage=tp_src NXM_NX_ICMPV6_TYPE OXM_OF_ICMPV6_TYPE
icmpv6_code        8 decimal     if=icmpv6 printed=icmp_code storage=tp_dst NXM_NX_ICMPV6_CODE OXM_OF_ICMPV6_CODE
nd_target        128 ipv6        if=nd maskable NXM_NX_ND_TARGET OXM_OF_IPV6_ND_TARGET
nd_sll            48 mac         if=nd-solicit maskable storage=arp_sha NXM_NX_ND_SLL OXM_OF_IPV6_ND_SLL
nd_tll            48 mac         if=nd-advert maskable storage=arp_tha NXM_NX_ND_TLL OXM_OF_IPV6_ND_TLL
nd_reserved       32 decimal     if=nd ERICOXM_OF_ICMPV6_ND_RESERVED
nd_options_type    8 decimal     if=nd storage=tcp_flags ERICOXM_OF_ICMPV6_ND_OPTIONS_TYPE
nsh_flags          8 decimal     if=nsh maskable NXOXM_NSH_FLAGS
nsh_mdtype         8 decimal     if=nsh ro NXOXM_NSH_MDTYPE
nsh_np             8 decimal     if=nsh ro NXOXM_NSH_NP
nsh_spi           24 hex         if=nsh alias=nsp NXOXM_NSH_SPI
nsh_si             8 decimal     if=nsh alias=nsi NXOXM_NSH_SI
nsh_c{i}          32 hex         1-4 if=nsh maskable alias=nshc{i} NXOXM_NSH_C{i}
nsh_ttl            8 decimal     if=nsh NXOXM_NSH_TTL
`;

/** OVS holds values in u8/be16/be32/MAC/be64/be128 containers (tunnel metadata in whole bytes). */
function storageBytes(bits: number): number {
  for (const b of [1, 2, 4, 6, 8, 16]) if (bits <= b * 8) return b;
  return Math.ceil(bits / 8);
}

function isOneOf<T extends string>(values: readonly T[], word: string | undefined): word is T {
  return values.includes(word as T);
}

/** The fields of one line of TABLE; a line it cannot read is a fault of this module, thrown. */
function fieldsOfLine(line: string): FieldDef[] {
  const [name = '', bits = '', format, ...words] = line.split(/ +/);
  if (!/^[1-9]\d*$/.test(bits) || !isOneOf(FORMATS, format)) throw new Error(`field registry: ${line}`);
  let numbers: readonly number[] | undefined;
  let prerequisite: Prerequisite = 'none';
  const flags = new Set<string>();
  const aliases: string[] = [];
  const nxmNames: string[] = [];
  const values = new Map<string, string>();
  for (const word of words) {
    const [key, value] = word.split('=');
    if (/^\d+-\d+$/.test(word)) numbers = word.split('-').map(Number);
    else if (/^[A-Z][A-Z0-9_]*(?:\{i\})?$/.test(word)) nxmNames.push(word);
    else if (key === 'if' && isOneOf(PREREQUISITES, value)) prerequisite = value;
    else if (key === 'alias' && value) aliases.push(value);
    else if (isOneOf(['bytes', 'printed', 'storage', 'since'], key) && value) values.set(key, value);
    else if (isOneOf(['maskable', 'ro', 'datapath-only', 'presence'], word)) flags.add(word);
    else throw new Error(`field registry: ${word} in ${line}`);
  }
  const [first = 0, last = 0] = numbers ?? [];
  return Array.from({ length: last - first + 1 }, (_, n): FieldDef => {
    const named = (s: string): string => (numbers ? s.replaceAll('{i}', String(first + n)) : s);
    const field = named(name);
    const bytes = values.get('bytes');
    const since = values.get('since');
    return {
      name: field,
      aliases: aliases.map(named),
      printed: values.get('printed') ?? field,
      nxmNames: nxmNames.map(named),
      bits: Number(bits),
      bytes: bytes === undefined ? storageBytes(Number(bits)) : Number(bytes),
      maskable: flags.has('maskable'),
      prerequisite,
      writable: !flags.has('ro'),
      format,
      storage: values.get('storage') ?? field,
      ...(flags.has('datapath-only') ? { datapathOnly: true } : {}),
      ...(since ? { since } : {}),
      ...(flags.has('presence') ? { presence: true } : {}),
    };
  });
}

/** Every field, in the order of the table. */
export const FIELDS: readonly FieldDef[] = TABLE.trim().split('\n').flatMap(fieldsOfLine);

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
