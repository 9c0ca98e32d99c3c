/**
 * The bucket a `selection_method=hash` group picks: flowscope's scores against the scores
 * `ofproto/trace` prints for the same packet (` -> bucket N: score S`), over many packets and
 * groups that differ in fields, masks, parameters, weights, bucket ids and liveness.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pipeline } from '../src/model/pipeline.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { parsePacketSpec } from '../src/analysis/trace/packet.ts';
import { packetSpecProblemText } from '../src/render/words/packet-spec.ts';
import { type TraceNode, Tracer } from '../src/analysis/trace/trace.ts';
import { bestLiveBucket, selectionHash } from '../src/analysis/trace/select-bucket.ts';
import { skipUnlessOvs, withOvsSwitch } from './support/ovs.ts';
import { Random } from '../bench/random.ts';

const GROUPS = `
group_id=1,type=select,selection_method=hash,fields(ip_src,tcp_src),bucket=bucket_id:0,weight:100,actions=output:2,bucket=bucket_id:1,weight:100,actions=output:3,bucket=bucket_id:2,weight:50,actions=output:4
group_id=2,type=select,selection_method=hash,selection_method_param=7,fields(ip_src=255.255.0.0,eth_dst),bucket=bucket_id:5,actions=output:2,bucket=bucket_id:9,actions=output:3
group_id=3,type=select,selection_method=hash,selection_method_param=0x123456789abcdef0,fields(udp_dst,ipv6_dst=ffff:ffff::,ipv6_src),bucket=bucket_id:100,weight:1,actions=output:2,bucket=bucket_id:7,weight:5,actions=output:3,bucket=bucket_id:3000000000,weight:3,actions=output:4,bucket=bucket_id:8,weight:0,actions=output:5
group_id=4,type=select,selection_method=hash,fields(in_port,eth_type,vlan_tci=0x0fff,nw_proto,nw_ttl,arp_op,arp_spa=255.255.255.0,reg1,metadata=0xffff0000ffff0000,pkt_mark,tcp_dst),bucket=bucket_id:0,actions=output:2,bucket=bucket_id:1,actions=output:3,bucket=bucket_id:2,actions=output:4,bucket=bucket_id:3,actions=output:5
group_id=5,type=select,selection_method=hash,bucket=bucket_id:0,actions=output:2,bucket=bucket_id:1,actions=output:3,bucket=bucket_id:2,weight:3,actions=output:4
group_id=6,type=select,selection_method=hash,fields(ip_dst,nw_tos,tcp_src=0xff00),bucket=bucket_id:0,watch_port:9,actions=output:2,bucket=bucket_id:1,watch_port:3,actions=output:3,bucket=bucket_id:2,actions=output:4
group_id=7,type=select,selection_method=hash,fields(eth_src,dl_vlan,vlan_pcp,ip_dscp,nw_ecn,icmp_type,icmp_code,ct_state,ct_mark),bucket=bucket_id:4,actions=output:2,bucket=bucket_id:2,actions=output:3,bucket=bucket_id:1,actions=output:4
`;

const FLOWS = [1, 2, 3, 4, 5, 6, 7].map((g) => `table=0,reg0=${g} actions=group:${g}`).join('\n') + '\n';

const octet = (r: Random): number => r.int(0, 255);
const mac = (r: Random): string => Array.from({ length: 6 }, () => octet(r).toString(16).padStart(2, '0')).join(':');
const ipv4 = (r: Random): string => `10.${octet(r)}.${octet(r)}.${octet(r)}`;
const ipv6 = (r: Random): string =>
  `fd00:${r.int(0, 0xffff).toString(16)}::${r.int(0, 0xffff).toString(16)}:${r.int(0, 0xffff).toString(16)}`;

/** A packet for group `g` in ofproto/trace syntax (prerequisites first). */
function packetFor(g: number, r: Random): string {
  const head = `in_port=${r.int(1, 4)},reg0=${g},reg1=${r.int(0, 0xffffffff)},metadata=0x${r.int(0, 0xffffffff).toString(16)}${r.int(0, 0xffffffff).toString(16).padStart(8, '0')},pkt_mark=${r.int(0, 3)}`;
  const l2 = `dl_src=${mac(r)},dl_dst=${mac(r)}${r.chance(0.3) ? `,vlan_tci=0x${(0x1000 | r.int(0, 0xffff)).toString(16)}` : ''}`;
  const ip = `nw_src=${ipv4(r)},nw_dst=${ipv4(r)},nw_tos=${r.int(0, 63) * 4},nw_ecn=${r.int(0, 3)},nw_ttl=${r.int(0, 255)}`;
  switch (r.int(0, 5)) {
    case 0:
      return `${head},${l2},tcp,${ip},tcp_src=${r.int(0, 65535)},tcp_dst=${r.int(0, 65535)}`;
    case 1:
      return `${head},${l2},udp,${ip},udp_src=${r.int(0, 65535)},udp_dst=${r.int(0, 65535)}`;
    case 2:
      return `${head},${l2},udp6,ipv6_src=${ipv6(r)},ipv6_dst=${ipv6(r)},nw_ttl=${r.int(0, 255)},udp_src=${r.int(0, 65535)},udp_dst=${r.int(0, 65535)}`;
    case 3:
      return `${head},${l2},tcp6,ipv6_src=${ipv6(r)},ipv6_dst=${ipv6(r)},tcp_src=${r.int(0, 65535)},tcp_dst=${r.int(0, 65535)}`;
    case 4:
      return `${head},${l2},arp,arp_op=${r.int(1, 2)},arp_spa=${ipv4(r)},arp_tpa=${ipv4(r)}`;
    default:
      return `${head},${l2},icmp,${ip},icmp_type=${r.int(0, 20)},icmp_code=${r.int(0, 5)}`;
  }
}

/** The scores and the bucket flowscope's trace used, in the words ofproto/trace prints them. */
function ours(tracer: Tracer, spec: string): { scores: string[]; used: number[] } {
  const parsed = parsePacketSpec(spec, tracer.pipeline.ports);
  assert.ok(parsed.ok, `${spec}: ${parsed.ok ? '' : packetSpecProblemText(parsed.problem)}`);
  const used: number[] = [];
  const visit = (nodes: readonly TraceNode[]): void => {
    for (const n of nodes) {
      if (n.kind === 'bucket') used.push(n.bucket);
      if ('nodes' in n) visit(n.nodes);
    }
  };
  const result = tracer.trace(parsed.packet);
  for (const pass of result.passes) visit(pass.nodes);
  const group = tracer.pipeline.groups.get(Number(/reg0=(\d+)/.exec(spec)![1]))!;
  const hash = selectionHash(group, parsed.packet);
  assert.ok(hash !== undefined);
  const live = (b: { watchPort?: unknown }): boolean =>
    b.watchPort === undefined || JSON.stringify(b.watchPort) !== '{"kind":"number","number":9}';
  const scores = bestLiveBucket(group.buckets, hash, live)
    .scores.filter((s) => s.score !== null)
    .map((s) => `${s.bucket}:${s.score}`);
  return { scores, used };
}

function theirs(text: string): { scores: string[]; used: number[] } {
  const scores = [...text.matchAll(/-> bucket (\d+): score (\d+)$/gm)].map((m) => `${m[1]}:${m[2]}`);
  const used = [...text.matchAll(/-> using bucket (\d+)$/gm)].map((m) => Number(m[1]));
  return { scores, used };
}

test(
  'a hash-selected group picks, for every packet, the bucket ofproto/trace picks, with the same scores',
  skipUnlessOvs,
  async () => {
    const ports = [1, 2, 3, 4, 5].map((n) => ({ name: `p${n}`, ofport: n }));
    await withOvsSwitch({ ports }, async (sw) => {
      await sw.addGroups(GROUPS, 15);
      await sw.addFlows(FLOWS, 13);
      const dump = parseDump(
        [await sw.dumpFlows({ of: 15 }), await sw.dumpGroups({ of: 15 }), await sw.show(13)].join('\n'),
        { file: 'live' },
      );
      assert.equal(dump.badLines, 0, dump.diagnostics.map((d) => d.message).join('\n'));
      const tracer = new Tracer(new Pipeline(dump.flows, dump.groups, dump.ports));
      const random = new Random(18);
      const wrong: string[] = [];
      const usedPerGroup = new Map<number, Set<number>>();
      let packets = 0;
      for (let i = 0; i < 40; i++) {
        for (const g of [1, 2, 3, 4, 5, 6, 7]) {
          const spec = packetFor(g, random);
          const ovs = theirs(await sw.trace(spec));
          const mine = ours(tracer, spec);
          packets++;
          assert.equal(ovs.used.length, 1, `ofproto/trace used no bucket for ${spec}`);
          if (JSON.stringify(ovs) !== JSON.stringify(mine))
            wrong.push(`${spec}\n  ovs:       ${JSON.stringify(ovs)}\n  flowscope: ${JSON.stringify(mine)}`);
          const used = usedPerGroup.get(g) ?? new Set<number>();
          usedPerGroup.set(g, used.add(ovs.used[0]!));
        }
      }
      assert.deepEqual(wrong, [], `${wrong.length} of ${packets} packets differ`);
      // The packets spread over the buckets, so agreement is not agreement on one bucket.
      for (const [g, used] of usedPerGroup)
        assert.ok(used.size >= 2, `group ${g} used only bucket ${[...used].join()}`);
    });
  },
);

test('scores of a hash-selected group, as OVS 3.1 printed them for the same packet', () => {
  const tracer = new Tracer(
    new Pipeline(
      ...(() => {
        const d = parseDump(GROUPS.split('\n').slice(1, 3).join('\n') + '\n' + FLOWS, { file: 'test' });
        return [d.flows, d.groups, d.ports] as const;
      })(),
    ),
  );
  const spec = (g: number): string => `in_port=1,reg0=${g},tcp,nw_src=10.1.2.3,nw_dst=10.0.0.1,tp_src=1234,tp_dst=80`;
  assert.deepEqual(ours(tracer, spec(1)), { scores: ['0:2560200', '1:403000', '2:2943150'], used: [2] });
  assert.deepEqual(ours(tracer, spec(2)), { scores: ['5:6164', '9:24542'], used: [9] });
});
