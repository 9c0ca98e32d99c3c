/**
 * Antrea's fixed-number pipeline with AntreaProxy load-balancing Services in OVS: select groups
 * choose Endpoints, conntrack does DNAT (zone 65520) and SNAT (zone 65521), learned flows keep
 * session affinity, and hairpin tables handle a Pod reaching itself through a Service.
 */
import {
  ANTREA_COOKIE,
  ANTREA_CT_ZONE,
  ANTREA_CT_ZONES_V6,
  ANTREA_PORTS,
  ANTREA_SNAT_CT_ZONE,
  CLASSIC_HAIRPIN_IPS,
  CLASSIC_VIRTUAL_SERVICE_IP,
  GLOBAL_VIRTUAL_MAC,
} from './antrea-common.ts';
import {
  AP_EGRESS_RULE,
  AP_INGRESS_RULE,
  ARP_RESPONDER,
  CLASSIFIER,
  CONNTRACK,
  CONNTRACK_COMMIT,
  CONNTRACK_COMMIT_PATTERNS,
  CT_MARK_BITS,
  CT_MARK_WHOLE,
  DENY_CONJ_ID_BESIDE_ENDPOINT,
  EGRESS_CONJ_ID,
  EGRESS_DEFAULT,
  EGRESS_METRIC,
  EGRESS_RULE,
  EGRESS_RULE_CT_LABEL,
  EGRESS_SNAT_MARK,
  INGRESS_CONJ_ID,
  INGRESS_DEFAULT,
  INGRESS_METRIC,
  INGRESS_RULE,
  INGRESS_RULE_CT_LABEL,
  IP_TTL_DEC,
  IPV6,
  L2_FORWARDING_CALC,
  L3_FORWARDING,
  L3_FORWARDING_PATTERNS,
  OFPORT_FOUND,
  OUTPUT,
  OUTPUT_PATTERNS,
  PKT_SOURCE_NARROW,
  REG0_FLAGS,
  SERVICE_FIELDS,
  SNAT,
  SPOOF_GUARD,
  TARGET_OFPORT,
  UPLINK,
} from './antrea-classic.ts';
import type { Profile, TableSpec } from './types.ts';

const SERVICE_HAIRPIN: TableSpec = {
  number: 23,
  name: 'ServiceHairpinTable',
  aliases: ['ServiceHairpin'],
  purpose: 'Restores the real destination of replies to hairpinned Service connections (sent to the virtual hairpin IP).',
  miss: { action: 'goto', table: 'ServiceConntrackTable' },
  next: ['ServiceConntrackTable'],
  patterns: [
    {
      match: 'ip',
      fields: ['nw_dst'],
      actions: ['move', 'set:reg0'],
      meaning: 'Replies to the virtual hairpin IP {nw_dst} get their source address as destination again and are marked hairpin; they continue in {next}.',
    },
  ],
};

const SERVICE_CONNTRACK: TableSpec = {
  number: 24,
  name: 'ServiceConntrackTable',
  aliases: ['ServiceConntrack'],
  purpose: 'Runs IP packets through the Service SNAT zone so that replies of SNATed Service connections are un-SNATed.',
  miss: { action: 'none' },
  next: ['ConntrackTable'],
  patterns: [
    {
      match: 'ip',
      actions: ['ct(nat)'],
      meaning: 'IP packets go through conntrack in {zone}, the SNAT zone, undoing Service SNAT on replies, and continue in {next}.',
    },
  ],
};

const CONNTRACK_STATE: TableSpec = {
  number: 31,
  name: 'ConntrackStateTable',
  aliases: ['ConntrackState'],
  purpose: 'Drops invalid packets, lets packets of known connections skip Service selection, and sends first packets through it.',
  miss: { action: 'custom', description: 'runs the packet through the Service classifier, session affinity and Service load-balancing tables in turn' },
  next: ['ServiceClassifierTable', 'SessionAffinityTable', 'ServiceLBTable', 'AntreaPolicyEgressRuleTable', 'EgressRuleTable'],
  patterns: [
    {
      match: 'ct_state=+inv+trk,ip',
      actions: ['drop'],
      meaning: 'Packets conntrack considers invalid are dropped.',
    },
    {
      match: 'ct_state=-new+trk,ct_mark=0x21,ip',
      actions: ['set:reg0'],
      meaning: 'Packets of known Service connections skip Endpoint selection, are marked for MAC rewrite and continue in {next}.',
    },
    {
      match: 'ct_state=-new+trk,ip',
      meaning: 'Packets of known connections skip Service selection and continue in {next}.',
    },
    {
      match: '',
      priority: 0,
      meaning: 'First packets of connections are classified for Service load-balancing in {next}.',
    },
  ],
};

const SERVICE_CLASSIFIER: TableSpec = {
  number: 35,
  name: 'ServiceClassifierTable',
  aliases: ['ServiceClassifier'],
  purpose: 'Marks first packets sent to one of the Node’s own addresses as NodePort traffic.',
  miss: { action: 'none' },
  next: [],
  patterns: [
    {
      match: 'ip',
      fields: ['nw_dst'],
      actions: ['set:reg4'],
      meaning: 'Packets to Node address {nw_dst} are marked as NodePort traffic for the Service tables.',
    },
  ],
};

const SESSION_AFFINITY: TableSpec = {
  number: 40,
  name: 'SessionAffinityTable',
  aliases: ['SessionAffinity'],
  purpose: 'Holds the learned Endpoint choices of Services with ClientIP session affinity.',
  miss: { action: 'custom', description: 'marks the packet as still needing an Endpoint (reg4[16..18] = 1)' },
  next: [],
  patterns: [
    {
      match: 'ip',
      fields: ['nw_src', 'nw_dst'],
      actions: ['set:reg3'],
      meaning: 'Learned affinity: client {nw_src} keeps Endpoint {reg.EndpointIP} port {reg.EndpointPort} for Service {nw_dst} {tp_dst}.',
    },
    {
      match: '',
      priority: 0,
      actions: ['set:reg4'],
      meaning: 'Packets with no remembered Endpoint are marked {reg.ServiceEPState}.',
    },
  ],
};

const SERVICE_LB: TableSpec = {
  number: 41,
  name: 'ServiceLBTable',
  aliases: ['ServiceLB'],
  purpose: 'Chooses a Service Endpoint with a select group, and learns the choice when session affinity asks for it.',
  miss: { action: 'goto', table: 'EndpointDNATTable' },
  next: ['EndpointDNATTable', 'SessionAffinityTable'],
  patterns: [
    {
      match: 'reg4=0x90000/0xf0000',
      fields: ['tp_dst'],
      actions: ['group'],
      meaning: 'First packets to NodePort {tp_dst} pick an Endpoint in group {group}.',
    },
    {
      match: 'reg4=0x10000/0x70000',
      fields: ['nw_dst'],
      actions: ['group'],
      meaning: 'First packets to Service {nw_dst} port {tp_dst} pick an Endpoint in group {group}.',
    },
    {
      match: 'reg4=0x30000/0x70000',
      actions: ['learn'],
      meaning: 'The Endpoint chosen for this client is learned into the session affinity table; the packet continues in {next}.',
    },
  ],
};

const ENDPOINT_DNAT: TableSpec = {
  number: 42,
  name: 'EndpointDNATTable',
  aliases: ['EndpointDNAT'],
  purpose: 'Rewrites the destination of a Service’s first packet to the chosen Endpoint and commits the connection.',
  miss: { action: 'goto', table: 'AntreaPolicyEgressRuleTable' },
  next: ['AntreaPolicyEgressRuleTable', 'EgressRuleTable', 'ServiceLBTable'],
  patterns: [
    {
      match: 'reg4=0x20000/0x70000',
      fields: ['reg3'],
      actions: ['ct(commit)', 'ct(nat)'],
      meaning: 'Packets bound to Endpoint {reg.EndpointIP} port {reg.EndpointPort} are DNATed to it, committed in {zone} as Service connections, and continue in {next}.',
    },
    {
      match: 'reg4=0x20000/0x70000',
      meaning: 'The selected Endpoint has no DNAT flow (it went away): selection starts over in {next}.',
    },
  ],
};

const SERVICE_CONNTRACK_COMMIT: TableSpec = {
  number: 106,
  name: 'ServiceConntrackCommitTable',
  aliases: ['ServiceConntrackCommit'],
  purpose: 'SNATs Service connections from the gateway whose replies would otherwise bypass OVS.',
  miss: { action: 'goto', table: 'HairpinSNATTable' },
  next: ['HairpinSNATTable'],
  patterns: [
    {
      match: 'ct_state=+new+trk,ip,reg4=0x100000/0x100000',
      actions: ['ct(commit)', 'ct(nat)'],
      meaning: 'New NodePort or LoadBalancer connections that need SNAT are SNATed to the gateway address in {zone}.',
    },
    {
      match: 'ct_state=+new+trk,ip',
      fields: ['reg1'],
      actions: ['ct(commit)', 'ct(nat)'],
      meaning: 'New Service connections leaving on port {reg.TargetOFPort} (the gateway they came from) are SNATed to the virtual Service IP in {zone}.',
    },
    {
      match: 'ct_state=-new+trk,ip',
      actions: ['ct(nat)'],
      meaning: 'Later packets of SNATed Service connections get the same SNAT in {zone}.',
    },
  ],
};

const HAIRPIN_SNAT: TableSpec = {
  number: 108,
  name: 'HairpinSNATTable',
  aliases: ['HairpinSNAT'],
  purpose: 'Handles Service traffic that leaves through the port it came in on.',
  miss: { action: 'goto', table: 'L2ForwardingOutTable' },
  next: ['L2ForwardingOutTable'],
  patterns: [
    {
      match: 'ip,reg0=0x1/0xf',
      fields: ['reg1'],
      actions: ['set:reg0'],
      meaning: 'Service traffic from the gateway whose Endpoint is on the host goes back out the gateway (hairpin mark); it continues in {next}.',
    },
    {
      match: 'ip',
      fields: ['nw_src', 'nw_dst'],
      actions: ['set:nw_src'],
      meaning: 'Pod {nw_src} reaching itself through a Service has its source changed to the virtual hairpin IP and is marked hairpin.',
    },
  ],
};

export const antreaProxy: Profile = {
  id: 'antrea-proxy',
  title: 'Antrea with AntreaProxy (fixed table numbers, Service tables 23–42 and 106–108)',
  product: 'Antrea',
  versions: { since: '1.4', until: '1.5' },
  description:
    'Encap-mode Linux Nodes where AntreaProxy implements Services inside OVS: ServiceLBTable picks an Endpoint through a ' +
    'select group that loads it into reg3/reg4, EndpointDNATTable DNATs in zone 65520, ClientIP affinity is kept by ' +
    'learned flows in SessionAffinityTable, SNAT for gateway traffic happens in zone 65521, and hairpin traffic leaves ' +
    'through its input port.',
  tableNaming: 'number',
  tables: [
    { ...CLASSIFIER, next: ['SpoofGuardTable', 'ServiceConntrackTable'] },
    UPLINK,
    { ...SPOOF_GUARD, next: ['ServiceHairpinTable', 'ARPResponderTable'] },
    ARP_RESPONDER,
    IPV6,
    SERVICE_HAIRPIN,
    SERVICE_CONNTRACK,
    CONNTRACK,
    CONNTRACK_STATE,
    SERVICE_CLASSIFIER,
    SESSION_AFFINITY,
    SERVICE_LB,
    ENDPOINT_DNAT,
    AP_EGRESS_RULE,
    EGRESS_RULE,
    EGRESS_DEFAULT,
    EGRESS_METRIC,
    {
      ...L3_FORWARDING,
      next: ['SNATTable', 'IPTTLDecTable', 'L2ForwardingCalcTable'],
      patterns: [
        {
          match: 'ct_state=+rpl+trk,ct_mark=0x20,ip',
          actions: ['set:eth_dst'],
          meaning: 'Replies on connections first seen from the gateway are addressed to the gateway MAC {set.eth_dst}; they continue in {next}.',
        },
        {
          match: 'ct_state=+trk,ct_mark=0x21,ip,reg0=0x80000/0x80000',
          actions: ['set:eth_dst'],
          meaning: 'Service traffic whose Endpoint is not a local Pod is sent to the gateway MAC {set.eth_dst}; it continues in {next}.',
        },
        ...L3_FORWARDING_PATTERNS,
      ],
    },
    SNAT,
    IP_TTL_DEC,
    L2_FORWARDING_CALC,
    AP_INGRESS_RULE,
    INGRESS_RULE,
    INGRESS_DEFAULT,
    INGRESS_METRIC,
    {
      ...CONNTRACK_COMMIT,
      miss: { action: 'goto', table: 'HairpinSNATTable' },
      next: ['ServiceConntrackCommitTable', 'HairpinSNATTable'],
      patterns: [
        {
          match: 'ct_mark=0x21,ip,reg0=0x1/0xf',
          meaning: 'Service traffic from the gateway goes to {next} to be SNATed.',
        },
        {
          match: 'ct_state=+trk,ct_mark=0x21,ip,reg4=0x20000/0x70000',
          meaning: 'Service packets from Pods need no commit here and go to {next}.',
        },
        ...CONNTRACK_COMMIT_PATTERNS,
      ],
    },
    SERVICE_CONNTRACK_COMMIT,
    HAIRPIN_SNAT,
    {
      ...OUTPUT,
      patterns: [
        {
          match: 'ip,reg0=0x40000/0x40000',
          actions: ['in_port'],
          meaning: 'Hairpin packets leave through the port they came in on.',
        },
        ...OUTPUT_PATTERNS,
      ],
    },
  ],
  bitFields: [
    PKT_SOURCE_NARROW,
    OFPORT_FOUND,
    ...REG0_FLAGS,
    TARGET_OFPORT,
    ...SERVICE_FIELDS,
    DENY_CONJ_ID_BESIDE_ENDPOINT,
    EGRESS_CONJ_ID,
    INGRESS_CONJ_ID,
    CT_MARK_WHOLE,
    ...CT_MARK_BITS,
    INGRESS_RULE_CT_LABEL,
    EGRESS_RULE_CT_LABEL,
    EGRESS_SNAT_MARK,
  ],
  cookie: ANTREA_COOKIE,
  ctZones: [ANTREA_CT_ZONE, ANTREA_SNAT_CT_ZONE, ...ANTREA_CT_ZONES_V6],
  addresses: [GLOBAL_VIRTUAL_MAC, CLASSIC_VIRTUAL_SERVICE_IP, ...CLASSIC_HAIRPIN_IPS],
  ports: ANTREA_PORTS,
  groups: [
    {
      type: 'select',
      bucketActions: ['set:reg3', 'set:reg4', 'goto:EndpointDNATTable'],
      meaning: 'Endpoints of a Service: each bucket loads one Endpoint’s address and port and continues in the Endpoint DNAT table.',
    },
    {
      type: 'select',
      bucketActions: ['set:reg3', 'set:reg4', 'goto:ServiceLBTable'],
      meaning: 'Endpoints of a Service with ClientIP affinity: the chosen Endpoint is loaded and the Service load-balancing table learns it.',
    },
  ],
  detect: [
    { kind: 'table-number', number: 31, weight: 2 },
    { kind: 'table-number', number: 41, weight: 4 },
    { kind: 'table-number', number: 42, weight: 4 },
    { kind: 'table-number', number: 24, weight: 2 },
    { kind: 'table-number', number: 106, weight: 2 },
    { kind: 'table-number', number: 108, weight: 2 },
    { kind: 'port-name', pattern: 'antrea-(gw|tun)0', weight: 3 },
    { kind: 'flow', table: 42, match: 'reg4=0x20000/0x70000', actions: ['ct(nat)'], weight: 3 },
    { kind: 'field-used', field: 'reg4', weight: 1 },
    { kind: 'table-name', name: 'PipelineRootClassifier', weight: -10 },
  ],
};
