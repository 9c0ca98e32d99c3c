/**
 * An Antrea 2.x pipeline generated the way the agent builds it (antrea-io/antrea
 * pkg/agent/openflow/pipeline.go, network_policy.go, multicast.go, framework.go, fields.go at
 * v2.4.0): default features (AntreaProxy, AntreaPolicy, Egress) plus TrafficControl, on an IPv4
 * encap Node; optionally also dual-stack (IPv6), Multicast and LoadBalancer DSR. Tables are
 * numbered as the agent numbers them, densely in declaration order over the tables the features
 * need; the switch is given their names, so that `ovs-ofctl --names` prints them as a support
 * bundle stores them.
 *
 * Services with Endpoint groups (one with ClientIP session affinity, one without Endpoints),
 * Antrea-native policy rules in several tiers (Allow, Drop, Reject with logging, Pass, baseline),
 * K8s NetworkPolicy rules, Egress SNAT marks, TrafficControl mirror and redirect; with the
 * options, IPv6 Pod traffic and neighbour discovery, multicast replication and IGMP, and a DSR
 * LoadBalancer Service.
 */

/** Every table the generator can use, in Antrea's declaration order (pipeline.go newTable calls). */
const ALL_TABLES = [
  'PipelineRootClassifier',
  'ARPSpoofGuard',
  'ARPResponder',
  'Classifier',
  'SpoofGuard',
  'IPv6',
  'PipelineIPClassifier',
  'UnSNAT',
  'ConntrackZone',
  'ConntrackState',
  'PreRoutingClassifier',
  'SessionAffinity',
  'ServiceLB',
  'DSRServiceMark',
  'EndpointDNAT',
  'AntreaPolicyEgressRule',
  'EgressRule',
  'EgressDefaultRule',
  'EgressMetric',
  'L3Forwarding',
  'EgressMark',
  'L3DecTTL',
  'SNATMark',
  'SNAT',
  'L2ForwardingCalc',
  'TrafficControl',
  'IngressSecurityClassifier',
  'AntreaPolicyIngressRule',
  'IngressRule',
  'IngressDefaultRule',
  'IngressMetric',
  'ConntrackCommit',
  'Output',
  'MulticastEgressRule',
  'MulticastEgressMetric',
  'MulticastEgressPodMetric',
  'MulticastRouting',
  'MulticastIngressRule',
  'MulticastIngressMetric',
  'MulticastIngressPodMetric',
  'MulticastOutput',
] as const;
export type Antrea2Table = (typeof ALL_TABLES)[number];

/** Features beyond the default ones (framework.go getRequiredTables). */
export interface Antrea2Features {
  /** Dual-stack Nodes: the IPv6 table and IPv6 Pod addresses. */
  readonly ipv6?: boolean;
  /** Multicast: PipelineIPClassifier and the multicast sub-pipeline. */
  readonly multicast?: boolean;
  /** LoadBalancer DSR mode: DSRServiceMark. */
  readonly dsr?: boolean;
}

export const ALL_FEATURES: Antrea2Features = { ipv6: true, multicast: true, dsr: true };

const FEATURE_TABLES: Readonly<Record<keyof Antrea2Features, readonly Antrea2Table[]>> = {
  ipv6: ['IPv6'],
  multicast: [
    'PipelineIPClassifier',
    'MulticastEgressRule',
    'MulticastEgressMetric',
    'MulticastEgressPodMetric',
    'MulticastRouting',
    'MulticastIngressRule',
    'MulticastIngressMetric',
    'MulticastIngressPodMetric',
    'MulticastOutput',
  ],
  dsr: ['DSRServiceMark'],
};

/** The tables the features need, in declaration order: index = table number. */
export function antrea2Tables(features: Antrea2Features = {}): readonly Antrea2Table[] {
  const off = new Set(
    (Object.keys(FEATURE_TABLES) as (keyof Antrea2Features)[])
      .filter((k) => !features[k])
      .flatMap((k) => FEATURE_TABLES[k]),
  );
  return ALL_TABLES.filter((n) => !off.has(n));
}

/** The tables of the default features: index = table number. */
export const ANTREA2_TABLES = antrea2Tables();

/** Table number → name, for the switch's Flow_Table rows. */
export function antrea2TableNames(features: Antrea2Features = {}): Readonly<Record<number, string>> {
  return Object.fromEntries(antrea2Tables(features).map((n, i) => [i, n]));
}
export const ANTREA2_TABLE_NAMES = antrea2TableNames();

/** Numbers of the tables of one configuration, and jumps written with them. */
class Numbering {
  private readonly tables: readonly Antrea2Table[];
  constructor(features: Antrea2Features) {
    this.tables = antrea2Tables(features);
  }
  readonly has = (name: Antrea2Table): boolean => this.tables.includes(name);
  readonly t = (name: Antrea2Table): number => {
    const n = this.tables.indexOf(name);
    if (n < 0) throw new Error(`${name} is not a table of this configuration`);
    return n;
  };
  readonly goto = (name: Antrea2Table): string => `goto_table:${this.t(name)}`;
  readonly resubmit = (name: Antrea2Table): string => `resubmit(,${this.t(name)})`;
  /** The table after `name` in this configuration (the agent's NextTable and GetNext). */
  readonly next = (name: Antrea2Table): Antrea2Table => this.tables[this.t(name) + 1]!;
}

export interface Antrea2Pod {
  readonly name: string;
  readonly port: number;
  readonly mac: string;
  readonly ip: string;
}

/** Antrea 2.x port numbers (#6202): tunnel and gateway from 32768 up; Pods from 3. */
export const TUNNEL = { name: 'antrea-tun0', port: 32768 } as const;
export const GATEWAY = { name: 'antrea-gw0', port: 32769, mac: 'ba:5e:d1:55:aa:c0', ip: '10.10.0.1' } as const;
export const TC_TAP = { name: 'antrea-tc-tap0', port: 40 } as const;
export const PODS: readonly Antrea2Pod[] = [
  { name: 'client-6-3353ef', port: 3, mac: '5e:b5:e3:a6:90:b7', ip: '10.10.0.26' },
  { name: 'web-7975-274540', port: 4, mac: 'fa:b7:53:74:21:a6', ip: '10.10.0.24' },
  { name: 'db-755c6-5080e3', port: 5, mac: '36:48:21:a2:9d:b4', ip: '10.10.0.25' },
];
const [CLIENT, WEB, DB] = PODS as [Antrea2Pod, Antrea2Pod, Antrea2Pod];
export const ANTREA2_PORTS = [TUNNEL, GATEWAY, TC_TAP, ...PODS].map((p) => ({ name: p.name, ofport: p.port }));

const VIRTUAL_MAC = 'aa:bb:cc:dd:ee:ff';
const VIRTUAL_SVC_IP = '169.254.0.253';
const NODE_IP = '192.168.77.102';
const REMOTE_NODE_IP = '192.168.77.103';
const REMOTE_SUBNET = '10.10.1.0/24';
const LOCAL_SUBNET = '10.10.0.0/24';
const SERVICE_CIDR = '10.96.0.0/12';
/** Egress: the client's traffic leaves through a remote Egress IP; the web Pod's through a local one (id 1). */
const REMOTE_EGRESS_NODE = '192.168.77.113';
const LOCAL_EGRESS_TUNNEL_PEER = '192.168.77.112';

const hex = (n: number): string => `0x${n.toString(16)}`;
const ipHex = (ip: string): string => hex(ip.split('.').reduce((a, b) => a * 256 + Number(b), 0));

export interface Antrea2Service {
  readonly ip: string;
  readonly port: number;
  readonly group: number;
  readonly endpoints: readonly { readonly ip: string; readonly remote: boolean }[];
  readonly affinity?: boolean;
}

export const SERVICES: readonly Antrea2Service[] = [
  {
    ip: '10.101.255.29',
    port: 80,
    group: 9,
    endpoints: [
      { ip: WEB.ip, remote: false },
      { ip: '10.10.1.6', remote: true },
      { ip: DB.ip, remote: false },
    ],
  },
  {
    ip: '10.96.76.15',
    port: 8080,
    group: 10,
    endpoints: [
      { ip: WEB.ip, remote: false },
      { ip: '10.10.1.7', remote: true },
    ],
    affinity: true,
  },
  { ip: '10.105.31.235', port: 443, group: 11, endpoints: [] },
];

/** The Endpoint flows of EndpointDNAT, one per Endpoint address and port. */
function endpointFlows({ t }: Numbering): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const s of SERVICES) {
    for (const e of s.endpoints) {
      const key = `${e.ip}:${s.port}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(
        `table=${t('EndpointDNAT')},priority=200,tcp,reg3=${ipHex(e.ip)},reg4=${hex(0x20000 | s.port)}/0x7ffff actions=ct(commit,table=${t('AntreaPolicyEgressRule')},zone=65520,nat(dst=${e.ip}:${s.port}),exec(set_field:0x10/0x10->ct_mark))`,
      );
    }
  }
  return out;
}

function serviceFlows({ t, goto }: Numbering): string[] {
  const out: string[] = [];
  for (const s of SERVICES) {
    const match = `tcp,reg4=0x10000/0x70000,nw_dst=${s.ip},tp_dst=${s.port}`;
    if (s.affinity) {
      out.push(
        `table=${t('ServiceLB')},priority=200,${match} actions=set_field:0x200/0x200->reg0,set_field:0x30000/0x70000->reg4,set_field:${hex(s.group)}->reg7,group:${s.group}`,
      );
      out.push(
        `table=${t('ServiceLB')},priority=190,tcp,reg4=0x30000/0x70000,nw_dst=${s.ip},tp_dst=${s.port} actions=learn(table=${t('SessionAffinity')},hard_timeout=300,priority=200,delete_learned,cookie=${hex(0x2030000000000 + s.group)},eth_type=0x800,nw_proto=6,NXM_OF_TCP_DST[],NXM_OF_IP_DST[],NXM_OF_IP_SRC[],load:NXM_NX_REG4[0..15]->NXM_NX_REG4[0..15],load:NXM_NX_REG4[26]->NXM_NX_REG4[26],load:NXM_NX_REG3[]->NXM_NX_REG3[],load:0x2->NXM_NX_REG4[16..18],load:0x1->NXM_NX_REG0[9]),set_field:0x20000/0x70000->reg4,${goto('EndpointDNAT')}`,
      );
    } else {
      out.push(
        `table=${t('ServiceLB')},priority=200,${match} actions=set_field:0x200/0x200->reg0,set_field:0x20000/0x70000->reg4,set_field:${hex(s.group)}->reg7,group:${s.group}`,
      );
    }
  }
  return out;
}

/** Service groups: hash-selected here so that ofproto/trace says which bucket it took. */
export function antrea2Groups(features: Antrea2Features = {}): string {
  const { resubmit, next } = new Numbering(features);
  const lines: string[] = [];
  for (const s of features.dsr ? [...SERVICES, DSR_SERVICE] : SERVICES) {
    // group.go: with affinity back to ServiceLB, else to the table after it (DSRServiceMark with DSR).
    const target = s.affinity ? resubmit('ServiceLB') : resubmit(next('ServiceLB'));
    const buckets =
      s.endpoints.length === 0
        ? [`bucket=bucket_id:0,weight:100,actions=set_field:0x4000/0x4000->reg0,${resubmit('EndpointDNAT')}`]
        : s.endpoints.map(
            (e, i) =>
              `bucket=bucket_id:${i},weight:100,actions=${e.remote ? 'set_field:0x4000000/0x4000000->reg4,' : ''}set_field:${ipHex(e.ip)}->reg3,set_field:${hex(s.port)}/0xffff->reg4,${target}`,
          );
    lines.push(`group_id=${s.group},type=select,selection_method=hash,fields(ip_src,tcp_src),${buckets.join(',')}`);
  }
  // NetworkPolicy logging groups: continue in the metric table, and send a copy to the agent.
  for (const [id, next] of [
    [20, 'EgressMetric'],
    [21, 'IngressMetric'],
  ] as const) {
    lines.push(
      `group_id=${id},type=all,bucket=bucket_id:0,actions=${resubmit(next)},bucket=bucket_id:1,actions=set_field:0x400000/0x600000->reg0,${resubmit('Output')}`,
    );
  }
  if (features.multicast) {
    // multicast.go multicastReceiversGroup: local receivers through the ingress tables, a remote Node through the tunnel.
    const local = [WEB, DB].map(
      (p, i) =>
        `bucket=bucket_id:${i},actions=set_field:0x200000/0x600000->reg0,set_field:${hex(p.port)}->reg1,${resubmit('MulticastIngressRule')}`,
    );
    const remote = `bucket=bucket_id:2,actions=set_field:0x200000/0x600000->reg0,set_field:${hex(TUNNEL.port)}->reg1,set_field:${REMOTE_NODE_IP}->tun_dst,${resubmit('MulticastOutput')}`;
    lines.push(`group_id=${MCAST_GROUP.group},type=all,${[...local, remote].join(',')}`);
  }
  return lines.join('\n') + '\n';
}

/** Priority of an Antrea-native rule (tier priority, policy priority, rule index), as the agent's initial formula gives it. */
function rulePriority(tier: number, policy: number, rule: number): number {
  return 65000 - (200 * tier + 20 * policy + rule);
}

/** The flows, by table number, in add-flows syntax. */
export function antrea2Flows(features: Antrea2Features = {}): string {
  const numbering = new Numbering(features);
  const { t, goto, resubmit } = numbering;
  const f: string[] = [];
  const add = (table: Antrea2Table, rest: string): void => {
    f.push(`table=${t(table)},${rest}`);
  };
  // PipelineRootClassifier
  add('PipelineRootClassifier', `priority=200,arp actions=${goto('ARPSpoofGuard')}`);
  add('PipelineRootClassifier', `priority=200,ip actions=${goto('Classifier')}`);
  add('PipelineRootClassifier', 'priority=0 actions=drop');
  // ARP
  add(
    'ARPSpoofGuard',
    `priority=200,arp,in_port=${GATEWAY.port},arp_spa=${GATEWAY.ip},arp_sha=${GATEWAY.mac} actions=${goto('ARPResponder')}`,
  );
  for (const p of PODS)
    add(
      'ARPSpoofGuard',
      `priority=200,arp,in_port=${p.port},arp_spa=${p.ip},arp_sha=${p.mac} actions=${goto('ARPResponder')}`,
    );
  add('ARPSpoofGuard', 'priority=0 actions=drop');
  add(
    'ARPResponder',
    `priority=200,arp,arp_tpa=10.10.1.1,arp_op=1 actions=move:NXM_OF_ETH_SRC[]->NXM_OF_ETH_DST[],set_field:${VIRTUAL_MAC}->eth_src,set_field:2->arp_op,move:NXM_NX_ARP_SHA[]->NXM_NX_ARP_THA[],set_field:${VIRTUAL_MAC}->arp_sha,move:NXM_OF_ARP_SPA[]->NXM_OF_ARP_TPA[],set_field:10.10.1.1->arp_spa,IN_PORT`,
  );
  add('ARPResponder', 'priority=190,arp actions=NORMAL');
  add('ARPResponder', 'priority=0 actions=drop');
  // Classifier: source marks (reg0[0..3]) and FromLocal (reg4[28]), FromExternal (reg4[27]).
  add(
    'Classifier',
    `priority=210,ip,in_port=${GATEWAY.port},nw_src=${GATEWAY.ip} actions=set_field:0x2/0xf->reg0,set_field:0x10000000/0x10000000->reg4,${goto('SpoofGuard')}`,
  );
  add(
    'Classifier',
    `priority=200,in_port=${GATEWAY.port} actions=set_field:0x2/0xf->reg0,set_field:0x8000000/0x8000000->reg4,${goto('SpoofGuard')}`,
  );
  add(
    'Classifier',
    `priority=200,in_port=${TUNNEL.port} actions=set_field:0x1/0xf->reg0,set_field:0x200/0x200->reg0,${goto('UnSNAT')}`,
  );
  add('Classifier', `priority=200,in_port=${TC_TAP.port} actions=set_field:0x6/0xf->reg0,${goto('L3Forwarding')}`);
  for (const p of PODS)
    add(
      'Classifier',
      `priority=190,in_port=${p.port} actions=set_field:0x3/0xf->reg0,set_field:0x10000000/0x10000000->reg4,${goto('SpoofGuard')}`,
    );
  add('Classifier', 'priority=0 actions=drop');
  // Dual-stack: IPv4 skips the IPv6 table (pipeline.go podIPSpoofGuard targetTables).
  const ip4Next = numbering.has('IPv6') ? numbering.next('IPv6') : numbering.next('SpoofGuard');
  add('SpoofGuard', `priority=200,ip,in_port=${GATEWAY.port} actions=${goto(ip4Next)}`);
  for (const p of PODS)
    add('SpoofGuard', `priority=200,ip,in_port=${p.port},dl_src=${p.mac},nw_src=${p.ip} actions=${goto(ip4Next)}`);
  add('SpoofGuard', 'priority=0 actions=drop');
  // Conntrack.
  add('UnSNAT', `priority=200,ip,nw_dst=${VIRTUAL_SVC_IP} actions=ct(table=${t('ConntrackZone')},zone=65521,nat)`);
  add('UnSNAT', `priority=200,ip,nw_dst=${GATEWAY.ip} actions=ct(table=${t('ConntrackZone')},zone=65521,nat)`);
  add('UnSNAT', `priority=0 actions=${goto('ConntrackZone')}`);
  add('ConntrackZone', `priority=200,ip actions=ct(table=${t('ConntrackState')},zone=65520,nat)`);
  add('ConntrackZone', `priority=0 actions=${goto('ConntrackState')}`);
  add('ConntrackState', 'priority=200,ct_state=+inv+trk,ip actions=drop');
  add('ConntrackState', `priority=190,ct_state=-new+trk,ct_mark=0/0x10,ip actions=${goto('AntreaPolicyEgressRule')}`);
  add(
    'ConntrackState',
    `priority=190,ct_state=-new+trk,ct_mark=0x10/0x10,ip actions=set_field:0x200/0x200->reg0,${goto('AntreaPolicyEgressRule')}`,
  );
  add('ConntrackState', `priority=0 actions=${goto('PreRoutingClassifier')}`);
  // Services.
  add('PreRoutingClassifier', `priority=200,ip actions=${resubmit('SessionAffinity')},${resubmit('ServiceLB')}`);
  add('PreRoutingClassifier', `priority=0 actions=${goto('SessionAffinity')}`);
  add('SessionAffinity', 'priority=0 actions=set_field:0x10000/0x70000->reg4');
  f.push(...serviceFlows(numbering));
  add('ServiceLB', `priority=0 actions=${goto('EndpointDNAT')}`);
  add('EndpointDNAT', 'priority=200,reg0=0x4000/0x4000 actions=controller(reason=no_match,id=62373,userdata=04)');
  f.push(...endpointFlows(numbering));
  add(
    'EndpointDNAT',
    `priority=190,reg4=0x20000/0x70000 actions=set_field:0x10000/0x70000->reg4,${resubmit('ServiceLB')}`,
  );
  add('EndpointDNAT', `priority=0 actions=${goto('AntreaPolicyEgressRule')}`);
  // Antrea-native egress rules: an Emergency-tier Drop, a SecurityOps Pass, Application Allow and logged Reject.
  add('AntreaPolicyEgressRule', `priority=64990,ct_state=-new+est,ip actions=${goto('EgressMetric')}`);
  add('AntreaPolicyEgressRule', `priority=64990,ct_state=-new+rel,ip actions=${goto('EgressMetric')}`);
  const emergency = rulePriority(50, 1, 0);
  add('AntreaPolicyEgressRule', `priority=${emergency},ip,nw_src=${CLIENT.ip} actions=conjunction(31,1/2)`);
  add('AntreaPolicyEgressRule', `priority=${emergency},ip,nw_dst=10.10.1.66 actions=conjunction(31,2/2)`);
  add(
    'AntreaPolicyEgressRule',
    `priority=${emergency},conj_id=31 actions=set_field:0x1f->reg3,set_field:0x400/0x400->reg0,${goto('EgressMetric')}`,
  );
  const securityOps = rulePriority(100, 2, 0);
  add('AntreaPolicyEgressRule', `priority=${securityOps},ip,nw_src=${WEB.ip} actions=conjunction(32,1/2)`);
  add('AntreaPolicyEgressRule', `priority=${securityOps},tcp,tp_dst=5432 actions=conjunction(32,2/2)`);
  add(
    'AntreaPolicyEgressRule',
    `priority=${securityOps},conj_id=32 actions=set_field:0x20->reg5,set_field:0x1800/0x1800->reg0,${goto('EgressRule')}`,
  );
  const application = rulePriority(250, 5, 0);
  add('AntreaPolicyEgressRule', `priority=${application},ip,nw_src=${WEB.ip} actions=conjunction(7,1/3)`);
  add('AntreaPolicyEgressRule', `priority=${application},ip,nw_dst=${DB.ip} actions=conjunction(7,2/3)`);
  add('AntreaPolicyEgressRule', `priority=${application},tcp,tp_dst=3306 actions=conjunction(7,3/3)`);
  add(
    'AntreaPolicyEgressRule',
    `priority=${application},conj_id=7,ip actions=set_field:0x7->reg5,ct(commit,table=${t('EgressMetric')},zone=65520,exec(set_field:0x700000000/0xffffffff00000000->ct_label))`,
  );
  const reject = application - 1;
  add('AntreaPolicyEgressRule', `priority=${reject},ip,nw_src=${CLIENT.ip} actions=conjunction(8,1/2)`);
  add('AntreaPolicyEgressRule', `priority=${reject},tcp,tp_dst=22 actions=conjunction(8,2/2)`);
  add(
    'AntreaPolicyEgressRule',
    `priority=${reject},conj_id=8 actions=set_field:0x8->reg3,set_field:0x400/0x400->reg0,set_field:0x1000/0x1800->reg0,set_field:0x6000000/0xfe000000->reg0,set_field:${hex(t('AntreaPolicyEgressRule'))}/0xff->reg2,group:20`,
  );
  add('AntreaPolicyEgressRule', `priority=0 actions=${goto('EgressRule')}`);
  // K8s NetworkPolicy egress.
  add('EgressRule', `priority=200,ip,nw_src=${WEB.ip} actions=conjunction(2,1/3)`);
  add('EgressRule', `priority=200,ip,nw_dst=${DB.ip} actions=conjunction(2,2/3)`);
  add('EgressRule', 'priority=200,tcp,tp_dst=3306 actions=conjunction(2,3/3)');
  add(
    'EgressRule',
    `priority=190,conj_id=2,ip actions=set_field:0x2->reg5,ct(commit,table=${t('EgressMetric')},zone=65520,exec(set_field:0x200000000/0xffffffff00000000->ct_label))`,
  );
  add('EgressRule', `priority=0 actions=${goto('EgressDefaultRule')}`);
  add('EgressDefaultRule', `priority=200,ip,nw_src=${WEB.ip} actions=drop`);
  // A baseline-tier rule lives in the default-rule table.
  add('EgressDefaultRule', `priority=180,ip,nw_src=${CLIENT.ip} actions=conjunction(33,1/2)`);
  add('EgressDefaultRule', 'priority=180,udp,tp_dst=53 actions=conjunction(33,2/2)');
  add(
    'EgressDefaultRule',
    `priority=180,conj_id=33 actions=set_field:0x21->reg3,set_field:0x400/0x400->reg0,${goto('EgressMetric')}`,
  );
  add('EgressDefaultRule', `priority=0 actions=${goto('EgressMetric')}`);
  for (const id of [2, 7]) {
    for (const state of ['+new', '-new'])
      add(
        'EgressMetric',
        `priority=200,ct_state=${state},ct_label=${hex(id * 2 ** 32)}/0xffffffff00000000,ip actions=${goto('L3Forwarding')}`,
      );
  }
  for (const id of [31, 8, 33]) add('EgressMetric', `priority=200,reg0=0x400/0x400,reg3=${hex(id)} actions=drop`);
  add('EgressMetric', `priority=0 actions=${goto('L3Forwarding')}`);
  // Routing.
  add(
    'L3Forwarding',
    `priority=210,ip,nw_dst=${GATEWAY.ip} actions=set_field:${GATEWAY.mac}->eth_dst,set_field:0x20/0xf0->reg0,${goto('L3DecTTL')}`,
  );
  add(
    'L3Forwarding',
    `priority=210,ct_state=+rpl+trk,ct_mark=0x2/0xf,ip actions=set_field:${GATEWAY.mac}->eth_dst,set_field:0x20/0xf0->reg0,${goto('L3DecTTL')}`,
  );
  add('L3Forwarding', `priority=200,ip,reg0=0/0x200,nw_dst=${LOCAL_SUBNET} actions=${goto('L2ForwardingCalc')}`);
  add(
    'L3Forwarding',
    `priority=200,ip,nw_dst=${REMOTE_SUBNET} actions=set_field:${GATEWAY.mac}->eth_src,set_field:${VIRTUAL_MAC}->eth_dst,set_field:${REMOTE_NODE_IP}->tun_dst,set_field:0x10/0xf0->reg0,${goto('L3DecTTL')}`,
  );
  for (const p of PODS)
    add(
      'L3Forwarding',
      `priority=200,ip,reg0=0x200/0x200,nw_dst=${p.ip} actions=set_field:${GATEWAY.mac}->eth_src,set_field:${p.mac}->eth_dst,${goto('L3DecTTL')}`,
    );
  add('L3Forwarding', `priority=190,ct_state=-rpl+trk,ip,reg0=0x3/0xf,reg4=0/0x100000 actions=${goto('EgressMark')}`);
  add(
    'L3Forwarding',
    `priority=190,ct_state=-rpl+trk,ip,reg0=0x1/0xf actions=set_field:${GATEWAY.mac}->eth_dst,${goto('EgressMark')}`,
  );
  add('L3Forwarding', `priority=0 actions=set_field:0x20/0xf0->reg0,${goto('L2ForwardingCalc')}`);
  // Egress: skip Node and Service destinations; SNAT marks for local Egress IPs, tunnel to a remote Egress Node.
  for (const dst of [NODE_IP, REMOTE_NODE_IP, SERVICE_CIDR])
    add('EgressMark', `priority=210,ip,nw_dst=${dst} actions=set_field:0x20/0xf0->reg0,${goto('L2ForwardingCalc')}`);
  add(
    'EgressMark',
    `priority=200,ip,in_port=${CLIENT.port} actions=set_field:${GATEWAY.mac}->eth_src,set_field:${VIRTUAL_MAC}->eth_dst,set_field:${REMOTE_EGRESS_NODE}->tun_dst,set_field:0x10/0xf0->reg0,set_field:0x80000/0x80000->reg0,${goto('L2ForwardingCalc')}`,
  );
  // Since 1.15 every tracked packet is marked, not only a connection's first (featureEgress snatRuleFlow).
  add(
    'EgressMark',
    `priority=200,ct_state=+trk,ip,tun_dst=${LOCAL_EGRESS_TUNNEL_PEER} actions=set_field:0x1/0xff->pkt_mark,set_field:0x20/0xf0->reg0,${goto('L2ForwardingCalc')}`,
  );
  add(
    'EgressMark',
    `priority=200,ct_state=+trk,ip,in_port=${WEB.port} actions=set_field:0x1/0xff->pkt_mark,set_field:0x20/0xf0->reg0,${goto('L2ForwardingCalc')}`,
  );
  add('EgressMark', 'priority=190,ct_state=+new+trk,ip,reg0=0x1/0xf actions=drop');
  add('EgressMark', `priority=0 actions=set_field:0x20/0xf0->reg0,${goto('L2ForwardingCalc')}`);
  add('L3DecTTL', `priority=210,ip,reg0=0x2/0xf actions=${goto('SNATMark')}`);
  add('L3DecTTL', `priority=200,ip actions=dec_ttl,${goto('SNATMark')}`);
  add('L3DecTTL', `priority=0 actions=${goto('SNATMark')}`);
  add(
    'SNATMark',
    `priority=200,ct_state=+new+trk,ip,reg0=0x22/0xff actions=ct(commit,table=${t('SNAT')},zone=65520,exec(set_field:0x20/0x20->ct_mark,set_field:0x40/0x40->ct_mark,move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))`,
  );
  add('SNATMark', `priority=0 actions=${goto('SNAT')}`);
  add(
    'SNAT',
    `priority=200,ct_state=+new+trk,ct_mark=0x40/0x40,ip,reg0=0x2/0xf actions=ct(commit,table=${t('L2ForwardingCalc')},zone=65521,nat(src=${VIRTUAL_SVC_IP}),exec(set_field:0x10/0x10->ct_mark,set_field:0x20/0x20->ct_mark,set_field:0x40/0x40->ct_mark))`,
  );
  add(
    'SNAT',
    `priority=200,ct_state=-new-rpl+trk,ct_mark=0x20/0x20,ip actions=ct(table=${t('L2ForwardingCalc')},zone=65521,nat)`,
  );
  add('SNAT', `priority=0 actions=${goto('L2ForwardingCalc')}`);
  // Switching.
  add(
    'L2ForwardingCalc',
    `priority=200,dl_dst=${GATEWAY.mac} actions=set_field:${hex(GATEWAY.port)}->reg1,set_field:0x200000/0x600000->reg0,${goto('TrafficControl')}`,
  );
  add(
    'L2ForwardingCalc',
    `priority=200,dl_dst=${VIRTUAL_MAC} actions=set_field:${hex(TUNNEL.port)}->reg1,set_field:0x200000/0x600000->reg0,${goto('TrafficControl')}`,
  );
  for (const p of PODS)
    add(
      'L2ForwardingCalc',
      `priority=200,dl_dst=${p.mac} actions=set_field:${hex(p.port)}->reg1,set_field:0x200000/0x600000->reg0,${goto('TrafficControl')}`,
    );
  add('L2ForwardingCalc', `priority=0 actions=${goto('TrafficControl')}`);
  // TrafficControl: the web Pod's traffic mirrored to the tap, the db Pod's redirected to it.
  add('TrafficControl', `priority=210,reg0=0x200006/0x60000f actions=${goto('Output')}`);
  add(
    'TrafficControl',
    `priority=200,reg1=${hex(WEB.port)} actions=set_field:${hex(TC_TAP.port)}->reg9,set_field:0x400000/0xc00000->reg4,${goto('IngressSecurityClassifier')}`,
  );
  add(
    'TrafficControl',
    `priority=200,in_port=${WEB.port} actions=set_field:${hex(TC_TAP.port)}->reg9,set_field:0x400000/0xc00000->reg4,${goto('IngressSecurityClassifier')}`,
  );
  add(
    'TrafficControl',
    `priority=200,reg1=${hex(DB.port)} actions=set_field:${hex(TC_TAP.port)}->reg9,set_field:0x800000/0xc00000->reg4,${goto('IngressSecurityClassifier')}`,
  );
  add('TrafficControl', `priority=0 actions=${goto('IngressSecurityClassifier')}`);
  // Ingress security.
  add(
    'IngressSecurityClassifier',
    `priority=210,pkt_mark=0x80000000/0x80000000,ct_state=-rpl+trk,ip actions=${goto('ConntrackCommit')}`,
  );
  add('IngressSecurityClassifier', `priority=200,reg0=0x20/0xf0 actions=${goto('IngressMetric')}`);
  add('IngressSecurityClassifier', `priority=200,reg0=0x10/0xf0 actions=${goto('IngressMetric')}`);
  add('IngressSecurityClassifier', `priority=200,ct_mark=0x40/0x40 actions=${goto('ConntrackCommit')}`);
  add('IngressSecurityClassifier', `priority=0 actions=${goto('AntreaPolicyIngressRule')}`);
  add('AntreaPolicyIngressRule', `priority=64990,ct_state=-new+est,ip actions=${goto('IngressMetric')}`);
  add('AntreaPolicyIngressRule', `priority=64990,ct_state=-new+rel,ip actions=${goto('IngressMetric')}`);
  const platform = rulePriority(200, 1, 0);
  add('AntreaPolicyIngressRule', `priority=${platform},ip,nw_src=10.10.1.0/24 actions=conjunction(40,1/2)`);
  add('AntreaPolicyIngressRule', `priority=${platform},reg1=${hex(DB.port)} actions=conjunction(40,2/2)`);
  add(
    'AntreaPolicyIngressRule',
    `priority=${platform},conj_id=40 actions=set_field:0x28->reg3,set_field:0x400/0x400->reg0,set_field:0x800/0x1800->reg0,set_field:0x2000000/0xfe000000->reg0,set_field:${hex(t('AntreaPolicyIngressRule'))}/0xff->reg2,group:21`,
  );
  add('AntreaPolicyIngressRule', `priority=${application},ip,nw_src=${CLIENT.ip} actions=conjunction(6,1/3)`);
  add('AntreaPolicyIngressRule', `priority=${application},reg1=${hex(WEB.port)} actions=conjunction(6,2/3)`);
  add('AntreaPolicyIngressRule', `priority=${application},tcp,tp_dst=80 actions=conjunction(6,3/3)`);
  add(
    'AntreaPolicyIngressRule',
    `priority=${application},conj_id=6,ip actions=set_field:0x6->reg6,ct(commit,table=${t('IngressMetric')},zone=65520,exec(set_field:0x6/0xffffffff->ct_label))`,
  );
  add('AntreaPolicyIngressRule', `priority=${application - 1},ip actions=conjunction(4,1/2)`);
  add('AntreaPolicyIngressRule', `priority=${application - 1},reg1=${hex(WEB.port)} actions=conjunction(4,2/2)`);
  add(
    'AntreaPolicyIngressRule',
    `priority=${application - 1},conj_id=4 actions=set_field:0x4->reg3,set_field:0x400/0x400->reg0,${goto('IngressMetric')}`,
  );
  add('AntreaPolicyIngressRule', `priority=0 actions=${goto('IngressRule')}`);
  add('IngressRule', `priority=200,ip,nw_src=${CLIENT.ip} actions=conjunction(3,1/3)`);
  add('IngressRule', `priority=200,reg1=${hex(WEB.port)} actions=conjunction(3,2/3)`);
  add('IngressRule', 'priority=200,tcp,tp_dst=80 actions=conjunction(3,3/3)');
  add(
    'IngressRule',
    `priority=190,conj_id=3,ip actions=set_field:0x3->reg6,ct(commit,table=${t('IngressMetric')},zone=65520,exec(set_field:0x3/0xffffffff->ct_label))`,
  );
  add('IngressRule', `priority=0 actions=${goto('IngressDefaultRule')}`);
  add('IngressDefaultRule', `priority=200,reg1=${hex(WEB.port)} actions=drop`);
  add('IngressDefaultRule', `priority=0 actions=${goto('IngressMetric')}`);
  for (const id of [3, 6])
    for (const state of ['+new', '-new'])
      add(
        'IngressMetric',
        `priority=200,ct_state=${state},ct_label=${hex(id)}/0xffffffff,ip actions=${goto('ConntrackCommit')}`,
      );
  for (const id of [4, 40]) add('IngressMetric', `priority=200,reg0=0x400/0x400,reg3=${hex(id)} actions=drop`);
  add('IngressMetric', `priority=0 actions=${goto('ConntrackCommit')}`);
  add(
    'ConntrackCommit',
    `priority=200,ct_state=+new+trk,ct_mark=0/0x20,ip actions=ct(commit,table=${t('Output')},zone=65520,exec(move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))`,
  );
  add('ConntrackCommit', `priority=0 actions=${goto('Output')}`);
  add(
    'Output',
    'priority=211,reg0=0x200000/0x600000,reg4=0x400000/0xc00000 actions=output:NXM_NX_REG1[],output:NXM_NX_REG9[]',
  );
  add('Output', 'priority=211,reg0=0x200000/0x600000,reg4=0x800000/0xc00000 actions=output:NXM_NX_REG9[]');
  add('Output', 'priority=210,ct_mark=0x40/0x40 actions=IN_PORT');
  add('Output', 'priority=200,reg0=0x200000/0x600000 actions=output:NXM_NX_REG1[]');
  add('Output', 'priority=200,reg0=0x2400000/0xfe600000 actions=controller(reason=no_match,id=62373,userdata=01.01)');
  add('Output', 'priority=200,reg0=0x4400000/0xfe600000 actions=controller(reason=no_match,id=62373,userdata=01.02)');
  add('Output', 'priority=0 actions=drop');
  f.push(...featureFlows(numbering, features));
  return f.map((l) => `cookie=0x1000000000000,${l}`).join('\n') + '\n';
}

/** IPv6 addresses of the gateway and Pods on a dual-stack Node. */
const GATEWAY_V6 = 'fd00:10:10::1';
export const V6: Readonly<Record<string, string>> = {
  [CLIENT.name]: 'fd00:10:10::1a',
  [WEB.name]: 'fd00:10:10::18',
  [DB.name]: 'fd00:10:10::19',
};
const VIRTUAL_SVC_IP6 = 'fc01::aabb:ccdd:eeff';
/** Multicast: a group two local Pods joined, and a remote Node with a receiver. */
const MCAST_GROUP = { ip: '239.1.1.1', group: 30 } as const;
/** A LoadBalancer Service in DSR mode with a remote and a local Endpoint. */
const DSR_SERVICE: Antrea2Service = {
  ip: '192.168.77.150',
  port: 80,
  group: 12,
  endpoints: [
    { ip: '10.10.1.8', remote: true },
    { ip: WEB.ip, remote: false },
  ],
};

/** The flows of the optional features, as pipeline.go and multicast.go build them. */
function featureFlows(numbering: Numbering, features: Antrea2Features): string[] {
  const { t, goto, resubmit, next } = numbering;
  const f: string[] = [];
  const add = (table: Antrea2Table, rest: string): void => {
    f.push(`table=${t(table)},${rest}`);
  };
  if (features.ipv6) {
    add('PipelineRootClassifier', `priority=200,ipv6 actions=${goto('Classifier')}`);
    add('SpoofGuard', `priority=200,ipv6,in_port=${GATEWAY.port} actions=${goto('IPv6')}`);
    for (const p of PODS)
      add(
        'SpoofGuard',
        `priority=200,ipv6,in_port=${p.port},dl_src=${p.mac},ipv6_src=${V6[p.name]} actions=${goto('IPv6')}`,
      );
    // ipv6Flows: link-local sources pass; neighbour discovery and IPv6 multicast are switched normally.
    add('SpoofGuard', `priority=200,ipv6,ipv6_src=fe80::/10 actions=${goto('IPv6')}`);
    add('IPv6', 'priority=200,icmp6,icmp_type=135,icmp_code=0 actions=NORMAL');
    add('IPv6', 'priority=200,icmp6,icmp_type=136,icmp_code=0 actions=NORMAL');
    add('IPv6', 'priority=200,ipv6,ipv6_dst=ff00::/8 actions=NORMAL');
    add('IPv6', `priority=0 actions=${goto(next('IPv6'))}`);
    for (const dst of [VIRTUAL_SVC_IP6, GATEWAY_V6])
      add('UnSNAT', `priority=200,ipv6,ipv6_dst=${dst} actions=ct(table=${t('ConntrackZone')},zone=65511,nat)`);
    add('ConntrackZone', `priority=200,ipv6 actions=ct(table=${t('ConntrackState')},zone=65510,nat)`);
    add('ConntrackState', 'priority=200,ct_state=+inv+trk,ipv6 actions=drop');
    add(
      'ConntrackState',
      `priority=190,ct_state=-new+trk,ct_mark=0/0x10,ipv6 actions=${goto('AntreaPolicyEgressRule')}`,
    );
    add(
      'ConntrackState',
      `priority=190,ct_state=-new+trk,ct_mark=0x10/0x10,ipv6 actions=set_field:0x200/0x200->reg0,${goto('AntreaPolicyEgressRule')}`,
    );
    for (const state of ['est', 'rel']) {
      add('AntreaPolicyEgressRule', `priority=64990,ct_state=-new+${state},ipv6 actions=${goto('EgressMetric')}`);
      add('AntreaPolicyIngressRule', `priority=64990,ct_state=-new+${state},ipv6 actions=${goto('IngressMetric')}`);
    }
    add(
      'L3Forwarding',
      `priority=210,ipv6,ipv6_dst=${GATEWAY_V6} actions=set_field:${GATEWAY.mac}->eth_dst,set_field:0x20/0xf0->reg0,${goto('L3DecTTL')}`,
    );
    add('L3Forwarding', `priority=200,ipv6,reg0=0/0x200,ipv6_dst=fd00:10:10::/64 actions=${goto('L2ForwardingCalc')}`);
    for (const p of PODS)
      add(
        'L3Forwarding',
        `priority=200,ipv6,reg0=0x200/0x200,ipv6_dst=${V6[p.name]} actions=set_field:${GATEWAY.mac}->eth_src,set_field:${p.mac}->eth_dst,${goto('L3DecTTL')}`,
      );
    add('L3DecTTL', `priority=210,ipv6,reg0=0x2/0xf actions=${goto('SNATMark')}`);
    add('L3DecTTL', `priority=200,ipv6 actions=dec_ttl,${goto('SNATMark')}`);
    add(
      'ConntrackCommit',
      `priority=200,ct_state=+new+trk,ct_mark=0/0x20,ipv6 actions=ct(commit,table=${t('Output')},zone=65510,exec(move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))`,
    );
  }
  if (features.multicast) {
    // multicast.go: multicastPipelineClassifyFlow, multicastRemoteReportFlows, multicastOutputFlows,
    // multicastSkipIGMPMetricFlows, multicastPodMetricFlows; pipeline.go: igmpEgressFlow,
    // igmpPktInFlows, localMulticastForwardFlows, externalMulticastReceiverFlow.
    add(
      'Classifier',
      `priority=210,ip,in_port=${TUNNEL.port},nw_dst=224.0.0.0/4 actions=set_field:0x1/0xf->reg0,${goto('MulticastEgressRule')}`,
    );
    add('PipelineIPClassifier', `priority=210,ip,nw_dst=224.0.0.0/4 actions=${resubmit('MulticastEgressRule')}`);
    add('PipelineIPClassifier', `priority=0 actions=${goto(next('PipelineIPClassifier'))}`);
    add('MulticastEgressRule', `priority=64991,ip,nw_proto=2,reg0=0x3/0xf actions=${goto('MulticastRouting')}`);
    for (const table of [
      'MulticastEgressRule',
      'MulticastEgressMetric',
      'MulticastEgressPodMetric',
      'MulticastRouting',
      'MulticastIngressRule',
      'MulticastIngressMetric',
      'MulticastIngressPodMetric',
    ] as const) {
      add(table, `priority=0 actions=${goto(next(table))}`);
    }
    add('MulticastEgressPodMetric', `priority=210,ip,nw_proto=2 actions=${goto('MulticastRouting')}`);
    add('MulticastIngressPodMetric', `priority=210,ip,nw_proto=2 actions=${goto('MulticastOutput')}`);
    for (const p of PODS) {
      add('MulticastEgressPodMetric', `priority=200,ip,nw_src=${p.ip} actions=${goto('MulticastRouting')}`);
      add('MulticastIngressPodMetric', `priority=200,ip,reg1=${hex(p.port)} actions=${goto('MulticastOutput')}`);
    }
    for (const source of ['0x3', '0x1'])
      add(
        'MulticastRouting',
        `priority=210,ip,nw_proto=2,reg0=${source}/0xf actions=controller(reason=no_match,id=62373,userdata=03)`,
      );
    add('MulticastRouting', `priority=200,ip,nw_dst=${MCAST_GROUP.ip} actions=group:${MCAST_GROUP.group}`);
    add('MulticastRouting', `priority=190,ip actions=output:${GATEWAY.port}`);
    add('MulticastOutput', `priority=210,reg0=0x200001/0x60000f,reg1=${hex(GATEWAY.port)} actions=drop`);
    add('MulticastOutput', `priority=210,reg0=0x200002/0x60000f,reg1=${hex(TUNNEL.port)} actions=drop`);
    add('MulticastOutput', 'priority=200,reg0=0x200000/0x600000 actions=output:NXM_NX_REG1[]');
    add('MulticastOutput', 'priority=0 actions=drop');
  }
  if (features.dsr) {
    // pipeline.go: conntrackStateFlows (externally originated invalid connections back to
    // stagePreRouting), dsrServiceMarkFlow, dsrServiceNoDNATFlows, l3FwdFlowToRemoteViaTun.
    add(
      'ConntrackState',
      `priority=210,ct_state=+inv+trk,reg4=0x8000000/0x8000000 actions=${goto('PreRoutingClassifier')}`,
    );
    const s = DSR_SERVICE;
    add(
      'ServiceLB',
      `priority=200,tcp,reg4=0x10000/0x70000,nw_dst=${s.ip},tp_dst=${s.port} actions=set_field:0x200/0x200->reg0,set_field:0x20000/0x70000->reg4,set_field:${hex(s.group)}->reg7,group:${s.group}`,
    );
    add(
      'DSRServiceMark',
      `priority=200,tcp,reg4=0xc000000/0xe000000,nw_dst=${s.ip},tp_dst=${s.port} actions=learn(table=${t('SessionAffinity')},idle_timeout=160,fin_idle_timeout=5,priority=210,delete_learned,cookie=0x1030000000000,eth_type=0x800,nw_proto=6,NXM_OF_TCP_SRC[],NXM_OF_TCP_DST[],NXM_OF_IP_SRC[],NXM_OF_IP_DST[],load:NXM_NX_REG4[0..15]->NXM_NX_REG4[0..15],load:0x2->NXM_NX_REG4[16..18],load:0x1->NXM_NX_REG4[25],load:NXM_NX_REG3[]->NXM_NX_REG3[]),set_field:0x2000000/0x2000000->reg4,${goto('EndpointDNAT')}`,
    );
    add('DSRServiceMark', `priority=190,ct_state=+inv+trk,reg4=0/0x2000000 actions=drop`);
    add('DSRServiceMark', `priority=0 actions=${goto('EndpointDNAT')}`);
    add(
      'EndpointDNAT',
      `priority=210,ip,reg4=0x2000000/0x2000000 actions=ct(commit,table=${t('AntreaPolicyEgressRule')},zone=65520,exec(move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))`,
    );
    add(
      'L3Forwarding',
      `priority=200,ip,reg3=0xa0a0100/0xffffff00,reg4=0x2000000/0x2000000 actions=set_field:${GATEWAY.mac}->eth_src,set_field:${VIRTUAL_MAC}->eth_dst,set_field:${REMOTE_NODE_IP}->tun_dst,set_field:0x10/0xf0->reg0,${goto('L3DecTTL')}`,
    );
  }
  return f;
}

/** Packets that visit every part of the pipeline above: Services, policy tiers, Egress, TrafficControl. */
export function antrea2Probes(
  features: Antrea2Features = {},
): { readonly packet: string; readonly ctNext?: readonly string[] }[] {
  const probes: { packet: string; ctNext?: string[] }[] = [];
  // The protocol comes first: ofproto/trace wants the prerequisites of nw_src before it.
  const from = (p: Antrea2Pod, rest: string): string => {
    const [proto, ...more] = rest.split(',');
    return `in_port=${p.port},${proto},dl_src=${p.mac},nw_src=${p.ip},nw_ttl=64,${more.join(',')}`;
  };
  for (const sport of [1000, 2000, 3000]) {
    for (const s of SERVICES) {
      probes.push({
        packet: from(CLIENT, `tcp,dl_dst=${GATEWAY.mac},nw_dst=${s.ip},tp_src=${sport},tp_dst=${s.port}`),
      });
      probes.push({
        packet: from(CLIENT, `tcp,dl_dst=${GATEWAY.mac},nw_dst=${s.ip},tp_src=${sport},tp_dst=${s.port}`),
        ctNext: ['trk,new', 'trk,new', 'trk,new'],
      });
    }
    probes.push({
      packet: `in_port=${GATEWAY.port},tcp,dl_src=${GATEWAY.mac},nw_src=${GATEWAY.ip},nw_dst=10.96.76.15,tp_src=${sport},tp_dst=8080`,
    });
  }
  for (const p of PODS) {
    for (const q of PODS) {
      if (p === q) continue;
      for (const port of [80, 3306, 22, 5432]) {
        probes.push({ packet: from(p, `tcp,dl_dst=${q.mac},nw_dst=${q.ip},tp_dst=${port}`) });
        probes.push({ packet: from(p, `tcp,dl_dst=${q.mac},nw_dst=${q.ip},tp_dst=${port}`), ctNext: ['trk,est'] });
      }
    }
    probes.push({ packet: from(p, `tcp,dl_dst=${GATEWAY.mac},nw_dst=8.8.8.8,tp_dst=443`) });
    probes.push({ packet: from(p, `udp,dl_dst=${GATEWAY.mac},nw_dst=8.8.8.8,udp_dst=53`) });
    probes.push({ packet: from(p, `tcp,dl_dst=${GATEWAY.mac},nw_dst=10.10.1.66,tp_dst=80`) });
    probes.push({ packet: from(p, `tcp,dl_dst=${VIRTUAL_MAC},nw_dst=10.10.1.9,tp_dst=22`) });
    probes.push({
      packet: `in_port=${p.port},arp,dl_src=${p.mac},arp_spa=${p.ip},arp_tpa=10.10.1.1,arp_op=1,arp_sha=${p.mac}`,
    });
  }
  probes.push({
    packet: `in_port=${TUNNEL.port},tcp,dl_dst=${VIRTUAL_MAC},nw_src=10.10.1.5,nw_dst=${DB.ip},nw_ttl=64,tp_dst=3306`,
  });
  probes.push({
    packet: `in_port=${TUNNEL.port},tcp,dl_dst=${VIRTUAL_MAC},nw_src=10.10.1.5,nw_dst=${WEB.ip},nw_ttl=64,tp_dst=80`,
  });
  probes.push({
    packet: `in_port=${TUNNEL.port},tcp,dl_dst=${VIRTUAL_MAC},nw_src=10.10.1.5,nw_dst=${WEB.ip},nw_ttl=64,tp_dst=80`,
    ctNext: ['trk,est'],
  });
  probes.push({
    packet: `in_port=${TC_TAP.port},tcp,dl_dst=${WEB.mac},nw_src=${CLIENT.ip},nw_dst=${WEB.ip},nw_ttl=64,tp_dst=80`,
  });
  probes.push({
    packet: `in_port=${GATEWAY.port},tcp,dl_src=${GATEWAY.mac},dl_dst=${WEB.mac},nw_src=192.168.1.7,nw_dst=${WEB.ip},nw_ttl=64,tp_dst=80`,
  });
  if (features.ipv6) {
    for (const q of [WEB, DB]) {
      const packet = `in_port=${CLIENT.port},tcp6,dl_src=${CLIENT.mac},dl_dst=${q.mac},ipv6_src=${V6[CLIENT.name]},ipv6_dst=${V6[q.name]},nw_ttl=64,tp_dst=80`;
      probes.push({ packet }, { packet, ctNext: ['trk,new'] }, { packet, ctNext: ['trk,est'] });
    }
    probes.push({
      packet: `in_port=${CLIENT.port},icmp6,dl_src=${CLIENT.mac},ipv6_src=${V6[CLIENT.name]},ipv6_dst=ff02::1:ff00:18,icmpv6_type=135,icmpv6_code=0,nd_target=${V6[WEB.name]}`,
    });
    probes.push({
      packet: `in_port=${CLIENT.port},tcp6,dl_src=00:00:00:00:00:01,ipv6_src=${V6[CLIENT.name]},ipv6_dst=${V6[WEB.name]},tp_dst=80`,
    });
  }
  if (features.multicast) {
    for (const dst of [MCAST_GROUP.ip, '239.2.2.2']) {
      probes.push({
        packet: `in_port=${CLIENT.port},udp,dl_src=${CLIENT.mac},nw_src=${CLIENT.ip},nw_dst=${dst},nw_ttl=64,udp_dst=5000`,
      });
      probes.push({ packet: `in_port=${TUNNEL.port},udp,nw_src=10.10.1.5,nw_dst=${dst},nw_ttl=64,udp_dst=5000` });
    }
    probes.push({
      packet: `in_port=${CLIENT.port},ip,nw_proto=2,dl_src=${CLIENT.mac},nw_src=${CLIENT.ip},nw_dst=224.0.0.22`,
    });
  }
  if (features.dsr) {
    for (const sport of [1000, 2000, 3000, 4000]) {
      const packet = `in_port=${GATEWAY.port},tcp,dl_src=${GATEWAY.mac},dl_dst=${GATEWAY.mac},nw_src=192.168.1.7,nw_dst=${DSR_SERVICE.ip},nw_ttl=64,tp_src=${sport},tp_dst=${DSR_SERVICE.port}`;
      probes.push(
        { packet },
        { packet, ctNext: ['trk,new', 'trk,new', 'trk,new'] },
        { packet, ctNext: ['trk,inv', 'trk,inv', 'trk,inv'] },
      );
    }
  }
  return probes;
}

/** The flows with their tables written by name, as `ovs-ofctl --names` prints them from the switch. */
export function antrea2NamedFlows(flows = antrea2Flows(), features: Antrea2Features = {}): string {
  const tables = antrea2Tables(features);
  const name = (n: string): string => tables[Number(n)]!;
  return flows
    .replace(/\btable=(\d+)/g, (_m, n: string) => `table=${name(n)}`)
    .replace(/goto_table:(\d+)/g, (_m, n: string) => `goto_table:${name(n)}`)
    .replace(/resubmit\(,(\d+)\)/g, (_m, n: string) => `resubmit(,${name(n)})`);
}
