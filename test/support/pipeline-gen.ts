/**
 * A seeded generator of valid OpenFlow pipelines for the differential trace test: tables of
 * flows over most match fields, with masks and priorities that tie; actions of every kind the
 * tracer simulates (field writes, stack, VLAN and MPLS, TTLs, resubmit and goto_table, clone,
 * exit, action sets, conntrack with recirculation and NAT, learn, conjunctions, groups of every
 * type and selection method); and packets derived from the flows, so most of them take real
 * paths. A pipeline is either an action-set one (write_actions) or a conntrack one
 * (ct(table=)): OVS 3.1 aborts when ct(table=) recirculates with a non-empty action set.
 */
import { Random } from '../../bench/random.ts';

/** Ports the switch has; 5 is administratively down, 9 does not exist. */
export const GEN_PORTS = [1, 2, 3, 4, 5, 6] as const;
export const DOWN_PORT = 5;
const MISSING_PORT = 9;

export interface Probe {
  /** ofproto/trace flow syntax, prerequisites first. */
  readonly packet: string;
  /** `--ct-next` states in ofproto/trace syntax (`trk,est`). */
  readonly ctNext: readonly string[];
}

export interface GeneratedPipeline {
  readonly seed: number;
  /** add-flows lines (OpenFlow 1.3). */
  readonly flows: readonly string[];
  /** add-groups lines (OpenFlow 1.5). */
  readonly groups: readonly string[];
  readonly probes: readonly Probe[];
}

type L3 = 'none' | 'ip4' | 'ip6' | 'arp' | 'mpls';
type L4 = 'none' | 'tcp' | 'udp' | 'sctp' | 'icmp4' | 'icmp6' | 'nd';

/** A protocol a flow may match: its keyword and the headers it implies. */
interface Proto {
  readonly keyword: string;
  readonly l3: L3;
  readonly l4: L4;
}

const PROTOS: readonly Proto[] = [
  { keyword: '', l3: 'none', l4: 'none' },
  { keyword: 'ip', l3: 'ip4', l4: 'none' },
  { keyword: 'tcp', l3: 'ip4', l4: 'tcp' },
  { keyword: 'udp', l3: 'ip4', l4: 'udp' },
  { keyword: 'sctp', l3: 'ip4', l4: 'sctp' },
  { keyword: 'icmp', l3: 'ip4', l4: 'icmp4' },
  { keyword: 'arp', l3: 'arp', l4: 'none' },
  { keyword: 'ipv6', l3: 'ip6', l4: 'none' },
  { keyword: 'tcp6', l3: 'ip6', l4: 'tcp' },
  { keyword: 'udp6', l3: 'ip6', l4: 'udp' },
  { keyword: 'icmp6', l3: 'ip6', l4: 'icmp6' },
  { keyword: 'mpls', l3: 'mpls', l4: 'none' },
  // Neighbour discovery: icmp6 with type 135 and code 0, which nd_target needs.
  { keyword: 'icmp6', l3: 'ip6', l4: 'nd' },
];
const proto = (keyword: string): Proto => PROTOS.find((p) => p.keyword === keyword && p.l4 !== 'nd')!;
/** Protocols a packet can be: every one but the wildcards. */
const PACKET_PROTOS = PROTOS.filter((p) => p.keyword !== '' && p.keyword !== 'ip' && p.keyword !== 'ipv6').concat([
  proto('ip'),
  proto('ipv6'),
]);

const isIp = (p: Proto): boolean => p.l3 === 'ip4' || p.l3 === 'ip6';
const hasPorts = (p: Proto): boolean => p.l4 === 'tcp' || p.l4 === 'udp' || p.l4 === 'sctp';

/** Whether a packet of protocol `packet` can match a flow of protocol `flow`. */
function fits(flow: Proto, packet: Proto): boolean {
  if (flow.l3 === 'none') return true;
  if (flow.l3 !== packet.l3) return false;
  return flow.l4 === 'none' || flow.l4 === packet.l4 || (flow.l4 === 'icmp6' && packet.l4 === 'nd');
}

const MACS = ['00:00:00:00:00:01', '00:00:00:00:00:02', 'aa:bb:cc:dd:ee:ff', '02:00:00:00:00:0a'];
const MAC_MASKS = ['01:00:00:00:00:00', 'ff:ff:ff:00:00:00'];
const IPS = ['10.0.0.1', '10.0.0.2', '10.0.1.5', '192.168.1.1'];
const IP6S = ['fd00::1', 'fd00::2', 'fd00:1::5', 'fe80::1'];
const L4_PORTS = [80, 443, 53, 1234];
const REG_VALUES = [0, 1, 2, 5, 0x10];

/** One field a flow matches and a packet can carry. */
interface FieldGen {
  readonly name: string;
  /** Whether flows and packets of this protocol may have it. */
  readonly on: (p: Proto) => boolean;
  /** `name=value[/mask]` for a flow. */
  readonly match: (r: Random) => string;
  /** `name=value` for a packet; `matched` is the flow's value text when the packet should match it. */
  readonly packet: (r: Random, matched?: string) => string;
}

/** A field whose packet value, given a match `v/m`, is `v` (the pool keeps masked values matchable). */
function pooled(
  name: string,
  on: (p: Proto) => boolean,
  values: readonly string[],
  masks: readonly string[] = [],
  packetName = name,
): FieldGen {
  return {
    name,
    on,
    match: (r) => {
      const v = r.pick(values);
      return masks.length > 0 && r.chance(0.3) ? `${name}=${v}/${r.pick(masks)}` : `${name}=${v}`;
    },
    packet: (r, matched) =>
      `${packetName}=${matched !== undefined ? matched.slice(matched.indexOf('=') + 1).replace(/\/.*$/, '') : r.pick(values)}`,
  };
}

const any = (): boolean => true;
const l4Name = (p: Proto, side: 'src' | 'dst'): string =>
  `${p.l4 === 'tcp' ? 'tcp' : p.l4 === 'udp' ? 'udp' : 'sctp'}_${side}`;

const FIELD_GENS: readonly FieldGen[] = [
  pooled('dl_src', any, MACS, MAC_MASKS),
  pooled('dl_dst', any, MACS, MAC_MASKS),
  {
    name: 'vlan_tci',
    on: (p) => p.l3 !== 'mpls',
    match: (r) =>
      r.pick([
        'vlan_tci=0x1000/0x1000',
        'vlan_tci=0',
        'dl_vlan=10',
        'vlan_tci=0x100a/0x1fff',
        'dl_vlan_pcp=3',
        'vlan_tci=0x0000/0x1000',
      ]),
    packet: (r, m) => {
      if (m === undefined) return `vlan_tci=${r.pick(['0', '0x100a', '0x6014', '0x1000'])}`;
      if (/dl_vlan=10|0x100a/.test(m)) return `vlan_tci=${r.pick(['0x100a', '0x700a'])}`;
      if (m.includes('pcp')) return 'vlan_tci=0x6005';
      if (m === 'vlan_tci=0x1000/0x1000') return `vlan_tci=${r.pick(['0x1001', '0x100a', '0x3fff'])}`;
      return 'vlan_tci=0';
    },
  },
  pooled('nw_src', (p) => p.l3 === 'ip4', IPS, ['255.255.255.0', '255.0.0.0']),
  pooled('nw_dst', (p) => p.l3 === 'ip4', IPS, ['255.255.255.0', '255.255.0.0']),
  pooled('nw_tos', isIp, ['0', '32', '184']),
  pooled('nw_ecn', isIp, ['0', '1', '3']),
  pooled('nw_ttl', isIp, ['0', '1', '64']),
  {
    name: 'nw_frag',
    on: (p) => isIp(p) && !hasPorts(p),
    match: (r) => `nw_frag=${r.pick(['no', 'first', 'later', 'not_later', 'yes'])}`,
    packet: (r, m) =>
      `nw_frag=${m === undefined ? r.pick(['no', 'first', 'later']) : m === 'nw_frag=yes' ? 'first' : m === 'nw_frag=not_later' ? 'no' : m.slice('nw_frag='.length)}`,
  },
  {
    name: 'tp_src',
    on: hasPorts,
    match: (r) => `tp_src=${r.pick(L4_PORTS)}${r.chance(0.2) ? '/0xfff0' : ''}`,
    packet: (r, m) => `tp_src=${m === undefined ? r.pick(L4_PORTS) : m.slice(7).replace(/\/.*$/, '')}`,
  },
  {
    name: 'tp_dst',
    on: hasPorts,
    match: (r) => `tp_dst=${r.pick(L4_PORTS)}${r.chance(0.2) ? '/0xff00' : ''}`,
    packet: (r, m) => `tp_dst=${m === undefined ? r.pick(L4_PORTS) : m.slice(7).replace(/\/.*$/, '')}`,
  },
  {
    name: 'tcp_flags',
    on: (p) => p.l4 === 'tcp',
    match: (r) => r.pick(['tcp_flags=+syn', 'tcp_flags=+syn-ack', 'tcp_flags=0x012/0x012', 'tcp_flags=+ack']),
    packet: (r, m) =>
      `tcp_flags=${m === undefined ? r.pick(['0x002', '0x012', '0x010', '0']) : m.includes('-ack') ? '0x002' : m.includes('+ack') ? '0x010' : m.includes('syn') ? '0x002' : '0x012'}`,
  },
  pooled('icmp_type', (p) => p.l4 === 'icmp4', ['0', '3', '8']),
  pooled('icmp_code', (p) => p.l4 === 'icmp4', ['0', '1']),
  pooled('icmpv6_type', (p) => p.l4 === 'icmp6', ['128', '129']),
  pooled('nd_target', (p) => p.l4 === 'nd', IP6S),
  pooled('arp_op', (p) => p.l3 === 'arp', ['1', '2']),
  pooled('arp_spa', (p) => p.l3 === 'arp', IPS, ['255.255.255.0']),
  pooled('arp_tpa', (p) => p.l3 === 'arp', IPS, ['255.255.255.0']),
  pooled('arp_sha', (p) => p.l3 === 'arp', MACS),
  pooled('arp_tha', (p) => p.l3 === 'arp', MACS),
  pooled('ipv6_src', (p) => p.l3 === 'ip6', IP6S, ['ffff:ffff::', 'ffff::']),
  pooled('ipv6_dst', (p) => p.l3 === 'ip6', IP6S, ['ffff:ffff::']),
  pooled('ipv6_label', (p) => p.l3 === 'ip6', ['0', '0x5', '0x12345']),
  pooled('mpls_label', (p) => p.l3 === 'mpls', ['16', '100']),
  pooled('mpls_tc', (p) => p.l3 === 'mpls', ['0', '5']),
  pooled('mpls_bos', (p) => p.l3 === 'mpls', ['0', '1']),
  ...[0, 1, 2, 3, 6].map((i) =>
    pooled(
      `reg${i}`,
      any,
      REG_VALUES.map((v) => `0x${v.toString(16)}`),
      ['0xff', '0x1', '0xf0'],
    ),
  ),
  pooled('xreg4', any, ['0x1', '0x500000000']),
  pooled('metadata', any, ['0', '0x1', '0x20'], ['0xff', '0xf0']),
  pooled('pkt_mark', any, ['0', '0x1', '0x7'], ['0x3']),
  pooled('tun_id', any, ['0', '0x5', '0x10'], ['0xf']),
  pooled('tun_dst', any, IPS),
  {
    name: 'ct_state',
    on: any,
    match: (r) =>
      `ct_state=${r.pick(['+trk', '-trk', '+trk+new', '+trk+est', '+trk+est-rpl', '+trk+inv', '+trk-new'])}`,
    packet: (r, m) => {
      if (m === undefined) return `ct_state=${r.pick(['0', 'trk|new', 'trk|est'])}`;
      if (m.endsWith('-trk')) return 'ct_state=0';
      if (m.includes('+inv')) return 'ct_state=trk|inv';
      if (m.includes('+est')) return 'ct_state=trk|est';
      if (m.includes('+new')) return 'ct_state=trk|new';
      return `ct_state=${r.pick(['trk|new', 'trk|est', 'trk|est|rpl'])}`;
    },
  },
  pooled('ct_zone', any, ['0', '1', '5']),
  pooled('ct_mark', any, ['0', '0x1', '0x5'], ['0xf']),
  pooled('ct_label', any, ['0', '0x1', '0x100'], ['0x1']),
];

/** Fields a flow's actions may write, by protocol: `[set_field target, value pool]`. */
function writable(p: Proto): readonly (readonly [string, readonly string[]])[] {
  const out: [string, readonly string[]][] = [
    ['reg0', REG_VALUES.map(String)],
    ['reg1', REG_VALUES.map(String)],
    ['reg2', ['0x1', '0x2']],
    ['reg6', ['0x1', '0x5']],
    ['metadata', ['0x1', '0x20']],
    ['pkt_mark', ['0x1', '0x7']],
    ['eth_src', MACS],
    ['eth_dst', MACS],
    ['tun_id', ['0x5']],
  ];
  if (p.l3 === 'ip4')
    out.push(['ip_src', IPS], ['ip_dst', IPS], ['nw_ttl', ['1', '64']], ['ip_dscp', ['0', '8']], ['nw_ecn', ['1']]);
  if (p.l3 === 'ip6') out.push(['ipv6_src', IP6S], ['ipv6_dst', IP6S], ['ipv6_label', ['0x7']]);
  if (p.l3 === 'arp') out.push(['arp_op', ['2']], ['arp_spa', IPS], ['arp_tha', MACS]);
  if (p.l4 === 'tcp') out.push(['tcp_dst', ['80', '443']], ['tcp_src', ['1234']]);
  if (p.l4 === 'udp') out.push(['udp_dst', ['53']]);
  if (p.l4 === 'icmp4') out.push(['icmp_type', ['8']]);
  return out;
}

/** NXM names of fields that `move`, `push` and learn may read or write, by protocol. */
function subfields(p: Proto): string[] {
  const out = [
    'NXM_NX_REG0[]',
    'NXM_NX_REG1[0..15]',
    'NXM_NX_REG2[]',
    'NXM_NX_REG3[8..23]',
    'NXM_OF_ETH_SRC[]',
    'NXM_OF_ETH_DST[0..31]',
    'NXM_OF_IN_PORT[]',
    'OXM_OF_METADATA[0..31]',
    'NXM_NX_PKT_MARK[]',
  ];
  if (p.l3 === 'ip4') out.push('NXM_OF_IP_SRC[]', 'NXM_OF_IP_DST[]', 'NXM_NX_IP_TTL[]');
  if (p.l4 === 'tcp') out.push('NXM_OF_TCP_DST[]');
  return out;
}

/** Widths of the subfields above, so moves pair sources and destinations of one width. */
function width(sf: string): number {
  const range = /\[(\d+)\.\.(\d+)\]$/.exec(sf);
  if (range) return Number(range[2]) - Number(range[1]) + 1;
  if (/ETH_/.test(sf)) return 48;
  if (/IN_PORT|TCP_DST/.test(sf)) return 16;
  if (/IP_TTL/.test(sf)) return 8;
  if (/METADATA/.test(sf)) return 64;
  return 32;
}

type Mode = 'actset' | 'ct';

interface Ctx {
  readonly r: Random;
  readonly mode: Mode;
  readonly tables: number;
  readonly groups: readonly number[];
}

/** Where an action list runs: a flow of a table (with its protocol), or a group bucket. */
interface Site {
  readonly table: number;
  readonly proto: Proto;
  readonly bucket: boolean;
  /** Nesting: clone and write_actions hold lists of their own. */
  readonly depth: number;
}

function output(ctx: Ctx): string {
  const r = ctx.r;
  return r.pick([
    `output:${r.pick(GEN_PORTS)}`,
    `output:${r.pick(GEN_PORTS)}`,
    `output:${r.pick(GEN_PORTS)}`,
    'IN_PORT',
    'LOCAL',
    `output:${MISSING_PORT}`,
    'output:NXM_NX_REG0[0..15]',
    `enqueue:${r.pick(GEN_PORTS)}:1`,
    'controller',
    'CONTROLLER:65535',
    'FLOOD',
    'ALL',
    'NORMAL',
  ]);
}

/** An output an action set may hold (not to a register, a queue or the controller action). */
function setOutput(ctx: Ctx): string {
  return ctx.r.pick([
    `output:${ctx.r.pick(GEN_PORTS)}`,
    `output:${ctx.r.pick(GEN_PORTS)}`,
    'IN_PORT',
    'LOCAL',
    `output:${MISSING_PORT}`,
    'CONTROLLER:65535',
  ]);
}

/** An edit an action set may hold. */
function setAction(ctx: Ctx, site: Site): string {
  const r = ctx.r;
  const write = r.pick(writable(site.proto));
  return r.pick([
    `set_field:${r.pick(write[1])}->${write[0]}`,
    'strip_vlan',
    'push_vlan:0x8100',
    `mod_vlan_vid:${r.pick([10, 20])}`,
    'set_queue:2',
    ...(isIp(site.proto) ? ['dec_ttl', 'mod_nw_ttl:7'] : []),
  ]);
}

/** A table after `table` to go to; undefined from the last. */
function later(ctx: Ctx, table: number): number | undefined {
  return table + 1 < ctx.tables ? ctx.r.int(table + 1, ctx.tables - 1) : undefined;
}

function ctAction(ctx: Ctx, site: Site): string {
  const r = ctx.r;
  const parts: string[] = [];
  const commit = r.chance(0.5);
  if (commit) parts.push('commit');
  const to = ctx.mode === 'ct' && !site.bucket && r.chance(0.7) ? r.int(0, ctx.tables - 1) : undefined;
  if (to !== undefined) parts.push(`table=${to}`);
  parts.push(r.chance(0.2) ? 'zone=NXM_NX_REG6[0..15]' : `zone=${r.pick([0, 1, 5])}`);
  if (r.chance(0.3)) {
    const ip = site.proto.l3 === 'ip4';
    const port = hasPorts(site.proto) && r.chance(0.5) ? `:${r.pick([8080, 5353])}` : '';
    const addr = ip ? r.pick(['10.1.1.1', '10.2.0.9']) : '[fd00::9]';
    parts.push(commit ? `nat(${r.pick(['src', 'dst'])}=${addr}${port})` : 'nat');
  }
  if (commit && r.chance(0.5))
    parts.push(
      `exec(${r.pick(['set_field:0x5->ct_mark', 'load:0x1->NXM_NX_CT_LABEL[0..7]', 'set_field:0x1/0x1->ct_mark'])})`,
    );
  return `ct(${parts.join(',')})`;
}

function learnAction(ctx: Ctx, site: Site): string {
  const r = ctx.r;
  const specs = [`table=${r.int(0, ctx.tables - 1)}`, `priority=${r.pick([5, 100])}`, 'idle_timeout=60'];
  specs.push(
    r.pick(['NXM_OF_ETH_DST[]=NXM_OF_ETH_SRC[]', 'NXM_NX_REG1[0..15]=NXM_OF_IN_PORT[]', 'NXM_OF_VLAN_TCI[0..11]']),
  );
  if (site.proto.l3 === 'ip4' && r.chance(0.5)) specs.push('eth_type=0x800', 'NXM_OF_IP_DST[]=NXM_OF_IP_SRC[]');
  specs.push(r.pick(['load:NXM_NX_REG0[]->NXM_NX_REG2[]', 'load:0x7->NXM_NX_REG3[0..7]', 'output:NXM_OF_IN_PORT[]']));
  return `learn(${specs.join(',')})`;
}

/** One action that neither forwards nor jumps. */
function editAction(ctx: Ctx, site: Site): string {
  const r = ctx.r;
  const p = site.proto;
  const write = r.pick(writable(p));
  const subs = subfields(p);
  switch (r.int(0, 21)) {
    case 0:
    case 1:
    case 2:
      return `set_field:${r.pick(write[1])}->${write[0]}`;
    case 3:
      return `load:0x${r.int(0, 0xff).toString(16)}->NXM_NX_REG${r.pick([0, 1, 2, 3])}[${r.pick(['', '0..7', '8..15', '0..15'])}]`;
    case 4: {
      const src = r.pick(subs);
      const dst = r.pick(subs.filter((s) => width(s) === width(src) && !/IN_PORT/.test(s)));
      return dst === undefined ? 'set_field:0x1->reg3' : `move:${src}->${dst}`;
    }
    case 5:
      return `push:${r.pick(subs)}`;
    case 6:
      return `pop:NXM_NX_REG${r.pick([2, 3])}[]`;
    case 7:
      // OpenFlow 1.3 pops a VLAN tag only where the match has one; buckets are not checked so.
      return p.l3 === 'mpls'
        ? 'set_mpls_ttl(5)'
        : r.pick([
            'push_vlan:0x8100',
            site.bucket ? 'strip_vlan' : 'push_vlan:0x8100',
            `mod_vlan_vid:${r.pick([10, 20])}`,
            `mod_vlan_pcp:${r.int(0, 7)}`,
          ]);
    case 8:
      return isIp(p) ? r.pick(['dec_ttl', 'dec_ttl(1,2)', 'mod_nw_ttl:9']) : 'set_field:0x2->reg1';
    case 9:
      return r.pick([
        'set_queue:1',
        'pop_queue',
        'note:aa.bb',
        'fin_timeout(idle_timeout=10)',
        'sample(probability=65535,collector_set_id=1,obs_domain_id=2,obs_point_id=3)',
      ]);
    case 10:
      return 'set_field:0x3->reg2';
    case 11:
      return 'multipath(eth_src,50,hrw,1,0,NXM_NX_REG0[0..3])';
    case 12:
      return `bundle_load(eth_src,0,active_backup,ofport,NXM_NX_REG2[],members:${r.pick([2, 3])},${r.pick([4, 6])})`;
    case 13:
      return isIp(p)
        ? r.pick([
            'mod_nw_tos:32',
            'mod_nw_ecn:2',
            ...(p.l3 === 'ip4' ? ['mod_nw_src:10.9.9.9', 'mod_nw_dst:10.0.0.2'] : []),
          ])
        : 'mod_dl_src:00:00:00:00:00:02';
    case 14:
      return hasPorts(p) && !site.bucket ? `mod_tp_dst:${r.pick(L4_PORTS)}` : 'mod_dl_dst:aa:bb:cc:dd:ee:ff';
    case 15:
      return isIp(p) && !site.bucket ? ctAction(ctx, site) : 'set_field:0x5->reg0';
    case 16:
      return r.chance(0.5) ? 'ct_clear' : 'set_field:0x1->reg6';
    case 17:
      return site.bucket ? 'set_field:0x2->reg0' : learnAction(ctx, site);
    case 18:
      return p.l3 === 'mpls' ? r.pick(['dec_mpls_ttl', 'pop_mpls:0x0800']) : 'set_field:0x10->reg1';
    case 19:
      return `set_field:${r.pick(['0x1', '0x2'])}->xreg4`;
    case 20:
      return 'set_field:0x7->pkt_mark';
    default:
      return `set_field:${r.pick(MACS)}->eth_dst`;
  }
}

/** An action list for a flow or bucket: edits, then perhaps jumps and forwards. */
function actionList(ctx: Ctx, site: Site): string[] {
  const r = ctx.r;
  const out: string[] = [];
  const n = r.int(0, 4);
  for (let i = 0; i < n; i++) {
    const kind = r.int(0, 9);
    if (kind <= 3) out.push(editAction(ctx, site));
    else if (kind <= 5) out.push(output(ctx));
    else if (kind === 6) {
      // A resubmit backwards can loop; rarely, so that loops are met but do not dominate.
      const back = r.chance(0.1);
      const to = back ? r.int(0, site.table) : later(ctx, site.table);
      // resubmit(,T,ct) needs a tracked connection in a flow's match; buckets are not checked so.
      if (to !== undefined)
        out.push(
          r.chance(0.15)
            ? `resubmit(${r.pick(GEN_PORTS)},${to})`
            : site.bucket && r.chance(0.2)
              ? `resubmit(,${to},ct)`
              : `resubmit(,${to})`,
        );
    } else if (kind === 7 && ctx.groups.length > 0) {
      out.push(`group:${r.pick(ctx.groups)}`);
    } else if (kind === 8 && site.depth < 2) {
      out.push(`clone(${actionList(ctx, { ...site, depth: site.depth + 1 }).join(',') || 'output:2'})`);
    } else if (kind === 9) {
      out.push(r.chance(0.3) ? 'exit' : output(ctx));
    }
  }
  if (site.bucket || site.depth > 0) return out;
  // The last apply action may push an MPLS label; what follows then sees no IP header.
  const mpls = mayPushMpls(site) && r.chance(0.1);
  if (mpls) out.push('push_mpls:0x8847');
  // Instructions follow the apply actions in OpenFlow's order.
  if (ctx.mode === 'actset' && r.chance(0.4)) {
    if (r.chance(0.2)) out.push('clear_actions');
    const setSite = mpls ? { ...site, proto: proto('') } : site;
    out.push(
      `write_actions(${[setAction(ctx, setSite), r.chance(0.7) ? setOutput(ctx) : ctx.groups.length > 0 ? `group:${r.pick(ctx.groups)}` : 'output:3'].join(',')})`,
    );
  }
  if (r.chance(0.1)) out.push(`write_metadata:0x${r.int(1, 0xff).toString(16)}/0xff`);
  const next = later(ctx, site.table);
  if (next !== undefined && r.chance(0.5)) out.push(`goto_table:${next}`);
  return out;
}

/** Whether the site may push an MPLS label, last (its own later actions would lose their IP prerequisites). */
function mayPushMpls(site: Site): boolean {
  return site.proto.l3 === 'ip4' || site.proto.l3 === 'none';
}

interface GenFlow {
  readonly table: number;
  readonly priority: number;
  readonly proto: Proto;
  /** Match fields as `name=value` texts, protocol keyword excluded. */
  readonly fields: readonly string[];
  readonly inPort?: number;
  readonly text: string;
}

function flowText(f: Omit<GenFlow, 'text'>, actions: readonly string[]): string {
  const nd = f.proto.l4 === 'nd' ? ['icmpv6_type=135', 'icmpv6_code=0'] : [];
  const match = [
    `table=${f.table}`,
    `priority=${f.priority}`,
    ...(f.inPort !== undefined ? [`in_port=${f.inPort}`] : []),
    ...(f.proto.keyword ? [f.proto.keyword] : []),
    ...nd,
    ...f.fields,
  ];
  return `${match.join(',')} actions=${actions.length > 0 ? actions.join(',') : 'drop'}`;
}

function randomMatch(r: Random, p: Proto, count: number): string[] {
  const candidates = r.shuffle(FIELD_GENS.filter((f) => f.on(p)));
  return candidates.slice(0, count).map((f) => f.match(r));
}

function genGroups(ctx: Omit<Ctx, 'groups'>, count: number): { ids: number[]; lines: string[] } {
  const r = ctx.r;
  let id = 10;
  const ids = Array.from({ length: count }, () => (id += r.int(1, 3)));
  const lines: string[] = [];
  ids.forEach((groupId, i) => {
    const type = r.pick(['all', 'select', 'select', 'indirect', 'ff']);
    const head = [`group_id=${groupId}`, `type=${type}`];
    if (type === 'select') {
      const method = r.pick(['hash-fields', 'hash-fields', 'hash', 'dp_hash', 'none']);
      if (method.startsWith('hash')) head.push('selection_method=hash');
      if (method === 'dp_hash') head.push('selection_method=dp_hash');
      if (method !== 'none' && r.chance(0.3)) head.push(`selection_method_param=${r.int(1, 100)}`);
      if (method === 'hash-fields')
        head.push(
          `fields(${r.shuffle(['ip_src', 'ip_dst=255.255.255.0', 'tcp_src', 'udp_dst', 'eth_dst', 'nw_proto', 'in_port', 'ipv6_src']).slice(0, r.int(1, 3)).join(',')})`,
        );
    }
    // Buckets may chain only to later groups, so chains end.
    const sub = { ...ctx, groups: ids.slice(i + 1) };
    const n = type === 'indirect' ? 1 : r.int(1, 4);
    const buckets: string[] = [];
    let bucketId = r.int(0, 3);
    for (let b = 0; b < n; b++) {
      const params = [`bucket_id:${bucketId}`];
      bucketId += r.int(1, 5);
      if (type === 'select' && r.chance(0.6)) params.push(`weight:${r.pick([0, 1, 50, 100, 100, 200])}`);
      if (type === 'ff' || (type === 'select' && r.chance(0.15)))
        params.push(`watch_port:${r.pick([...GEN_PORTS, MISSING_PORT])}`);
      // Bucket actions are not checked against a match: any protocol's fields may be written.
      const actions = actionList(sub, {
        table: r.int(0, ctx.tables - 1),
        proto: r.pick(PROTOS),
        bucket: true,
        depth: 0,
      });
      if (actions.length === 0 || r.chance(0.5)) actions.push(output(sub));
      buckets.push(`bucket=${params.join(',')},actions=${actions.join(',')}`);
    }
    lines.push([...head, ...buckets].join(','));
  });
  return { ids, lines };
}

/** A packet that matches `flow` (and, given, one flow of each conjunction clause), other fields random. */
function derivePacket(r: Random, flows: readonly GenFlow[]): string {
  const protos = PACKET_PROTOS.filter((pp) => flows.every((f) => fits(f.proto, pp)));
  const pp = protos.length > 0 ? r.pick(protos) : r.pick(PACKET_PROTOS);
  const matched = new Map<string, string>();
  for (const f of flows) {
    for (const m of f.fields) {
      const name = m.slice(0, m.indexOf('='));
      const key = name === 'dl_vlan' || name === 'dl_vlan_pcp' ? 'vlan_tci' : name;
      if (!matched.has(key)) matched.set(key, m);
    }
  }
  const inPort = flows.find((f) => f.inPort !== undefined)?.inPort ?? r.pick(GEN_PORTS);
  const meta: string[] = [`in_port=${inPort}`];
  const l2: string[] = [];
  const rest: string[] = [];
  for (const g of FIELD_GENS) {
    if (!g.on(pp)) continue;
    const m = matched.get(g.name);
    if (m === undefined && !r.chance(0.5)) continue;
    let text = g.packet(r, m);
    // ofproto/trace wants each protocol's own name for the ports and ICMP fields.
    if (g.name === 'tp_src' || g.name === 'tp_dst')
      text = text.replace(/^tp_(src|dst)/, (_s, side: 'src' | 'dst') => l4Name(pp, side));
    if (/^(reg|xreg|metadata|pkt_mark|tun_|ct_)/.test(g.name)) meta.push(text);
    else if (/^(dl_|vlan_)/.test(g.name)) l2.push(text);
    else rest.push(text);
  }
  if (pp.l3 === 'ip4' || pp.l3 === 'ip6') {
    if (!rest.some((t) => t.startsWith('nw_ttl='))) rest.push(`nw_ttl=${r.pick([64, 64, 1, 0])}`);
  }
  if (pp.l4 === 'nd') rest.unshift('icmpv6_type=135', 'icmpv6_code=0');
  return [...meta, pp.keyword, ...l2, ...rest].join(',');
}

const CT_STATES = ['trk,new', 'trk,est', 'trk,est,rpl', 'trk,inv', 'trk,rel', 'trk,new,dnat'];

/** A pipeline and `packets` probes for it, all from `seed`. */
export function generatePipeline(seed: number, packets: number): GeneratedPipeline {
  const r = new Random(seed);
  const mode: Mode = r.chance(0.5) ? 'ct' : 'actset';
  const tables = r.int(3, 7);
  const base = { r, mode, tables };
  const { ids, lines: groups } = genGroups(base, r.int(0, 5));
  // Select groups without a selection method pick by dp_hash when their weights allow it.
  const dpHashGroups = groups.some((g) => g.includes('type=select') && !g.includes('selection_method=hash'));
  const ctx: Ctx = { ...base, groups: ids };
  const flows: GenFlow[] = [];
  const conjunctions: GenFlow[][] = [];
  let conjId = 1;
  for (let table = 0; table < tables; table++) {
    const n = r.int(2, 8);
    // Few priorities, so equal priorities meet.
    const priorities = [r.int(1, 5) * 10, r.int(1, 5) * 10, 100];
    for (let i = 0; i < n; i++) {
      const fp = r.pick(PROTOS);
      const f = {
        table,
        priority: r.pick(priorities),
        proto: fp,
        fields: randomMatch(r, fp, r.int(0, 3)),
        ...(table === 0 || r.chance(0.2) ? { inPort: r.pick(GEN_PORTS) } : {}),
      };
      flows.push({ ...f, text: flowText(f, actionList(ctx, { table, proto: fp, bucket: false, depth: 0 })) });
    }
    if (r.chance(0.4)) {
      // A conjunction: clauses over different fields of one protocol, each one or more flows.
      const cp = r.pick([proto('ip'), proto('tcp'), proto('udp')]);
      const priority = r.pick(priorities);
      const names = r
        .shuffle(FIELD_GENS.filter((g) => g.on(cp) && !['ct_state', 'vlan_tci', 'nw_frag'].includes(g.name)))
        .slice(0, r.int(2, 3));
      const id = conjId++;
      const clauseFlows: GenFlow[] = [];
      names.forEach((g, k) => {
        for (let j = r.int(1, 2); j > 0; j--) {
          const f = { table, priority, proto: cp, fields: [g.match(r)] };
          const text = flowText(f, [`conjunction(${id},${k + 1}/${names.length})`]);
          if (!flows.some((x) => x.text === text)) flows.push({ ...f, text });
          clauseFlows.push({ ...f, text });
        }
      });
      const cf = { table, priority: r.pick(priorities), proto: cp, fields: [`conj_id=${id}`] };
      flows.push({ ...cf, text: flowText(cf, actionList(ctx, { table, proto: cp, bucket: false, depth: 0 })) });
      conjunctions.push(clauseFlows);
    }
    if (r.chance(0.7)) {
      const miss = { table, priority: 0, proto: proto(''), fields: [] };
      flows.push({
        ...miss,
        text: flowText(
          miss,
          r.chance(0.5) ? [] : actionList(ctx, { table, proto: proto(''), bucket: false, depth: 0 }),
        ),
      });
    }
  }
  const probes: Probe[] = [];
  for (let i = 0; i < packets; i++) {
    const target: GenFlow[] = [];
    if (conjunctions.length > 0 && r.chance(0.2)) {
      const clauses = r.pick(conjunctions);
      const byClause = new Map<string, GenFlow>();
      for (const f of clauses)
        if (!byClause.has(f.text.replace(/.*conjunction\(\d+,(\d+)\/.*/, '$1')) || r.chance(0.5))
          byClause.set(f.text.replace(/.*conjunction\(\d+,(\d+)\/.*/, '$1'), f);
      target.push(...byClause.values());
    } else {
      target.push(r.pick(flows.filter((f) => !f.fields.some((x) => x.startsWith('conj_id')))));
    }
    const ctNext = Array.from({ length: r.int(0, 2) }, () => r.pick(CT_STATES));
    let packet = derivePacket(r, target);
    // A group that selects by the datapath's hash needs one: without it OVS 3.1 recirculates to
    // compute it, and its trace stops at `no live bucket`. Other packets carry one at times.
    if (dpHashGroups || r.chance(0.2))
      packet = packet.replace(/^in_port=\d+/, (m) => `${m},dp_hash=0x${r.int(1, 0xffffffff).toString(16)}`);
    probes.push({ packet, ctNext });
  }
  return { seed, flows: flows.map((f) => f.text), groups, probes };
}
