/**
 * Facts every Antrea pipeline shares across releases: the cookie layout, conntrack zones,
 * constant addresses and port naming. Release-specific entries carry their versions.
 */
import type { BitField, CookieSpan, CtZone, NamedValue, PortRole, WellKnownAddress } from './types.ts';

/** Flow categories in cookie bits 40–47; the numbering changed with the flexible pipeline. */
const COOKIE_CATEGORIES: readonly NamedValue[] = [
  { value: 0n, name: 'Default', meaning: 'table-miss and fixed flows installed at start-up' },
  { value: 1n, name: 'Gateway', meaning: 'flows for the host gateway port', until: '1.5' },
  { value: 2n, name: 'Node', meaning: 'flows for a peer Node (routes, tunnels, ARP replies)', until: '1.5' },
  { value: 3n, name: 'Pod', meaning: 'flows for a local Pod (classification, spoof guard, forwarding)', until: '1.5' },
  { value: 4n, name: 'Service', meaning: 'Service load-balancing flows', until: '1.5' },
  { value: 5n, name: 'Policy', meaning: 'NetworkPolicy rule flows', until: '1.5' },
  { value: 6n, name: 'SNAT', meaning: 'Egress SNAT flows', until: '1.5' },
  { value: 1n, name: 'PodConnectivity', meaning: 'flows that connect Pods, the gateway and peer Nodes', since: '1.6' },
  { value: 2n, name: 'NetworkPolicy', meaning: 'NetworkPolicy rule flows', since: '1.6' },
  { value: 3n, name: 'Service', meaning: 'Service load-balancing flows', since: '1.6' },
  { value: 4n, name: 'Egress', meaning: 'Egress SNAT flows', since: '1.6' },
  { value: 5n, name: 'Multicast', meaning: 'multicast flows', since: '1.6' },
  { value: 6n, name: 'Traceflow', meaning: 'Traceflow flows', since: '1.6', until: '1.6' },
  { value: 6n, name: 'Multicluster', meaning: 'Multi-cluster gateway flows', since: '1.7' },
  { value: 7n, name: 'Traceflow', meaning: 'Traceflow flows', since: '1.7' },
  { value: 8n, name: 'ExternalNodeConnectivity', meaning: 'flows of an agent running on a VM or bare-metal Node', since: '1.8' },
];

export const ANTREA_COOKIE: readonly CookieSpan[] = [
  { start: 0, end: 31, name: 'ObjectID', meaning: 'object the flow belongs to; set only on learned Service affinity flows (the Service group id)', format: 'group' },
  { start: 32, end: 39, name: 'Reserved', meaning: 'unused', format: 'hex' },
  { start: 40, end: 47, name: 'Category', meaning: 'which agent module installed the flow', format: 'enum', values: COOKIE_CATEGORIES },
  { start: 48, end: 63, name: 'Round', meaning: 'agent restart count; flows of earlier rounds are removed once the agent has replayed its flows', format: 'number' },
];

export const ANTREA_CT_ZONE: CtZone = { zone: 65520, name: 'CtZone', meaning: 'main IPv4 connection tracking zone (Service DNAT and NetworkPolicy state)' };
export const ANTREA_SNAT_CT_ZONE: CtZone = {
  zone: 65521,
  name: 'SNATCtZone',
  meaning: 'IPv4 zone for Service SNAT, kept apart from the DNAT zone',
  since: '1.4',
};
export const ANTREA_CT_ZONES_V6: readonly CtZone[] = [
  { zone: 65510, name: 'CtZoneV6', meaning: 'main IPv6 connection tracking zone' },
  { zone: 65511, name: 'SNATCtZoneV6', meaning: 'IPv6 zone for Service SNAT', since: '1.4' },
];
export const ANTREA_WINDOWS_SNAT_CT_ZONE: CtZone = {
  zone: 65500,
  name: 'SNATCtZone (Windows)',
  meaning: 'zone in which Windows Nodes SNAT Pod traffic leaving the cluster',
  until: '1.5',
};

export const GLOBAL_VIRTUAL_MAC: WellKnownAddress = {
  kind: 'mac',
  address: 'aa:bb:cc:dd:ee:ff',
  role: 'virtual-mac',
  name: 'global virtual MAC',
  meaning: 'destination MAC of all tunnelled traffic and the MAC the ARP responder answers with, identical on every Node',
};

/** Addresses of the fixed-number pipelines (before 1.6). */
export const CLASSIC_HAIRPIN_IPS: readonly WellKnownAddress[] = [
  {
    kind: 'ipv4',
    address: '169.254.169.252',
    role: 'hairpin',
    name: 'virtual hairpin IP',
    meaning: 'source address given to a Pod’s own traffic when a Service sends it back to that Pod',
  },
  {
    kind: 'ipv6',
    address: 'fc00::aabb:ccdd:eeff',
    role: 'hairpin',
    name: 'virtual hairpin IPv6',
    meaning: 'IPv6 source address for hairpinned Service traffic',
  },
];

export const CLASSIC_VIRTUAL_SERVICE_IP: WellKnownAddress = {
  kind: 'ipv4',
  address: '169.254.169.253',
  role: 'virtual-ip',
  name: 'virtual Service IP',
  meaning: 'next hop of the host routes that steer Service traffic into OVS, and the SNAT address for Service traffic that returns to the gateway',
};

/** Addresses of the flexible pipeline (`pkg/agent/config/node_config.go`). */
export const FLEXIBLE_ADDRESSES: readonly WellKnownAddress[] = [
  GLOBAL_VIRTUAL_MAC,
  {
    kind: 'ipv4',
    address: '169.254.0.253',
    role: 'virtual-ip',
    name: 'virtual Service IP',
    meaning: 'SNAT address for Service traffic from the host or gateway that must come back through the gateway',
  },
  { kind: 'ipv6', address: 'fc01::aabb:ccdd:eeff', role: 'virtual-ip', name: 'virtual Service IPv6', meaning: 'IPv6 counterpart of the virtual Service IP' },
  {
    kind: 'ipv4',
    address: '169.254.0.252',
    role: 'nodeport',
    name: 'virtual NodePort DNAT IP',
    meaning: 'address iptables rewrites NodePort traffic to before sending it into OVS (proxyAll)',
  },
  { kind: 'ipv6', address: 'fc01::aabb:ccdd:eefe', role: 'nodeport', name: 'virtual NodePort DNAT IPv6', meaning: 'IPv6 counterpart of the virtual NodePort DNAT IP' },
  {
    kind: 'ipv4',
    address: '169.254.0.251',
    role: 'virtual-ip',
    name: 'Egress reply next hop',
    meaning: 'next hop used to route Egress reply traffic back into OVS',
  },
  { kind: 'ipv6', address: 'fc01::aabb:ccdd:eefd', role: 'virtual-ip', name: 'Egress reply next hop (IPv6)', meaning: 'IPv6 counterpart of the Egress reply next hop' },
  { kind: 'ipv4', address: '224.0.0.0/4', role: 'multicast', name: 'IPv4 multicast', meaning: 'multicast destinations, sent to the Multicast sub-pipeline' },
];

/** Pod interface names: the first 8 characters of the Pod name, `-`, 6 hex digits. */
export const POD_PORT: PortRole = {
  role: 'pod',
  namePattern: '[^\\s"]{1,8}-[0-9a-f]{6}',
  meaning: 'a local Pod’s interface',
};

export const ANTREA_PORTS: readonly PortRole[] = [
  { role: 'gateway', names: ['antrea-gw0'], numbers: [2], until: '1.15', meaning: 'host gateway interface: traffic to and from the Node’s network stack' },
  { role: 'gateway', names: ['antrea-gw0'], numbers: [32769], since: '2.0', meaning: 'host gateway interface: traffic to and from the Node’s network stack' },
  { role: 'tunnel', names: ['antrea-tun0'], numbers: [1], until: '1.15', meaning: 'overlay tunnel port (Geneve, VXLAN, GRE or STT) to peer Nodes' },
  { role: 'tunnel', names: ['antrea-tun0'], numbers: [32768], since: '2.0', meaning: 'overlay tunnel port (Geneve, VXLAN, GRE or STT) to peer Nodes' },
  // Before 2.0 the uplink had no fixed number (on Linux, port 3 is usually the first Pod), so none is guessed.
  { role: 'uplink', until: '1.15', meaning: 'Node uplink attached to the bridge (Windows, AntreaIPAM bridging)' },
  { role: 'uplink', numbers: [32770], since: '2.0', meaning: 'Node uplink attached to the bridge (Windows, AntreaIPAM bridging)' },
  { role: 'host', numbers: [32771], since: '2.0', meaning: 'Node host interface when the uplink is moved onto the bridge' },
  { role: 'bridge-local', names: ['LOCAL'], meaning: 'the bridge’s own internal port' },
  { role: 'traffic-control', namePattern: 'antrea-(tc|l7)-tap\\d+', since: '1.7', meaning: 'TrafficControl or L7 NetworkPolicy target/return port' },
  POD_PORT,
];

/** What the matched Antrea-native rule decided (APDisposition), in every layout that has it. */
export const AP_DISPOSITIONS: readonly NamedValue[] = [
  { value: 0n, name: 'Allow', meaning: 'allowed' },
  { value: 1n, name: 'Drop', meaning: 'dropped' },
  { value: 2n, name: 'Reject', meaning: 'rejected' },
  { value: 3n, name: 'Pass', meaning: 'passed on to the K8s NetworkPolicy tables', since: '1.5' },
];

/** Why a packet goes to the agent (CustomReason bits), until 1.12 replaced them with single marks. */
export const CUSTOM_REASONS: readonly NamedValue[] = [
  { value: 1n, name: 'Logging', meaning: 'log the rule match' },
  { value: 2n, name: 'Reject', meaning: 'answer with a reject packet' },
  { value: 4n, name: 'Deny', meaning: 'remember the deny for audit', since: '1.3' },
  { value: 8n, name: 'DNS', meaning: 'DNS response for FQDN policy', since: '1.3' },
  { value: 16n, name: 'IGMP', meaning: 'IGMP report for multicast', since: '1.5' },
];

/** The Endpoint port AntreaProxy selected, in reg4[0..15] in every release. */
export const ENDPOINT_PORT: BitField = { field: 'reg4', start: 0, end: 15, name: 'EndpointPort', meaning: 'port of the selected Endpoint', format: 'number' };

/** How far Endpoint selection has got, in reg4[16..18] in every release. */
export const SERVICE_EP_STATE: BitField = {
  field: 'reg4',
  start: 16,
  end: 18,
  name: 'ServiceEPState',
  meaning: 'how far Endpoint selection has got for a Service packet',
  format: 'enum',
  values: [
    { value: 1n, name: 'EpToSelect', meaning: 'an Endpoint still has to be selected' },
    { value: 2n, name: 'EpSelected', meaning: 'an Endpoint has been selected' },
    { value: 3n, name: 'EpToLearn', meaning: 'selected, and the choice must be learned for session affinity' },
  ],
};
