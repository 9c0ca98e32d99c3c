/**
 * Antrea chained behind a routed CNI (AWS EKS and the like) to enforce NetworkPolicy only:
 * no tunnel, Pods are reached by IP, every ARP request is answered, and Pod-to-Service traffic
 * that re-enters the host is tagged with a special source MAC so host conntrack leaves it alone.
 */
import { ANTREA_COOKIE, ANTREA_CT_ZONE, GLOBAL_VIRTUAL_MAC, POD_PORT } from './antrea-common.ts';
import {
  ARP_RESPONDER,
  CLASSIFIER,
  CONNTRACK,
  CONNTRACK_COMMIT,
  CONNTRACK_COMMIT_PATTERNS,
  CONNTRACK_STATE,
  CT_MARK_WHOLE,
  DNAT_KUBE_PROXY,
  EGRESS_DEFAULT,
  EGRESS_RULE,
  INGRESS_DEFAULT,
  INGRESS_RULE,
  L2_FORWARDING_CALC,
  L3_FORWARDING,
  OFPORT_FOUND,
  OUTPUT,
  OUTPUT_PATTERNS,
  PKT_SOURCE_WIDE,
  SPOOF_GUARD,
  TARGET_OFPORT,
} from './antrea-classic.ts';
import type { Profile } from './types.ts';

export const antreaPolicyOnly: Profile = {
  id: 'antrea-policy-only',
  title: 'Antrea in networkPolicyOnly mode (chained with a routed CNI)',
  product: 'Antrea',
  versions: { since: '0.5', until: '0.7' },
  description:
    'The primary CNI owns Pod addressing and routing; Antrea moves each Pod’s host route onto its gateway gw0 and ' +
    'attaches the Pod to OVS to enforce NetworkPolicy. OVS answers every ARP request, routes to local Pods by destination ' +
    'IP and sends everything else to the host through gw0. Service traffic goes through kube-proxy in the host and comes ' +
    'back; when it must return to the host a second time it is tagged with a fixed source MAC and kept out of conntrack.',
  tableNaming: 'number',
  tables: [
    { ...CLASSIFIER, next: ['SpoofGuardTable'] },
    { ...SPOOF_GUARD, next: ['ConntrackTable', 'ARPResponderTable'] },
    {
      ...ARP_RESPONDER,
      purpose: 'Answers every ARP request with the global virtual MAC, so Pods can resolve any neighbour; routing is by IP.',
      patterns: [
        {
          match: 'arp,arp_op=1',
          actions: ['in_port', 'set:reg2'],
          meaning: 'Every ARP request is answered in place with the global virtual MAC (the addresses are swapped through reg2) and sent back out its port.',
        },
        ...ARP_RESPONDER.patterns,
      ],
    },
    CONNTRACK,
    CONNTRACK_STATE,
    {
      ...DNAT_KUBE_PROXY,
      miss: { action: 'goto', table: 'EgressRuleTable' },
      next: ['EgressRuleTable', 'ConntrackCommitTable'],
    },
    { ...EGRESS_RULE, next: ['EgressDefaultTable', 'L3ForwardingTable'] },
    { ...EGRESS_DEFAULT, miss: { action: 'goto', table: 'L3ForwardingTable' }, next: ['L3ForwardingTable'] },
    {
      ...L3_FORWARDING,
      purpose: 'Routes by destination IP: local Pods get their own MAC, everything else is handed to the host through gw0.',
      next: ['L2ForwardingCalcTable'],
      patterns: [
        {
          match: 'ip,ct_mark=0x20',
          fields: ['dl_dst'],
          meaning: 'Replies already readdressed to the gateway {dl_dst} by the conntrack state table skip routing and continue in {next}.',
        },
        {
          match: 'ip',
          fields: ['nw_dst'],
          actions: ['set:eth_dst', 'dec_ttl'],
          meaning: 'Traffic for local Pod {nw_dst} is addressed to its MAC {set.eth_dst}, its TTL decremented; it continues in {next}.',
        },
        {
          match: 'ip',
          actions: ['set:eth_dst', 'dec_ttl'],
          meaning: 'All other IP traffic is addressed to the gateway MAC {set.eth_dst} for the host to route, its TTL decremented; it continues in {next}.',
        },
      ],
    },
    { ...L2_FORWARDING_CALC, miss: { action: 'goto', table: 'IngressRuleTable' }, next: ['IngressRuleTable'] },
    { ...INGRESS_RULE, next: ['IngressDefaultTable', 'ConntrackCommitTable'] },
    { ...INGRESS_DEFAULT, next: ['ConntrackCommitTable'] },
    {
      ...CONNTRACK_COMMIT,
      patterns: [
        {
          match: 'ip,reg0=0x10000/0x10000',
          fields: ['in_port', 'reg1'],
          priority: { min: 201 },
          meaning: 'Traffic that came from the gateway and goes back to it (re-entering the host) is not committed; it continues in {next}.',
        },
        ...CONNTRACK_COMMIT_PATTERNS,
      ],
    },
    {
      ...OUTPUT,
      patterns: [
        {
          match: 'ip,reg0=0x10000/0x10000',
          fields: ['in_port', 'reg1'],
          actions: ['set:eth_src', 'in_port'],
          meaning: 'Traffic re-entering the host is given the re-entrance source MAC, so host conntrack ignores it, and leaves through the gateway it came from.',
        },
        ...OUTPUT_PATTERNS,
      ],
    },
  ],
  bitFields: [
    PKT_SOURCE_WIDE,
    OFPORT_FOUND,
    TARGET_OFPORT,
    {
      field: 'reg2',
      start: 0,
      end: 31,
      name: 'Swap',
      meaning: 'scratch space the ARP responder uses to swap sender and target addresses',
      format: 'ipv4',
    },
    CT_MARK_WHOLE,
  ],
  cookie: ANTREA_COOKIE,
  ctZones: [ANTREA_CT_ZONE],
  addresses: [
    GLOBAL_VIRTUAL_MAC,
    {
      kind: 'mac',
      address: 'de:ad:be:ef:de:ad',
      role: 'other',
      name: 're-entrance MAC',
      meaning: 'source MAC of Service traffic sent back into the host a second time; a raw-table iptables rule exempts it from host conntrack',
    },
  ],
  ports: [
    { role: 'gateway', names: ['gw0', 'antrea-gw0'], meaning: 'host gateway that now holds the Pods’ host routes' },
    { role: 'bridge-local', names: ['LOCAL'], meaning: 'the bridge’s own internal port' },
    POD_PORT,
  ],
  detect: [
    { kind: 'table-number', number: 20, weight: 1 },
    { kind: 'table-number', number: 110, weight: 2 },
    { kind: 'port-name', pattern: 'gw0', weight: 3 },
    { kind: 'flow', table: 20, match: 'arp,arp_op=1', actions: ['set:reg2'], weight: 5 },
    { kind: 'flow', table: 110, match: 'ip', actions: ['set:eth_src', 'in_port'], weight: 5 },
    // No overlay: a tunnel port or tunnel destination means another mode.
    { kind: 'port-name', pattern: 'antrea-tun0', weight: -5 },
    { kind: 'field-used', field: 'tun_dst', weight: -3 },
    { kind: 'table-name', name: 'PipelineRootClassifier', weight: -10 },
  ],
};
