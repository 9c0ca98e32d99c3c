/**
 * The flows of a synthetic Antrea node (flexible pipeline, default layout "A": IPv4 encap, AntreaProxy,
 * AntreaPolicy and Egress on), written exactly as `ovs-ofctl -O OpenFlow13 dump-flows` prints them.
 * OpenFlow 1.3 cannot carry a masked set_field, so partial register and ct_mark writes print as
 * `load:V->NXM_…[a..b]`, whole-field writes as `set_field:V->regN`.
 *
 * Scale follows the requested flow count: a few hundred local Pods, remote Nodes and thousands of
 * Services make up the fixed part, and NetworkPolicy rules (conjunctive matches) fill the rest, as
 * they do on the Nodes of large clusters.
 */
import { Random } from './random.ts';

export interface SyntheticFlow {
  readonly table: number;
  readonly priority: number;
  /** Match as printed after `priority=N,`; empty for a catch-all. */
  readonly match: string;
  /** Printed actions, joined with `,` on output; clause flows gain one `conjunction(…)` per rule. */
  readonly actions: string[];
  readonly cookie: bigint;
  readonly hardTimeout?: number;
  /** Conjunction clause flows never receive packet counts (ovs-conjunction.md §1). */
  readonly counted: boolean;
}

/** Table IDs of the default flexible-pipeline layout (antrea-pipelines.md §3, config A). */
const T = {
  root: 0,
  arpSpoofGuard: 1,
  arpResponder: 2,
  classifier: 3,
  spoofGuard: 4,
  unSnat: 5,
  conntrackZone: 6,
  conntrackState: 7,
  preRoutingClassifier: 8,
  sessionAffinity: 9,
  serviceLb: 10,
  endpointDnat: 11,
  antreaPolicyEgressRule: 12,
  egressRule: 13,
  egressDefaultRule: 14,
  egressMetric: 15,
  l3Forwarding: 16,
  egressMark: 17,
  l3DecTtl: 18,
  snatMark: 19,
  snat: 20,
  l2ForwardingCalc: 21,
  ingressSecurityClassifier: 22,
  antreaPolicyIngressRule: 23,
  ingressRule: 24,
  ingressDefaultRule: 25,
  ingressMetric: 26,
  conntrackCommit: 27,
  output: 28,
} as const;
const TABLE_COUNT = 29;

/** Cookie categories of Antrea v1.7+ (antrea-pipelines.md §5); the round is the agent restart count. */
const CATEGORY = { default: 0n, podConnectivity: 1n, networkPolicy: 2n, service: 3n, egress: 4n } as const;
const ROUND = 3n;
function cookie(category: bigint, objectId = 0): bigint {
  return (ROUND << 48n) | (category << 40n) | BigInt(objectId);
}

export const TUNNEL_PORT = 32768;
export const GATEWAY_PORT = 32769;
const GLOBAL_VIRTUAL_MAC = 'aa:bb:cc:dd:ee:ff';
const VIRTUAL_SERVICE_IP = '169.254.0.253';

export interface Pod {
  readonly port: number;
  readonly ip: string;
  readonly mac: string;
}

interface PortSpec {
  readonly proto: 'tcp' | 'udp';
  /** `80`, or a masked range `0x1f90/0xfff0`. */
  readonly dst: string;
}

/** One dimension of a conjunction: the match of each of its clause flows. */
type Dimension = readonly string[];

export interface ClusterShape {
  readonly localPods: number;
  readonly remoteNodes: number;
  readonly services: number;
}

/** Cluster size for a target flow count; NetworkPolicy rules then fill up to the target. */
export function shapeFor(flows: number): ClusterShape {
  const f = flows / 1_000_000;
  const clamp = (v: number, lo: number, hi: number): number => Math.max(lo, Math.min(hi, Math.round(v)));
  return {
    localPods: clamp(200 * f, 2, 250),
    remoteNodes: clamp(1000 * f, 1, 5000),
    services: clamp(8000 * f, 1, 50000),
  };
}

const hex = (n: number | bigint): string => (n === 0 || n === 0n ? '0' : `0x${n.toString(16)}`);
const ipv4ToInt = (ip: string): number => ip.split('.').reduce((acc, p) => acc * 256 + Number(p), 0);
/** Pod subnet prefix (first three octets) of Node `i`; Node 0 is the local one. */
export const nodeSubnet = (i: number): string => `10.${16 + (i >> 8)}.${i & 255}`;
export const PODS_PER_NODE = 100;
/** Address of Pod `index` (0 to PODS_PER_NODE - 1) on Node `node`; .1 is the Node's gateway. */
export const podIpOn = (node: number, index: number): string => `${nodeSubnet(node)}.${index + 2}`;
/** ClusterIP of Service `s`, in 10.96.0.0/12. */
export function serviceIp(s: number): string {
  const host = s + 10;
  return `10.${96 + (host >> 16)}.${(host >> 8) & 255}.${host & 255}`;
}
/** Ports that Services and NetworkPolicy rules use most. */
export const SERVICE_PORTS: readonly number[] = [80, 443, 8080, 8443, 9090, 3306, 5432, 6379, 53, 9153];
export const POLICY_PORTS: readonly number[] = [80, 443, 8080, 53, 5432, 3306, 6379, 9090, 8443, 22, 25, 11211];
const nodeIp = (i: number): string => `192.168.${(i + 10) >> 8}.${(i + 10) & 255}`;
const load = (value: number, field: string): string => `load:${hex(value)}->${field}`;

function randomMac(rnd: Random): string {
  const bytes = Array.from({ length: 6 }, () => rnd.int(0, 255));
  bytes[0] = (bytes[0]! & 0xfc) | 0x02; // locally administered unicast, like veth addresses
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

/**
 * The local Pods of a dump, drawn from a source of their own so that packets for the dump can be
 * made without building it (bench/packets.ts).
 */
export function localPodsOf(seed: number, shape: ClusterShape): Pod[] {
  const rnd = new Random(seed ^ 0x90d5);
  return Array.from({ length: shape.localPods }, (_, j) => ({
    port: j + 1,
    ip: `${nodeSubnet(0)}.${j + 2}`,
    mac: randomMac(rnd),
  }));
}

export class AntreaFlowBuilder {
  private readonly rnd: Random;
  private readonly seed: number;
  private readonly shape: ClusterShape;
  private readonly tables: SyntheticFlow[][] = Array.from({ length: TABLE_COUNT }, () => []);
  /** Clause flows by table/priority/match: Antrea installs one flow per match and adds a conjunction per rule. */
  private readonly clauses = new Map<string, SyntheticFlow>();
  private readonly localPods: Pod[] = [];
  private readonly addressGroups: string[][] = [];
  private readonly isolatedIngress = new Set<number>();
  private readonly isolatedEgress = new Set<string>();
  private readonly gatewayMac: string;
  private nextConjId = 1;
  private nextGroupId = 1;
  private nextPolicyPriority = 64000;
  private count = 0;

  constructor(seed: number, shape: ClusterShape) {
    this.rnd = new Random(seed);
    this.shape = shape;
    this.seed = seed;
    this.gatewayMac = randomMac(this.rnd);
  }

  /** All flows, grouped by table in ascending order; within a table in no particular order, as OVS returns them. */
  build(target: number): SyntheticFlow[][] {
    this.localPods.push(...localPodsOf(this.seed, this.shape));
    this.pipelineFlows();
    for (const pod of this.localPods) this.podFlows(pod);
    for (let i = 1; i <= this.shape.remoteNodes; i++) this.remoteNodeFlows(i);
    for (let s = 0; s < this.shape.services; s++) this.serviceFlows(s);
    while (this.count < target) this.policyRule();
    for (const port of this.isolatedIngress)
      this.add(T.ingressDefaultRule, 200, `reg1=${hex(port)}`, ['drop'], CATEGORY.networkPolicy);
    for (const ip of this.isolatedEgress)
      this.add(T.egressDefaultRule, 200, `ip,nw_src=${ip}`, ['drop'], CATEGORY.networkPolicy);
    for (const flows of this.tables) this.rnd.shuffle(flows);
    return this.tables;
  }

  private add(
    table: number,
    priority: number,
    match: string,
    actions: string[],
    category: bigint,
    extra: Partial<SyntheticFlow> = {},
  ): SyntheticFlow {
    const flow: SyntheticFlow = { table, priority, match, actions, cookie: cookie(category), counted: true, ...extra };
    this.tables[table]!.push(flow);
    this.count++;
    return flow;
  }

  private clause(table: number, priority: number, match: string, conjunction: string): void {
    const key = `${table}|${priority}|${match}`;
    const existing = this.clauses.get(key);
    if (existing) {
      existing.actions.push(conjunction);
      return;
    }
    this.clauses.set(key, this.add(table, priority, match, [conjunction], CATEGORY.networkPolicy, { counted: false }));
  }

  /** A Pod IP somewhere in the cluster (about 100 Pods per Node). */
  private clusterPodIp(): string {
    const node = this.rnd.int(0, this.shape.remoteNodes);
    return podIpOn(node, this.rnd.int(0, PODS_PER_NODE - 1));
  }

  /** Table-miss flows and the per-Node flows that do not depend on Pods, Nodes or Services. */
  private pipelineFlows(): void {
    const D = CATEGORY.default;
    const gwIp = `${nodeSubnet(0)}.1`;
    const gw = this.gatewayMac;
    const miss = (table: number, actions: string): void => void this.add(table, 0, '', [actions], D);
    const next = (table: number): void => miss(table, `goto_table:${table + 1}`);

    this.add(T.root, 200, 'arp', [`goto_table:${T.arpSpoofGuard}`], D);
    this.add(T.root, 200, 'ip', [`goto_table:${T.classifier}`], D);
    miss(T.root, 'drop');
    this.add(
      T.arpSpoofGuard,
      200,
      `arp,in_port=${GATEWAY_PORT},arp_spa=${gwIp},arp_sha=${gw}`,
      [`goto_table:${T.arpResponder}`],
      D,
    );
    miss(T.arpSpoofGuard, 'drop');
    this.add(T.arpResponder, 190, 'arp', ['NORMAL'], D);
    miss(T.arpResponder, 'drop');
    this.add(
      T.classifier,
      210,
      `ip,in_port=${GATEWAY_PORT},nw_src=${gwIp}`,
      [load(2, 'NXM_NX_REG0[0..3]'), load(1, 'NXM_NX_REG4[28]'), `goto_table:${T.spoofGuard}`],
      D,
    );
    this.add(
      T.classifier,
      200,
      `in_port=${GATEWAY_PORT}`,
      [load(2, 'NXM_NX_REG0[0..3]'), load(1, 'NXM_NX_REG4[27]'), `goto_table:${T.spoofGuard}`],
      D,
    );
    this.add(
      T.classifier,
      200,
      `in_port=${TUNNEL_PORT}`,
      [load(1, 'NXM_NX_REG0[0..3]'), load(1, 'NXM_NX_REG0[9]'), `goto_table:${T.unSnat}`],
      D,
    );
    miss(T.classifier, 'drop');
    this.add(T.spoofGuard, 200, `ip,in_port=${GATEWAY_PORT}`, [`goto_table:${T.unSnat}`], D);
    miss(T.spoofGuard, 'drop');
    for (const ip of [VIRTUAL_SERVICE_IP, gwIp])
      this.add(T.unSnat, 200, `ip,nw_dst=${ip}`, [`ct(table=${T.conntrackZone},zone=65521,nat)`], CATEGORY.service);
    next(T.unSnat);
    this.add(T.conntrackZone, 200, 'ip', [`ct(table=${T.conntrackState},zone=65520,nat)`], D);
    next(T.conntrackZone);
    this.add(T.conntrackState, 200, 'ct_state=+inv+trk,ip', ['drop'], D);
    this.add(
      T.conntrackState,
      190,
      'ct_state=-new+trk,ct_mark=0/0x10,ip',
      [`goto_table:${T.antreaPolicyEgressRule}`],
      D,
    );
    this.add(
      T.conntrackState,
      190,
      'ct_state=-new+trk,ct_mark=0x10/0x10,ip',
      [load(1, 'NXM_NX_REG0[9]'), `goto_table:${T.antreaPolicyEgressRule}`],
      D,
    );
    next(T.conntrackState);
    this.add(
      T.preRoutingClassifier,
      200,
      'ip',
      [`resubmit(,${T.sessionAffinity})`, `resubmit(,${T.serviceLb})`],
      CATEGORY.service,
    );
    next(T.preRoutingClassifier);
    miss(T.sessionAffinity, load(1, 'NXM_NX_REG4[16..18]'));
    next(T.serviceLb);
    this.add(
      T.endpointDnat,
      200,
      'reg0=0x4000/0x4000',
      ['controller(reason=no_match,id=62373,userdata=04)'],
      CATEGORY.service,
    );
    this.add(
      T.endpointDnat,
      190,
      'reg4=0x20000/0x70000',
      [load(1, 'NXM_NX_REG4[16..18]'), `resubmit(,${T.serviceLb})`],
      CATEGORY.service,
    );
    next(T.endpointDnat);
    for (const [table, metric] of [
      [T.antreaPolicyEgressRule, T.egressMetric],
      [T.antreaPolicyIngressRule, T.ingressMetric],
    ] as const) {
      this.add(table, 64990, 'ct_state=-new+est,ip', [`goto_table:${metric}`], CATEGORY.networkPolicy);
      this.add(table, 64990, 'ct_state=-new+rel,ip', [`goto_table:${metric}`], CATEGORY.networkPolicy);
    }
    for (const table of [T.antreaPolicyEgressRule, T.egressRule, T.egressDefaultRule, T.egressMetric]) next(table);
    this.add(
      T.l3Forwarding,
      210,
      `ip,nw_dst=${gwIp}`,
      [`set_field:${gw}->eth_dst`, load(2, 'NXM_NX_REG0[4..7]'), `goto_table:${T.l3DecTtl}`],
      CATEGORY.podConnectivity,
    );
    this.add(
      T.l3Forwarding,
      210,
      'ct_state=+rpl+trk,ct_mark=0x2/0xf,ip',
      [`set_field:${gw}->eth_dst`, load(2, 'NXM_NX_REG0[4..7]'), `goto_table:${T.l3DecTtl}`],
      CATEGORY.podConnectivity,
    );
    this.add(
      T.l3Forwarding,
      200,
      `ip,reg0=0/0x200,nw_dst=${nodeSubnet(0)}.0/24`,
      [`goto_table:${T.l2ForwardingCalc}`],
      CATEGORY.podConnectivity,
    );
    this.add(
      T.l3Forwarding,
      190,
      'ct_state=-rpl+trk,ip,reg0=0x3/0xf,reg4=0/0x100000',
      [`goto_table:${T.egressMark}`],
      CATEGORY.podConnectivity,
    );
    this.add(
      T.l3Forwarding,
      190,
      'ct_state=-rpl+trk,ip,reg0=0x1/0xf',
      [`set_field:${gw}->eth_dst`, `goto_table:${T.egressMark}`],
      CATEGORY.podConnectivity,
    );
    miss(T.l3Forwarding, `${load(2, 'NXM_NX_REG0[4..7]')},goto_table:${T.l2ForwardingCalc}`);
    this.add(
      T.egressMark,
      210,
      'ip,nw_dst=10.96.0.0/12',
      [load(2, 'NXM_NX_REG0[4..7]'), `goto_table:${T.l2ForwardingCalc}`],
      CATEGORY.egress,
    );
    this.add(T.egressMark, 190, 'ct_state=+new+trk,ip,reg0=0x1/0xf', ['drop'], CATEGORY.egress);
    miss(T.egressMark, `${load(2, 'NXM_NX_REG0[4..7]')},goto_table:${T.l2ForwardingCalc}`);
    this.add(T.l3DecTtl, 210, 'ip,reg0=0x2/0xf', [`goto_table:${T.snatMark}`], D);
    this.add(T.l3DecTtl, 200, 'ip', ['dec_ttl', `goto_table:${T.snatMark}`], D);
    next(T.l3DecTtl);
    const toCtMark = 'move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]';
    this.add(
      T.snatMark,
      200,
      'ct_state=+new+trk,ip,reg0=0x22/0xff',
      [
        `ct(commit,table=${T.snat},zone=65520,exec(${load(1, 'NXM_NX_CT_MARK[5]')},${load(1, 'NXM_NX_CT_MARK[6]')},${toCtMark}))`,
      ],
      CATEGORY.service,
    );
    this.add(
      T.snatMark,
      200,
      'ct_state=+new+trk,ip,reg0=0x12/0xff,reg4=0x200000/0x2200000',
      [`ct(commit,table=${T.snat},zone=65520,exec(${load(1, 'NXM_NX_CT_MARK[5]')},${toCtMark}))`],
      CATEGORY.service,
    );
    next(T.snatMark);
    const snatExec = `exec(${load(1, 'NXM_NX_CT_MARK[4]')},${load(1, 'NXM_NX_CT_MARK[5]')},${load(1, 'NXM_NX_CT_MARK[6]')})`;
    this.add(
      T.snat,
      200,
      'ct_state=+new+trk,ct_mark=0x40/0x40,ip,reg0=0x2/0xf',
      [`ct(commit,table=${T.l2ForwardingCalc},zone=65521,nat(src=${VIRTUAL_SERVICE_IP}),${snatExec})`],
      CATEGORY.service,
    );
    this.add(
      T.snat,
      200,
      'ct_state=+new+trk,ct_mark=0x40/0x40,ip,reg0=0x3/0xf',
      [`ct(commit,table=${T.l2ForwardingCalc},zone=65521,nat(src=${gwIp}),${snatExec})`],
      CATEGORY.service,
    );
    this.add(
      T.snat,
      200,
      'ct_state=-new-rpl+trk,ct_mark=0x20/0x20,ip',
      [`ct(table=${T.l2ForwardingCalc},zone=65521,nat)`],
      CATEGORY.service,
    );
    next(T.snat);
    const toOutput = [load(1, 'NXM_NX_REG0[21..22]'), `goto_table:${T.ingressSecurityClassifier}`];
    this.add(
      T.l2ForwardingCalc,
      200,
      `dl_dst=${gw}`,
      [`set_field:${hex(GATEWAY_PORT)}->reg1`, ...toOutput],
      CATEGORY.podConnectivity,
    );
    this.add(
      T.l2ForwardingCalc,
      200,
      `dl_dst=${GLOBAL_VIRTUAL_MAC}`,
      [`set_field:${hex(TUNNEL_PORT)}->reg1`, ...toOutput],
      CATEGORY.podConnectivity,
    );
    next(T.l2ForwardingCalc);
    const isc = T.ingressSecurityClassifier;
    this.add(
      isc,
      210,
      'pkt_mark=0x80000000/0x80000000,ct_state=-rpl+trk,ip',
      [`goto_table:${T.conntrackCommit}`],
      CATEGORY.networkPolicy,
    );
    this.add(isc, 201, 'reg4=0x80000/0x80000', [`goto_table:${T.antreaPolicyIngressRule}`], CATEGORY.networkPolicy);
    for (const mark of ['0x20', '0x10', '0x40'])
      this.add(isc, 200, `reg0=${mark}/0xf0`, [`goto_table:${T.ingressMetric}`], CATEGORY.networkPolicy);
    this.add(isc, 200, 'ct_mark=0x40/0x40', [`goto_table:${T.conntrackCommit}`], CATEGORY.networkPolicy);
    next(isc);
    for (const table of [T.antreaPolicyIngressRule, T.ingressRule, T.ingressDefaultRule, T.ingressMetric]) next(table);
    this.add(
      T.conntrackCommit,
      200,
      'ct_state=+new+trk,ct_mark=0/0x20,ip',
      [`ct(commit,table=${T.output},zone=65520,exec(${toCtMark}))`],
      D,
    );
    next(T.conntrackCommit);
    this.add(T.output, 210, 'ct_mark=0x40/0x40', ['IN_PORT'], D);
    this.add(T.output, 200, 'reg0=0x200000/0x600000', ['output:NXM_NX_REG1[]'], D);
    this.add(
      T.output,
      200,
      'reg0=0x2400000/0xfe600000',
      ['meter:256', 'controller(reason=no_match,id=62373,userdata=01.01)'],
      CATEGORY.networkPolicy,
    );
    this.add(
      T.output,
      200,
      'reg0=0x4400000/0xfe600000',
      ['meter:256', 'controller(reason=no_match,id=62373,userdata=01.02)'],
      CATEGORY.networkPolicy,
    );
    miss(T.output, 'drop');
  }

  private podFlows(pod: Pod): void {
    const P = CATEGORY.podConnectivity;
    const gw = this.gatewayMac;
    this.add(
      T.arpSpoofGuard,
      200,
      `arp,in_port=${pod.port},arp_spa=${pod.ip},arp_sha=${pod.mac}`,
      [`goto_table:${T.arpResponder}`],
      P,
    );
    this.add(
      T.classifier,
      190,
      `in_port=${pod.port}`,
      [load(3, 'NXM_NX_REG0[0..3]'), load(1, 'NXM_NX_REG4[28]'), `goto_table:${T.spoofGuard}`],
      P,
    );
    this.add(
      T.spoofGuard,
      200,
      `ip,in_port=${pod.port},dl_src=${pod.mac},nw_src=${pod.ip}`,
      [`goto_table:${T.unSnat}`],
      P,
    );
    this.add(
      T.l3Forwarding,
      200,
      `ip,reg0=0x200/0x200,nw_dst=${pod.ip}`,
      [`set_field:${gw}->eth_src`, `set_field:${pod.mac}->eth_dst`, `goto_table:${T.l3DecTtl}`],
      P,
    );
    this.add(
      T.snatMark,
      190,
      `ct_state=+new+trk,ip,nw_src=${pod.ip},nw_dst=${pod.ip}`,
      [
        `ct(commit,table=${T.snat},zone=65520,exec(${load(1, 'NXM_NX_CT_MARK[5]')},${load(1, 'NXM_NX_CT_MARK[6]')},move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))`,
      ],
      CATEGORY.service,
    );
    this.add(
      T.l2ForwardingCalc,
      200,
      `dl_dst=${pod.mac}`,
      [`set_field:${hex(pod.port)}->reg1`, load(1, 'NXM_NX_REG0[21..22]'), `goto_table:${T.ingressSecurityClassifier}`],
      P,
    );
    if (this.rnd.chance(0.1)) {
      // Pod selected by an Egress whose IP is on this Node: mark for SNAT.
      this.add(
        T.egressMark,
        200,
        `ct_state=+new+trk,ip,in_port=${pod.port}`,
        [
          load(this.rnd.int(1, 8), 'NXM_NX_PKT_MARK[0..7]'),
          load(2, 'NXM_NX_REG0[4..7]'),
          `goto_table:${T.l2ForwardingCalc}`,
        ],
        CATEGORY.egress,
      );
    }
  }

  private remoteNodeFlows(i: number): void {
    const P = CATEGORY.podConnectivity;
    const subnet = nodeSubnet(i);
    const remoteGw = `${subnet}.1`;
    this.add(
      T.arpResponder,
      200,
      `arp,arp_tpa=${remoteGw},arp_op=1`,
      [
        'move:NXM_OF_ETH_SRC[]->NXM_OF_ETH_DST[]',
        `set_field:${GLOBAL_VIRTUAL_MAC}->eth_src`,
        'set_field:2->arp_op',
        'move:NXM_NX_ARP_SHA[]->NXM_NX_ARP_THA[]',
        `set_field:${GLOBAL_VIRTUAL_MAC}->arp_sha`,
        'move:NXM_OF_ARP_SPA[]->NXM_OF_ARP_TPA[]',
        `set_field:${remoteGw}->arp_spa`,
        'IN_PORT',
      ],
      P,
    );
    this.add(
      T.l3Forwarding,
      200,
      `ip,nw_dst=${subnet}.0/24`,
      [
        `set_field:${this.gatewayMac}->eth_src`,
        `set_field:${GLOBAL_VIRTUAL_MAC}->eth_dst`,
        `set_field:${nodeIp(i)}->tun_dst`,
        load(1, 'NXM_NX_REG0[4..7]'),
        `goto_table:${T.l3DecTtl}`,
      ],
      P,
    );
    this.add(
      T.egressMark,
      210,
      `ip,nw_dst=${nodeIp(i)}`,
      [load(2, 'NXM_NX_REG0[4..7]'), `goto_table:${T.l2ForwardingCalc}`],
      CATEGORY.egress,
    );
  }

  /** ServiceLB flows per Service port (a select group each), one EndpointDNAT flow per Endpoint address and port. */
  private readonly endpointFlows = new Set<string>();
  private readonly nodePorts = new Set<number>();
  private serviceFlows(s: number): void {
    const S = CATEGORY.service;
    const ip = serviceIp(s);
    const endpoints = this.rnd.chance(0.05)
      ? []
      : Array.from({ length: this.rnd.logInt(1, 12) }, () => this.clusterPodIp());
    const affinity = this.rnd.chance(0.05);
    const ports = this.rnd.shuffle([...SERVICE_PORTS]).slice(0, this.rnd.chance(0.2) ? 2 : 1);
    for (const port of ports) {
      const proto = this.rnd.chance(0.1) ? 'udp' : 'tcp';
      const target = this.rnd.chance(0.5) ? port : this.rnd.int(1024, 32767);
      const group = this.nextGroupId++;
      const state = affinity ? 3 : 2;
      const select = [
        load(1, 'NXM_NX_REG0[9]'),
        load(state, 'NXM_NX_REG4[16..18]'),
        `set_field:${hex(group)}->reg7`,
        `group:${group}`,
      ];
      this.add(T.serviceLb, 200, `${proto},reg4=0x10000/0x70000,nw_dst=${ip},tp_dst=${port}`, select, S);
      const nodePort = this.rnd.int(30000, 32767);
      if (this.rnd.chance(0.1) && !this.nodePorts.has(nodePort)) {
        this.nodePorts.add(nodePort);
        const npGroup = this.nextGroupId++;
        this.add(
          T.serviceLb,
          200,
          `${proto},reg4=0x90000/0xf0000,tp_dst=${nodePort}`,
          [
            load(1, 'NXM_NX_REG0[9]'),
            load(2, 'NXM_NX_REG4[16..18]'),
            load(1, 'NXM_NX_REG4[21]'),
            `set_field:${hex(npGroup)}->reg7`,
            `group:${npGroup}`,
          ],
          S,
        );
      }
      if (affinity) {
        const protoNum = proto === 'tcp' ? 6 : 17;
        const dstField = proto === 'tcp' ? 'NXM_OF_TCP_DST[]' : 'NXM_OF_UDP_DST[]';
        const learn = `learn(table=${T.sessionAffinity},hard_timeout=300,priority=200,delete_learned,cookie=${hex(cookie(S, group))},eth_type=0x800,nw_proto=${protoNum},${dstField},NXM_OF_IP_DST[],NXM_OF_IP_SRC[],load:NXM_NX_REG4[0..15]->NXM_NX_REG4[0..15],load:NXM_NX_REG4[26]->NXM_NX_REG4[26],load:NXM_NX_REG3[]->NXM_NX_REG3[],load:0x2->NXM_NX_REG4[16..18],load:0x1->NXM_NX_REG0[9])`;
        this.add(
          T.serviceLb,
          190,
          `${proto},reg4=0x30000/0x70000,nw_dst=${ip},tp_dst=${port}`,
          [learn, load(2, 'NXM_NX_REG4[16..18]'), `goto_table:${T.endpointDnat}`],
          S,
        );
        const clients = new Set(
          Array.from({ length: Math.min(endpoints.length, this.rnd.int(0, 4)) }, () => this.clusterPodIp()),
        );
        for (const client of clients) {
          const ep = this.rnd.pick(endpoints);
          const learned = [
            load(target, 'NXM_NX_REG4[0..15]'),
            load(0, 'NXM_NX_REG4[26]'),
            `set_field:${hex(ipv4ToInt(ep))}->reg3`,
            load(2, 'NXM_NX_REG4[16..18]'),
            load(1, 'NXM_NX_REG0[9]'),
          ];
          const match = `${proto},nw_src=${client},nw_dst=${ip},tp_dst=${port}`;
          this.add(T.sessionAffinity, 200, match, learned, S, { cookie: cookie(S, group), hardTimeout: 300 });
        }
      }
      for (const ep of endpoints) {
        const key = `${proto}|${ep}|${target}`;
        if (this.endpointFlows.has(key)) continue;
        this.endpointFlows.add(key);
        this.add(
          T.endpointDnat,
          200,
          `${proto},reg3=${hex(ipv4ToInt(ep))},reg4=${hex(0x20000 | target)}/0x7ffff`,
          [
            `ct(commit,table=${T.antreaPolicyEgressRule},zone=65520,nat(dst=${ep}:${target}),exec(${load(1, 'NXM_NX_CT_MARK[4]')}))`,
          ],
          S,
        );
      }
    }
  }

  /** A peer set: mostly Pod addresses (shared between rules, as Antrea address groups are), sometimes ipBlocks. */
  private peers(): string[] {
    if (this.addressGroups.length > 0 && this.rnd.chance(0.6)) {
      // Popular groups (namespace-wide selectors) are referenced by many rules.
      const r = this.rnd.next();
      return this.addressGroups[Math.floor(r * r * this.addressGroups.length)]!;
    }
    let group: string[];
    if (this.rnd.chance(0.1)) {
      const blocks = Array.from({ length: this.rnd.int(1, 3) }, () => {
        const len = this.rnd.pick([8, 12, 16, 20, 24, 28]);
        const base = ((this.rnd.int(0, 0xffffffff) >>> (32 - len)) << (32 - len)) >>> 0;
        return `${[24, 16, 8, 0].map((s) => (base >>> s) & 255).join('.')}/${len}`;
      });
      group = [...new Set(blocks)];
    } else {
      const members = new Set<string>();
      const size = this.rnd.logInt(1, 3000);
      for (let k = 0; k < size; k++) members.add(this.clusterPodIp());
      group = [...members];
    }
    this.addressGroups.push(group);
    return group;
  }

  private services(): PortSpec[] {
    if (this.rnd.chance(0.3)) return [];
    return Array.from({ length: this.rnd.logInt(1, 4) }, () => {
      const proto = this.rnd.chance(0.15) ? 'udp' : 'tcp';
      if (this.rnd.chance(0.1)) {
        // endPort ranges are installed as masked port matches.
        const bits = this.rnd.int(2, 8);
        const base = (this.rnd.int(1024, 65535) >> bits) << bits;
        return { proto, dst: `${hex(base)}/${hex((0xffff << bits) & 0xffff)}` };
      }
      return { proto, dst: String(this.rnd.pick(POLICY_PORTS)) };
    });
  }

  /** One NetworkPolicy rule: its clause flows, its conj_id action flow and metric flows. */
  private policyRule(): void {
    const ingress = this.rnd.chance(0.6);
    const native = this.rnd.chance(0.3);
    const id = this.nextConjId++;
    const applied = this.rnd.shuffle([...this.localPods]).slice(0, this.rnd.logInt(1, this.localPods.length));
    const peerDim: Dimension = this.peers().map((a) => `ip,${ingress ? 'nw_src' : 'nw_dst'}=${a}`);
    const appliedDim: Dimension = ingress
      ? applied.map((p) => `reg1=${hex(p.port)}`)
      : applied.map((p) => `ip,nw_src=${p.ip}`);
    const serviceDim: Dimension = this.services().map((s) => `${s.proto},tp_dst=${s.dst}`);
    const dims = ingress ? [peerDim, appliedDim, serviceDim] : [appliedDim, peerDim, serviceDim];
    const used = dims.filter((d) => d.length > 0);

    const ruleTable = native
      ? ingress
        ? T.antreaPolicyIngressRule
        : T.antreaPolicyEgressRule
      : ingress
        ? T.ingressRule
        : T.egressRule;
    const metricTable = ingress ? T.ingressMetric : T.egressMetric;
    const clausePriority = native ? this.nextPolicyPriority-- : 200;
    used.forEach((dim, k) => {
      for (const match of dim)
        this.clause(ruleTable, clausePriority, match, `conjunction(${id},${k + 1}/${used.length})`);
    });

    const conjReg = ingress ? 'reg6' : 'reg5';
    const label = ingress ? 'NXM_NX_CT_LABEL[0..31]' : 'NXM_NX_CT_LABEL[32..63]';
    const labelMatch = ingress
      ? `ct_label=${hex(id)}/0xffffffff`
      : `ct_label=${hex(BigInt(id) << 32n)}/0xffffffff00000000`;
    const actionPriority = native ? clausePriority : 190;
    const disposition = native ? this.rnd.pick(['allow', 'allow', 'drop', 'drop', 'pass'] as const) : 'allow';
    const NP = CATEGORY.networkPolicy;
    if (disposition === 'allow') {
      this.add(
        ruleTable,
        actionPriority,
        `conj_id=${id},ip`,
        [`set_field:${hex(id)}->${conjReg}`, `ct(commit,table=${metricTable},zone=65520,exec(${load(id, label)}))`],
        NP,
      );
      this.add(metricTable, 200, `ct_state=+new,${labelMatch},ip`, [`goto_table:${metricTable + 1}`], NP);
      this.add(metricTable, 200, `ct_state=-new,${labelMatch},ip`, [`goto_table:${metricTable + 1}`], NP);
    } else if (disposition === 'drop') {
      this.add(
        ruleTable,
        actionPriority,
        `conj_id=${id}`,
        [`set_field:${hex(id)}->reg3`, load(1, 'NXM_NX_REG0[10]'), `goto_table:${metricTable}`],
        NP,
      );
      this.add(metricTable, 200, `reg0=0x400/0x400,reg3=${hex(id)}`, ['drop'], NP);
    } else {
      this.add(
        ruleTable,
        actionPriority,
        `conj_id=${id},ip`,
        [`set_field:${hex(id)}->${conjReg}`, `goto_table:${ruleTable + 1}`],
        NP,
      );
    }
    if (!native) {
      // K8s NetworkPolicy isolates the selected Pods: default-deny flows per Pod.
      for (const p of applied) {
        if (ingress) this.isolatedIngress.add(p.port);
        else this.isolatedEgress.add(p.ip);
      }
    }
  }
}
