/**
 * The flows OVN-Kubernetes' node agent keeps on a node's gateway bridge (breth0, br-ex), as its
 * sources build them (go-controller/pkg/node/gateway_shared_intf.go: the default bridge's flows,
 * the flows common to every gateway bridge, the per-Service flows of the NodePort watcher, and
 * the flows for IP fragments): for a node with given addresses, subnets, gateway mode and
 * Services. The bridge holds three ports: the uplink (the node's NIC), the patch port into OVN's
 * integration bridge br-int, and the bridge's own LOCAL port, which is the host.
 *
 * What is left out: user-defined networks (a patch port and masquerade addresses per network) and
 * the BGP-advertised pod network. The numbers are those of the agent's defaults: conntrack zone
 * 64000 and the four after it, the masquerade subnets 169.254.169.0/29 and fd69::/125, Geneve on
 * UDP 6081, connection marks 1 (OVN) and 2 (host), packet mark 0x3f0 (SNAT to the node address).
 */
import type { OvsSwitchOptions } from './ovs.ts';

export type GatewayMode = 'shared' | 'local';

/** How a Service's traffic is spread: `local` with an endpoint on the host's network here sends it to the host. */
export interface GatewayService {
  readonly namespace: string;
  readonly name: string;
  readonly protocol: 'tcp' | 'udp' | 'sctp';
  /** The Service port (for external IPs and load-balancer addresses). */
  readonly port: number;
  readonly targetPort: number;
  readonly nodePort?: number;
  readonly externalIPs?: readonly string[];
  readonly ingressIPs?: readonly string[];
  /** externalTrafficPolicy=Local with an endpoint in the host's network on this node. */
  readonly localHostEndpoint?: boolean;
}

export interface GatewayNode {
  readonly nodeName: string;
  readonly bridge: string;
  /** The node's NIC, attached to the bridge. */
  readonly uplink: string;
  readonly mac: string;
  /** The node's addresses on the bridge, by family; either may be absent (single stack). */
  readonly ipv4?: string;
  readonly ipv6?: string;
  /** Other addresses of the node that hairpinned Service traffic may be sent to. */
  readonly extraIPs?: readonly string[];
  readonly mode: GatewayMode;
  readonly serviceCidrs: readonly string[];
  readonly clusterSubnets: readonly string[];
  /** This node's share of the cluster subnets. */
  readonly nodeSubnets: readonly string[];
  readonly egressIP: boolean;
  /** Pod traffic leaves unSNATed (multiple external gateways): replies to Pod subnets go straight to OVN. */
  readonly disableSnatMultipleGws: boolean;
  readonly services: readonly GatewayService[];
}

export const OFPORT_UPLINK = 1;
export const OFPORT_PATCH = 2;

const COOKIE_DEFAULT = '0xdeff105';
const COOKIE_ETP = '0xe745ecf105';
const ZONE = 64000;
const ZONE_HOST_MASQ = ZONE + 1;
const ZONE_OVN_MASQ = ZONE + 2;
const ZONE_NODEPORT = ZONE + 3;
const ZONE_REASSEMBLY = ZONE + 4;
const MARK_OVN = '0x1';
const MARK_HOST = '0x2';
const SNAT_PKT_MARK = '0x3f0';
const GENEVE = 6081;
/** The largest frame the local gateway lets through unchecked: a 1400-byte MTU plus the Ethernet header. */
const MAX_FRAME = 1414;

interface Family {
  readonly ip: 'ip' | 'ipv6';
  readonly src: string;
  readonly dst: string;
  readonly udp: string;
  readonly nodeIp: string;
  readonly ovnMasq: string;
  readonly hostMasq: string;
  readonly masqSubnet: string;
}

function families(node: GatewayNode): Family[] {
  const out: Family[] = [];
  if (node.ipv4 !== undefined) {
    out.push({
      ip: 'ip',
      src: 'nw_src',
      dst: 'nw_dst',
      udp: 'udp',
      nodeIp: node.ipv4,
      ovnMasq: '169.254.169.1',
      hostMasq: '169.254.169.2',
      masqSubnet: '169.254.169.0/29',
    });
  }
  if (node.ipv6 !== undefined) {
    out.push({
      ip: 'ipv6',
      src: 'ipv6_src',
      dst: 'ipv6_dst',
      udp: 'udp6',
      nodeIp: node.ipv6,
      ovnMasq: 'fd69::1',
      hostMasq: 'fd69::2',
      masqSubnet: 'fd69::/125',
    });
  }
  return out;
}

const isV6 = (address: string): boolean => address.includes(':');

function familyOf(node: GatewayNode, address: string): Family | undefined {
  return families(node).find((f) => (f.ip === 'ipv6') === isV6(address));
}

/** The patch port's name: patch-BRIDGE_NODE-to-br-int (OpenFlow shows its first 15 characters). */
export function patchPortName(node: GatewayNode): string {
  return `patch-${node.bridge}_${node.nodeName}-to-br-int`;
}

/** FNV-1a, 64 bits: the agent names each Service's flows by a hash of what they are for. */
function serviceCookie(...parts: readonly (string | number)[]): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(parts.join(''), 'utf8')) {
    h ^= BigInt(byte);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return `0x${h.toString(16)}`;
}

function flow(cookie: string, table: number, priority: number | undefined, match: string, actions: string): string {
  const pri = priority === undefined ? '' : `priority=${priority}, `;
  return `cookie=${cookie}, table=${table}, ${pri}${match}${match === '' ? '' : ', '}actions=${actions}`;
}

const dft = (table: number, priority: number | undefined, match: string, actions: string): string =>
  flow(COOKIE_DEFAULT, table, priority, match, actions);

/** The flows of the default bridge: Geneve past conntrack, host-to-Service masquerading and its hairpins. */
function defaultBridgeFlows(node: GatewayNode): string[] {
  const out: string[] = [];
  const up = OFPORT_UPLINK;
  const patch = OFPORT_PATCH;
  for (const f of families(node)) {
    // Geneve between Nodes is no business of conntrack: to the host when addressed to it, else switched.
    out.push(dft(0, 205, `in_port=${up}, dl_dst=${node.mac}, ${f.udp}, udp_dst=${GENEVE}`, 'output:LOCAL'));
    out.push(dft(0, 200, `in_port=${up}, ${f.udp}, udp_dst=${GENEVE}`, 'NORMAL'));
    out.push(dft(0, 200, `in_port=LOCAL, ${f.udp}, udp_dst=${GENEVE}`, `output:${up}`));
    // A Service the host reached that OVN load-balanced back to the host itself.
    out.push(
      dft(
        0,
        500,
        `in_port=${patch}, ${f.ip}, ${f.dst}=${f.hostMasq}, ${f.src}=${f.nodeIp}`,
        `ct(commit,zone=${ZONE_HOST_MASQ},nat(dst=${f.nodeIp}),table=4)`,
      ),
    );
    for (const extra of node.extraIPs ?? []) {
      if (isV6(extra) !== (f.ip === 'ipv6') || extra === f.nodeIp) continue;
      out.push(
        dft(
          0,
          500,
          `in_port=${patch}, ${f.ip}, ${f.dst}=${extra}, ${f.src}=${f.nodeIp}`,
          `ct(commit,zone=${ZONE_HOST_MASQ},table=4)`,
        ),
      );
    }
    out.push(dft(0, 500, `in_port=LOCAL, ${f.ip}, ${f.dst}=${f.ovnMasq}`, `ct(zone=${ZONE_OVN_MASQ},nat,table=5)`));
  }
  for (const cidr of node.serviceCidrs) {
    const f = familyOf(node, cidr);
    if (!f) continue;
    out.push(
      dft(
        0,
        500,
        `in_port=LOCAL, ${f.ip}, ${f.dst}=${cidr}`,
        `ct(commit,zone=${ZONE_HOST_MASQ},nat(src=${f.hostMasq}),table=2)`,
      ),
    );
    out.push(
      dft(
        0,
        500,
        `in_port=${patch}, ${f.ip}, ${f.src}=${cidr}, ${f.dst}=${f.hostMasq}`,
        `ct(zone=${ZONE_HOST_MASQ},nat,table=3)`,
      ),
    );
    // A reply from a Service address that OVN did not translate has no business outside.
    out.push(dft(0, 105, `in_port=${patch}, ${f.ip}, ${f.dst}=${cidr}`, 'drop'));
  }
  if (node.mode === 'shared') {
    for (const f of families(node))
      out.push(dft(0, 110, `in_port=${up}, ${f.ip}, nw_frag=yes`, `ct(table=0,zone=${ZONE_REASSEMBLY})`));
  }
  const toOvn = node.mode === 'local' ? `check_pkt_larger(${MAX_FRAME})->reg0[0],resubmit(,11)` : `output:${patch}`;
  for (const f of families(node)) {
    out.push(dft(1, 100, `${f.ip}, ct_state=+trk+est, ct_mark=${MARK_OVN}`, toOvn));
    out.push(dft(1, 100, `${f.ip}, ct_state=+trk+rel, ct_mark=${MARK_OVN}`, toOvn));
  }
  for (const f of families(node)) {
    out.push(dft(1, 100, `${f.ip}, ct_state=+trk+est, ct_mark=${MARK_HOST}`, 'output:LOCAL'));
    out.push(dft(1, 100, `${f.ip}, ct_state=+trk+rel, ct_mark=${MARK_HOST}`, 'output:LOCAL'));
  }
  out.push(dft(1, 10, `dl_dst=${node.mac}`, 'output:LOCAL'));
  out.push(dft(2, 100, '', `set_field:${node.mac}->eth_dst,output:${patch}`));
  out.push(
    dft(3, undefined, '', `move:NXM_OF_ETH_DST[]->NXM_OF_ETH_SRC[],set_field:${node.mac}->eth_dst,output:LOCAL`),
  );
  for (const f of families(node))
    out.push(dft(4, undefined, f.ip, `ct(commit,zone=${ZONE_OVN_MASQ},nat(src=${f.ovnMasq}),table=3)`));
  for (const f of families(node)) out.push(dft(5, undefined, f.ip, `ct(commit,zone=${ZONE_HOST_MASQ},nat,table=2)`));
  return out;
}

/** The flows every gateway bridge has: OVN's traffic out of the uplink, replies back to whoever began. */
function commonFlows(node: GatewayNode): string[] {
  const out: string[] = [];
  const up = OFPORT_UPLINK;
  const patch = OFPORT_PATCH;
  out.push(dft(0, 10, `in_port=${up}, dl_dst=${node.mac}`, `output:LOCAL,output:${patch}`));
  out.push(dft(0, 10, `in_port=${patch}, dl_src=${node.mac}`, 'NORMAL'));
  out.push(dft(0, 9, `in_port=${patch}`, 'drop'));
  for (const f of families(node)) {
    out.push(
      dft(
        0,
        105,
        `in_port=${patch}, dl_src=${node.mac}, ${f.ip}, pkt_mark=${SNAT_PKT_MARK}`,
        `ct(commit,zone=${ZONE},nat(src=${f.nodeIp}),exec(set_field:${MARK_OVN}->ct_mark)),output:${up}`,
      ),
    );
    out.push(
      dft(
        0,
        100,
        `in_port=${patch}, dl_src=${node.mac}, ${f.ip}`,
        `ct(commit,zone=${ZONE},exec(set_field:${MARK_OVN}->ct_mark)),output:${up}`,
      ),
    );
    out.push(
      dft(
        0,
        100,
        `in_port=LOCAL, ${f.ip}`,
        `ct(commit,zone=${ZONE},exec(set_field:${MARK_HOST}->ct_mark)),output:${up}`,
      ),
    );
    if (node.mode === 'local') {
      // In the local gateway the host routes OVN's traffic out itself.
      const l4 = f.ip === 'ip' ? ['tcp', 'udp', 'sctp'] : ['tcp6', 'udp6', 'sctp6'];
      for (const p of l4)
        out.push(dft(0, 175, `in_port=${patch}, ${p}, ${f.src}=${f.nodeIp}`, `ct(table=4,zone=${ZONE_HOST_MASQ})`));
      out.push(dft(0, 650, `in_port=${patch}, dl_src=${node.mac}, ${f.udp}, tp_dst=3784`, `output:${up}`));
    }
    out.push(dft(0, 50, `in_port=${up}, ${f.ip}`, `ct(zone=${ZONE},nat,table=1)`));
  }
  if (node.egressIP) {
    for (const cidr of node.clusterSubnets) {
      const f = familyOf(node, cidr);
      if (f) out.push(dft(0, 104, `in_port=${patch}, ${f.ip}, ${f.src}=${cidr}`, 'drop'));
    }
    for (const subnet of node.nodeSubnets) {
      const f = familyOf(node, subnet);
      if (f)
        out.push(
          dft(
            0,
            109,
            `in_port=${patch}, dl_src=${node.mac}, ${f.ip}, ${f.src}=${subnet}`,
            `ct(commit,zone=${ZONE},exec(set_field:${MARK_OVN}->ct_mark)),output:${up}`,
          ),
        );
    }
  }
  if (node.disableSnatMultipleGws) {
    for (const cidr of node.clusterSubnets) {
      const f = familyOf(node, cidr);
      if (f) out.push(dft(1, 15, `${f.ip}, ${f.dst}=${cidr}`, `output:${patch}`));
    }
    for (const subnet of node.nodeSubnets) {
      const f = familyOf(node, subnet);
      // The management port's address, the subnet's second, belongs to the host.
      if (f) out.push(dft(1, 16, `${f.ip}, ${f.dst}=${managementAddress(subnet)}`, 'output:LOCAL'));
    }
  }
  if (node.ipv6 !== undefined) {
    // Router and neighbour advertisements go everywhere: the kernel makes no conntrack entry for them.
    for (const type of [134, 136]) out.push(dft(1, 14, `icmp6, icmpv6_type=${type}`, 'FLOOD'));
    out.push(dft(1, 13, `in_port=${up}, udp6, tp_dst=3784`, `output:${patch},output:LOCAL`));
  }
  if (node.ipv4 !== undefined) out.push(dft(1, 13, `in_port=${up}, udp, tp_dst=3784`, `output:${patch},output:LOCAL`));
  if (node.mode === 'local') {
    out.push(dft(11, 10, 'reg0=0x1', 'output:LOCAL'));
    out.push(dft(11, 1, '', `output:${patch}`));
  }
  out.push(dft(1, 0, '', 'NORMAL'));
  return out;
}

/** The second address of a subnet (10.244.1.0/24 → 10.244.1.2, fd00:10:244:2::/64 → fd00:10:244:2::2). */
function managementAddress(subnet: string): string {
  const base = subnet.split('/')[0]!;
  if (isV6(base)) return base.endsWith('::') ? `${base}2` : `${base}::2`;
  const parts = base.split('.').map(Number);
  parts[3] = parts[3]! + 2;
  return parts.join('.');
}

/** A Service's NodePort, external IPs and load-balancer addresses on this bridge. */
function serviceFlows(node: GatewayNode, svc: GatewayService): string[] {
  const out: string[] = [];
  const up = OFPORT_UPLINK;
  const patch = OFPORT_PATCH;
  const toHost = svc.localHostEndpoint === true;
  if (svc.nodePort !== undefined) {
    for (const f of families(node)) {
      const proto = f.ip === 'ip' ? svc.protocol : `${svc.protocol}6`;
      const cookie = serviceCookie(svc.namespace, svc.name, proto, svc.nodePort);
      const nat = f.ip === 'ip' ? `${f.nodeIp}:${svc.targetPort}` : `[${f.nodeIp}]:${svc.targetPort}`;
      if (toHost) {
        out.push(
          flow(
            cookie,
            0,
            110,
            `in_port=${up}, ${proto}, tp_dst=${svc.nodePort}`,
            `ct(commit,zone=${ZONE_NODEPORT},nat(dst=${nat}),table=6)`,
          ),
        );
        out.push(flow(COOKIE_ETP, 6, 110, '', 'output:LOCAL'));
        out.push(
          flow(
            cookie,
            0,
            110,
            `in_port=LOCAL, ${proto}, tp_src=${svc.targetPort}`,
            `ct(zone=${ZONE_NODEPORT},nat,table=7)`,
          ),
        );
        out.push(flow(COOKIE_ETP, 7, 110, '', `output:${up}`));
      } else if (node.mode === 'shared') {
        out.push(flow(cookie, 0, 110, `in_port=${up}, ${proto}, tp_dst=${svc.nodePort}`, `output:${patch}`));
        out.push(
          flow(
            cookie,
            0,
            110,
            `in_port=${patch}, dl_src=${node.mac}, ${proto}, tp_src=${svc.nodePort}`,
            `output:${up}`,
          ),
        );
      }
    }
  }
  for (const address of [...(svc.ingressIPs ?? []), ...(svc.externalIPs ?? [])]) {
    const f = familyOf(node, address);
    if (!f) continue;
    const v6 = f.ip === 'ipv6';
    const proto = v6 ? `${svc.protocol}6` : svc.protocol;
    const cookie = serviceCookie(svc.namespace, svc.name, address, svc.port);
    // Address resolution for the Service address is the host's to answer, never OVN's.
    const resolve = v6
      ? `icmp6, icmp_type=135, icmp_code=0, nd_target=${address}`
      : `arp, arp_op=1, arp_tpa=${address}`;
    out.push(flow(cookie, 0, 110, `in_port=${up}, ${resolve}`, 'output:LOCAL'));
    if (toHost) {
      const nat = v6 ? `[${f.nodeIp}]:${svc.targetPort}` : `${f.nodeIp}:${svc.targetPort}`;
      out.push(
        flow(
          cookie,
          0,
          110,
          `in_port=${up}, ${proto}, ${f.dst}=${address}, tp_dst=${svc.port}`,
          `ct(commit,zone=${ZONE_NODEPORT},nat(dst=${nat}),table=6)`,
        ),
      );
      out.push(flow(COOKIE_ETP, 6, 110, '', 'output:LOCAL'));
      out.push(
        flow(
          cookie,
          0,
          110,
          `in_port=LOCAL, ${proto}, tp_src=${svc.targetPort}`,
          `ct(commit,zone=${ZONE_NODEPORT},nat,table=7)`,
        ),
      );
      out.push(flow(COOKIE_ETP, 7, 110, '', `output:${up}`));
    } else if (node.mode === 'shared') {
      // Path MTU discovery: "fragmentation needed" for the Service address belongs to OVN too.
      const icmp = v6 ? 'icmp6, icmp_type=2, icmp_code=0' : 'icmp, icmp_type=3, icmp_code=4';
      out.push(flow(cookie, 0, 110, `in_port=${up}, ${icmp}, ${f.dst}=${address}`, `output:${patch}`));
      out.push(
        flow(cookie, 0, 110, `in_port=${up}, ${proto}, ${f.dst}=${address}, tp_dst=${svc.port}`, `output:${patch}`),
      );
      out.push(
        flow(
          cookie,
          0,
          110,
          `in_port=${patch}, dl_src=${node.mac}, ${proto}, ${f.src}=${address}, tp_src=${svc.port}`,
          `output:${up}`,
        ),
      );
    }
  }
  return out;
}

/**
 * Every flow of the node's gateway bridge, one add-flows line each, with the bridge's last resort
 * (priority 0 of table 0: switch normally). Flows the agent writes twice (the per-Service tables 6
 * and 7) are written once, as the switch keeps them.
 */
export function gatewayBridgeFlows(node: GatewayNode): string {
  const flows = [
    ...defaultBridgeFlows(node),
    ...commonFlows(node),
    ...node.services.flatMap((s) => serviceFlows(node, s)),
    'table=0, priority=0, actions=NORMAL',
  ];
  return [...new Set(flows)].join('\n') + '\n';
}

/** The bridge in a real switch: the uplink and the patch port at their numbers, LOCAL with the node's MAC. */
export function gatewayBridgeSwitch(node: GatewayNode): OvsSwitchOptions {
  return {
    bridge: node.bridge,
    protocols: ['OpenFlow13', 'OpenFlow15'],
    hwaddr: node.mac,
    ports: [
      { name: node.uplink, ofport: OFPORT_UPLINK },
      { name: patchPortName(node), ofport: OFPORT_PATCH },
    ],
  };
}

const SERVICES: readonly GatewayService[] = [
  {
    namespace: 'default',
    name: 'web',
    protocol: 'tcp',
    port: 80,
    targetPort: 8080,
    nodePort: 30080,
    externalIPs: ['172.18.0.100'],
  },
  {
    namespace: 'ingress',
    name: 'router',
    protocol: 'tcp',
    port: 443,
    targetPort: 8443,
    nodePort: 31443,
    ingressIPs: ['172.18.0.200'],
    localHostEndpoint: true,
  },
  { namespace: 'kube-system', name: 'dns-ext', protocol: 'udp', port: 53, targetPort: 5353, nodePort: 30053 },
];

/** A dual-stack worker in shared gateway mode with Egress IP, as the documentation's examples set it up. */
export const SHARED_GATEWAY_NODE: GatewayNode = {
  nodeName: 'ovn-worker',
  bridge: 'breth0',
  uplink: 'eth0',
  mac: '02:42:ac:12:00:03',
  ipv4: '172.18.0.3',
  ipv6: 'fc00:f853:ccd:e793::3',
  extraIPs: ['172.20.0.2'],
  mode: 'shared',
  serviceCidrs: ['10.96.0.0/16', 'fd00:10:96::/112'],
  clusterSubnets: ['10.244.0.0/16', 'fd00:10:244::/48'],
  nodeSubnets: ['10.244.1.0/24', 'fd00:10:244:2::/64'],
  egressIP: true,
  disableSnatMultipleGws: false,
  services: SERVICES,
};

/** An IPv4 OpenShift-style node in local gateway mode on br-ex, pod traffic unSNATed for multiple gateways. */
export const LOCAL_GATEWAY_NODE: GatewayNode = {
  nodeName: 'worker-0.example.com',
  bridge: 'br-ex',
  uplink: 'enp1s0',
  mac: '52:54:00:a1:b2:c3',
  ipv4: '192.168.122.10',
  mode: 'local',
  serviceCidrs: ['172.30.0.0/16'],
  clusterSubnets: ['10.128.0.0/14'],
  nodeSubnets: ['10.128.2.0/23'],
  egressIP: false,
  disableSnatMultipleGws: true,
  services: SERVICES,
};
