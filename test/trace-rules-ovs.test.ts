/**
 * Open vSwitch's translation rules one by one: for each, a small pipeline loaded into a real
 * switch, packets traced by `ofproto/trace` (whose output must show the rule at work) and by
 * flowscope from the switch's own dumps, which must agree on path, verdict and output ports.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tracer } from '../src/analysis/trace/trace.ts';
import { XLATE_ERRORS } from '../src/render/words/trace-notes.ts';
import { FIELD } from '../src/analysis/trace/packet.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import { formatTrace } from '../src/render/trace.ts';
import { readPortDescriptions } from '../src/sources/port-map.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { formatGroup } from '../src/render/group.ts';
import { type OvsSwitch, OvsSwitch as Switch, skipUnlessOvs } from './support/ovs.ts';
import { assertAgree, type Comparison, compare, type Probe, tracerFor } from './support/trace-compare.ts';

/** Ports 1–7 are up; 8 and 9 are brought down before the tests. */
const PORTS = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => ({ name: `p${n}`, ofport: n }));
const DOWN = ['p8', 'p9'];

let sw: OvsSwitch | undefined;

before(async () => {
  if (skipUnlessOvs.skip) return;
  sw = await Switch.start({ ports: PORTS });
  for (const port of DOWN) await sw.ofctl(['mod-port', sw.bridge, port, 'down']);
});

after(async () => {
  await sw?.stop();
});

/** Replaces the switch's flows and groups, traces the probes with both and asserts they agree. */
async function agree(flows: string, groups: string, probes: readonly Probe[]): Promise<Comparison> {
  const s = sw!;
  await s.deleteFlows(15);
  await s.deleteGroups(15);
  if (groups.trim() !== '') await s.addGroups(groups, 15);
  await s.addFlows(flows, 15);
  const result = await compare(s, await tracerFor(s), probes);
  assertAgree(result, probes.length);
  return result;
}

/** Occurrences of `text` in ofproto/trace's output for the probe at `i`. */
function ovsSays(result: Comparison, i: number, text: string): number {
  return result.traces[i]!.ovsText.split(text).length - 1;
}

function problemKinds(result: Comparison, i: number): string[] {
  return result.traces[i]!.ours.problems.map((p) => p.kind);
}

test(
  'depth: a lookup deepens only into a table at or before the current one; goto_table forward does not',
  skipUnlessOvs,
  async () => {
    const result = await agree('table=0,in_port=1 actions=goto_table:1\ntable=1 actions=resubmit(,1)\n', '', [
      { packet: 'in_port=1' },
    ]);
    const { ovs, ours } = result.traces[0]!;
    // Table 0, the goto, then 64 nested resubmits before the 65th is refused.
    assert.equal(ovs.passes[0]!.steps.length, 66);
    assert.equal(ours.passes[0]!.steps.length, 66);
    assert.equal(ovs.failure, XLATE_ERRORS.depth);
  },
);

test(
  'depth: each group bucket nests one level, and the group itself is refused at the limit',
  skipUnlessOvs,
  async () => {
    const result = await agree(
      'table=0,in_port=1 actions=resubmit(,1)\ntable=1 actions=group:1\n',
      'group_id=1,type=all,bucket=actions=resubmit(,1)\n',
      [{ packet: 'in_port=1' }],
    );
    const { ovs, ours } = result.traces[0]!;
    assert.equal(ovs.failure, XLATE_ERRORS.depth);
    assert.equal(ours.passes[0]!.steps.length, ovs.passes[0]!.steps.length);
  },
);

test(
  'fast failover: a bucket watching a port that is down is not live, though the port exists',
  skipUnlessOvs,
  async () => {
    const groups =
      'group_id=1,type=ff,bucket=bucket_id:0,watch_port:8,actions=output:8,bucket=bucket_id:1,watch_port:9,actions=output:9,bucket=bucket_id:2,watch_port:3,actions=output:3\n';
    const result = await agree('table=0,in_port=1 actions=group:1\n', groups, [{ packet: 'in_port=1' }]);
    assert.equal(ovsSays(result, 0, 'not live due to port 8'), 1);
    assert.deepEqual(result.traces[0]!.ours.outputs, [3]);
    // dump-ports-desc says the same as show: both ports down, the others not.
    const ports = readPortDescriptions(await sw!.dumpPortsDesc(13));
    assert.deepEqual(
      [1, 2, 3, 8, 9].map((n) => ports.isDown(n)),
      [false, false, false, true, true],
    );
  },
);

test('a rewritten in_port: output to it is skipped and IN_PORT sends to it', skipUnlessOvs, async () => {
  const result = await agree('table=0,in_port=1 actions=set_field:2->in_port,output:2,IN_PORT,output:1\n', '', [
    { packet: 'in_port=1' },
  ]);
  assert.equal(ovsSays(result, 0, 'skipping output to input port'), 1);
  assert.deepEqual(result.traces[0]!.ours.outputs, [2, 1]);
});

test(
  'a group bucket is an action set: one final action, CONTROLLER:N an output, output:REG and lone writes nothing',
  skipUnlessOvs,
  async () => {
    const groups = [
      'group_id=1,type=all,bucket=bucket_id:0,actions=output:2,output:3,bucket=bucket_id:1,actions=resubmit(,5),output:4',
      'group_id=2,type=all,bucket=bucket_id:0,actions=CONTROLLER:65535,bucket=bucket_id:1,actions=set_field:4->reg0,output:NXM_NX_REG0[]',
      'group_id=3,type=all,bucket=bucket_id:0,actions=set_field:10.1.1.1->ip_dst,bucket=bucket_id:1,actions=ct_clear,resubmit(,6)',
      'group_id=4,type=indirect,bucket=bucket_id:0,actions=group:1,output:5',
    ].join('\n');
    const flows = [
      'table=0,ip,in_port=1,nw_dst=10.0.0.1 actions=group:1',
      'table=0,ip,in_port=1,nw_dst=10.0.0.2 actions=group:2',
      'table=0,ip,in_port=1,nw_dst=10.0.0.3 actions=group:3,resubmit(,6)',
      'table=0,ip,in_port=1,nw_dst=10.0.0.4 actions=group:4',
      'table=5 actions=output:7',
      'table=6,ip,nw_dst=10.1.1.1 actions=output:4',
      'table=6 actions=output:5',
    ].join('\n');
    const result = await agree(
      flows,
      groups,
      [1, 2, 3, 4].map((h) => ({ packet: `in_port=1,ip,nw_dst=10.0.0.${h}` })),
    );
    assert.deepEqual(
      result.traces.map((t) => [t.ours.verdict, t.ours.outputs]),
      [
        ['output', [3, 4]],
        ['controller', []],
        ['output', [5, 5]],
        ['output', [3, 4]],
      ],
    );
  },
);

test('output and IN_PORT to a port the bridge does not have send nothing', skipUnlessOvs, async () => {
  const result = await agree('table=0,in_port=1 actions=set_field:12->in_port,IN_PORT,output:11,output:2\n', '', [
    { packet: 'in_port=1' },
  ]);
  assert.equal(ovsSays(result, 0, 'Nonexistent output port'), 2);
  assert.deepEqual(problemKinds(result, 0), ['unlisted-port', 'unlisted-port']);
});

test('exit ends the action set too', skipUnlessOvs, async () => {
  const result = await agree(
    'table=0,in_port=1 actions=write_actions(output:3),goto_table:1\ntable=1 actions=exit\n',
    '',
    [{ packet: 'in_port=1' }],
  );
  assert.equal(ovsSays(result, 0, 'Executing action set'), 1);
  assert.equal(result.traces[0]!.ours.verdict, 'drop');
});

test(
  'clone runs its copy of the action set when its actions end, and the caller keeps its own',
  skipUnlessOvs,
  async () => {
    const flows = [
      'table=0,ip,in_port=1,nw_dst=10.0.0.1 actions=write_actions(output:3),goto_table:1',
      'table=0,ip,in_port=1,nw_dst=10.0.0.2 actions=write_actions(output:3),goto_table:2',
      'table=1 actions=clone(output:2)',
      'table=2 actions=clone(resubmit(,3)),output:2',
      'table=3 actions=write_actions(output:4)',
    ].join('\n');
    const result = await agree(flows, '', [
      { packet: 'in_port=1,ip,nw_dst=10.0.0.1' },
      { packet: 'in_port=1,ip,nw_dst=10.0.0.2' },
    ]);
    assert.equal(ovsSays(result, 0, 'Executing action set'), 2);
    assert.deepEqual(
      result.traces.map((t) => t.ours.outputs),
      [
        [2, 3, 3],
        [4, 2, 3],
      ],
    );
  },
);

test(
  'push_vlan on a tagged packet pushes a second tag; pop_vlan brings the inner one back',
  skipUnlessOvs,
  async () => {
    const flows = [
      'table=0,in_port=1 actions=push_vlan:0x8100,set_field:4101->vlan_vid,push_vlan:0x8100,resubmit(,1)',
      'table=1,dl_vlan=0 actions=pop_vlan,resubmit(,2)',
      'table=1 actions=output:5',
      'table=2,dl_vlan=5 actions=pop_vlan,resubmit(,3)',
      'table=2 actions=output:6',
      'table=3,vlan_tci=0 actions=output:4',
      'table=3 actions=output:7',
    ].join('\n');
    const result = await agree(flows, '', [{ packet: 'in_port=1' }]);
    assert.deepEqual(result.traces[0]!.ours.outputs, [4]);
    assert.ok(result.traces[0]!.ours.passes[0]!.final.equals(result.traces[0]!.ours.passes[0]!.initial));
  },
);

test('resubmit(,T,ct) without a conntrack tuple looks nothing up', skipUnlessOvs, async () => {
  const flows =
    'table=0,ip,in_port=1 actions=ct(table=1)\ntable=1,ct_state=+trk+new,ip actions=resubmit(,2,ct),output:2\ntable=2 actions=output:3\n';
  const result = await agree(flows, '', [{ packet: 'in_port=1,ip,nw_dst=10.0.0.1' }]);
  assert.equal(ovsSays(result, 0, 'resubmit(ct) with non-tracked or non-IP packet!'), 1);
  assert.deepEqual(problemKinds(result, 0), ['no-ct-tuple']);
});

test(
  'a field write the packet lacks the headers for is ignored, and so is a move from or to such a field',
  skipUnlessOvs,
  async () => {
    // Only a bucket can hold such writes: a flow's match must carry its actions' prerequisites.
    const groups =
      'group_id=1,type=indirect,bucket=actions=set_field:80->tcp_dst,set_field:10.3.3.3->arp_spa,set_field:0x63->reg1,move:NXM_OF_TCP_SRC[]->NXM_NX_REG1[0..15],resubmit(,1)\n';
    const flows =
      'table=0,ip,in_port=1 actions=group:1\ntable=1,reg1=0x63 actions=output:2\ntable=1 actions=output:3\n';
    const result = await agree(flows, groups, [{ packet: 'in_port=1,ip,nw_dst=10.0.0.1' }]);
    assert.equal(ovsSays(result, 0, 'set_field ignored'), 2);
    assert.deepEqual(problemKinds(result, 0), ['unmet-prerequisites', 'unmet-prerequisites']);
    assert.deepEqual(result.traces[0]!.ours.outputs, [2]);
  },
);

test(
  'a select group without a selection method picks by dp_hash when its weights fit 256 hash values, else by the default hash',
  skipUnlessOvs,
  async () => {
    const groups = [
      // 16 hash values shared 1:1:3; bucket 2 of group 2 watches a port that is down, bucket 7 weighs nothing.
      'group_id=1,type=select,bucket=bucket_id:0,actions=output:2,bucket=bucket_id:1,actions=output:3,bucket=bucket_id:2,weight:3,actions=output:4',
      'group_id=2,type=select,bucket=bucket_id:0,weight:1,watch_port:8,actions=output:5,bucket=bucket_id:1,weight:20,actions=output:3,bucket=bucket_id:7,weight:0,actions=output:2,bucket=bucket_id:8,weight:7,actions=output:4',
      // 301 of weight 1 need more than 256 values: the default hash of addresses and ports.
      'group_id=3,type=select,bucket=bucket_id:0,weight:1,actions=output:5,bucket=bucket_id:1,weight:100,actions=output:2,bucket=bucket_id:2,weight:100,actions=output:3,bucket=bucket_id:3,weight:100,actions=output:4',
      'group_id=4,type=select,selection_method=dp_hash,bucket=bucket_id:0,weight:5,actions=output:2,bucket=bucket_id:1,weight:9,actions=output:3',
    ].join('\n');
    const flows = [1, 2, 3, 4].map((g) => `table=0,ip,in_port=1,nw_dst=10.0.0.${g} actions=group:${g}`).join('\n');
    const probes: Probe[] = [];
    for (const g of [1, 2, 4])
      for (const h of [1, 2, 3, 5, 16, 17, 31, 0x12345])
        probes.push({ packet: `in_port=1,ip,nw_dst=10.0.0.${g},dp_hash=${h}` });
    for (let i = 0; i < 12; i++)
      probes.push({
        packet: `in_port=1,tcp,nw_src=10.1.${i}.${(i * 37) % 250},nw_dst=10.0.0.3,tp_src=${1000 + i},tp_dst=80`,
      });
    const result = await agree(flows, groups, probes);
    // Every bucket of group 1 is taken by some dp_hash, and group 3 goes more than one way.
    assert.deepEqual(new Set(result.traces.slice(0, 8).flatMap((t) => t.ours.outputs)), new Set([2, 3, 4]));
    assert.ok(new Set(result.traces.slice(24).flatMap((t) => t.ours.outputs)).size > 1);
    // Without dp_hash the switch leaves the choice to the datapath (ofproto/trace shows the hash
    // and recirculation it asks for); the trace follows every live bucket, each labelled.
    const ovs = await sw!.trace('in_port=1,ip,nw_dst=10.0.0.2');
    assert.match(ovs, /Datapath actions: hash\(/);
    const ours = (await tracerFor(sw!)).tracePacket('in_port=1,ip,nw_dst=10.0.0.2');
    assert.deepEqual(ours.outputs, [3, 4]);
    const problem = ours.problems.find((p) => p.kind === 'datapath-hash');
    assert.ok(problem?.kind === 'datapath-hash');
    // The dp_hash given for each bucket takes that bucket on the switch.
    for (const { bucket, dpHash } of problem.choices) {
      assert.match(
        await sw!.trace(`in_port=1,ip,nw_dst=10.0.0.2,dp_hash=${dpHash}`),
        new RegExp(`using bucket ${bucket}\\n`),
      );
    }
  },
);

test(
  'group text as openshift-sdn writes it, buckets joined by bucket= without a comma, reads as OVS reads it: in add-groups files and bundle files',
  skipUnlessOvs,
  async () => {
    const s = sw!;
    const egress = (id: number, ips: readonly string[]): string =>
      `group_id=${id},type=select,bucket=${ips.map((ip) => `actions=move:NXM_NX_REG0[]->NXM_NX_TUN_ID[0..31],set_field:${ip}->tun_dst,output:1`).join('bucket=')}`;
    const groupsOf = (text: string): string[] => {
      const dump = parseDump(text, { file: 'groups' });
      assert.equal(dump.badLines, 0, dump.diagnostics.map((d) => d.message).join('\n'));
      return dump.groups.map((g) => formatGroup(g, 15)).sort();
    };
    await s.deleteFlows(15);
    await s.deleteGroups(15);
    const file = [egress(42, ['172.17.0.3', '172.17.0.4', '172.17.0.5']), egress(43, ['172.17.0.6'])].join('\n');
    await s.addGroups(file, 15);
    const added = groupsOf(await s.dumpGroups({ of: 15 }));
    assert.equal(added.length, 2);
    assert.equal(added[0]!.split('bucket=').length - 1, 3);
    assert.deepEqual(groupsOf(file), added);
    // The same groups through `ovs-ofctl bundle`, with the flow that uses them.
    await s.deleteGroups(15);
    const bundle = [
      `group add ${egress(44, ['172.17.0.7', '172.17.0.8'])}`,
      'flow add table=0,priority=100,ip,reg0=0x44 actions=group:44',
    ].join('\n');
    const path = join(s.dir, 'bundle.txt');
    writeFileSync(path, bundle + '\n');
    await s.ofctl(['-O', 'OpenFlow14', 'bundle', s.bridge, path]);
    assert.deepEqual(groupsOf(bundle), groupsOf(await s.dumpGroups({ of: 15 })));
    const flows = parseDump(bundle, { file: 'bundle' }).flows;
    assert.deepEqual(
      flows.map((f) => f.actions),
      parseDump(await s.dumpFlows({ of: 15 }), { file: 'dump' }).flows.map((f) => f.actions),
    );
  },
);

test(
  'a tunnel metadata option matched for its presence alone matches a packet that carries it, even as 0, and no other',
  skipUnlessOvs,
  async () => {
    await sw!.ofctl([
      'add-tlv-map',
      sw!.bridge,
      '{class=0xffff,type=0,len=4}->tun_metadata0,{class=0xffff,type=1,len=4}->tun_metadata1',
    ]);
    try {
      // A value as long as the option: a shorter one the switch's dump prints without its mask.
      const flows =
        'table=0,priority=10,tun_metadata0 actions=output:2\ntable=0,priority=8,tun_metadata1=0x12345678 actions=output:4\ntable=0,priority=5 actions=output:3\n';
      const probes = [
        'in_port=1',
        'in_port=1,tun_metadata0=0',
        'in_port=1,tun_metadata0=0x5',
        'in_port=1,tun_metadata1=0',
        'in_port=1,tun_metadata1=0x12345678',
      ].map((packet) => ({ packet }));
      const result = await agree(flows, '', probes);
      assert.deepEqual(
        result.traces.map((t) => t.ours.outputs),
        [[3], [2], [2], [3], [4]],
      );
      // The switch's own dump keeps the bare name, and flowscope reads it back so.
      assert.match(await sw!.dumpFlows({ of: 15 }), /priority=10,tun_metadata0 actions=output:2/);
    } finally {
      await sw!.deleteFlows(15);
      await sw!.ofctl(['del-tlv-map', sw!.bridge]);
    }
  },
);

test(
  "a select group dumped in OpenFlow 1.1–1.4, which hides its selection method, is traced through every live bucket and said to be so; in 1.5 the switch's choice",
  skipUnlessOvs,
  async () => {
    const s = sw!;
    await s.deleteFlows(15);
    await s.deleteGroups(15);
    await s.addGroups(
      'group_id=1,type=select,selection_method=hash,fields(ip_src,tcp_dst),bucket=bucket_id:0,actions=output:2,bucket=bucket_id:1,actions=output:3,bucket=bucket_id:2,watch_port:8,actions=output:4\n',
      15,
    );
    await s.addFlows('table=0,in_port=1,ip actions=group:1\n', 15);
    const packet = 'in_port=1,tcp,nw_src=10.0.0.7,nw_dst=10.0.0.1,tp_src=1000,tp_dst=80';
    const chosen = Number(/-> using bucket (\d+)/.exec(await s.trace(packet))?.[1]);
    const flows = await s.dumpFlows({ of: 15 });
    const ports = await s.show(13);
    for (const of of [11, 12, 13, 14, 15] as const) {
      const groups = await s.dumpGroups({ of });
      const dump = parseDump([flows, groups, ports].join('\n'), { file: 'dump' });
      const result = new Tracer(new Pipeline(dump.flows, dump.groups, dump.ports)).tracePacket(packet);
      const unknown = result.problems.find((p) => p.kind === 'selection-unknown');
      if (of < 15) {
        // The dump shows neither the method nor the bucket ids: both live buckets, labelled, and the reason.
        assert.doesNotMatch(groups, /selection_method|bucket_id/);
        assert.deepEqual(result.outputs, [2, 3], `OpenFlow 1.${of - 10}`);
        assert.deepEqual(unknown?.kind === 'selection-unknown' ? unknown.buckets : [], [0, 1]);
        const text = formatTrace(result, { of });
        assert.match(text, /the dump does not show how the switch picks a bucket: following every live bucket/);
        assert.equal(text.split('if the switch picks it: the dump does not show how it picks').length - 1, 2);
      } else {
        assert.equal(unknown, undefined);
        assert.deepEqual(result.outputs, [chosen + 2]);
      }
    }
  },
);

test(
  'ct_clear clears only a packet that went through conntrack: tracked when the pass began, or resumed from it',
  skipUnlessOvs,
  async () => {
    const flows =
      [
        'table=0,priority=10,in_port=1,ip actions=ct_clear,output:2',
        'table=0,priority=10,in_port=3,ip actions=ct(table=1,zone=5)',
        'table=1,priority=10,ip actions=ct_clear,output:2',
      ].join('\n') + '\n';
    const probes = [
      'in_port=1,ip,ct_state=trk|est,ct_zone=1,ct_mark=5',
      'in_port=1,ip,ct_zone=1,ct_mark=5',
      'in_port=3,ip,ct_zone=1,ct_mark=5',
    ].map((packet) => ({ packet }));
    const result = await agree(flows, '', probes);
    const finals = result.traces.map((t) =>
      t.ours.passes.map((p) => [p.final.get(FIELD.ctZone), p.final.get(FIELD.ctMark)]),
    );
    assert.deepEqual(finals, [
      [[0n, 0n]],
      [[1n, 5n]],
      [
        [0n, 0n],
        [0n, 0n],
      ],
    ]);
    // OVS keeps the untracked packet's conntrack fields, and clears the tracked one's.
    assert.match(result.traces[1]!.ovsText, /ct_clear\n {4}output:2\n\nFinal flow: unchanged\n/);
    assert.doesNotMatch(/Final flow: .*/.exec(result.traces[0]!.ovsText)?.[0] ?? '', /ct_zone|ct_mark/);
  },
);

test(
  'push_mpls on a labelled packet keeps the labels under the new one (up to three), pop_mpls lifts them back, a fourth push fails the translation',
  skipUnlessOvs,
  async () => {
    const flows =
      [
        'table=0,priority=10,in_port=1,ip actions=set_field:5->nw_ttl,push_mpls:0x8847,set_field:7->mpls_label,push_mpls:0x8847,set_field:9->mpls_label,output:2',
        'table=0,priority=10,in_port=2,ip actions=push_mpls:0x8847,set_field:7->mpls_label,push_mpls:0x8847,push_mpls:0x8847,set_field:3->mpls_tc,pop_mpls:0x8847,output:3',
        'table=0,priority=10,in_port=3,ip actions=push_mpls:0x8847,push_mpls:0x8847,push_mpls:0x8847,push_mpls:0x8847,output:4',
      ].join('\n') + '\n';
    const probes = ['in_port=1,ip,nw_ttl=64', 'in_port=2,ip,nw_ttl=64', 'in_port=3,ip,nw_ttl=64'].map((packet) => ({
      packet,
    }));
    const result = await agree(flows, '', probes);
    // The packet OVS leaves, entry by entry: the top label's fields and the entries under it.
    const stack = (text: string): string[] =>
      (/Final flow: (.*)/.exec(text)?.[1] ?? '')
        .split(',')
        .filter((f) => /^mpls_(?:label|tc|ttl|bos|lse\d)=/.test(f) && !/^mpls_lse\d=0$/.test(f));
    const ours = (i: number): string[] => {
      const p = result.traces[i]!.ours.passes[0]!.final;
      const under = ['mpls_lse1', 'mpls_lse2'].filter((s) => p.slot(s) !== 0n).map((s) => `${s}=${p.slot(s)}`);
      return [
        `mpls_label=${p.slot('mpls_label')}`,
        `mpls_tc=${p.slot('mpls_tc')}`,
        `mpls_ttl=${p.slot('mpls_ttl')}`,
        `mpls_bos=${p.slot('mpls_bos')}`,
        ...under,
      ];
    };
    for (const i of [0, 1]) assert.deepEqual(ours(i), stack(result.traces[i]!.ovsText), probes[i]!.packet);
    // Label 7 (TTL 5, bottom of stack) under label 9.
    assert.deepEqual(stack(result.traces[0]!.ovsText).at(-1), `mpls_lse1=${(7 << 12) | (1 << 8) | 5}`);
    assert.equal(result.traces[2]!.ovs.failure, 'Too many MPLS labels');
  },
);
