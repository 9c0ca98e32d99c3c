/**
 * Building blocks of Antrea's fixed-number pipelines (releases before 1.6): register and mark
 * layouts and the tables whose flows stayed the same across the kube-proxy, ClusterNetworkPolicy,
 * AntreaProxy and policy-only variants. Each profile takes these and adds or overrides its own.
 */
import { AP_DISPOSITIONS, CUSTOM_REASONS, ENDPOINT_PORT, SERVICE_EP_STATE } from './antrea-common.ts';
import type { BitField, DetectionSignal, FlowPattern, NamedValue, TableSpec } from './types.ts';

const SOURCE_VALUES: readonly NamedValue[] = [
  { value: 0n, name: 'FromTunnel', meaning: 'arrived through the overlay tunnel from a peer Node' },
  { value: 1n, name: 'FromGateway', meaning: 'arrived from the host through the gateway port' },
  { value: 2n, name: 'FromLocal', meaning: 'sent by a local Pod' },
  { value: 4n, name: 'FromUplink', meaning: 'arrived on the Node uplink attached to the bridge', since: '0.9' },
  { value: 5n, name: 'FromBridge', meaning: 'sent by the bridge’s LOCAL port', since: '0.13' },
];

export const PKT_SOURCE_WIDE: BitField = {
  field: 'reg0',
  start: 0,
  end: 15,
  name: 'PktSource',
  meaning: 'where the packet entered the bridge, written by the classifier',
  format: 'enum',
  values: SOURCE_VALUES,
  until: '1.2',
};

export const PKT_SOURCE_NARROW: BitField = { ...PKT_SOURCE_WIDE, end: 3, since: '1.3', until: '1.5' };

export const OFPORT_FOUND: BitField = {
  field: 'reg0',
  start: 16,
  end: 16,
  name: 'OFPortFound',
  meaning: 'the destination MAC is known and reg1 holds the output port',
  format: 'flag',
  values: [
    { value: 1n, name: 'PortFound', meaning: 'output port resolved' },
    { value: 0n, name: 'PortNotFound', meaning: 'no output port; the packet is dropped at the end' },
  ],
};

export const TARGET_OFPORT: BitField = {
  field: 'reg1',
  start: 0,
  end: 31,
  name: 'TargetOFPort',
  meaning: 'output port chosen by L2 forwarding (or the gateway for Service traffic)',
  format: 'port',
};

export const EGRESS_CONJ_ID: BitField = {
  field: 'reg5',
  start: 0,
  end: 31,
  name: 'EgressConjID',
  meaning: 'conj_id of the egress rule that allowed the packet (read by Traceflow)',
  format: 'number',
};

export const INGRESS_CONJ_ID: BitField = {
  field: 'reg6',
  start: 0,
  end: 31,
  name: 'IngressConjID',
  meaning: 'conj_id of the ingress rule that allowed the packet (read by Traceflow)',
  format: 'number',
};

export const INGRESS_RULE_CT_LABEL: BitField = {
  field: 'ct_label',
  start: 0,
  end: 31,
  name: 'IngressRuleCTLabel',
  meaning: 'conj_id of the ingress rule that admitted the connection, kept for rule metrics',
  format: 'number',
};

export const EGRESS_RULE_CT_LABEL: BitField = {
  field: 'ct_label',
  start: 32,
  end: 63,
  name: 'EgressRuleCTLabel',
  meaning: 'conj_id of the egress rule that admitted the connection, kept for rule metrics',
  format: 'number',
};

/** ct_mark as one value, as the kube-proxy and early AntreaProxy pipelines set it. */
export const CT_MARK_WHOLE: BitField = {
  field: 'ct_mark',
  start: 0,
  end: 31,
  name: 'ConnMark',
  meaning: 'what kind of connection this is, set when it is committed',
  format: 'enum',
  values: [
    { value: 0x20n, name: 'FromGateway', meaning: 'connection first seen coming from the gateway' },
    { value: 0x21n, name: 'Service', meaning: 'connection to a Service, DNATed by AntreaProxy', since: '0.8' },
    { value: 0x22n, name: 'FromBridge', meaning: 'connection first seen coming from the bridge LOCAL port', since: '1.4' },
    { value: 0x40n, name: 'SNAT', meaning: 'connection SNATed by a Windows Node', since: '0.9' },
  ],
  until: '1.4',
};

/** From 1.5 the marks are single bits so that several can be set on one connection. */
export const CT_MARK_BITS: readonly BitField[] = [
  { field: 'ct_mark', start: 1, end: 1, name: 'FromGatewayCTMark', meaning: 'connection first seen coming from the gateway', format: 'flag', since: '1.5', until: '1.5' },
  { field: 'ct_mark', start: 2, end: 2, name: 'ServiceCTMark', meaning: 'connection to a Service', format: 'flag', since: '1.5', until: '1.5' },
  { field: 'ct_mark', start: 3, end: 3, name: 'FromBridgeCTMark', meaning: 'connection first seen from the bridge LOCAL port', format: 'flag', since: '1.5', until: '1.5' },
];

/**
 * Rule tables (Antrea-native, K8s NetworkPolicy, baseline): the bypass for established
 * connections, the action flows of matched rules, and conjunction clauses.
 */
const ESTABLISHED_MEANING = 'Packets of established connections skip the rules of {table} and continue in {next}.';

export const RULE_PATTERNS: readonly FlowPattern[] = [
  {
    match: 'ct_state=-new+est',
    meaning: ESTABLISHED_MEANING,
  },
  {
    match: 'ct_state=-new+rel',
    meaning: 'Packets related to established connections skip the rules of {table} and continue in {next}.',
  },
  {
    match: '',
    fields: ['conj_id'],
    actions: ['ct(commit)'],
    meaning:
      'Rule {conj_id} allows the packet: the rule id is kept in a register and in the connection’s label, the connection is committed in {zone}, and the packet continues in {next}.',
  },
  {
    match: '',
    fields: ['conj_id'],
    actions: ['set:reg3'],
    meaning: 'Rule {conj_id} denies the packet: its id goes to reg3 and the deny mark is set, so {next} counts and drops it.',
  },
  {
    match: '',
    fields: ['conj_id'],
    actions: ['drop'],
    meaning: 'Rule {conj_id} drops the packet.',
  },
  {
    match: '',
    fields: ['conj_id'],
    meaning: 'Rule {conj_id} matched; the packet continues in {next}.',
  },
  {
    match: '',
    actions: ['conjunction'],
    meaning: 'One dimension of a policy rule (source, destination, applied-to or service): packets matching it satisfy clause {conjunction}.',
  },
];

/**
 * Antrea-native policy tables, the first rule tables packets meet: the agent always installs
 * their established-connection flow (IPv4 or IPv6), so later packets of admitted connections skip
 * every rule.
 */
export const POLICY_RULE_PATTERNS: readonly FlowPattern[] = [
  { match: 'ct_state=-new+est', expected: true, meaning: ESTABLISHED_MEANING },
  ...RULE_PATTERNS,
];

export const CLASSIFIER: TableSpec = {
  number: 0,
  name: 'ClassifierTable',
  aliases: ['Classification'],
  purpose: 'Tells where each packet came from (tunnel, gateway, local Pod) by its input port and records it in reg0.',
  miss: { action: 'drop' },
  next: ['SpoofGuardTable', 'ConntrackTable'],
  patterns: [
    {
      match: '',
      fields: ['in_port'],
      actions: ['set:reg0'],
      meaning: 'Packets entering on {in_port} are marked {reg.PktSource} and continue in {next}.',
    },
  ],
};

export const SPOOF_GUARD_IP_PATTERNS: readonly FlowPattern[] = [
  {
    match: 'ip',
    fields: ['in_port', 'dl_src', 'nw_src'],
    meaning: 'IP packets from {in_port} pass only with the Pod’s own MAC {dl_src} and address {nw_src}; they continue in {next}.',
  },
  {
    match: 'ipv6',
    fields: ['in_port', 'dl_src', 'ipv6_src'],
    meaning: 'IPv6 packets from {in_port} pass only with the Pod’s own MAC {dl_src} and address {ipv6_src}; they continue in {next}.',
  },
  {
    match: '',
    fields: ['in_port'],
    meaning: 'All IP packets from {in_port} pass unchecked (the gateway may carry Pod sources after host NAT); they continue in {next}.',
  },
];

export const SPOOF_GUARD_ARP_PATTERNS: readonly FlowPattern[] = [
  {
    match: 'arp',
    fields: ['in_port', 'arp_spa', 'arp_sha'],
    meaning: 'ARP from {in_port} passes only when it announces {arp_spa} at {arp_sha}; it continues in {next}.',
  },
];

export const SPOOF_GUARD: TableSpec = {
  number: 10,
  name: 'SpoofGuardTable',
  aliases: ['SpoofGuard'],
  purpose: 'Rejects IP and ARP packets whose source addresses are not those Antrea gave the sending Pod.',
  miss: { action: 'drop' },
  next: ['ConntrackTable', 'ARPResponderTable'],
  patterns: [...SPOOF_GUARD_ARP_PATTERNS, ...SPOOF_GUARD_IP_PATTERNS],
};

export const ARP_RESPONDER: TableSpec = {
  number: 20,
  name: 'ARPResponderTable',
  aliases: ['ARPResponder'],
  purpose: 'Answers the gateway’s ARP requests for peer Node gateways with the global virtual MAC; other ARP is switched normally.',
  miss: { action: 'drop' },
  next: [],
  patterns: [
    {
      match: 'arp,arp_op=1',
      fields: ['arp_tpa'],
      actions: ['in_port'],
      meaning: 'ARP requests for {arp_tpa} get a reply built in place, giving the global virtual MAC, sent back out the port they came from.',
    },
    {
      match: 'arp',
      actions: ['normal'],
      meaning: 'Remaining ARP is handled like an ordinary learning switch would (NORMAL).',
    },
  ],
};

export const CONNTRACK: TableSpec = {
  number: 30,
  name: 'ConntrackTable',
  aliases: ['ConntrackZone'],
  purpose: 'Runs every IP packet through connection tracking in Antrea’s zone.',
  miss: { action: 'none' },
  next: ['ConntrackStateTable'],
  patterns: [
    {
      match: 'ip',
      actions: ['ct'],
      meaning: 'IP packets go through conntrack in {zone} and continue in {next} with their connection state known.',
    },
  ],
};

export const CONNTRACK_STATE_PATTERNS: readonly FlowPattern[] = [
  {
    match: 'ct_state=+inv+trk,ip',
    actions: ['drop'],
    meaning: 'Packets conntrack considers invalid are dropped.',
  },
  {
    match: 'ct_state=-new+trk,ct_mark=0x20,ip,reg0=0x1/0xf',
    meaning: 'Packets of gateway-initiated connections that come from the gateway itself keep their MAC and continue in {next}.',
  },
  {
    match: 'ct_state=-new+trk,ct_mark=0x20,ip',
    actions: ['set:eth_dst'],
    meaning: 'Replies on connections first seen from the gateway are addressed to the gateway MAC {set.eth_dst}, so they return through the host (kube-proxy undoes its NAT).',
  },
];

export const EGRESS_DEFAULT_PATTERNS: readonly FlowPattern[] = [
  {
    match: 'ip',
    fields: ['nw_src'],
    actions: ['drop'],
    meaning: 'Pod {nw_src} is isolated for egress: packets no egress rule allowed are dropped.',
  },
  ...RULE_PATTERNS,
];

export const INGRESS_DEFAULT_PATTERNS: readonly FlowPattern[] = [
  {
    match: 'ip',
    fields: ['reg1'],
    actions: ['drop'],
    meaning: 'The Pod on port {reg.TargetOFPort} is isolated for ingress: packets no ingress rule allowed are dropped.',
  },
  ...RULE_PATTERNS,
];

/** Metric tables of the fixed-number pipelines; the Antrea-native deny mark is reg0 bit 20. */
export const EGRESS_METRIC_PATTERNS: readonly FlowPattern[] = [
  {
    match: 'ct_state=+new',
    fields: ['ct_label'],
    meaning: 'Counts the first packets of connections admitted by egress rule {reg.EgressRuleCTLabel}; continues in {next}.',
  },
  {
    match: 'ct_state=-new',
    fields: ['ct_label'],
    meaning: 'Counts later packets of connections admitted by egress rule {reg.EgressRuleCTLabel}; continues in {next}.',
  },
  {
    match: 'reg0=0x100000/0x100000',
    fields: ['reg3'],
    actions: ['drop'],
    meaning: 'Counts and drops packets denied by Antrea-native egress rule {reg3}.',
  },
];

export const INGRESS_METRIC_PATTERNS: readonly FlowPattern[] = [
  {
    match: 'ct_state=+new',
    fields: ['ct_label'],
    meaning: 'Counts the first packets of connections admitted by ingress rule {reg.IngressRuleCTLabel}; continues in {next}.',
  },
  {
    match: 'ct_state=-new',
    fields: ['ct_label'],
    meaning: 'Counts later packets of connections admitted by ingress rule {reg.IngressRuleCTLabel}; continues in {next}.',
  },
  {
    match: 'reg0=0x100000/0x100000',
    fields: ['reg3'],
    actions: ['drop'],
    meaning: 'Counts and drops packets denied by Antrea-native ingress rule {reg3}.',
  },
];

export const L2_FORWARDING_CALC_PATTERNS: readonly FlowPattern[] = [
  {
    match: '',
    fields: ['dl_dst'],
    actions: ['set:reg1'],
    meaning: 'Frames for {dl_dst} leave on port {reg.TargetOFPort}; the destination is marked known and the packet continues in {next}.',
  },
];

export const DEC_TTL_PATTERNS: readonly FlowPattern[] = [
  {
    match: 'ip,reg0=0x1/0xf',
    meaning: 'Packets from the gateway keep their TTL (the host already decremented it) and continue in {next}.',
  },
  {
    match: 'ip',
    actions: ['dec_ttl'],
    meaning: 'Routed packets have their TTL decremented and continue in {next}.',
  },
];

export const CONNTRACK_COMMIT_PATTERNS: readonly FlowPattern[] = [
  {
    match: 'ct_state=+new+trk,ip,reg0=0x1/0xf',
    actions: ['ct(commit)'],
    meaning: 'New connections from the gateway are committed in {zone} with a mark that sends their replies back through the gateway.',
  },
  {
    match: 'ct_state=+new+trk,ip',
    actions: ['ct(commit)'],
    meaning: 'New connections that passed the policy tables are committed in {zone}; packets continue in {next}.',
  },
];

export const OUTPUT_PATTERNS: readonly FlowPattern[] = [
  {
    match: 'ip,reg0=0x10000/0x10000',
    actions: ['output'],
    meaning: 'Packets whose destination was resolved leave on the port in reg1.',
  },
];

/** reg0 flags above the source field, as fields.go/pipeline.go defined them up to 1.5. */
export const REG0_FLAGS: readonly BitField[] = [
  { field: 'reg0', start: 17, end: 17, name: 'SNATNodeIP', meaning: 'the packet must be SNATed to the Node IP (Windows)', format: 'flag', since: '0.9' },
  { field: 'reg0', start: 18, end: 18, name: 'Hairpin', meaning: 'the packet leaves through the port it came in on (IN_PORT output)', format: 'flag', since: '0.8' },
  {
    field: 'reg0',
    start: 19,
    end: 19,
    name: 'RewriteMAC',
    meaning: 'source and destination MACs are rewritten in L3 forwarding (tunnel and Service traffic)',
    format: 'flag',
    since: '0.8',
  },
  { field: 'reg0', start: 20, end: 20, name: 'CnpDeny', meaning: 'an Antrea-native rule denied the packet; the metric table drops it', format: 'flag', since: '0.13' },
  {
    field: 'reg0',
    start: 21,
    end: 22,
    name: 'APDisposition',
    meaning: 'what the matched Antrea-native rule decided, for logging',
    format: 'enum',
    since: '0.13',
    values: AP_DISPOSITIONS,
  },
  {
    field: 'reg0',
    start: 24,
    end: 28,
    name: 'CustomReason',
    meaning: 'why a packet is sent to the agent (packet-in)',
    format: 'bitmask',
    since: '0.13',
    values: CUSTOM_REASONS,
  },
];

/** Endpoint selection state written by AntreaProxy, and the registers around it. */
export const SERVICE_FIELDS: readonly BitField[] = [
  {
    field: 'reg3',
    start: 0,
    end: 31,
    name: 'EndpointIP',
    meaning: 'IPv4 address of the Endpoint the Service group selected',
    format: 'ipv4',
    sharesBitsWith: ['DenyConjID'],
  },
  ENDPOINT_PORT,
  SERVICE_EP_STATE,
  { field: 'reg4', start: 19, end: 19, name: 'NodePort', meaning: 'the destination is a NodePort address of this Node', format: 'flag', since: '1.4' },
  { field: 'reg4', start: 20, end: 20, name: 'ServiceNeedSNAT', meaning: 'NodePort/LoadBalancer traffic from the gateway must be SNATed', format: 'flag', since: '1.4' },
  { field: 'reg4', start: 21, end: 21, name: 'AntreaFlexibleIPAM', meaning: 'the Pod uses AntreaIPAM addresses', format: 'flag', since: '1.4' },
  { field: 'reg7', start: 0, end: 31, name: 'ServiceGroupID', meaning: 'group id of the Service being load-balanced', format: 'group', since: '1.4' },
];

export const DENY_CONJ_ID: BitField = {
  field: 'reg3',
  start: 0,
  end: 31,
  name: 'DenyConjID',
  meaning: 'conj_id of the Antrea-native rule that denied the packet, for the metric table',
  format: 'number',
};

/** With AntreaProxy, reg3 also holds the Endpoint IP: the deny reading applies where deny rules write it and metric tables read it. */
export const DENY_CONJ_ID_BESIDE_ENDPOINT: BitField = {
  ...DENY_CONJ_ID,
  sharesBitsWith: ['EndpointIP'],
  tables: ['AntreaPolicyEgressRuleTable', 'AntreaPolicyIngressRuleTable', 'EgressDefaultTable', 'IngressDefaultTable', 'EgressMetricTable', 'IngressMetricTable'],
};

export const EGRESS_SNAT_MARK: BitField = {
  field: 'pkt_mark',
  start: 0,
  end: 7,
  name: 'EgressSNATMark',
  meaning: 'id of the Egress IP the host SNATs the connection to',
  format: 'number',
  since: '1.0',
};

export const UPLINK: TableSpec = {
  number: 5,
  name: 'UplinkTable',
  aliases: ['Uplink'],
  purpose: 'Handles traffic between the Node uplink and the bridge’s own port (Windows Nodes, later AntreaIPAM).',
  miss: { action: 'goto', table: 'SpoofGuardTable' },
  next: ['SpoofGuardTable', 'ConntrackTable'],
  since: '0.9',
  requires: 'uplink attached to the bridge',
  patterns: [
    {
      match: '',
      fields: ['in_port'],
      actions: ['output'],
      meaning: 'Packets entering on {in_port} are passed straight to {output}.',
    },
  ],
};

/** Both pipelines hand neighbour discovery and IPv6 multicast to NORMAL. */
export const IPV6_PATTERNS: readonly FlowPattern[] = [
  { match: 'icmp6', actions: ['normal'], meaning: 'Neighbour discovery messages are switched normally.' },
  { match: 'ipv6', fields: ['ipv6_dst'], actions: ['normal'], meaning: 'IPv6 multicast to {ipv6_dst} is switched normally.' },
];

export const IPV6: TableSpec = {
  number: 21,
  name: 'IPv6Table',
  aliases: ['IPv6'],
  purpose: 'Hands IPv6 neighbour discovery and multicast to normal switching.',
  miss: { action: 'goto', table: 'ConntrackTable' },
  next: ['ConntrackTable'],
  since: '0.11',
  requires: 'IPv6 Pod addresses',
  patterns: IPV6_PATTERNS,
};

export const CONNTRACK_STATE: TableSpec = {
  number: 31,
  name: 'ConntrackStateTable',
  aliases: ['ConntrackState', 'ContrackState'],
  purpose: 'Acts on the connection state: drops invalid packets and steers replies of gateway connections back to the gateway.',
  miss: { action: 'goto', table: 'DNATTable' },
  next: ['DNATTable'],
  patterns: CONNTRACK_STATE_PATTERNS,
};

export const DNAT_KUBE_PROXY: TableSpec = {
  number: 40,
  name: 'DNATTable',
  aliases: ['DNAT', 'DNAT(SessionAffinity)'],
  purpose: 'Sends traffic for the Service CIDR to the gateway so that kube-proxy load-balances it, bypassing egress policy.',
  miss: { action: 'goto', table: 'AntreaPolicyEgressRuleTable' },
  next: ['AntreaPolicyEgressRuleTable', 'EgressRuleTable', 'ConntrackCommitTable'],
  patterns: [
    {
      match: 'ip',
      fields: ['nw_dst'],
      actions: ['set:reg1'],
      meaning: 'Traffic to the Service CIDR {nw_dst} is set to leave on the gateway (port {reg.TargetOFPort}) for kube-proxy and goes to {next}, skipping egress rules.',
    },
  ],
};

export const AP_EGRESS_RULE: TableSpec = {
  number: 45,
  name: 'AntreaPolicyEgressRuleTable',
  aliases: ['AntreaPolicyEgressRule', 'AntreaPolicyMultiTierEgressRule', 'CNPEmergencyEgressRule', 'CNPEgressRule', 'CnpEgressRuleTable'],
  purpose: 'Egress rules of Antrea-native policies in every tier but the baseline.',
  miss: { action: 'goto', table: 'EgressRuleTable' },
  next: ['EgressRuleTable', 'EgressMetricTable'],
  since: '0.10',
  patterns: POLICY_RULE_PATTERNS,
};

export const EGRESS_RULE: TableSpec = {
  number: 50,
  name: 'EgressRuleTable',
  aliases: ['EgressRule'],
  purpose: 'Egress rules of Kubernetes NetworkPolicies, as conjunctions of source, destination and service.',
  miss: { action: 'goto', table: 'EgressDefaultTable' },
  next: ['EgressDefaultTable', 'EgressMetricTable', 'L3ForwardingTable'],
  patterns: RULE_PATTERNS,
};

export const EGRESS_DEFAULT: TableSpec = {
  number: 60,
  name: 'EgressDefaultTable',
  aliases: ['EgressDefaultRule'],
  purpose: 'Drops egress traffic of Pods isolated by a NetworkPolicy that no rule allowed; also holds baseline-tier rules.',
  miss: { action: 'goto', table: 'EgressMetricTable' },
  next: ['EgressMetricTable'],
  patterns: EGRESS_DEFAULT_PATTERNS,
};

export const EGRESS_METRIC: TableSpec = {
  number: 61,
  name: 'EgressMetricTable',
  aliases: ['EgressMetric'],
  purpose: 'Counts packets per egress rule and drops those an Antrea-native rule denied.',
  miss: { action: 'goto', table: 'L3ForwardingTable' },
  next: ['L3ForwardingTable'],
  since: '0.10',
  patterns: EGRESS_METRIC_PATTERNS,
};

export const L3_FORWARDING_PATTERNS: readonly FlowPattern[] = [
  {
    match: 'ip,dl_dst=aa:bb:cc:dd:ee:ff',
    fields: ['nw_dst'],
    actions: ['set:eth_src', 'set:eth_dst'],
    meaning: 'Tunnelled traffic for local Pod {nw_dst} is given the gateway as source MAC and the Pod’s MAC {set.eth_dst} as destination; it continues in {next}.',
  },
  {
    match: 'ip,dl_dst=aa:bb:cc:dd:ee:ff',
    fields: ['nw_dst'],
    actions: ['set:eth_dst'],
    meaning: 'Tunnelled traffic for the local gateway address {nw_dst} is readdressed to the gateway MAC {set.eth_dst}; it continues in {next}.',
  },
  {
    match: 'ip,reg0=0x80000/0x80000',
    fields: ['nw_dst'],
    actions: ['set:eth_src', 'set:eth_dst'],
    meaning: 'Traffic marked for MAC rewrite and bound for local Pod {nw_dst} gets the gateway as source and the Pod’s MAC {set.eth_dst}; it continues in {next}.',
  },
  {
    match: 'ip,reg0=0x80000/0x80000',
    fields: ['nw_dst'],
    actions: ['set:eth_dst'],
    meaning: 'Traffic marked for MAC rewrite and bound for the gateway address {nw_dst} is readdressed to the gateway MAC {set.eth_dst}; it continues in {next}.',
  },
  {
    match: 'ip',
    fields: ['nw_dst'],
    actions: ['set:tun_dst'],
    meaning: 'Traffic for the peer Node subnet {nw_dst} is sent into the tunnel towards {set.tun_dst} with the global virtual MAC as destination; it continues in {next}.',
  },
  {
    match: 'ip,reg0=0/0xf',
    actions: ['set:eth_dst'],
    meaning: 'Other traffic from the tunnel is readdressed to the gateway MAC {set.eth_dst} and continues in {next}.',
  },
  {
    match: 'ip',
    fields: ['reg0'],
    meaning: 'Traffic from source {reg.PktSource} continues in {next}.',
  },
];

export const L3_FORWARDING: TableSpec = {
  number: 70,
  name: 'L3ForwardingTable',
  aliases: ['L3Forwarding', 'l3Forwarding'],
  purpose: 'Routes IP traffic: rewrites MACs for local Pods and the gateway, and sends peer-Node traffic into the tunnel.',
  miss: { action: 'goto', table: 'L2ForwardingCalcTable' },
  next: ['L3DecTTLTable', 'SNATTable', 'IPTTLDecTable', 'L2ForwardingCalcTable', 'ConntrackCommitTable'],
  patterns: L3_FORWARDING_PATTERNS,
};

export const L3_DEC_TTL: TableSpec = {
  number: 71,
  name: 'L3DecTTLTable',
  aliases: ['L3DecTTL'],
  purpose: 'Decrements the TTL of routed packets, except those the host already routed.',
  miss: { action: 'goto', table: 'L2ForwardingCalcTable' },
  next: ['L2ForwardingCalcTable'],
  since: '0.13',
  until: '0.13',
  patterns: DEC_TTL_PATTERNS,
};

export const SNAT: TableSpec = {
  number: 71,
  name: 'SNATTable',
  aliases: ['SNAT'],
  purpose: 'Marks new Pod connections that an Egress sends out through a given SNAT IP, or tunnels them to the Egress Node.',
  miss: { action: 'goto', table: 'L2ForwardingCalcTable' },
  next: ['L2ForwardingCalcTable', 'IPTTLDecTable'],
  since: '1.0',
  patterns: [
    {
      match: 'ct_state=+new+trk,ip',
      fields: ['tun_dst'],
      actions: ['set:pkt_mark'],
      meaning: 'New connections tunnelled from other Nodes to {tun_dst}, an Egress IP this Node holds, get SNAT mark {set.pkt_mark}; they continue in {next}.',
    },
    {
      match: 'ct_state=+new+trk,ip',
      fields: ['in_port'],
      actions: ['set:pkt_mark'],
      meaning: 'New connections from Pod {in_port} get Egress SNAT mark {set.pkt_mark}, so the host SNATs them to the Egress IP; they continue in {next}.',
    },
    {
      match: 'ct_state=+new+trk,ip',
      fields: ['in_port'],
      actions: ['set:tun_dst'],
      meaning: 'New connections from Pod {in_port} are tunnelled to the Egress Node {set.tun_dst}.',
    },
    {
      match: 'ct_state=+new+trk,ip,reg0=0/0xf',
      actions: ['drop'],
      meaning: 'New connections from the tunnel that no local Egress claims are dropped.',
    },
  ],
};

export const IP_TTL_DEC: TableSpec = {
  number: 72,
  name: 'IPTTLDecTable',
  aliases: ['IPTTLDec'],
  purpose: 'Decrements the TTL of routed packets, except those the host already routed.',
  miss: { action: 'goto', table: 'L2ForwardingCalcTable' },
  next: ['L2ForwardingCalcTable'],
  since: '1.0',
  patterns: DEC_TTL_PATTERNS,
};

export const L2_FORWARDING_CALC: TableSpec = {
  number: 80,
  name: 'L2ForwardingCalcTable',
  aliases: ['L2Forwarding', 'L2ForwardingCalc'],
  purpose: 'The switch’s destination-MAC table: finds the output port and stores it in reg1.',
  miss: { action: 'goto', table: 'ConntrackCommitTable' },
  next: ['AntreaPolicyIngressRuleTable', 'IngressRuleTable', 'ConntrackCommitTable'],
  patterns: L2_FORWARDING_CALC_PATTERNS,
};

export const AP_INGRESS_RULE: TableSpec = {
  number: 85,
  name: 'AntreaPolicyIngressRuleTable',
  aliases: ['AntreaPolicyIngressRule', 'AntreaPolicyMultiTierIngressRule', 'CNPEmergencyIngressRule', 'CNPIngressRule', 'CnpIngressRuleTable'],
  purpose: 'Ingress rules of Antrea-native policies in every tier but the baseline.',
  miss: { action: 'goto', table: 'IngressRuleTable' },
  next: ['IngressRuleTable', 'IngressMetricTable', 'ConntrackCommitTable'],
  since: '0.10',
  patterns: POLICY_RULE_PATTERNS,
};

export const INGRESS_RULE: TableSpec = {
  number: 90,
  name: 'IngressRuleTable',
  aliases: ['IngressRule'],
  purpose: 'Ingress rules of Kubernetes NetworkPolicies; the destination Pod is identified by its output port in reg1.',
  miss: { action: 'goto', table: 'IngressDefaultTable' },
  next: ['IngressDefaultTable', 'IngressMetricTable', 'ConntrackCommitTable'],
  patterns: [
    {
      match: 'ip',
      fields: ['nw_src'],
      priority: { min: 201 },
      meaning: 'Traffic from the gateway address {nw_src} (kubelet probes) is never subject to ingress rules; it continues in {next}.',
    },
    {
      match: 'pkt_mark=0x1/0x1',
      meaning: 'Traffic the host marked as its own (kubelet probes) is never subject to ingress rules; it continues in {next}.',
    },
    ...RULE_PATTERNS,
  ],
};

export const INGRESS_DEFAULT: TableSpec = {
  number: 100,
  name: 'IngressDefaultTable',
  aliases: ['IngressDefaultRule'],
  purpose: 'Drops traffic to Pods isolated by a NetworkPolicy that no ingress rule allowed; also holds baseline-tier rules.',
  miss: { action: 'goto', table: 'ConntrackCommitTable' },
  next: ['IngressMetricTable', 'ConntrackCommitTable'],
  patterns: INGRESS_DEFAULT_PATTERNS,
};

export const INGRESS_METRIC: TableSpec = {
  number: 101,
  name: 'IngressMetricTable',
  aliases: ['IngressMetric'],
  purpose: 'Counts packets per ingress rule and drops those an Antrea-native rule denied.',
  miss: { action: 'goto', table: 'ConntrackCommitTable' },
  next: ['ConntrackCommitTable'],
  since: '0.10',
  patterns: INGRESS_METRIC_PATTERNS,
};

export const CONNTRACK_COMMIT: TableSpec = {
  number: 105,
  name: 'ConntrackCommitTable',
  aliases: ['ConntrackCommit'],
  purpose: 'Commits the new connections that survived the policy tables.',
  miss: { action: 'goto', table: 'L2ForwardingOutTable' },
  next: ['L2ForwardingOutTable'],
  patterns: CONNTRACK_COMMIT_PATTERNS,
};

export const OUTPUT: TableSpec = {
  number: 110,
  name: 'L2ForwardingOutTable',
  aliases: ['Output', 'L2ForwardingOut'],
  purpose: 'Outputs packets to the port chosen earlier; packets without one are dropped.',
  miss: { action: 'drop' },
  next: [],
  patterns: OUTPUT_PATTERNS,
};

/**
 * What every fixed-number pipeline with kube-proxy shows (0.8 to 1.5): its table numbers, the
 * tunnel and gateway ports, conntrack in table 30, Service traffic's output port chosen in table
 * 40, the global virtual MAC.
 */
export const KUBE_PROXY_ERA_SIGNALS: readonly DetectionSignal[] = [
  { kind: 'table-number', number: 0, weight: 1 },
  { kind: 'table-number', number: 31, weight: 2 },
  { kind: 'table-number', number: 105, weight: 2 },
  { kind: 'table-number', number: 110, weight: 2 },
  { kind: 'port-name', pattern: 'antrea-(gw|tun)0', weight: 3 },
  { kind: 'flow', table: 30, match: 'ip', actions: ['ct'], weight: 2 },
  { kind: 'flow', table: 40, match: 'ip', actions: ['set:reg1'], weight: 3 },
  { kind: 'flow', match: 'dl_dst=aa:bb:cc:dd:ee:ff', weight: 2 },
];
