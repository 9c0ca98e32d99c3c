/**
 * Antrea's flexible pipeline (1.6 and later): tables are known by the names the agent pushes to
 * OVS, and their numbers are handed out densely at start-up from the enabled features, so the
 * same table has different numbers on differently configured Nodes.
 */
import { ANTREA_COOKIE, ANTREA_CT_ZONE, ANTREA_CT_ZONES_V6, ANTREA_PORTS, ANTREA_SNAT_CT_ZONE, FLEXIBLE_ADDRESSES } from './antrea-common.ts';
import {
  ARP_RESPONDER,
  IPV6,
  L2_FORWARDING_CALC_PATTERNS,
  POLICY_RULE_PATTERNS,
  RULE_PATTERNS,
  SPOOF_GUARD_ARP_PATTERNS,
  SPOOF_GUARD_IP_PATTERNS,
} from './antrea-classic.ts';
import { FLEXIBLE_BIT_FIELDS } from './antrea-fields.ts';
import type { FlowPattern, PortRole, Profile, TableSpec } from './types.ts';

const NEXT = { action: 'next' } as const;
const DROP = { action: 'drop' } as const;

/** Metric tables; an Antrea-native deny is reg0 bit 10 (APDeny) here. */
const EGRESS_METRIC_PATTERNS: readonly FlowPattern[] = [
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
    match: 'reg0=0x400/0x400',
    fields: ['reg3'],
    actions: ['drop'],
    meaning: 'Counts and drops packets denied by Antrea-native egress rule {reg.APConjID}.',
  },
];

const INGRESS_METRIC_PATTERNS: readonly FlowPattern[] = [
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
    match: 'reg0=0x400/0x400',
    fields: ['reg3'],
    actions: ['drop'],
    meaning: 'Counts and drops packets denied by Antrea-native ingress rule {reg.APConjID}.',
  },
];

/**
 * What an Antrea-native rule does beyond allow and drop (pipeline.go conjunctionActionDenyFlow,
 * conjunctionActionPassFlow, conjunctionActionFlow; fields.go from 1.13): a rule that rejects, or
 * whose matches are logged or tracked, tells the agent through PacketInOperation (reg0 bits 25…:
 * 1 log, 2 reject, 4 store deny) and a group whose first bucket continues in the metric table and
 * whose second sends the packet to the agent. A Pass rule sets disposition Pass (reg0[11..12] = 3)
 * when logged and leaves the Antrea-native tiers for the K8s NetworkPolicy tables.
 */
const NATIVE_RULE_ACTION_PATTERNS: readonly FlowPattern[] = [
  {
    match: '',
    since: '1.13',
    fields: ['conj_id'],
    actions: ['set:reg0=0x4000000/0x4000000', 'group'],
    meaning:
      'Rule {conj_id} rejects the packet: group {group} has the metric table count it and sends it to the Antrea agent, which answers the sender with a TCP reset or an ICMP unreachable.',
  },
  {
    match: '',
    since: '1.13',
    fields: ['conj_id'],
    actions: ['set:reg0=0x1800/0x1800', 'group'],
    meaning: 'Rule {conj_id} passes the packet to the next tier, the K8s NetworkPolicy rules, and logs it: group {group} continues there and sends a copy to the Antrea agent for the audit log.',
  },
  {
    match: '',
    since: '1.13',
    fields: ['conj_id'],
    actions: ['set:reg0=0x400/0x400', 'set:reg0=0x2000000/0x2000000', 'group'],
    meaning: 'Rule {conj_id} drops the packet and logs it: group {group} has the metric table count and drop it, and sends a copy to the Antrea agent for the audit log.',
  },
  {
    match: '',
    since: '1.13',
    fields: ['conj_id'],
    actions: ['set:reg0=0x400/0x400', 'group'],
    meaning: 'Rule {conj_id} drops the packet: group {group} has the metric table count and drop it, and tells the Antrea agent of the deny.',
  },
  {
    match: '',
    since: '1.13',
    fields: ['conj_id'],
    actions: ['ct(commit)', 'set:reg0=0x2000000/0x2000000'],
    meaning: 'Rule {conj_id} allows the packet and logs it: the connection is committed in {zone} with the rule id in its label and continues in {next}; the packet also goes to the Antrea agent for the audit log.',
  },
  {
    match: '',
    fields: ['conj_id'],
    actions: ['goto:EgressRule'],
    meaning: 'Rule {conj_id} passes the packet to the next tier: the Antrea-native rules below it are skipped, and the K8s NetworkPolicy rules of {next} decide.',
  },
  {
    match: '',
    fields: ['conj_id'],
    actions: ['goto:IngressRule'],
    meaning: 'Rule {conj_id} passes the packet to the next tier: the Antrea-native rules below it are skipped, and the K8s NetworkPolicy rules of {next} decide.',
  },
];

const NATIVE_POLICY_PATTERNS: readonly FlowPattern[] = [...NATIVE_RULE_ACTION_PATTERNS, ...POLICY_RULE_PATTERNS];

const POLICY_SECURITY = 'AntreaPolicy feature gate';
/** Tables only Pod connectivity asks for (framework.go featurePodConnectivity.getRequiredTables, 1.8 to 2.7): an ExternalNode (VM) agent has none. */
const K8S_NODE = 'a Kubernetes Node (not an ExternalNode)';

const TABLES: readonly TableSpec[] = [
  {
    name: 'PipelineRootClassifier',
    stage: 'root',
    purpose: 'Splits traffic by protocol into the ARP, IP and non-IP sub-pipelines.',
    miss: DROP,
    next: ['ARPSpoofGuard', 'Classifier', 'ConntrackZone', 'NonIP'],
    patterns: [
      { match: 'arp', meaning: 'ARP goes to the ARP sub-pipeline ({next}).' },
      { match: 'ip', meaning: 'IPv4 goes to the IP sub-pipeline ({next}).' },
      { match: 'ipv6', meaning: 'IPv6 goes to the IP sub-pipeline ({next}).' },
      { match: '', meaning: 'Other traffic goes to {next}.' },
    ],
  },
  {
    name: 'ARPSpoofGuard',
    stage: 'ARP',
    requires: 'IPv4',
    purpose: 'Lets through only ARP whose sender addresses belong to the sending port.',
    miss: DROP,
    next: ['ARPResponder'],
    patterns: SPOOF_GUARD_ARP_PATTERNS,
  },
  {
    name: 'ARPResponder',
    stage: 'ARP',
    requires: 'IPv4',
    purpose: ARP_RESPONDER.purpose,
    miss: DROP,
    next: [],
    patterns: ARP_RESPONDER.patterns,
  },
  {
    name: 'Classifier',
    requires: K8S_NODE,
    stage: 'classifier',
    purpose: 'Tells where each packet came from by its input port and records it in reg0 (and reg4 flags).',
    miss: DROP,
    next: ['SpoofGuard', 'UnSNAT', 'L3Forwarding'],
    patterns: [
      {
        match: 'ip',
        fields: ['in_port', 'nw_src'],
        actions: ['set:reg0', 'set:reg4'],
        meaning: 'Packets the Node sends from its gateway address {nw_src} on {in_port} are marked {reg.PktSource} and as local; they continue in {next}.',
      },
      {
        match: 'vlan_tci=0x1000/0x1000',
        fields: ['in_port'],
        actions: ['set:reg0'],
        meaning: 'Packets returning from the L7 engine on {in_port} lose their VLAN tag, are marked {reg.PktSource} and continue in {next}.',
      },
      {
        match: '',
        fields: ['in_port'],
        actions: ['set:reg0'],
        meaning: 'Packets entering on {in_port} are marked {reg.PktSource} and continue in {next}.',
      },
    ],
  },
  {
    name: 'SpoofGuard',
    requires: K8S_NODE,
    stage: 'validation',
    purpose: 'Rejects IP packets whose source addresses are not those Antrea gave the sending Pod.',
    miss: DROP,
    next: ['IPv6', 'PipelineIPClassifier', 'UnSNAT', 'ConntrackZone'],
    patterns: [
      ...SPOOF_GUARD_IP_PATTERNS,
      // pipeline.go (featurePodConnectivity ipv6Flows).
      { match: 'ipv6,ipv6_src=fe80::/10', meaning: 'IPv6 from link-local addresses (neighbour discovery, multicast listener reports) passes; it continues in {next}.' },
    ],
  },
  {
    name: 'IPv6',
    stage: 'validation',
    requires: 'IPv6',
    purpose: IPV6.purpose,
    miss: NEXT,
    next: ['UnSNAT'],
    patterns: IPV6.patterns,
  },
  {
    name: 'PipelineIPClassifier',
    stage: 'validation',
    requires: 'IPv4 and Multicast',
    since: '1.7',
    purpose: 'Sends IPv4 multicast to the multicast sub-pipeline.',
    miss: NEXT,
    next: ['UnSNAT', 'MulticastEgressRule'],
    patterns: [{ match: 'ip,nw_dst=224.0.0.0/4', meaning: 'IPv4 multicast is handled by the multicast sub-pipeline ({next}).' }],
  },
  {
    name: 'UnSNAT',
    aliases: ['SNATConntrackZone'],
    stage: 'conntrackState',
    requires: 'AntreaProxy',
    purpose: 'Undoes Service SNAT on replies addressed to the SNAT addresses.',
    miss: NEXT,
    next: ['ConntrackZone'],
    patterns: [
      {
        match: '',
        actions: ['ct(nat)'],
        meaning: 'Replies to {nw_dst}{ipv6_dst}, an address Service traffic is SNATed to, are un-SNATed in {zone} and continue in {next}.',
      },
    ],
  },
  {
    name: 'ConntrackZone',
    stage: 'conntrackState',
    purpose: 'Runs IP packets through connection tracking, undoing Service DNAT on replies.',
    miss: NEXT,
    next: ['ConntrackState'],
    patterns: [
      {
        match: '',
        actions: ['ct'],
        meaning: 'IP packets go through conntrack in {zone} and continue in {next} with their connection state known.',
      },
    ],
  },
  {
    name: 'ConntrackState',
    stage: 'conntrackState',
    purpose: 'Drops invalid packets and lets packets of known connections skip Service load-balancing.',
    miss: NEXT,
    next: ['PreRoutingClassifier', 'EgressSecurityClassifier', 'AntreaPolicyEgressRule', 'EgressRule'],
    patterns: [
      // pipeline.go (featureService conntrackStateFlows, v1.13.0 on): with DSR, invalid connections
      // from outside may belong to a DSR Service whose Endpoint answers the client directly.
      {
        match: 'ct_state=+inv+trk,reg4=0x8000000/0x8000000',
        since: '1.13',
        meaning: 'Externally originated packets of connections conntrack finds invalid go on to {next}, in case they belong to a DSR Service.',
      },
      { match: 'ct_state=+inv+trk', actions: ['drop'], meaning: 'Packets conntrack considers invalid are dropped.' },
      {
        match: 'ct_state=-new+trk,ct_mark=0x10/0x10',
        actions: ['set:reg0'],
        meaning: 'Packets of known Service connections skip Endpoint selection, are marked for MAC rewrite and continue in {next}.',
      },
      {
        match: 'ct_state=-new+trk',
        meaning: 'Packets of known connections skip Service load-balancing and continue in {next}.',
      },
    ],
  },
  {
    name: 'PreRoutingClassifier',
    stage: 'preRouting',
    requires: 'AntreaProxy',
    purpose: 'Runs first packets through the Service tables in turn.',
    miss: NEXT,
    next: ['NodePortMark', 'SessionAffinity', 'ServiceLB'],
    patterns: [{ match: '', meaning: 'First packets are checked for NodePort, session affinity and Service load-balancing in turn ({next}).' }],
  },
  {
    name: 'NodePortMark',
    stage: 'preRouting',
    requires: 'AntreaProxy with proxyAll',
    purpose: 'Marks packets sent to one of the Node’s NodePort addresses.',
    miss: NEXT,
    next: ['SessionAffinity'],
    patterns: [
      {
        match: '',
        actions: ['set:reg4'],
        meaning: 'Packets to {nw_dst}{ipv6_dst}, a NodePort address of this Node, are marked ToNodePortAddress.',
      },
    ],
  },
  {
    name: 'SessionAffinity',
    stage: 'preRouting',
    requires: 'AntreaProxy',
    purpose: 'Holds the learned Endpoint choices of Services with ClientIP session affinity.',
    miss: {
      action: 'custom',
      description: 'marks the packet as still needing an Endpoint (reg4[16..18] = 1) and ends its lookup here; PreRoutingClassifier, which resubmitted it here, then has ServiceLB pick one',
    },
    next: ['ServiceLB'],
    patterns: [
      {
        match: '',
        actions: ['set:reg4'],
        priority: 0,
        meaning: 'Packets with no remembered Endpoint are marked {reg.ServiceEPState}.',
      },
      {
        match: '',
        actions: ['set:reg4'],
        meaning: 'Learned affinity: client {nw_src}{ipv6_src} keeps the Endpoint it was given for Service {nw_dst}{ipv6_dst} port {tp_dst}.',
      },
    ],
  },
  {
    name: 'ServiceLB',
    stage: 'preRouting',
    requires: 'AntreaProxy',
    purpose: 'Chooses a Service Endpoint with a select group, and learns the choice when session affinity asks for it.',
    miss: NEXT,
    next: ['EndpointDNAT', 'SessionAffinity'],
    patterns: [
      {
        match: 'reg4=0x10010000/0x10070000',
        actions: ['group'],
        meaning: 'First packets from this Node or its Pods to {nw_dst}{ipv6_dst} port {tp_dst} use group {group}, which holds all the Service’s Endpoints.',
      },
      {
        match: 'reg4=0x90000/0xf0000',
        fields: ['tp_dst'],
        actions: ['group'],
        meaning: 'First packets to NodePort {tp_dst} pick an Endpoint in group {group}.',
      },
      {
        match: 'reg4=0x10000/0x70000',
        actions: ['group'],
        meaning: 'First packets to Service {nw_dst}{ipv6_dst} port {tp_dst} pick an Endpoint in group {group}.',
      },
      {
        match: 'reg4=0x30000/0x70000',
        actions: ['learn'],
        meaning: 'The Endpoint chosen for this client is learned into SessionAffinity; the packet continues in {next}.',
      },
    ],
  },
  {
    name: 'DSRServiceMark',
    stage: 'preRouting',
    requires: 'LoadBalancerModeDSR',
    since: '1.13',
    purpose: 'Marks LoadBalancer connections served by direct server return.',
    miss: NEXT,
    next: ['EndpointDNAT'],
    patterns: [
      // pipeline.go (dsrServiceMarkFlow, conntrackStateFlows): the mark and a learned flow that keeps the Endpoint.
      {
        match: '',
        fields: ['nw_dst', 'tp_dst'],
        actions: ['learn', 'set:reg4'],
        meaning: 'Connections from outside to DSR Service {nw_dst} port {tp_dst} with a remote Endpoint are marked for direct server return, and the Endpoint is learned into SessionAffinity; they continue in {next}.',
      },
      { match: 'ct_state=+inv+trk,reg4=0/0x2000000', actions: ['drop'], meaning: 'Invalid connections that are not DSR Service connections are dropped.' },
      { match: '', actions: ['set:reg4'], meaning: 'The connection is marked as a direct-server-return Service connection.' },
    ],
  },
  {
    name: 'EndpointDNAT',
    stage: 'preRouting',
    requires: 'AntreaProxy',
    purpose: 'Rewrites the destination of a Service’s first packet to the chosen Endpoint and commits the connection.',
    miss: NEXT,
    next: ['AntreaPolicyEgressRule', 'EgressRule', 'ServiceLB'],
    patterns: [
      {
        match: 'reg0=0x4000/0x4000',
        actions: ['controller'],
        meaning: 'The Service has no Endpoints: the packet goes to the agent, which answers with a reject.',
      },
      // pipeline.go (dsrServiceNoDNATFlows, v1.13.0 on).
      {
        match: 'reg4=0x2000000/0x2000000',
        since: '1.13',
        actions: ['ct(commit)'],
        meaning: 'DSR Service connections are committed in {zone} without DNAT, as the Endpoint answers the client itself; they continue in {next}.',
      },
      {
        match: 'reg4=0x20000/0x70000',
        actions: ['ct(commit)', 'ct(nat)'],
        meaning: 'Packets for the selected Endpoint (port {reg.EndpointPort}) are DNATed to it, committed in {zone} as Service connections, and continue in {next}.',
      },
      {
        match: 'reg4=0x20000/0x70000',
        meaning: 'The selected Endpoint has no DNAT flow (it went away): selection starts over in {next}.',
      },
    ],
  },
  {
    name: 'DNAT',
    stage: 'preRouting',
    requires: 'AntreaProxy disabled',
    purpose: 'Sends traffic for the Service CIDR to the gateway so that kube-proxy load-balances it.',
    miss: NEXT,
    next: ['AntreaPolicyEgressRule', 'EgressRule', 'ConntrackCommit'],
    patterns: [
      {
        match: '',
        actions: ['set:reg1'],
        meaning: 'Traffic to the Service CIDR {nw_dst}{ipv6_dst} is set to leave on the gateway for kube-proxy.',
      },
    ],
  },
  {
    name: 'EgressSecurityClassifier',
    stage: 'egressSecurity',
    requires: 'ExternalNode',
    since: '1.8',
    purpose: 'Classifies traffic of a VM or bare-metal Node before its egress rules.',
    miss: NEXT,
    next: ['AntreaPolicyEgressRule'],
    patterns: [],
  },
  {
    name: 'AntreaPolicyEgressRule',
    stage: 'egressSecurity',
    requires: POLICY_SECURITY,
    purpose: 'Egress rules of Antrea-native policies in every tier but the baseline.',
    miss: NEXT,
    next: ['EgressRule', 'EgressMetric'],
    patterns: NATIVE_POLICY_PATTERNS,
  },
  {
    name: 'EgressRule',
    stage: 'egressSecurity',
    purpose: 'Egress rules of Kubernetes NetworkPolicies, as conjunctions of source, destination and service.',
    miss: NEXT,
    next: ['EgressDefaultRule', 'EgressMetric'],
    patterns: RULE_PATTERNS,
  },
  {
    name: 'EgressDefaultRule',
    stage: 'egressSecurity',
    purpose: 'Drops egress traffic of isolated Pods that no rule allowed; also holds baseline-tier rules.',
    miss: NEXT,
    next: ['EgressMetric'],
    patterns: [
      {
        match: '',
        fields: ['nw_src'],
        actions: ['drop'],
        meaning: 'Pod {nw_src} is isolated for egress: packets no egress rule allowed are dropped.',
      },
      ...NATIVE_RULE_ACTION_PATTERNS,
      ...RULE_PATTERNS,
    ],
  },
  {
    name: 'EgressMetric',
    stage: 'egressSecurity',
    purpose: 'Counts packets per egress rule and drops those an Antrea-native rule denied.',
    miss: NEXT,
    next: ['L3Forwarding'],
    patterns: EGRESS_METRIC_PATTERNS,
  },
  {
    name: 'L3Forwarding',
    stage: 'routing',
    purpose: 'Routes IP traffic: to the gateway, to local Pods (rewriting MACs), into the tunnel, or on to Egress.',
    miss: { action: 'custom', description: 'continues in the next table; some releases also mark the packet ToGateway' },
    next: ['EgressMark', 'L3DecTTL', 'L2ForwardingCalc'],
    patterns: [
      {
        match: 'ct_state=+rpl+trk,ct_mark=0x2/0xf',
        actions: ['set:eth_dst'],
        meaning: 'Replies of connections that came from the gateway go back to the gateway MAC {set.eth_dst}; they continue in {next}.',
      },
      {
        match: 'ct_mark=0x10/0x10,reg0=0x202/0x20f',
        actions: ['set:eth_dst'],
        meaning: 'Service traffic from the gateway that must go back to it is addressed to the gateway MAC {set.eth_dst}; it continues in {next}.',
      },
      {
        match: 'ct_state=-rpl+trk,reg0=0x3/0xf',
        meaning: 'Traffic from local Pods to destinations outside the cluster continues in {next} (Egress).',
      },
      {
        match: 'ct_state=-rpl+trk,reg0=0x1/0xf',
        actions: ['set:eth_dst'],
        meaning: 'Traffic tunnelled from another Node to leave the cluster here is addressed to the gateway MAC {set.eth_dst}; it continues in {next} (Egress).',
      },
      {
        match: 'reg0=0x200/0x200',
        actions: ['set:eth_src', 'set:eth_dst'],
        meaning: 'Traffic for local Pod {nw_dst}{ipv6_dst} gets the gateway as source MAC and the Pod’s MAC {set.eth_dst}; it continues in {next}.',
      },
      {
        match: 'reg0=0/0x200',
        meaning: 'Traffic for the local Pod subnet {nw_dst}{ipv6_dst} that needs no MAC rewrite is switched in {next}.',
      },
      // pipeline.go (l3FwdFlowToRemoteViaTun with DSR, v1.13.0 on): the Endpoint address in reg3, not the destination, picks the Node.
      {
        match: 'reg4=0x2000000/0x2000000',
        since: '1.13',
        fields: ['reg3'],
        actions: ['set:tun_dst'],
        meaning: 'DSR Service traffic whose Endpoint is in the peer Node subnet behind {set.tun_dst} goes into the tunnel without DNAT; it continues in {next}.',
      },
      {
        match: '',
        actions: ['set:tun_dst'],
        meaning: 'Traffic for the peer Node subnet {nw_dst}{ipv6_dst} is sent into the tunnel towards {set.tun_dst}{set.tun_ipv6_dst} with the global virtual MAC; it continues in {next}.',
      },
      {
        match: '',
        actions: ['set:eth_dst'],
        meaning: 'Traffic for {nw_dst}{ipv6_dst} is addressed to {set.eth_dst} and continues in {next}.',
      },
    ],
  },
  {
    name: 'EgressMark',
    aliases: ['SNAT (Egress)'],
    stage: 'routing',
    requires: 'Egress',
    purpose: 'Picks the Egress IP for connections leaving the cluster, or tunnels them to the Egress Node.',
    miss: { action: 'custom', description: 'marks the packet ToGateway and continues in the next table' },
    next: ['EgressQoS', 'L3DecTTL', 'L2ForwardingCalc'],
    patterns: [
      {
        match: 'ct_state=+new+trk,reg0=0x1/0xf',
        actions: ['drop'],
        meaning: 'New connections tunnelled here that no local Egress claims are dropped.',
      },
      // pipeline.go (featureEgress snatIPFromTunnelFlow, snatRuleFlow): up to v1.14.x only the first
      // packet of a connection is marked (ct_state=+new+trk); from v1.15.0 every tracked packet is
      // (ct_state=+trk), and with EgressTrafficShaping the flow continues in EgressQoS.
      {
        match: 'ct_state=+new+trk',
        until: '1.14',
        fields: ['tun_dst'],
        actions: ['set:pkt_mark'],
        meaning: 'New connections tunnelled from other Nodes to {tun_dst}, an Egress IP this Node holds, get SNAT mark {set.pkt_mark}; they continue in {next}.',
      },
      {
        match: 'ct_state=+new+trk',
        until: '1.14',
        fields: ['in_port'],
        actions: ['set:pkt_mark'],
        meaning: 'New connections from Pod {in_port} get Egress SNAT mark {set.pkt_mark}, so the host SNATs them to the Egress IP; they continue in {next}.',
      },
      {
        match: 'ct_state=+trk',
        since: '1.15',
        fields: ['tun_dst'],
        actions: ['set:pkt_mark'],
        meaning: 'Tracked traffic tunnelled from other Nodes to {tun_dst}, an Egress IP this Node holds, gets SNAT mark {set.pkt_mark}, so the host SNATs it to that IP; it continues in {next}.',
      },
      {
        match: 'ct_state=+trk',
        since: '1.15',
        fields: ['in_port'],
        actions: ['set:pkt_mark'],
        meaning: 'Tracked traffic from Pod {in_port} gets Egress SNAT mark {set.pkt_mark}, so the host SNATs it to the Egress IP; it continues in {next}.',
      },
      {
        match: '',
        fields: ['in_port'],
        actions: ['set:tun_dst'],
        meaning: 'Traffic from Pod {in_port} is tunnelled to its Egress Node {set.tun_dst}; it continues in {next}.',
      },
      {
        match: '',
        actions: ['set:reg0'],
        meaning: 'Traffic to {nw_dst}{ipv6_dst} is not subject to Egress (a Node, the Service CIDR or an excluded address) and goes to the gateway.',
      },
    ],
  },
  {
    name: 'EgressQoS',
    stage: 'routing',
    requires: 'EgressTrafficShaping',
    since: '1.14',
    purpose: 'Rate-limits traffic of Egresses that have a bandwidth limit.',
    miss: NEXT,
    next: ['L3DecTTL'],
    patterns: [{ match: '', actions: ['meter'], meaning: 'Traffic with Egress mark {pkt_mark} is rate-limited by its meter.' }],
  },
  {
    name: 'L3DecTTL',
    requires: K8S_NODE,
    stage: 'routing',
    purpose: 'Decrements the TTL of routed packets, except those the host already routed.',
    miss: NEXT,
    next: ['SNATMark'],
    patterns: [
      {
        match: 'reg0=0x2/0xf',
        meaning: 'Packets from the gateway keep their TTL (the host already decremented it) and continue in {next}.',
      },
      { match: '', actions: ['dec_ttl'], meaning: 'Routed packets have their TTL decremented and continue in {next}.' },
    ],
  },
  {
    name: 'SNATMark',
    aliases: ['ServiceMark'],
    stage: 'postRouting',
    requires: 'AntreaProxy',
    purpose: 'Decides which new Service connections need SNAT or hairpinning and commits them with those marks.',
    miss: NEXT,
    next: ['SNAT'],
    patterns: [
      {
        match: 'ct_state=+new+trk,reg0=0x22/0xff',
        actions: ['ct(commit)'],
        meaning: 'New Service connections from the gateway that go back out the gateway are committed with the SNAT and hairpin marks.',
      },
      {
        match: 'ct_state=+new+trk,reg0=0x12/0xff',
        actions: ['ct(commit)'],
        meaning: 'New Service connections from the gateway to a remote Endpoint are committed with the SNAT mark.',
      },
      {
        match: 'ct_state=+new+trk',
        fields: ['nw_src', 'nw_dst'],
        actions: ['ct(commit)'],
        meaning: 'Pod {nw_src} reaching itself through a Service: the connection is committed with the SNAT and hairpin marks.',
      },
      {
        match: 'ct_state=+new+trk',
        actions: ['ct(commit)'],
        meaning: 'New Service connections are committed with the SNAT mark.',
      },
    ],
  },
  {
    name: 'SNAT',
    aliases: ['SNATConntrackCommit'],
    stage: 'postRouting',
    requires: 'AntreaProxy',
    purpose: 'Performs SNAT on Service connections marked for it, in the SNAT zone.',
    miss: NEXT,
    next: ['L2ForwardingCalc'],
    patterns: [
      {
        match: 'ct_state=+new+trk,ct_mark=0x40/0x40',
        actions: ['ct(commit)', 'ct(nat)'],
        meaning: 'New hairpinned Service connections are SNATed in {zone}, so the Endpoint replies through OVS.',
      },
      {
        match: 'ct_state=-new-rpl+trk,ct_mark=0x20/0x20',
        actions: ['ct(nat)'],
        meaning: 'Later packets of SNATed Service connections get the same SNAT in {zone}.',
      },
      {
        match: 'ct_state=+new+trk,ct_mark=0x20/0x20',
        actions: ['ct(commit)', 'ct(nat)'],
        meaning: 'New Service connections marked for SNAT are SNATed in {zone}.',
      },
    ],
  },
  {
    name: 'L2ForwardingCalc',
    stage: 'switching',
    purpose: 'The switch’s destination-MAC table: finds the output port and stores it in reg1.',
    miss: NEXT,
    next: ['TrafficControl', 'IngressSecurityClassifier'],
    patterns: L2_FORWARDING_CALC_PATTERNS,
  },
  {
    name: 'TrafficControl',
    stage: 'switching',
    requires: 'TrafficControl or L7NetworkPolicy',
    since: '1.7',
    purpose: 'Chooses packets to mirror or redirect to TrafficControl ports.',
    miss: NEXT,
    next: ['IngressSecurityClassifier', 'Output'],
    patterns: [
      {
        match: 'reg0=0x200006/0x60000f',
        meaning: 'Packets back from a TrafficControl return port that already have an output port go straight to {next}.',
      },
      {
        match: '',
        fields: ['reg1'],
        actions: ['set:reg9'],
        meaning: 'Traffic to port {reg.TargetOFPort} is marked {reg.TrafficControlAction} towards port {reg.TrafficControlTargetOFPort}; it continues in {next}.',
      },
      {
        match: '',
        fields: ['in_port'],
        actions: ['set:reg9'],
        meaning: 'Traffic from {in_port} is marked {reg.TrafficControlAction} towards port {reg.TrafficControlTargetOFPort}; it continues in {next}.',
      },
    ],
  },
  {
    name: 'IngressSecurityClassifier',
    stage: 'ingressSecurity',
    purpose: 'Sends traffic that ingress rules do not apply to past them.',
    miss: NEXT,
    next: ['AntreaPolicyIngressRule', 'IngressRule', 'IngressMetric', 'ConntrackCommit'],
    patterns: [
      {
        match: 'pkt_mark=0x80000000/0x80000000,ct_state=-rpl+trk',
        meaning: 'Traffic the Node itself sends (kubelet probes) skips ingress rules and continues in {next}.',
      },
      {
        match: 'reg4=0x80000/0x80000',
        meaning: 'NodePort traffic is always checked by Antrea-native ingress rules in {next}.',
      },
      {
        match: 'ct_mark=0x40/0x40',
        meaning: 'Hairpinned connections skip ingress rules and continue in {next}.',
      },
      {
        match: '',
        fields: ['reg0'],
        meaning: 'Traffic going {reg.PktDestination} is not subject to ingress rules; it continues in {next}.',
      },
    ],
  },
  {
    name: 'AntreaPolicyIngressRule',
    stage: 'ingressSecurity',
    requires: POLICY_SECURITY,
    purpose: 'Ingress rules of Antrea-native policies in every tier but the baseline.',
    miss: NEXT,
    next: ['IngressRule', 'IngressMetric'],
    patterns: NATIVE_POLICY_PATTERNS,
  },
  {
    name: 'IngressRule',
    stage: 'ingressSecurity',
    purpose: 'Ingress rules of Kubernetes NetworkPolicies; the destination Pod is identified by its output port in reg1.',
    miss: NEXT,
    next: ['IngressDefaultRule', 'IngressMetric'],
    patterns: RULE_PATTERNS,
  },
  {
    name: 'IngressDefaultRule',
    stage: 'ingressSecurity',
    purpose: 'Drops traffic to isolated Pods that no ingress rule allowed; also holds baseline-tier rules.',
    miss: NEXT,
    next: ['IngressMetric'],
    patterns: [
      {
        match: '',
        fields: ['reg1'],
        actions: ['drop'],
        meaning: 'The Pod on port {reg.TargetOFPort} is isolated for ingress: packets no ingress rule allowed are dropped.',
      },
      ...NATIVE_RULE_ACTION_PATTERNS,
      ...RULE_PATTERNS,
    ],
  },
  {
    name: 'IngressMetric',
    stage: 'ingressSecurity',
    purpose: 'Counts packets per ingress rule and drops those an Antrea-native rule denied.',
    miss: NEXT,
    next: ['ConntrackCommit'],
    patterns: INGRESS_METRIC_PATTERNS,
  },
  {
    name: 'ConntrackCommit',
    stage: 'conntrack',
    purpose: 'Commits new connections that were not committed earlier, recording where they came from in ct_mark.',
    miss: NEXT,
    next: ['VLAN', 'Output'],
    patterns: [
      // pipeline.go (featurePodConnectivity, ConntrackCommitTable): up to v2.4.x the flow skips
      // connections SNATed or to Services (`-snat`, NotServiceCTMark bit 4); from v2.5.0 it skips
      // those the SNAT tables committed (NotConnSNATCTMark bit 5), as ct_state=-snat cannot be trusted.
      {
        match: 'ct_state=+new+trk,ct_mark=0/0x20',
        since: '2.5',
        actions: ['ct(commit)'],
        meaning: 'New connections not yet committed by the SNAT tables are committed in {zone}, with their source copied into ct_mark.',
      },
      {
        match: 'ct_state=+new-snat+trk,ct_mark=0/0x10',
        since: '1.7',
        until: '2.4',
        actions: ['ct(commit)'],
        meaning: 'New connections that are neither to a Service nor SNATed are committed in zone {zone}, with their source copied into ct_mark.',
      },
    ],
  },
  {
    name: 'VLAN',
    stage: 'output',
    requires: 'AntreaIPAM bridging (connectUplinkToBridge)',
    purpose: 'Adds or removes VLAN tags for Pods on VLAN networks sent to the uplink.',
    miss: NEXT,
    next: ['Output'],
    patterns: [{ match: '', meaning: 'Adjusts the VLAN tag for traffic leaving through the uplink.' }],
  },
  {
    name: 'Output',
    stage: 'output',
    purpose: 'Outputs packets to the chosen port, to TrafficControl ports, back through their input port, or to the agent.',
    miss: DROP,
    next: [],
    patterns: [
      {
        match: 'ct_mark=0x80/0x80,reg0=0x200000/0x600000',
        actions: ['output'],
        meaning: 'Traffic of an L7 NetworkPolicy rule is tagged with the rule’s VLAN and sent to the L7 engine.',
      },
      {
        match: 'reg0=0x200000/0x600000,reg4=0x400000/0xc00000',
        actions: ['output'],
        meaning: 'Mirrored traffic leaves on its port (reg1) and is copied to the TrafficControl port (reg9).',
      },
      {
        match: 'reg0=0x200000/0x600000,reg4=0x800000/0xc00000',
        actions: ['output'],
        meaning: 'Redirected traffic leaves on the TrafficControl port (reg9) instead of its own.',
      },
      { match: 'ct_mark=0x40/0x40', actions: ['in_port'], meaning: 'Hairpinned traffic leaves through the port it came in on.' },
      { match: 'reg0=0x200000/0x600000', actions: ['output'], meaning: 'Packets leave on the port chosen by L2 forwarding (reg1).' },
      {
        match: 'reg0=0x400000/0x600000',
        actions: ['controller'],
        meaning: 'Packets are sent to the agent for {reg.PacketInOperation}.',
      },
    ],
  },
  {
    name: 'MulticastEgressRule',
    stage: 'Multicast',
    requires: 'IPv4, Multicast and AntreaPolicy',
    since: '1.7',
    purpose: 'Egress rules of Antrea-native policies for multicast traffic.',
    miss: NEXT,
    next: ['MulticastEgressMetric', 'MulticastRouting'],
    // pipeline.go (featureMulticast igmpEgressFlow).
    patterns: [{ match: 'ip,nw_proto=2', actions: ['goto:MulticastRouting'], meaning: 'IGMP from local Pods skips the multicast egress rules and goes to {next}.' }, ...RULE_PATTERNS],
  },
  {
    name: 'MulticastEgressMetric',
    stage: 'Multicast',
    requires: 'IPv4, Multicast and AntreaPolicy',
    since: '1.7',
    purpose: 'Counts multicast packets per egress rule.',
    miss: NEXT,
    next: ['MulticastEgressPodMetric'],
    patterns: [],
  },
  {
    name: 'MulticastEgressPodMetric',
    stage: 'Multicast',
    requires: 'IPv4 and Multicast',
    since: '1.7',
    purpose: 'Counts multicast packets sent by each local Pod.',
    miss: NEXT,
    next: ['MulticastRouting'],
    // multicast.go (multicastSkipIGMPMetricFlows, multicastPodMetricFlows).
    patterns: [
      { match: 'ip,nw_proto=2', meaning: 'IGMP is not counted; it continues in {next}.' },
      { match: 'ip', fields: ['nw_src'], meaning: 'Multicast sent by local Pod {nw_src} is counted here; it continues in {next}.' },
    ],
  },
  {
    name: 'MulticastRouting',
    stage: 'Multicast',
    requires: 'IPv4 and Multicast',
    since: '1.7',
    purpose: 'Replicates multicast packets to the receivers of their group.',
    miss: NEXT,
    next: ['MulticastIngressRule'],
    // pipeline.go (featureMulticast igmpPktInFlows, localMulticastForwardFlows, externalMulticastReceiverFlow).
    patterns: [
      { match: 'ip,nw_proto=2', actions: ['controller'], meaning: 'IGMP ({reg.PktSource}) goes to the Antrea agent, which learns the members of each group.' },
      { match: 'ip', actions: ['output'], meaning: 'Multicast for groups without local receivers leaves on {output} for receivers outside the cluster network.' },
      {
        match: 'ip',
        fields: ['nw_dst'],
        actions: ['group'],
        meaning: 'Packets for multicast group {nw_dst} are replicated to its receivers through group {group}.',
      },
    ],
  },
  {
    name: 'MulticastIngressRule',
    stage: 'Multicast',
    requires: 'IPv4, Multicast and AntreaPolicy',
    since: '1.7',
    purpose: 'Ingress rules of Antrea-native policies for multicast traffic.',
    miss: NEXT,
    next: ['MulticastIngressMetric'],
    patterns: RULE_PATTERNS,
  },
  {
    name: 'MulticastIngressMetric',
    stage: 'Multicast',
    requires: 'IPv4, Multicast and AntreaPolicy',
    since: '1.7',
    purpose: 'Counts multicast packets per ingress rule.',
    miss: NEXT,
    next: ['MulticastIngressPodMetric'],
    patterns: [],
  },
  {
    name: 'MulticastIngressPodMetric',
    stage: 'Multicast',
    requires: 'IPv4 and Multicast',
    since: '1.7',
    purpose: 'Counts multicast packets received by each local Pod.',
    miss: NEXT,
    next: ['MulticastOutput'],
    // multicast.go (multicastSkipIGMPMetricFlows, multicastPodMetricFlows).
    patterns: [
      { match: 'ip,nw_proto=2', meaning: 'IGMP is not counted; it continues in {next}.' },
      { match: 'ip', fields: ['reg1'], meaning: 'Multicast for the receiver on port {reg.TargetOFPort} is counted here; it continues in {next}.' },
    ],
  },
  {
    name: 'MulticastOutput',
    stage: 'Multicast',
    requires: 'IPv4 and Multicast',
    since: '1.7',
    purpose: 'Outputs replicated multicast packets to their receivers.',
    miss: DROP,
    next: [],
    // multicast.go (multicastOutputFlows): in encap mode a copy never goes back between tunnel and gateway.
    patterns: [
      { match: 'reg0=0x200000/0x600000', fields: ['reg1'], actions: ['drop'], meaning: 'A copy ({reg.PktSource}) that would leave on port {reg.TargetOFPort} is dropped: the sending Node already delivered it there.' },
      { match: '', actions: ['output'], meaning: 'The multicast copy leaves on {output}.' },
    ],
  },
  {
    name: 'NonIP',
    stage: 'NonIP',
    requires: 'ExternalNode',
    since: '1.8',
    purpose: 'Forwards non-IP traffic between a VM’s interface and its uplink unchanged.',
    miss: DROP,
    next: [],
    patterns: [{ match: '', fields: ['in_port'], actions: ['output'], meaning: 'Non-IP traffic from {in_port} is passed to {output}.' }],
  },
];

/**
 * The Classifier's source marks (fields.go from 1.6: FromTunnel 1, FromGateway 2 in reg0[0..3])
 * tell the tunnel and gateway ports whatever their numbers: a Node upgraded from 1.x keeps ports
 * 1 and 2, where a new 2.x Node has 32768 and 32769.
 */
const FLEXIBLE_PORTS: readonly PortRole[] = ANTREA_PORTS.map((r) =>
  r.role === 'gateway' ? { ...r, mark: 'reg0=0x2/0xf' } : r.role === 'tunnel' ? { ...r, mark: 'reg0=0x1/0xf' } : r,
);

export const antrea: Profile = {
  id: 'antrea',
  title: 'Antrea flexible pipeline (named tables, 1.6 and later)',
  product: 'Antrea',
  versions: { since: '1.6' },
  description:
    'The pipeline of Antrea 1.6 and later. The agent names every table in OVS (PipelineRootClassifier, SpoofGuard, ' +
    'ConntrackZone, ServiceLB, L3Forwarding, Output, …) and numbers only the tables its enabled features need, in ' +
    'declaration order from 0, so numbers differ between Nodes. Sub-pipelines: root, ARP, IP, Multicast, NonIP.',
  tableNaming: 'name',
  tables: TABLES,
  layouts: [
    {
      id: 'ipv4-default',
      description: 'IPv4, encap, AntreaProxy, AntreaPolicy and Egress on (the default configuration)',
      tables: [
        'PipelineRootClassifier', 'ARPSpoofGuard', 'ARPResponder', 'Classifier', 'SpoofGuard', 'UnSNAT', 'ConntrackZone',
        'ConntrackState', 'PreRoutingClassifier', 'SessionAffinity', 'ServiceLB', 'EndpointDNAT', 'AntreaPolicyEgressRule',
        'EgressRule', 'EgressDefaultRule', 'EgressMetric', 'L3Forwarding', 'EgressMark', 'L3DecTTL', 'SNATMark', 'SNAT',
        'L2ForwardingCalc', 'IngressSecurityClassifier', 'AntreaPolicyIngressRule', 'IngressRule', 'IngressDefaultRule',
        'IngressMetric', 'ConntrackCommit', 'Output',
      ],
    },
    {
      id: 'ipv4-proxyall',
      description: 'the default configuration with proxyAll',
      tables: [
        'PipelineRootClassifier', 'ARPSpoofGuard', 'ARPResponder', 'Classifier', 'SpoofGuard', 'UnSNAT', 'ConntrackZone',
        'ConntrackState', 'PreRoutingClassifier', 'NodePortMark', 'SessionAffinity', 'ServiceLB', 'EndpointDNAT',
        'AntreaPolicyEgressRule', 'EgressRule', 'EgressDefaultRule', 'EgressMetric', 'L3Forwarding', 'EgressMark', 'L3DecTTL',
        'SNATMark', 'SNAT', 'L2ForwardingCalc', 'IngressSecurityClassifier', 'AntreaPolicyIngressRule', 'IngressRule',
        'IngressDefaultRule', 'IngressMetric', 'ConntrackCommit', 'Output',
      ],
    },
    {
      id: 'ipv4-proxyall-trafficcontrol',
      description: 'proxyAll with TrafficControl and L7NetworkPolicy, as the pipeline document assumes',
      tables: [
        'PipelineRootClassifier', 'ARPSpoofGuard', 'ARPResponder', 'Classifier', 'SpoofGuard', 'UnSNAT', 'ConntrackZone',
        'ConntrackState', 'PreRoutingClassifier', 'NodePortMark', 'SessionAffinity', 'ServiceLB', 'EndpointDNAT',
        'AntreaPolicyEgressRule', 'EgressRule', 'EgressDefaultRule', 'EgressMetric', 'L3Forwarding', 'EgressMark', 'L3DecTTL',
        'SNATMark', 'SNAT', 'L2ForwardingCalc', 'TrafficControl', 'IngressSecurityClassifier', 'AntreaPolicyIngressRule',
        'IngressRule', 'IngressDefaultRule', 'IngressMetric', 'ConntrackCommit', 'Output',
      ],
    },
    // TrafficControl's table is declared right after L2ForwardingCalc (pkg/agent/openflow/pipeline.go, v2.4.0).
    {
      id: 'ipv4-trafficcontrol',
      description: 'the default configuration with TrafficControl or L7NetworkPolicy (its table after L2ForwardingCalc)',
      tables: [
        'PipelineRootClassifier', 'ARPSpoofGuard', 'ARPResponder', 'Classifier', 'SpoofGuard', 'UnSNAT', 'ConntrackZone',
        'ConntrackState', 'PreRoutingClassifier', 'SessionAffinity', 'ServiceLB', 'EndpointDNAT', 'AntreaPolicyEgressRule',
        'EgressRule', 'EgressDefaultRule', 'EgressMetric', 'L3Forwarding', 'EgressMark', 'L3DecTTL', 'SNATMark', 'SNAT',
        'L2ForwardingCalc', 'TrafficControl', 'IngressSecurityClassifier', 'AntreaPolicyIngressRule', 'IngressRule',
        'IngressDefaultRule', 'IngressMetric', 'ConntrackCommit', 'Output',
      ],
    },
    {
      id: 'ipv4-multicast',
      description: 'the default configuration with Multicast',
      tables: [
        'PipelineRootClassifier', 'ARPSpoofGuard', 'ARPResponder', 'Classifier', 'SpoofGuard', 'PipelineIPClassifier', 'UnSNAT',
        'ConntrackZone', 'ConntrackState', 'PreRoutingClassifier', 'SessionAffinity', 'ServiceLB', 'EndpointDNAT',
        'AntreaPolicyEgressRule', 'EgressRule', 'EgressDefaultRule', 'EgressMetric', 'L3Forwarding', 'EgressMark', 'L3DecTTL',
        'SNATMark', 'SNAT', 'L2ForwardingCalc', 'IngressSecurityClassifier', 'AntreaPolicyIngressRule', 'IngressRule',
        'IngressDefaultRule', 'IngressMetric', 'ConntrackCommit', 'Output', 'MulticastEgressRule', 'MulticastEgressMetric',
        'MulticastEgressPodMetric', 'MulticastRouting', 'MulticastIngressRule', 'MulticastIngressMetric',
        'MulticastIngressPodMetric', 'MulticastOutput',
      ],
    },
    {
      id: 'ipv6-only',
      description: 'IPv6-only Nodes with the default features',
      tables: [
        'PipelineRootClassifier', 'Classifier', 'SpoofGuard', 'IPv6', 'UnSNAT', 'ConntrackZone', 'ConntrackState',
        'PreRoutingClassifier', 'SessionAffinity', 'ServiceLB', 'EndpointDNAT', 'AntreaPolicyEgressRule', 'EgressRule',
        'EgressDefaultRule', 'EgressMetric', 'L3Forwarding', 'EgressMark', 'L3DecTTL', 'SNATMark', 'SNAT', 'L2ForwardingCalc',
        'IngressSecurityClassifier', 'AntreaPolicyIngressRule', 'IngressRule', 'IngressDefaultRule', 'IngressMetric',
        'ConntrackCommit', 'Output',
      ],
    },
    {
      id: 'dual-stack-proxyall',
      description: 'dual-stack Nodes with proxyAll',
      tables: [
        'PipelineRootClassifier', 'ARPSpoofGuard', 'ARPResponder', 'Classifier', 'SpoofGuard', 'IPv6', 'UnSNAT', 'ConntrackZone',
        'ConntrackState', 'PreRoutingClassifier', 'NodePortMark', 'SessionAffinity', 'ServiceLB', 'EndpointDNAT',
        'AntreaPolicyEgressRule', 'EgressRule', 'EgressDefaultRule', 'EgressMetric', 'L3Forwarding', 'EgressMark', 'L3DecTTL',
        'SNATMark', 'SNAT', 'L2ForwardingCalc', 'IngressSecurityClassifier', 'AntreaPolicyIngressRule', 'IngressRule',
        'IngressDefaultRule', 'IngressMetric', 'ConntrackCommit', 'Output',
      ],
    },
    {
      id: 'ipv4-no-policy-no-egress',
      description: 'IPv4 with AntreaPolicy and Egress turned off',
      tables: [
        'PipelineRootClassifier', 'ARPSpoofGuard', 'ARPResponder', 'Classifier', 'SpoofGuard', 'UnSNAT', 'ConntrackZone',
        'ConntrackState', 'PreRoutingClassifier', 'SessionAffinity', 'ServiceLB', 'EndpointDNAT', 'EgressRule',
        'EgressDefaultRule', 'EgressMetric', 'L3Forwarding', 'L3DecTTL', 'SNATMark', 'SNAT', 'L2ForwardingCalc',
        'IngressSecurityClassifier', 'IngressRule', 'IngressDefaultRule', 'IngressMetric', 'ConntrackCommit', 'Output',
      ],
    },
    {
      id: 'ipv4-bridging-proxyall',
      description: 'AntreaIPAM bridging (uplink on the bridge) with proxyAll',
      tables: [
        'PipelineRootClassifier', 'ARPSpoofGuard', 'ARPResponder', 'Classifier', 'SpoofGuard', 'UnSNAT', 'ConntrackZone',
        'ConntrackState', 'PreRoutingClassifier', 'NodePortMark', 'SessionAffinity', 'ServiceLB', 'EndpointDNAT',
        'AntreaPolicyEgressRule', 'EgressRule', 'EgressDefaultRule', 'EgressMetric', 'L3Forwarding', 'EgressMark', 'L3DecTTL',
        'SNATMark', 'SNAT', 'L2ForwardingCalc', 'IngressSecurityClassifier', 'AntreaPolicyIngressRule', 'IngressRule',
        'IngressDefaultRule', 'IngressMetric', 'ConntrackCommit', 'VLAN', 'Output',
      ],
    },
  ],
  bitFields: FLEXIBLE_BIT_FIELDS,
  cookie: ANTREA_COOKIE,
  ctZones: [ANTREA_CT_ZONE, ANTREA_SNAT_CT_ZONE, ...ANTREA_CT_ZONES_V6],
  addresses: FLEXIBLE_ADDRESSES,
  ports: FLEXIBLE_PORTS,
  groups: [
    {
      type: 'select',
      bucketActions: ['set:reg3', 'set:reg4', 'goto:EndpointDNAT'],
      meaning: 'Endpoints of a Service: each bucket loads one Endpoint’s address and port and continues in EndpointDNAT.',
    },
    {
      type: 'select',
      bucketActions: ['set:reg3', 'set:reg4', 'goto:ServiceLB'],
      meaning: 'Endpoints of a Service with ClientIP affinity: the chosen Endpoint is loaded and ServiceLB learns it.',
    },
    {
      type: 'select',
      since: '1.13',
      bucketActions: ['set:reg3', 'set:reg4', 'goto:DSRServiceMark'],
      meaning: 'Endpoints of a Service with DSR enabled: each bucket loads one Endpoint and continues in DSRServiceMark (group.go, ServiceLB.GetNext()).',
    },
    {
      type: 'select',
      bucketActions: ['set:reg0', 'goto:EndpointDNAT'],
      meaning: 'A Service without Endpoints: the packet is marked so that EndpointDNAT rejects it.',
    },
    {
      type: 'all',
      bucketActions: ['goto:Output'],
      meaning: 'NetworkPolicy logging: one bucket continues the pipeline, the other sends the packet to the agent.',
    },
  ],
  detect: [
    { kind: 'table-name', name: 'PipelineRootClassifier', weight: 10 },
    { kind: 'table-name', name: 'ARPSpoofGuard', weight: 3 },
    { kind: 'table-name', name: 'IngressSecurityClassifier', weight: 3 },
    { kind: 'table-name', name: 'L2ForwardingCalc', weight: 2 },
    { kind: 'table-name', name: 'ConntrackZone', weight: 1 },
    { kind: 'port-name', pattern: 'antrea-(gw|tun)0', weight: 3 },
    // pipeline.go (featureEgress snatRuleFlow, snatIPFromTunnelFlow), the only flows that write
    // pkt_mark: to v1.14.x they mark a connection's first packet (ct_state=+new+trk) unless
    // EgressTrafficShaping is on; from v1.15.0 every tracked packet. The 1.15 patterns fit the
    // older flows too, so only this signal tells the older releases by them.
    { kind: 'flow', match: 'ct_state=+new+trk', actions: ['set:pkt_mark'], until: '1.14', weight: 1 },
    // Numbered dumps: dense numbers from 0, which the fixed pipelines never use.
    { kind: 'table-number', number: 1, weight: 2 },
    { kind: 'table-number', number: 2, weight: 2 },
    { kind: 'table-number', number: 3, weight: 1 },
    { kind: 'table-number', number: 105, weight: -3 },
    { kind: 'table-number', number: 110, weight: -3 },
  ],
};
