/**
 * Differential tests: the same flows loaded into a real Open vSwitch and read by flowscope from
 * that switch's own dump; many packets traced by both `ofproto/trace` and `flowscope trace`, which
 * must agree on every pass, table, matched priority, the verdict and the output ports.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parsePacketSpec } from '../src/analysis/trace/packet.ts';
import { packetSpecProblemText } from '../src/render/words/packet-spec.ts';
import { XLATE_ERRORS } from '../src/render/words/trace-notes.ts';
import { missDrop } from '../src/analysis/trace/nearest-flow.ts';
import { entryValue } from '../src/render/nearest.ts';
import { type OvsSwitch, skipUnlessOvs, withOvsSwitch } from './support/ovs.ts';
import { ANTREA, ANTREA_PROXY, type Example, exampleFile } from './support/make-examples.ts';
import { parseOfprotoTrace } from './support/ofproto-trace.ts';
import { assertAgree, compare, type Probe, tracerFor } from './support/trace-compare.ts';
import { Random } from '../bench/random.ts';

// The Antrea example: ports antrea-tun0=1, antrea-gw0=2, Pods 10.10.0.2 on 3 and 10.10.0.3 on 4.
const POD3 = 'dl_src=12:9e:a6:47:d0:70,nw_src=10.10.0.2';
const POD4_MAC = 'ba:a8:13:ca:ed:cf';
const GW_MAC = 'e2:e5:a4:9b:1c:b1';
const VIRTUAL_MAC = 'aa:bb:cc:dd:ee:ff';

const ANTREA_PROBES: readonly Probe[] = [
  // Pod to Pod on the node, both directions, with and without an established connection.
  { packet: `in_port=3,tcp,${POD3},dl_dst=${POD4_MAC},nw_dst=10.10.0.3,nw_ttl=64,tp_dst=80` },
  { packet: `in_port=3,tcp,${POD3},dl_dst=${POD4_MAC},nw_dst=10.10.0.3,nw_ttl=64,tp_dst=80`, ctNext: ['trk,est'] },
  {
    packet: `in_port=4,udp,dl_src=${POD4_MAC},dl_dst=12:9e:a6:47:d0:70,nw_src=10.10.0.3,nw_dst=10.10.0.2,nw_ttl=64,udp_dst=53`,
  },
  // To a Pod on another node: through L3Forwarding and L3DecTTL to the tunnel; TTL 1 and 0 hit the dec_ttl exception.
  { packet: `in_port=3,tcp,${POD3},dl_dst=${VIRTUAL_MAC},nw_dst=10.10.1.5,nw_ttl=64,tp_dst=443` },
  { packet: `in_port=3,tcp,${POD3},dl_dst=${VIRTUAL_MAC},nw_dst=10.10.1.5,nw_ttl=1,tp_dst=443` },
  { packet: `in_port=3,tcp,${POD3},dl_dst=${VIRTUAL_MAC},nw_dst=10.10.1.5,tp_dst=443` },
  { packet: `in_port=3,icmp,${POD3},dl_dst=${VIRTUAL_MAC},nw_dst=10.10.1.9,nw_ttl=9` },
  // Service ClusterIP (kube-proxy: to the gateway), and external traffic.
  { packet: `in_port=3,tcp,${POD3},dl_dst=${GW_MAC},nw_dst=10.96.0.10,nw_ttl=64,tp_dst=443` },
  {
    packet: `in_port=3,udp,${POD3},dl_dst=${GW_MAC},nw_dst=10.96.0.10,nw_ttl=64,udp_dst=53`,
    ctNext: ['trk,new', 'trk,new'],
  },
  { packet: `in_port=3,tcp,${POD3},dl_dst=${GW_MAC},nw_dst=8.8.8.8,nw_ttl=64,tp_dst=443` },
  { packet: `in_port=3,tcp,${POD3},dl_dst=${GW_MAC},nw_dst=8.8.8.8,nw_ttl=64,tp_dst=443`, ctNext: ['trk,inv'] },
  // From the gateway and from the tunnel.
  {
    packet: `in_port=2,tcp,dl_src=${GW_MAC},dl_dst=12:9e:a6:47:d0:70,nw_src=10.10.0.1,nw_dst=10.10.0.2,nw_ttl=64,tp_dst=8080`,
  },
  { packet: `in_port=2,tcp,dl_dst=12:9e:a6:47:d0:70,nw_src=192.168.1.7,nw_dst=10.10.0.2,nw_ttl=64,tp_dst=80` },
  {
    packet: `in_port=1,tcp,dl_dst=12:9e:a6:47:d0:70,nw_src=10.10.1.7,nw_dst=10.10.0.2,nw_ttl=64,tp_dst=80`,
    ctNext: ['trk,est'],
  },
  { packet: `in_port=1,tcp,dl_dst=12:9e:a6:47:d0:70,nw_src=10.10.1.7,nw_dst=10.10.0.2,nw_ttl=64,tp_dst=80` },
  { packet: `in_port=1,tcp,dl_dst=${POD4_MAC},nw_src=10.10.1.2,nw_dst=10.10.0.3,nw_ttl=64,tp_dst=80` },
  { packet: `in_port=1,tcp,dl_dst=${POD4_MAC},nw_src=10.10.1.2,nw_dst=10.10.0.3,nw_ttl=64,tp_dst=81` },
  // Egress policy (conjunction 2 and the default drops of table 60) for traffic the gateway forwards.
  { packet: `in_port=2,tcp,dl_dst=${VIRTUAL_MAC},nw_src=10.10.1.2,nw_dst=10.10.1.3,nw_ttl=64,tp_dst=80` },
  { packet: `in_port=2,tcp,dl_dst=${VIRTUAL_MAC},nw_src=10.10.1.2,nw_dst=10.10.1.3,nw_ttl=64,tp_dst=22` },
  { packet: `in_port=2,udp,dl_dst=${VIRTUAL_MAC},nw_src=10.10.1.6,nw_dst=10.10.1.8,nw_ttl=64,udp_dst=53` },
  { packet: `in_port=2,tcp,dl_dst=${VIRTUAL_MAC},nw_src=10.10.1.11,nw_dst=10.0.10.5,nw_ttl=64,tp_dst=80` },
  // ARP: answered by the responder (IN_PORT), handed to NORMAL, or spoofed.
  {
    packet:
      'in_port=3,arp,dl_src=12:9e:a6:47:d0:70,arp_spa=10.10.0.2,arp_tpa=10.10.1.1,arp_op=1,arp_sha=12:9e:a6:47:d0:70',
  },
  {
    packet:
      'in_port=3,arp,dl_src=12:9e:a6:47:d0:70,arp_spa=10.10.0.2,arp_tpa=10.10.0.1,arp_op=1,arp_sha=12:9e:a6:47:d0:70',
  },
  { packet: 'in_port=4,arp,arp_spa=10.10.0.2,arp_tpa=10.10.0.1,arp_op=1,arp_sha=12:9e:a6:47:d0:70' },
  // Spoofed sources, an unknown port, IPv6 the pipeline does not handle.
  { packet: `in_port=3,tcp,dl_src=12:9e:a6:47:d0:70,nw_src=10.10.0.9,nw_dst=10.10.0.3,nw_ttl=64,tp_dst=80` },
  { packet: `in_port=4,tcp,dl_src=12:9e:a6:47:d0:70,nw_src=10.10.0.3,nw_dst=10.10.0.2,nw_ttl=64,tp_dst=80` },
  { packet: `in_port=7,tcp,nw_src=10.10.0.3,nw_dst=10.10.0.2,tp_dst=80` },
  { packet: 'in_port=3,ipv6,ipv6_src=fe80::1,ipv6_dst=fe80::2' },
];

/**
 * NetworkPolicy flows in Antrea's shape added to the example: per rule a conjunction over source
 * addresses, destination Pod (reg1) and service port, with its conj_id flow committing the
 * connection with the rule id in ct_label; default drops per isolated Pod; and Antrea-native deny
 * rules. Returns the flows and probes that exercise them.
 */
function policyVariation(seed: number): { flows: string; probes: Probe[] } {
  // Seeded, so a failing variation can be reproduced.
  const random = new Random(seed);
  const rnd = (): number => random.next();
  const pick = <T>(xs: readonly T[]): T => random.pick(xs);
  const flows: string[] = [];
  const probes: Probe[] = [];
  const peers = Array.from({ length: 6 }, (_, i) => `10.10.${pick([0, 1, 2])}.${20 + i}`);
  const ports = [80, 443, 8080, 53, 5432];
  const pods = [
    { port: 3, mac: '12:9e:a6:47:d0:70', ip: '10.10.0.2' },
    { port: 4, mac: POD4_MAC, ip: '10.10.0.3' },
  ];
  for (let r = 0; r < 5; r++) {
    const id = 100 + seed * 10 + r;
    const priority = 200 - r;
    const sources = peers.filter(() => rnd() < 0.5);
    if (sources.length === 0) sources.push(peers[0]!);
    const target = pick(pods);
    const svc = pick(ports);
    const proto = svc === 53 ? 'udp' : 'tcp';
    // ofproto/trace wants the protocol's own name for the port.
    const dst = `${proto}_dst`;
    for (const s of sources) flows.push(`table=90,priority=${priority},ip,nw_src=${s} actions=conjunction(${id},1/3)`);
    flows.push(`table=90,priority=${priority},ip,reg1=0x${target.port.toString(16)} actions=conjunction(${id},2/3)`);
    flows.push(`table=90,priority=${priority},${proto},tp_dst=${svc} actions=conjunction(${id},3/3)`);
    if (rnd() < 0.8) {
      flows.push(
        `table=90,priority=${priority - 10},conj_id=${id},ip actions=load:0x${id.toString(16)}->NXM_NX_REG6[],ct(commit,table=101,zone=65520,exec(load:0x${id.toString(16)}->NXM_NX_CT_LABEL[0..31]))`,
      );
    }
    if (rnd() < 0.4) {
      // An Antrea-native deny rule ahead of the NetworkPolicy tables.
      const denied = pick(peers);
      flows.push(`table=85,priority=${14000 + r},ip,nw_src=${denied} actions=conjunction(${id + 1000},1/2)`);
      flows.push(
        `table=85,priority=${14000 + r},ip,reg1=0x${target.port.toString(16)} actions=conjunction(${id + 1000},2/2)`,
      );
      flows.push(
        `table=85,priority=${14000 + r},conj_id=${id + 1000},ip actions=load:0x${id.toString(16)}->NXM_NX_REG3[]`,
      );
      probes.push({
        packet: `in_port=1,${proto},dl_dst=${target.mac},nw_src=${denied},nw_dst=${target.ip},nw_ttl=64,${dst}=${svc}`,
      });
    }
    for (const s of [...sources, pick(peers)]) {
      for (const dport of [svc, svc + 1]) {
        const src = s.startsWith('10.10.0.') ? 2 : 1;
        probes.push({
          packet: `in_port=${src},${proto},dl_dst=${target.mac},nw_src=${s},nw_dst=${target.ip},nw_ttl=64,${dst}=${dport}`,
        });
      }
    }
  }
  for (const pod of pods)
    if (rnd() < 0.7)
      flows.push(`table=100,priority=150,ip,reg1=0x${pod.port.toString(16)},nw_src=10.10.2.0/24 actions=drop`);
  probes.push({ packet: `in_port=1,tcp,dl_dst=${POD4_MAC},nw_src=10.10.2.99,nw_dst=10.10.0.3,nw_ttl=64,tp_dst=80` });
  probes.push({
    packet: `in_port=1,tcp,dl_dst=${POD4_MAC},nw_src=10.10.2.99,nw_dst=10.10.0.3,nw_ttl=64,tp_dst=80`,
    ctNext: ['trk,est'],
  });
  return { flows: flows.join('\n') + '\n', probes };
}

test('trace agrees with ofproto/trace on the Antrea example', skipUnlessOvs, async () => {
  await withOvsSwitch(ANTREA.bridge, async (sw) => {
    await sw.addFlows(readFileSync(exampleFile(ANTREA, 'flows.txt'), 'utf8'), ANTREA.loadVersion);
    const result = await compare(sw, await tracerFor(sw), ANTREA_PROBES);
    assertAgree(result, ANTREA_PROBES.length);
    // The probes reach every kind of ending, so agreement covers each.
    for (const v of ['output', 'drop', 'normal', 'controller'])
      assert.ok((result.verdicts.get(v) ?? 0) > 0, `no probe ended in ${v}`);
  });
});

test('trace agrees with ofproto/trace on generated NetworkPolicy variations', skipUnlessOvs, async () => {
  await withOvsSwitch(ANTREA.bridge, async (sw) => {
    let total = 0;
    for (const seed of [1, 2, 3, 4]) {
      const variation = policyVariation(seed);
      await sw.deleteFlows(13);
      await sw.addFlows(readFileSync(exampleFile(ANTREA, 'flows.txt'), 'utf8'), ANTREA.loadVersion);
      await sw.addFlows(variation.flows, ANTREA.loadVersion);
      const probes = [...variation.probes, ...ANTREA_PROBES];
      const result = await compare(sw, await tracerFor(sw), probes);
      assertAgree(result, probes.length);
      total += probes.length;
    }
    assert.ok(total > 150, `only ${total} probes`);
  });
});

/** The AntreaProxy example with hash-selected groups, so ofproto/trace reports the bucket it uses. */
async function loadProxyWithHashGroups(sw: OvsSwitch, example: Example): Promise<void> {
  const groups = readFileSync(exampleFile(example, 'groups.txt'), 'utf8').replace(
    /type=select,/g,
    'type=select,selection_method=hash,fields(ip_src,tcp_src),',
  );
  await sw.addGroups(groups, 15);
  await sw.addFlows(readFileSync(exampleFile(example, 'flows.txt'), 'utf8'), example.loadVersion);
}

test(
  'trace agrees with ofproto/trace on Service groups, NAT and learn (AntreaProxy example)',
  skipUnlessOvs,
  async () => {
    await withOvsSwitch(ANTREA_PROXY.bridge, async (sw) => {
      await loadProxyWithHashGroups(sw, ANTREA_PROXY);
      const client = 'in_port=19,tcp,dl_src=6e:c7:01:a0:a9:23,nw_src=10.10.0.18';
      const probes: Probe[] = [];
      for (const sport of [1000, 2000, 3000, 4000]) {
        probes.push({ packet: `${client},nw_dst=10.101.112.140,nw_ttl=64,tp_src=${sport},tp_dst=80` });
        probes.push({ packet: `${client},nw_dst=10.107.100.231,nw_ttl=64,tp_src=${sport},tp_dst=443` });
        probes.push({
          packet: `${client},nw_dst=10.107.100.231,nw_ttl=64,tp_src=${sport},tp_dst=443`,
          ctNext: ['trk,new', 'trk,est'],
        });
        probes.push({
          packet: `in_port=2,tcp,nw_src=10.10.0.1,nw_dst=10.107.100.231,nw_ttl=64,tp_src=${sport},tp_dst=443`,
        });
        probes.push({
          packet: `in_port=1,tcp,nw_src=10.10.1.5,nw_dst=192.168.77.100,nw_ttl=64,tp_src=${sport},tp_dst=30001`,
          ctNext: ['trk,new', 'trk,new'],
        });
      }
      probes.push({
        packet: 'in_port=18,arp,arp_spa=10.10.0.17,arp_tpa=169.254.169.253,arp_op=1,arp_sha=c2:6f:f8:a0:7e:a1',
      });
      probes.push({ packet: `${client},nw_dst=169.254.169.252,nw_ttl=64,tp_dst=80` });
      probes.push({
        packet: 'in_port=18,tcp,dl_src=c2:6f:f8:a0:7e:a1,nw_src=10.10.0.17,nw_dst=10.107.100.231,tp_dst=443',
      });
      const result = await compare(sw, await tracerFor(sw), probes);
      assertAgree(result, probes.length);
      // Every Endpoint the groups select has its EndpointDNAT flow: no packet goes round until the switch gives up.
      assert.deepEqual([...result.failures], []);
    });
  },
);

/**
 * A small pipeline with one table-0 flow per feature (resubmit as a call, group types with the
 * packet restored afterwards, clone, stack, the depth limit, action sets, misses, exit, output to
 * the input port, a register or a missing port, dec_ttl, resubmit with a port, ct with NAT, LOCAL,
 * move) and the conjunction priority-fallback table of OVS's classifier tests in table 11.
 */
const FEATURE_FLOWS = `
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.1 actions=resubmit(,1),output:2
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.2 actions=group:1,resubmit(,2)
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.3 actions=group:2
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.4 actions=group:3
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.5 actions=clone(set_field:10.9.9.9->ip_dst,resubmit(,2)),resubmit(,2)
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.6 actions=push:NXM_OF_IP_DST[],set_field:10.9.9.9->ip_dst,resubmit(,2),pop:NXM_OF_IP_DST[],resubmit(,2)
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.7 actions=resubmit(,0)
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.8 actions=set_field:10.9.9.9->ip_dst,write_actions(output:3),goto_table:3
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.9 actions=write_actions(output:3),goto_table:4
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.10 actions=goto_table:5
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.11 actions=resubmit(,6),output:2
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.13 actions=output:1,IN_PORT
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.14 actions=set_field:3->reg5,output:NXM_NX_REG5[]
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.15 actions=output:9,output:4
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.16 actions=dec_ttl,output:2
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.17 actions=resubmit(2,7)
table=0,priority=100,tcp,in_port=1,nw_dst=10.0.0.18 actions=ct(commit,zone=5,table=8,nat(dst=10.1.1.1:8080))
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.19 actions=LOCAL
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.20 actions=move:NXM_OF_IP_SRC[]->NXM_NX_REG4[],set_field:0x0a000003->reg6,move:NXM_NX_REG6[]->NXM_OF_IP_DST[],resubmit(,9)
table=0,priority=100,ip,in_port=1,nw_dst=10.0.0.21 actions=clone(output:3,exit,output:4),output:2
table=0,priority=100,ip,in_port=7 actions=goto_table:11
table=0,priority=0 actions=drop
table=1,priority=10,ip actions=set_field:4->reg0
table=2,priority=10,ip,nw_dst=10.9.9.9 actions=output:4
table=2,priority=0 actions=drop
table=3,priority=10,ip actions=write_actions(set_field:10.8.8.8->ip_dst,output:4)
table=4,priority=10,ip actions=clear_actions
table=6,priority=10,ip actions=output:3,exit,output:4
table=7,priority=10,in_port=2 actions=output:3
table=7,priority=5,in_port=1 actions=output:4
table=8,priority=10,tcp,ct_zone=5,nw_dst=10.1.1.1,tp_dst=8080 actions=output:2
table=8,priority=0 actions=output:3
table=9,priority=10,ip,reg4=0x0a000001,nw_dst=10.0.0.3 actions=output:3
table=9,priority=0 actions=output:4
table=11,conj_id=1,ip actions=output:1
table=11,conj_id=3,ip actions=output:3
table=11,priority=5,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2)
table=11,priority=5,ip,nw_src=10.0.0.2 actions=conjunction(1,1/2)
table=11,priority=5,ip,nw_dst=10.0.0.1 actions=conjunction(1,2/2)
table=11,priority=5,ip,nw_dst=10.0.0.2 actions=conjunction(1,2/2)
table=11,priority=5,ip,nw_dst=10.0.0.3 actions=conjunction(1,2/2)
table=11,priority=4,ip,nw_src=10.0.0.3,nw_dst=10.0.0.2 actions=output:2
table=11,priority=3,ip,nw_src=10.0.0.1 actions=conjunction(3,1/2)
table=11,priority=3,ip,nw_src=10.0.0.3 actions=conjunction(3,1/2)
table=11,priority=3,ip,nw_dst=10.0.0.2 actions=conjunction(3,2/2)
table=11,priority=3,ip,nw_dst=10.0.0.3 actions=conjunction(3,2/2)
table=11,priority=3,ip,nw_dst=10.0.0.4 actions=conjunction(3,2/2)
table=11,priority=2,ip,nw_dst=10.0.0.1 actions=output:4
table=11,priority=1,ip,nw_src=10.0.0.1,nw_dst=10.0.0.5 actions=output:5
table=11,priority=0 actions=output:6
`;
const FEATURE_GROUPS = `
group_id=1,type=all,bucket=bucket_id:0,actions=output:2,bucket=bucket_id:1,actions=set_field:10.9.9.9->ip_dst,resubmit(,2),bucket=bucket_id:2,actions=output:3
group_id=2,type=indirect,bucket=bucket_id:0,actions=output:3
group_id=3,type=ff,bucket=bucket_id:0,watch_port:9,actions=output:9,bucket=bucket_id:1,watch_port:3,actions=output:3
`;

test('trace agrees with ofproto/trace feature by feature', skipUnlessOvs, async () => {
  const ports = [1, 2, 3, 4, 5, 6, 7].map((n) => ({ name: `p${n}`, ofport: n }));
  await withOvsSwitch({ ports }, async (sw) => {
    await sw.addGroups(FEATURE_GROUPS, 15);
    await sw.addFlows(FEATURE_FLOWS, 13);
    const probes: Probe[] = [];
    for (let host = 1; host <= 21; host++)
      probes.push({ packet: `in_port=1,ip,nw_src=10.0.0.1,nw_dst=10.0.0.${host},nw_ttl=5` });
    probes.push({ packet: 'in_port=1,ip,nw_dst=10.0.0.16,nw_ttl=1' });
    probes.push({ packet: 'in_port=1,tcp,nw_dst=10.0.0.18,tp_dst=80' });
    probes.push({ packet: 'in_port=1,tcp,nw_dst=10.0.0.18,tp_dst=80', ctNext: ['trk,new'] });
    probes.push({ packet: 'in_port=2,ip,nw_dst=10.0.0.1' });
    for (let src = 0; src <= 3; src++)
      for (let dst = 0; dst <= 5; dst++)
        probes.push({ packet: `in_port=7,ip,nw_src=10.0.0.${src},nw_dst=10.0.0.${dst}` });
    const result = await compare(sw, await tracerFor(sw), probes);
    assertAgree(result, probes.length);
    // resubmit(,0) from table 0, to no end.
    assert.deepEqual([...result.failures], [[XLATE_ERRORS.depth, 1]]);
  });
});

/** A packet that a table's miss drops: `base`, and `varied`, what keeps it from the flow it is near. */
interface NearMiss {
  readonly base: string;
  readonly varied: string;
}

/**
 * For each near miss: ofproto/trace ends the packet in the table whose nearest flow flowscope
 * names, by the same miss; and the packet given what flowscope says it lacks (each differing
 * field set to the value the flow wants) takes that very flow there.
 */
async function checkNearMisses(sw: OvsSwitch, cases: readonly NearMiss[]): Promise<string[]> {
  const tracer = await tracerFor(sw);
  const wrong: string[] = [];
  for (const { base, varied } of cases) {
    const packet = [base, varied].filter((s) => s !== '').join(',');
    const spec = parsePacketSpec(packet, tracer.pipeline.ports);
    assert.ok(spec.ok, `${packet}: ${spec.ok ? '' : packetSpecProblemText(spec.problem)}`);
    const ours = tracer.trace(spec.packet, { keepPackets: true });
    const miss = missDrop(tracer, ours);
    const near = miss?.nearest;
    if (!miss || !near) {
      wrong.push(`${packet}: no nearest flow`);
      continue;
    }
    const table = miss.table.kind === 'number' ? miss.table.number : -1;
    const ovs = parseOfprotoTrace(await sw.trace(packet), 0).passes.flatMap((p) => p.steps);
    const ovsLast = ovs.at(-1);
    if (ovsLast?.table !== table || ovsLast.priority !== (ours.last?.flow?.priority ?? null)) {
      wrong.push(
        `${packet}: ofproto/trace ends in table ${ovsLast?.table} at ${ovsLast?.priority}, flowscope in table ${table} at ${ours.last?.flow?.priority ?? null}`,
      );
    }
    const given = `${base},${near.misses.map((m) => `${m.wanted.field.name}=${entryValue(m.wanted)}`).join(',')}`;
    const taken = parseOfprotoTrace(await sw.trace(given), 0).passes.flatMap((p) => p.steps);
    if (!taken.some((step) => step.table === table && step.priority === near.flow.priority)) {
      wrong.push(
        `${given}: ofproto/trace does not take the flow at priority ${near.flow.priority} of table ${table}: ${taken.map((x) => `${x.table}:${x.priority ?? 'miss'}`).join(' ')}`,
      );
    }
  }
  return wrong;
}

test(
  "the nearest flow trace names for a drop by a table's miss is the flow ofproto/trace takes there once the packet has what it lacked",
  skipUnlessOvs,
  async () => {
    await withOvsSwitch(ANTREA.bridge, async (sw) => {
      await sw.addFlows(readFileSync(exampleFile(ANTREA, 'flows.txt'), 'utf8'), ANTREA.loadVersion);
      const wrong = await checkNearMisses(sw, [
        // SpoofGuard: another source address, and no MAC.
        { base: 'in_port=3,ip', varied: 'nw_src=10.10.1.6' },
        { base: 'in_port=3,tcp,dl_src=12:9e:a6:47:d0:70,nw_dst=10.10.0.3,tp_dst=80', varied: 'nw_src=10.10.0.9' },
        // ARP without its addresses; a packet from no port.
        { base: 'in_port=4,arp', varied: '' },
        { base: 'ip,nw_src=10.10.1.6', varied: '' },
      ]);
      assert.deepEqual(wrong, []);
    });
    await withOvsSwitch(ANTREA_PROXY.bridge, async (sw) => {
      await loadProxyWithHashGroups(sw, ANTREA_PROXY);
      // ServiceLB: the Service's address on another TCP port.
      const wrong = await checkNearMisses(sw, [
        {
          base: 'in_port=18,tcp,dl_src=c2:6f:f8:a0:7e:a1,nw_src=10.10.0.17,nw_dst=10.101.112.140',
          varied: 'tp_dst=8080',
        },
      ]);
      assert.deepEqual(wrong, []);
    });
  },
);
