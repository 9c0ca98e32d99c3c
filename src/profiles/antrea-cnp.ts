/**
 * The early fixed-number pipeline in which ClusterNetworkPolicy rules had their own tables
 * (CnpEgressRuleTable 45, CnpIngressRuleTable 85), before tiers, rule metrics and TTL tables.
 */
import { ANTREA_COOKIE, ANTREA_CT_ZONE, ANTREA_PORTS, GLOBAL_VIRTUAL_MAC } from './antrea-common.ts';
import {
  AP_EGRESS_RULE,
  AP_INGRESS_RULE,
  ARP_RESPONDER,
  CLASSIFIER,
  CONNTRACK,
  CONNTRACK_COMMIT,
  CONNTRACK_STATE,
  CT_MARK_WHOLE,
  DNAT_KUBE_PROXY,
  EGRESS_CONJ_ID,
  EGRESS_DEFAULT,
  EGRESS_RULE,
  INGRESS_CONJ_ID,
  INGRESS_DEFAULT,
  INGRESS_RULE,
  KUBE_PROXY_ERA_SIGNALS,
  L2_FORWARDING_CALC,
  L3_FORWARDING,
  OFPORT_FOUND,
  OUTPUT,
  PKT_SOURCE_WIDE,
  SPOOF_GUARD,
  TARGET_OFPORT,
} from './antrea-classic.ts';
import type { Profile } from './types.ts';

export const antreaCnp: Profile = {
  id: 'antrea-cnp',
  title: 'Antrea with ClusterNetworkPolicy tables (CnpEgressRuleTable 45, CnpIngressRuleTable 85)',
  product: 'Antrea',
  versions: { since: '0.8', until: '0.9' },
  description:
    'Encap-mode pipeline with kube-proxy in which ClusterNetworkPolicy rules are evaluated in two tables of their own ' +
    'before the Kubernetes NetworkPolicy tables. Allowed packets jump straight to routing (egress) or to the commit ' +
    'table (ingress); there are no rule metric tables and no TTL table yet, and routing decrements the TTL itself.',
  tableNaming: 'number',
  tables: [
    CLASSIFIER,
    { ...SPOOF_GUARD, next: ['ConntrackTable', 'ARPResponderTable'] },
    ARP_RESPONDER,
    CONNTRACK,
    CONNTRACK_STATE,
    { ...DNAT_KUBE_PROXY, miss: { action: 'goto', table: 'CnpEgressRuleTable' }, next: ['CnpEgressRuleTable', 'ConntrackCommitTable'] },
    {
      ...AP_EGRESS_RULE,
      name: 'CnpEgressRuleTable',
      aliases: ['CNPEgressRule', 'CNPEmergencyEgressRule'],
      purpose: 'Egress rules of ClusterNetworkPolicies; allowed packets go straight to routing.',
      next: ['EgressRuleTable', 'L3ForwardingTable'],
      since: '0.8',
    },
    { ...EGRESS_RULE, next: ['EgressDefaultTable', 'L3ForwardingTable'] },
    { ...EGRESS_DEFAULT, miss: { action: 'goto', table: 'L3ForwardingTable' }, next: ['L3ForwardingTable'] },
    { ...L3_FORWARDING, next: ['L2ForwardingCalcTable', 'ConntrackCommitTable'] },
    { ...L2_FORWARDING_CALC, miss: { action: 'goto', table: 'IngressRuleTable' }, next: ['CnpIngressRuleTable', 'IngressRuleTable'] },
    {
      ...AP_INGRESS_RULE,
      name: 'CnpIngressRuleTable',
      aliases: ['CNPIngressRule', 'CNPEmergencyIngressRule'],
      purpose: 'Ingress rules of ClusterNetworkPolicies; denied packets are dropped here.',
      next: ['IngressRuleTable', 'ConntrackCommitTable'],
      since: '0.8',
    },
    { ...INGRESS_RULE, next: ['IngressDefaultTable', 'ConntrackCommitTable'] },
    { ...INGRESS_DEFAULT, next: ['ConntrackCommitTable'] },
    CONNTRACK_COMMIT,
    OUTPUT,
  ],
  bitFields: [PKT_SOURCE_WIDE, OFPORT_FOUND, TARGET_OFPORT, EGRESS_CONJ_ID, INGRESS_CONJ_ID, CT_MARK_WHOLE],
  cookie: ANTREA_COOKIE,
  ctZones: [ANTREA_CT_ZONE],
  addresses: [GLOBAL_VIRTUAL_MAC],
  ports: ANTREA_PORTS,
  detect: [
    ...KUBE_PROXY_ERA_SIGNALS,
    { kind: 'table-number', number: 45, weight: 2 },
    { kind: 'table-number', number: 85, weight: 2 },
    { kind: 'table-name', name: 'CnpEgressRuleTable', weight: 5 },
    // Metric, TTL and Service tables arrived after this layout.
    { kind: 'table-number', number: 61, weight: -4 },
    { kind: 'table-number', number: 101, weight: -4 },
    { kind: 'table-number', number: 71, weight: -3 },
    { kind: 'table-number', number: 72, weight: -3 },
    { kind: 'table-number', number: 42, weight: -4 },
    { kind: 'table-name', name: 'PipelineRootClassifier', weight: -10 },
  ],
};
