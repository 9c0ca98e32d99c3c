/**
 * OpenShift SDN (bridge br0): the subnet, multitenant and networkpolicy plugins, egress IPs and
 * the centralized SNAT gateway variant. The pipeline has fixed table numbers and no table names,
 * so the names below are ours, taken from what the tables do.
 *
 * Releases of this profile are the pipeline's rule versions (the second byte of the table-253
 * note), not OpenShift releases: the layout changed with them. Tables that were renumbered
 * carry a suffix saying until when they held that number (`RoutingPre13` is table 30 before
 * rule version 13 moved routing to table 31).
 */
import type { BitField, FlowPattern, NamedValue, Profile, TableSpec } from './types.ts';

const DROP = { action: 'drop' } as const;
const TO_HOST = { action: 'custom', description: 'IP leaves through tun0 to the host, which masquerades it on its way out' } as const;

/** VNID 0 is the one with a meaning of its own. */
const VNID_VALUES: readonly NamedValue[] = [
  { value: 0n, name: 'global', meaning: 'a global namespace (default, openshift-*): reachable from and able to reach every namespace' },
];

const SOURCE_VNID: BitField = {
  field: 'reg0',
  start: 0,
  end: 31,
  name: 'SourceVNID',
  meaning: 'virtual network id (VNID) of the sending namespace: from the tunnel key for VXLAN input, set per Pod otherwise',
  format: 'number',
  values: VNID_VALUES,
};

const DESTINATION_VNID: BitField = {
  field: 'reg1',
  start: 0,
  end: 31,
  name: 'DestinationVNID',
  meaning: 'VNID of the destination Pod’s namespace (or of the Service), set before the isolation check',
  format: 'number',
  values: VNID_VALUES,
};

const OUTPUT_PORT: BitField = {
  field: 'reg2',
  start: 0,
  end: 31,
  name: 'OutputPort',
  meaning: 'port the packet leaves on once the isolation table admits it',
  format: 'port',
};

const CSNAT_GATEWAY: BitField = {
  field: 'reg3',
  start: 0,
  end: 31,
  name: 'CsnatGatewayID',
  meaning: 'centralized SNAT variant only: the SNAT gateway a Pod’s external traffic must leave through',
  format: 'hex',
};

const TUNNEL_VNID: BitField = {
  field: 'tun_id',
  start: 0,
  end: 31,
  name: 'TunnelVNID',
  meaning: 'VNID carried in the VXLAN header between nodes',
  format: 'number',
  values: VNID_VALUES,
};

const EGRESS_MARK: BitField = {
  field: 'pkt_mark',
  start: 0,
  end: 31,
  name: 'EgressIPMark',
  meaning: 'mark derived from the VNID; the host’s iptables SNAT packets with it to the namespace’s egress IP',
  format: 'hex',
  values: [{ value: 0xff000000n, name: 'global', meaning: 'the mark used for VNID 0' }],
  since: '4',
};

/** Anti-spoof and VNID assignment for traffic a local Pod sends. */
const FROM_POD_PATTERNS: readonly FlowPattern[] = [
  {
    match: 'udp',
    fields: ['tp_dst'],
    actions: ['drop'],
    meaning: 'Pods may not send to the VXLAN port {tp_dst}: such packets could pass for tunnel traffic, so they are dropped.',
  },
  {
    match: 'ip',
    fields: ['in_port', 'nw_src'],
    actions: ['set:reg3'],
    meaning: 'Pod {nw_src} on {in_port} is tagged with VNID {reg.SourceVNID} and SNAT gateway {reg.CsnatGatewayID}; it continues in {next}.',
  },
  {
    match: 'arp',
    fields: ['in_port', 'arp_spa'],
    actions: ['set:reg0'],
    meaning: 'ARP from Pod {arp_spa} on {in_port} (sender MAC checked when given) is tagged with VNID {reg.SourceVNID}; it continues in {next}.',
  },
  {
    match: 'ip',
    fields: ['in_port', 'nw_src'],
    actions: ['set:reg0'],
    meaning: 'IP from Pod {nw_src} on {in_port} passes the source check and is tagged with VNID {reg.SourceVNID}; it continues in {next}.',
  },
];

/** General routing, table 30 before rule version 13 and table 31 since. */
const ROUTING_PATTERNS: readonly FlowPattern[] = [
  {
    match: 'arp',
    priority: 300,
    fields: ['arp_tpa'],
    actions: ['output'],
    meaning: 'ARP for the node’s gateway address {arp_tpa} goes to the host through {output}.',
  },
  {
    match: 'ip',
    priority: 300,
    fields: ['nw_dst'],
    actions: ['output'],
    meaning: 'IP for the node’s gateway address {nw_dst} goes to the host through {output}.',
  },
  {
    match: 'ip,ct_state=+rpl',
    actions: ['ct(nat)'],
    meaning: 'Replies to local Pods in {nw_dst} have their Service NAT undone by conntrack and continue in {next}.',
  },
  {
    match: 'ip,nw_dst=169.254.0.0/16',
    actions: ['drop'],
    meaning: 'Link-local destinations ({nw_dst}) are not reachable from Pods: dropped.',
  },
  {
    match: 'ip,in_port=1,nw_dst=224.0.0.0/4',
    meaning: 'Multicast that arrived through the tunnel is delivered to local Pods in {next}.',
  },
  {
    match: 'ip,nw_dst=224.0.0.0/4',
    meaning: 'Multicast sent by local Pods goes through the outbound multicast filter {next}.',
  },
  {
    match: 'arp',
    priority: 200,
    fields: ['arp_tpa'],
    meaning: 'ARP for the local Pod subnet {arp_tpa} continues in {next}.',
  },
  {
    match: 'ip',
    priority: 200,
    fields: ['nw_dst'],
    meaning: 'IP for the local Pod subnet {nw_dst} continues in {next}.',
  },
  {
    match: 'arp',
    priority: 100,
    fields: ['arp_tpa'],
    meaning: 'ARP for {arp_tpa}, elsewhere in the cluster network, goes to {next} to be tunnelled.',
  },
  {
    match: 'ip',
    priority: 100,
    fields: ['nw_dst'],
    meaning: 'IP for {nw_dst} (the Service network or the rest of the cluster network) continues in {next}.',
  },
  {
    match: 'ip',
    priority: 0,
    meaning: 'IP for anywhere else leaves the cluster: it continues in {next}.',
  },
  {
    match: 'arp',
    priority: 0,
    actions: ['drop'],
    meaning: 'ARP for anything outside the cluster network is dropped.',
  },
];

/** DNS to the node's own address, exempt from egress firewalls and egress IPs. */
const NODE_DNS: FlowPattern = {
  match: 'ip',
  fields: ['nw_dst', 'tp_dst'],
  actions: ['output'],
  meaning: 'DNS to the node’s address {nw_dst} (port {tp_dst}) goes straight to the host, whatever egress rules the namespace has.',
};

/** Egress firewall (EgressNetworkPolicy) flows other than an allowed destination. */
const EGRESS_FIREWALL_DENY: readonly FlowPattern[] = [
  {
    match: '',
    priority: 65535,
    fields: ['reg0'],
    actions: ['drop'],
    meaning: 'While the egress firewall of VNID {reg.SourceVNID} is being rewritten, its traffic is dropped.',
  },
  {
    match: 'ip',
    fields: ['reg0'],
    actions: ['drop'],
    meaning: 'The egress firewall of VNID {reg.SourceVNID} denies {nw_dst}: dropped.',
  },
  {
    match: '',
    fields: ['reg0'],
    actions: ['drop'],
    meaning: 'VNID {reg.SourceVNID} has an egress firewall that cannot be applied (several policies, or a shared namespace): all its external traffic is dropped.',
  },
];

const EGRESS_FIREWALL_PURPOSE = 'Applies each namespace’s egress firewall (EgressNetworkPolicy) to traffic leaving the cluster, rule by rule in priority order.';

const V1_TABLES: readonly TableSpec[] = [
  {
    number: 0,
    name: 'V1Classifier',
    purpose: 'Sends packets to the VXLAN, container or host branch by input port.',
    miss: DROP,
    next: ['V1FromVxlan', 'V1FromContainer', 'V1Routing'],
    until: '1',
    patterns: [],
  },
  {
    number: 1,
    name: 'V1FromVxlan',
    purpose: 'Accepts tunnel traffic from known nodes.',
    miss: DROP,
    next: ['V1Routing'],
    until: '1',
    patterns: [{ match: '', fields: ['tun_src'], meaning: 'Tunnel traffic from node {tun_src} is accepted and routed in {next}.' }],
  },
  {
    number: 2,
    name: 'V1FromContainer',
    purpose: 'Checks the source of container traffic and tags it with its VNID.',
    miss: DROP,
    next: ['V1ServiceSplit'],
    until: '1',
    patterns: FROM_POD_PATTERNS,
  },
  {
    number: 3,
    name: 'V1ServiceSplit',
    purpose: 'Separates traffic to Services from the rest.',
    miss: { action: 'goto', table: 'V1Routing' },
    next: ['V1ToService', 'V1Routing'],
    until: '1',
    patterns: [],
  },
  {
    number: 4,
    name: 'V1ToService',
    purpose: 'Lets containers reach the Services of their own namespace (and global ones) through the host.',
    servicesOnly: true,
    miss: DROP,
    next: [],
    until: '1',
    patterns: [{ match: 'reg0=0', actions: ['output'], meaning: 'Global namespaces may reach every Service: out through {output}.' }],
  },
  {
    number: 5,
    name: 'V1Routing',
    purpose: 'Routes by destination: the local gateway, local containers, remote nodes or out of the cluster.',
    miss: DROP,
    next: ['V1ArpToLocal', 'V1IpToLocal', 'V1ToRemote', 'V1EgressNetworkPolicy'],
    until: '1',
    patterns: [],
  },
  { number: 6, name: 'V1ArpToLocal', purpose: 'Delivers ARP to local containers.', miss: DROP, next: [], until: '1', patterns: [] },
  { number: 7, name: 'V1IpToLocal', purpose: 'Delivers IP to local containers after the tenant check.', miss: DROP, next: [], until: '1', patterns: [] },
  { number: 8, name: 'V1ToRemote', purpose: 'Tunnels ARP and IP to the node that hosts the destination subnet.', miss: DROP, next: [], until: '1', patterns: [] },
  {
    number: 9,
    name: 'V1EgressNetworkPolicy',
    purpose: EGRESS_FIREWALL_PURPOSE,
    miss: TO_HOST,
    next: [],
    until: '1',
    patterns: EGRESS_FIREWALL_DENY,
  },
];

const TABLES: readonly TableSpec[] = [
  ...V1_TABLES,
  {
    number: 0,
    name: 'Classifier',
    purpose: 'Sorts packets by where they enter: the VXLAN tunnel (vxlan0), the host (tun0) or a Pod; untracked IP first goes through conntrack.',
    miss: DROP,
    next: ['VxlanIngress', 'FromPod', 'FromPodViaService', 'RoutingPre13', 'ConntrackCommit', 'EgressRoutingPre11'],
    since: '2',
    patterns: [
      {
        match: 'ip,ct_state=-trk',
        actions: ['ct'],
        meaning: 'IP packets not yet tracked go through conntrack in {zone} and come back to {next} with their connection state.',
      },
      {
        match: 'ip,in_port=1',
        priority: 190,
        actions: ['set:reg0'],
        meaning: 'Centralized SNAT: traffic that entered the cluster through the SNAT gateway node arrives by tunnel for {nw_dst}; its VNID is taken from the tunnel key and it continues in {next}.',
      },
      {
        match: 'ip,in_port=1',
        priority: 180,
        actions: ['set:reg0'],
        meaning: 'Centralized SNAT gateway node: Pod traffic from other nodes ({nw_src}) takes its VNID from the tunnel key and goes straight to egress routing in {next}.',
      },
      {
        match: 'arp,in_port=1',
        actions: ['set:reg0'],
        meaning: 'ARP through the tunnel from {arp_spa} for {arp_tpa}: the sender’s VNID is taken from the tunnel key; it continues in {next}.',
      },
      {
        match: 'ip,in_port=1',
        fields: ['nw_src', 'nw_dst'],
        actions: ['set:reg0'],
        meaning: 'IP through the tunnel from {nw_src} to {nw_dst}: the sender’s VNID is taken from the tunnel key; it continues in {next}.',
      },
      {
        // Later releases match the cluster network on one side only.
        match: 'ip,in_port=1',
        actions: ['set:reg0'],
        meaning: 'IP through the tunnel ({nw_src}{nw_dst} in the cluster network): the sender’s VNID is taken from the tunnel key; it continues in {next}.',
      },
      { match: 'in_port=1', actions: ['drop'], meaning: 'Anything else arriving through the tunnel is dropped.' },
      {
        match: 'ip,in_port=2,nw_dst=224.0.0.0/4',
        actions: ['drop'],
        meaning: 'Multicast from the host is dropped.',
      },
      {
        match: 'ip,in_port=2',
        priority: 400,
        fields: ['nw_src'],
        meaning: 'Traffic the node sends from its gateway address {nw_src} continues in {next}.',
      },
      {
        match: 'ip,in_port=2',
        fields: ['nw_src', 'nw_dst'],
        meaning: 'Pod traffic ({nw_src}) coming back from the host after Service DNAT goes to {next} to get its VNID again.',
      },
      {
        match: 'arp,in_port=2',
        meaning: 'ARP from the gateway address {arp_spa} for the cluster network continues in {next}.',
      },
      { match: 'ip,in_port=2', meaning: 'Other IP from the host continues in {next}.' },
      { match: 'in_port=2', actions: ['drop'], meaning: 'Anything else from the host is dropped.' },
      { match: 'arp', meaning: 'ARP from any other port, a Pod, goes to the source check in {next}.' },
      { match: 'ip', meaning: 'IP from any other port, a Pod, goes to the source check in {next}.' },
    ],
  },
  {
    number: 10,
    name: 'VxlanIngress',
    purpose: 'Accepts tunnel traffic only from nodes that own a HostSubnet.',
    miss: DROP,
    next: ['RoutingPre13', 'ConntrackCommit'],
    since: '2',
    patterns: [
      {
        match: 'ip',
        priority: 210,
        fields: ['nw_dst', 'dl_dst'],
        actions: ['set:eth_dst'],
        meaning: 'During migration to OVN-Kubernetes, packets for the gateway {nw_dst} sent to the node MAC {dl_dst} get tun0’s MAC and are looked up again.',
        since: '13',
      },
      {
        match: 'ip',
        priority: 200,
        fields: ['nw_dst', 'dl_dst'],
        actions: ['set:eth_dst'],
        meaning: 'During migration to OVN-Kubernetes, packets for local Pods {nw_dst} sent to the node MAC {dl_dst} get the Pod MAC derived from the address and are looked up again.',
        since: '13',
      },
      { match: '', fields: ['tun_src'], meaning: 'Tunnel traffic from node {tun_src} is accepted and continues in {next}.' },
    ],
  },
  {
    number: 20,
    name: 'FromPod',
    purpose: 'Checks that Pods send only from their own addresses and tags their traffic with the namespace’s VNID.',
    miss: DROP,
    next: ['PodConntrack', 'NetworkPolicyEgress', 'ConntrackCommit', 'RoutingPre13'],
    since: '2',
    patterns: FROM_POD_PATTERNS,
  },
  {
    number: 21,
    name: 'PodConntrack',
    purpose: 'Commits Pod connections to conntrack for the NetworkPolicy plugin; other plugins pass straight through.',
    miss: { action: 'goto', table: 'RoutingPre13' },
    next: ['RoutingPre13'],
    since: '3',
    until: '12',
    patterns: [
      {
        match: 'ip',
        actions: ['ct(commit)'],
        meaning: 'Pod traffic to {nw_dst} is committed to conntrack so that replies can be recognised, then routed in {next}.',
      },
    ],
  },
  {
    number: 25,
    name: 'FromPodViaService',
    purpose: 'Gives Pod traffic that comes back from the host after Service DNAT its VNID again.',
    miss: DROP,
    next: ['RoutingPre13', 'NetworkPolicyEgress'],
    // Added with conntrack in rule version 4 (openshift/sdn 9d444679a, pkg/sdn/plugin/ovscontroller.go,
    // `useConnTrack`): the networkpolicy plugin from 4, multitenant from 8 (a464217bf, node.go),
    // the subnet plugin only once non-conntrack Services were dropped within 13 (916c89f9c).
    since: '4',
    requires: 'conntrack-based Service handling',
    expectedWith: { table: 0, match: 'ip,ct_state=-trk', actions: ['ct'] },
    patterns: [
      {
        match: 'ip',
        fields: ['nw_src'],
        actions: ['set:reg0'],
        meaning: 'Traffic of Pod {nw_src} returning from the host gets VNID {reg.SourceVNID} back and continues in {next}.',
      },
    ],
  },
  {
    number: 27,
    name: 'NetworkPolicyEgress',
    purpose: 'Applies NetworkPolicy egress rules to Pod traffic (the subnet and multitenant plugins let everything through).',
    miss: DROP,
    next: ['ConntrackCommit'],
    since: '13',
    patterns: [
      {
        match: 'ip',
        priority: 500,
        fields: ['nw_src'],
        actions: ['drop'],
        meaning: 'New Pod {nw_src} may not send until its policies are in place: dropped for now.',
      },
      { match: '', priority: 500, meaning: 'This plugin has no egress policy: everything continues in {next}.' },
      {
        match: 'ip',
        priority: 300,
        fields: ['nw_dst'],
        meaning: 'Traffic to the Service network {nw_dst} is checked after DNAT instead; it continues in {next}.',
      },
      { match: 'ip,ct_state=+rpl', meaning: 'Replies on accepted connections continue in {next}.' },
      {
        match: '',
        priority: 100,
        fields: ['reg0'],
        actions: ['drop'],
        meaning: 'Pod {nw_src} of VNID {reg.SourceVNID} is isolated for egress: what no rule allowed is dropped.',
      },
      {
        match: '',
        priority: 50,
        fields: ['reg0'],
        meaning: 'VNID {reg.SourceVNID} has no egress isolation: its traffic continues in {next}.',
      },
      {
        match: '',
        fields: ['reg0'],
        meaning: 'An egress rule of VNID {reg.SourceVNID} allows this traffic; it continues in {next}.',
      },
    ],
  },
  {
    number: 30,
    name: 'ConntrackCommit',
    purpose: 'Commits new connections inside the cluster network to conntrack (NetworkPolicy plugin), then routes.',
    miss: { action: 'goto', table: 'Routing' },
    next: ['Routing'],
    since: '13',
    patterns: [
      {
        match: 'ip,ct_state=-rpl',
        actions: ['ct(commit)'],
        meaning: 'New traffic from {nw_src} to {nw_dst} is committed to conntrack and routed in {next}.',
      },
    ],
  },
  {
    number: 30,
    name: 'RoutingPre13',
    purpose: 'Routes by destination: the node itself, local Pods, Services, remote nodes, multicast or out of the cluster.',
    miss: { action: 'custom', description: 'IP leaving the cluster continues to egress handling; other ARP is dropped' },
    next: [
      'ArpToLocalPod',
      'ArpToRemoteNode',
      'ToService',
      'ToLocalPod',
      'ToRemoteNode',
      'MulticastFilter',
      'MulticastToLocalPods',
      'EgressPreliminaries',
      'EgressRoutingPre11',
      'EgressNetworkPolicyPre4',
    ],
    since: '2',
    until: '12',
    patterns: ROUTING_PATTERNS,
  },
  {
    number: 31,
    name: 'Routing',
    purpose: 'Routes by destination: the node itself, local Pods, Services, remote nodes, multicast or out of the cluster.',
    miss: { action: 'custom', description: 'IP leaving the cluster continues to egress handling; other ARP is dropped' },
    next: ['ArpToLocalPod', 'ArpToRemoteNode', 'ToService', 'ToLocalPod', 'ToRemoteNode', 'MulticastFilter', 'MulticastToLocalPods', 'EgressPreliminaries'],
    since: '13',
    patterns: ROUTING_PATTERNS,
  },
  {
    number: 40,
    name: 'ArpToLocalPod',
    purpose: 'Delivers ARP to the local Pod that owns the target address.',
    miss: DROP,
    next: [],
    since: '2',
    patterns: [{ match: 'arp', fields: ['arp_tpa'], actions: ['output'], meaning: 'ARP for Pod {arp_tpa} is delivered on {output}.' }],
  },
  {
    number: 50,
    name: 'ArpToRemoteNode',
    purpose: 'Tunnels ARP to the node whose HostSubnet holds the target address.',
    miss: DROP,
    next: [],
    since: '2',
    patterns: [
      {
        match: 'arp',
        fields: ['arp_tpa'],
        actions: ['set:tun_dst', 'output'],
        meaning: 'ARP for the subnet {arp_tpa} is tunnelled to node {set.tun_dst}, the sender’s VNID in the tunnel key.',
      },
    ],
  },
  {
    number: 60,
    name: 'ToService',
    purpose: 'Sends traffic for Services to the host, where kube-proxy’s iptables rules pick an endpoint.',
    servicesOnly: true,
    miss: DROP,
    next: ['Isolation'],
    since: '2',
    patterns: [
      {
        match: 'reg0=0',
        actions: ['output'],
        meaning: 'Global namespaces may reach every Service: the packet goes to the host through {output}.',
      },
      { match: '', priority: 200, actions: ['output'], meaning: 'Service traffic goes to the host through {output}.' },
      {
        // Without conntrack, later fragments carry no port and are let through per Service address.
        match: 'ip,nw_frag=later',
        fields: ['nw_dst'],
        actions: ['set:reg1', 'set:reg2'],
        meaning: 'Later fragments of packets to Service {nw_dst}, which carry no port, belong to VNID {reg.DestinationVNID}; the isolation check in {next} decides whether they may go to the host.',
      },
      {
        match: 'ip',
        fields: ['nw_dst', 'tp_dst'],
        actions: ['set:reg1', 'set:reg2'],
        meaning: 'Traffic to Service {nw_dst} port {tp_dst} belongs to VNID {reg.DestinationVNID}; the isolation check in {next} decides whether it may go to the host.',
      },
    ],
  },
  {
    number: 70,
    name: 'ToLocalPod',
    purpose: 'Looks up the local Pod that owns the destination address: its VNID and its port.',
    miss: DROP,
    next: ['Isolation'],
    since: '2',
    patterns: [
      {
        match: 'ip',
        fields: ['nw_dst'],
        actions: ['set:reg1', 'set:reg2'],
        meaning: 'Pod {nw_dst} has VNID {reg.DestinationVNID} and port {reg.OutputPort}; the isolation check in {next} decides delivery.',
      },
    ],
  },
  {
    number: 80,
    name: 'Isolation',
    purpose: 'Decides whether traffic may reach its destination (tenant isolation or NetworkPolicy ingress) and outputs it to the port in reg2.',
    miss: DROP,
    next: [],
    since: '3',
    patterns: [
      {
        match: 'ip',
        priority: 300,
        fields: ['nw_src'],
        actions: ['output'],
        meaning: 'Traffic from the node’s gateway address {nw_src} is always delivered.',
      },
      {
        match: 'ip',
        priority: 500,
        fields: ['nw_dst'],
        actions: ['drop'],
        meaning: 'New Pod {nw_dst} may not receive until its policies are in place: dropped for now.',
      },
      { match: 'reg0=0', actions: ['output'], meaning: 'Traffic from a global namespace is delivered to any Pod.' },
      { match: 'reg1=0', actions: ['output'], meaning: 'Traffic to a global namespace is delivered from any Pod.' },
      { match: 'ip,ct_state=+rpl', actions: ['output'], meaning: 'Replies on accepted connections are delivered.' },
      {
        match: '',
        fields: ['reg0', 'reg1'],
        actions: ['output'],
        meaning: 'Traffic within VNID {reg.DestinationVNID} is delivered.',
      },
      {
        match: '',
        priority: 100,
        fields: ['reg1'],
        actions: ['drop'],
        meaning: 'Pod {nw_dst} of VNID {reg.DestinationVNID} is isolated for ingress: what no policy allowed is dropped.',
      },
      {
        match: '',
        priority: 50,
        fields: ['reg1'],
        actions: ['output'],
        meaning: 'VNID {reg.DestinationVNID} has no ingress isolation: delivered.',
      },
      {
        match: '',
        fields: ['reg1'],
        actions: ['output'],
        meaning: 'A NetworkPolicy of VNID {reg.DestinationVNID} admits this traffic: delivered.',
      },
      { match: '', priority: 200, actions: ['output'], meaning: 'No isolation (subnet plugin): everything is delivered.' },
    ],
  },
  {
    number: 90,
    name: 'ToRemoteNode',
    purpose: 'Tunnels IP to the node whose HostSubnet holds the destination.',
    miss: DROP,
    next: [],
    since: '2',
    patterns: [
      {
        match: 'ip',
        fields: ['nw_dst'],
        actions: ['set:tun_dst', 'output'],
        meaning: 'IP for the subnet {nw_dst} is tunnelled to node {set.tun_dst}, the sender’s VNID in the tunnel key.',
      },
    ],
  },
  {
    number: 99,
    name: 'EgressPreliminaries',
    purpose: 'Lets DNS to the node through before egress firewalls and egress IPs apply.',
    miss: { action: 'goto', table: 'EgressNetworkPolicy' },
    next: ['EgressNetworkPolicy'],
    since: '11',
    patterns: [NODE_DNS],
  },
  {
    number: 100,
    name: 'EgressNetworkPolicyPre4',
    purpose: EGRESS_FIREWALL_PURPOSE,
    miss: TO_HOST,
    next: [],
    since: '2',
    until: '3',
    patterns: [
      NODE_DNS,
      { match: 'ip', fields: ['reg0'], actions: ['output'], meaning: 'The egress firewall of VNID {reg.SourceVNID} allows {nw_dst}: out through {output}.' },
      ...EGRESS_FIREWALL_DENY,
    ],
  },
  {
    number: 100,
    name: 'EgressRoutingPre11',
    purpose: 'Sends the traffic of namespaces with an egress IP to the node that holds it, or marks it for SNAT here.',
    miss: { action: 'goto', table: 'EgressNetworkPolicyPre11' },
    next: ['EgressNetworkPolicyPre11'],
    since: '4',
    until: '10',
    patterns: [
      {
        match: 'udp',
        priority: 300,
        fields: ['tp_dst'],
        actions: ['drop'],
        meaning: 'UDP to the VXLAN port {tp_dst} may not leave the cluster from a Pod: dropped.',
      },
      { ...NODE_DNS, priority: 200 },
      {
        match: 'ip',
        fields: ['reg3'],
        actions: ['set:tun_dst', 'output'],
        meaning: 'Centralized SNAT: traffic of Pods bound to gateway {reg.CsnatGatewayID} is tunnelled to the gateway node {set.tun_dst}.',
      },
      {
        match: 'ip',
        fields: ['reg0'],
        actions: ['set:pkt_mark'],
        meaning: 'The egress IP of VNID {reg.SourceVNID} is on this node: the packet is marked {set.pkt_mark} for the host’s SNAT and continues in {next}.',
      },
      {
        match: 'ip',
        fields: ['reg0'],
        actions: ['set:tun_dst', 'output'],
        meaning: 'The egress IP of VNID {reg.SourceVNID} is on node {set.tun_dst}: the packet is tunnelled there.',
      },
      {
        match: '',
        fields: ['reg0'],
        actions: ['drop'],
        meaning: 'VNID {reg.SourceVNID} needs an egress IP that no node holds: dropped.',
      },
    ],
  },
  {
    number: 100,
    name: 'EgressNetworkPolicy',
    purpose: EGRESS_FIREWALL_PURPOSE,
    miss: { action: 'goto', table: 'EgressRouting' },
    next: ['EgressRouting'],
    since: '11',
    patterns: [
      {
        match: 'ip',
        fields: ['reg0'],
        actions: ['goto:EgressRouting'],
        meaning: 'The egress firewall of VNID {reg.SourceVNID} allows {nw_dst}: it continues in {next}.',
      },
      ...EGRESS_FIREWALL_DENY,
    ],
  },
  {
    number: 101,
    name: 'EgressNetworkPolicyPre11',
    purpose: EGRESS_FIREWALL_PURPOSE,
    miss: TO_HOST,
    next: [],
    since: '4',
    until: '10',
    patterns: [
      NODE_DNS,
      { match: 'ip', fields: ['reg0'], actions: ['output'], meaning: 'The egress firewall of VNID {reg.SourceVNID} allows {nw_dst}: out through {output}.' },
      ...EGRESS_FIREWALL_DENY,
    ],
  },
  {
    number: 101,
    name: 'EgressRouting',
    purpose: 'Sends the traffic of namespaces with an egress IP through their egress IP group; everything else leaves through tun0.',
    miss: TO_HOST,
    next: [],
    since: '11',
    patterns: [
      { match: 'ct_state=+rpl', actions: ['output'], meaning: 'Replies leave through {output} without egress IP handling.' },
      {
        match: 'ip',
        fields: ['reg0'],
        actions: ['group'],
        meaning: 'VNID {reg.SourceVNID} has an egress IP: group {group} sends the packet to the node that holds it (or marks it for SNAT here).',
      },
      {
        match: '',
        fields: ['reg0'],
        actions: ['drop'],
        meaning: 'VNID {reg.SourceVNID} needs an egress IP that no node holds: dropped.',
      },
    ],
  },
  {
    number: 110,
    name: 'MulticastFilter',
    purpose: 'Lets out multicast only from namespaces that enabled it.',
    miss: DROP,
    next: ['MulticastToVxlan'],
    since: '3',
    patterns: [{ match: '', fields: ['reg0'], meaning: 'VNID {reg.SourceVNID} has multicast enabled: its multicast continues in {next}.' }],
  },
  {
    number: 111,
    name: 'MulticastToVxlan',
    purpose: 'Copies local multicast through the tunnel to every other node, then on to local delivery.',
    miss: { action: 'none' },
    next: ['MulticastToLocalPods'],
    since: '3',
    patterns: [
      {
        match: '',
        actions: ['set:tun_dst', 'output'],
        meaning: 'Multicast is copied through the tunnel to each node (VNID in the tunnel key), then delivered locally in {next}.',
      },
      { match: '', meaning: 'No other node to copy multicast to: it is delivered locally in {next}.' },
    ],
  },
  {
    number: 120,
    name: 'MulticastToLocalPods',
    purpose: 'Delivers multicast to the local Pods of the sending namespace.',
    miss: DROP,
    next: [],
    since: '3',
    patterns: [
      {
        match: '',
        fields: ['reg0'],
        actions: ['output'],
        meaning: 'Multicast of VNID {reg.SourceVNID} is delivered to that namespace’s local Pods (first {output}).',
      },
    ],
  },
  {
    number: 253,
    name: 'RuleVersion',
    purpose: 'Holds one flow whose note records the plugin and rule version; not on the packet path. A missing or different note makes the SDN rebuild br0.',
    miss: { action: 'none' },
    next: [],
    patterns: [
      {
        match: '',
        actions: ['note'],
        meaning: 'Version note: first byte the plugin (0 subnet, 1 multitenant, 2 networkpolicy), second byte the rule version.',
      },
    ],
  },
];

export const openshiftSdn: Profile = {
  id: 'openshift-sdn',
  title: 'OpenShift SDN (br0, rule versions 1–13)',
  product: 'OpenShift SDN',
  versions: { since: '1', until: '13' },
  description:
    'The br0 bridge of OpenShift SDN nodes with the subnet, multitenant or networkpolicy plugin: VXLAN between nodes, ' +
    'tun0 to the host, namespaces told apart by VNIDs in reg0 (source) and reg1 (destination), egress firewalls, ' +
    'egress IPs and the centralized SNAT gateway variant. Releases here are rule versions, the number the table-253 ' +
    'note carries: tables were renumbered in version 2, the egress tables changed places in 4 and 11, and version 13 ' +
    'added NetworkPolicy egress (table 27) and split routing off into table 31.',
  tableNaming: 'number',
  tables: TABLES,
  bitFields: [SOURCE_VNID, DESTINATION_VNID, OUTPUT_PORT, CSNAT_GATEWAY, TUNNEL_VNID, EGRESS_MARK],
  cookie: [
    {
      start: 0,
      end: 31,
      name: 'HostSubnet',
      // hostSubnetCookie in pkg/network/node/ovscontroller.go since e0a069b2f (rule version 7).
      meaning: 'for flows of a peer node’s subnet (tables 10, 50, 90), the first 4 bytes of the SHA-256 of its HostSubnet UID; otherwise a marker',
      format: 'node',
      values: [
        { value: 1n, name: 'EgressFirewallUpdate', meaning: 'temporary drop while an egress firewall is rewritten' },
        { value: 0x4466b9ebn, name: 'PolicyIsolation', meaning: 'temporary drop for a new Pod until its NetworkPolicies are in place' },
      ],
    },
  ],
  ctZones: [{ zone: 0, name: 'default', meaning: 'the only zone used: connection state for Service NAT and NetworkPolicy' }],
  addresses: [
    { kind: 'ipv4', address: '224.0.0.0/4', role: 'multicast', name: 'IPv4 multicast', meaning: 'multicast, filtered per namespace in tables 110–120' },
    { kind: 'ipv4', address: '169.254.0.0/16', role: 'other', name: 'link-local', meaning: 'not reachable from Pods' },
  ],
  ports: [
    { role: 'tunnel', names: ['vxlan0'], numbers: [1], meaning: 'VXLAN port to the other nodes; the tunnel key carries the VNID' },
    { role: 'gateway', names: ['tun0'], numbers: [2], meaning: 'internal port to the host: the node’s address in the Pod subnet, Services, the outside' },
    { role: 'bridge-local', names: ['LOCAL', 'br0'], meaning: 'the bridge’s own internal port, unused by the pipeline' },
    { role: 'pod', namePattern: 'veth[0-9a-f]{8}', meaning: 'a local Pod’s veth' },
  ],
  groups: [
    {
      type: 'select',
      bucketActions: ['set:tun_dst', 'output'],
      meaning: 'Egress IP of a namespace held by other nodes: each bucket tunnels to one of them.',
      since: '10',
    },
    {
      type: 'select',
      bucketActions: ['set:pkt_mark', 'output'],
      meaning: 'Egress IP of a namespace held by this node: the packet is marked for the host’s SNAT and sent to tun0.',
      since: '10',
    },
  ],
  detect: [
    { kind: 'note', table: 253, pattern: '^0[0-2]\\.01(\\.|$)', weight: 12, until: '1' },
    { kind: 'note', table: 253, pattern: '^0[0-2]\\.02(\\.|$)', weight: 12, since: '2', until: '2' },
    { kind: 'note', table: 253, pattern: '^0[0-2]\\.03(\\.|$)', weight: 12, since: '3', until: '3' },
    { kind: 'note', table: 253, pattern: '^0[0-2]\\.04(\\.|$)', weight: 12, since: '4', until: '4' },
    { kind: 'note', table: 253, pattern: '^0[0-2]\\.05(\\.|$)', weight: 12, since: '5', until: '5' },
    { kind: 'note', table: 253, pattern: '^0[0-2]\\.06(\\.|$)', weight: 12, since: '6', until: '6' },
    { kind: 'note', table: 253, pattern: '^0[0-2]\\.07(\\.|$)', weight: 12, since: '7', until: '7' },
    { kind: 'note', table: 253, pattern: '^0[0-2]\\.08(\\.|$)', weight: 12, since: '8', until: '8' },
    { kind: 'note', table: 253, pattern: '^0[0-2]\\.09(\\.|$)', weight: 12, since: '9', until: '9' },
    { kind: 'note', table: 253, pattern: '^0[0-2]\\.0a(\\.|$)', weight: 12, since: '10', until: '10' },
    { kind: 'note', table: 253, pattern: '^0[0-2]\\.0b(\\.|$)', weight: 12, since: '11', until: '11' },
    { kind: 'note', table: 253, pattern: '^0[0-2]\\.0c(\\.|$)', weight: 12, since: '12', until: '12' },
    { kind: 'note', table: 253, pattern: '^0[0-2]\\.0d(\\.|$)', weight: 12, since: '13', until: '13' },
    { kind: 'table-number', number: 253, weight: 3 },
    { kind: 'table-number', number: 111, weight: 2 },
    { kind: 'table-number', number: 120, weight: 1 },
    { kind: 'table-number', number: 21, weight: 1, since: '3', until: '12' },
    { kind: 'table-number', number: 99, weight: 1, since: '11' },
    { kind: 'table-number', number: 27, weight: 1, since: '13' },
    { kind: 'port-name', pattern: 'vxlan0', weight: 3 },
    { kind: 'port-name', pattern: 'tun0', weight: 3 },
    { kind: 'port-name', pattern: 'veth[0-9a-f]{8}', weight: 1 },
    { kind: 'flow', table: 0, match: 'in_port=1', actions: ['set:reg0'], weight: 4 },
    { kind: 'flow', table: 0, match: 'ip', actions: ['goto:FromPod'], weight: 2 },
    { kind: 'flow', table: 20, match: 'ip', actions: ['set:reg0'], weight: 2 },
    { kind: 'flow', table: 70, match: 'ip', actions: ['set:reg1', 'set:reg2'], weight: 3 },
    { kind: 'flow', match: '', actions: ['set:tun_id'], weight: 1 },
    { kind: 'flow', table: 10, match: '', actions: ['set:eth_dst'], weight: 1, since: '13' },
    { kind: 'flow', table: 100, match: 'ip', actions: ['set:pkt_mark'], weight: 1, since: '4', until: '10' },
    { kind: 'flow', table: 101, match: 'ip', actions: ['group'], weight: 1, since: '10' },
    { kind: 'port-name', pattern: 'antrea-.*', weight: -6 },
    { kind: 'table-name', name: 'PipelineRootClassifier', weight: -10 },
  ],
};
