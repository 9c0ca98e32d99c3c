/**
 * An Antrea 2.x pipeline generated from Antrea's sources (test/support/antrea2-pipeline.ts),
 * loaded into a real Open vSwitch whose tables carry the agent's names, and read back two ways:
 * as a support bundle stores it (flows dumped `--names` in OpenFlow 1.5, groups by number,
 * ovsports) and as the numbered dump. Both must trace every packet as `ofproto/trace` does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCtNext } from '../src/cli/commands/trace.ts';
import type { Tracer } from '../src/analysis/trace/trace.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import { profiledTracer } from '../src/analysis/trace/profiled-tracer.ts';
import { openBundleArchive, selectNode } from '../src/sources/bundle.ts';
import { readNode } from '../src/sources/node-dump.ts';
import { parseDump } from '../src/syntax/reader.ts';
import {
  ALL_FEATURES,
  ANTREA2_PORTS,
  type Antrea2Features,
  antrea2Flows,
  antrea2Groups,
  antrea2Probes,
  antrea2TableNames,
  antrea2Tables,
} from './support/antrea2-pipeline.ts';
import { agentText, tarGz } from './support/bundle.ts';
import { traceOutline } from './support/bundle-trace.ts';
import { parseOfprotoTrace } from './support/ofproto-trace.ts';
import { skipUnlessOvs, withOvsSwitch } from './support/ovs.ts';

/** Loads the pipeline of the features into a switch with the agent's table names and compares every probe's trace with ofproto/trace. */
async function tracesLikeOvs(
  features: Antrea2Features,
  minimumViaGroups: number,
  verdictsWanted: readonly string[],
): Promise<void> {
  const bridge = {
    bridge: 'br-int',
    ports: ANTREA2_PORTS,
    tableNames: antrea2TableNames(features),
    datapathId: '0000a2c4e6f80202',
    hwaddr: 'a2:c4:e6:f8:02:02',
  };
  await withOvsSwitch(bridge, async (sw) => {
    await sw.addGroups(antrea2Groups(features), 15);
    await sw.addFlows(antrea2Flows(features), 15);
    const namedFlows = await sw.dumpFlows({ of: 15, names: true });
    assert.match(namedFlows, /table=EndpointDNAT, /);
    const bundle = await openBundleArchive(
      await tarGz([
        { name: 'flows', data: agentText(namedFlows) },
        { name: 'groups', data: agentText(await sw.dumpGroups({ of: 15 })) },
        { name: 'ovsports', data: agentText(await sw.dumpPortsDesc(15)) },
      ]),
      'agent_k8s-node-1.tar.gz',
    );
    const node = readNode(selectNode(bundle, undefined));
    assert.deepEqual(node.nodeProblems, []);
    // The groups name EndpointDNAT by its number, as the agent's bundle has them.
    const endpointDNAT = antrea2Tables(features).indexOf('EndpointDNAT');
    assert.ok(node.groups.some((g) => g.origin.text.includes(`resubmit(,${endpointDNAT})`)));
    const fromBundle = profiledTracer(new Pipeline(node.flows, node.groups, node.ports)).tracer;
    const plain = parseDump(
      [await sw.dumpFlows({ of: 15 }), await sw.dumpGroups({ of: 15 }), await sw.show(15)].join('\n'),
      { file: 'numbered' },
    );
    assert.equal(plain.badLines, 0);
    const numbered = profiledTracer(new Pipeline(plain.flows, plain.groups, plain.ports)).tracer;

    const mismatches: string[] = [];
    let viaGroups = 0;
    const verdicts = new Set<string>();
    const probes = antrea2Probes(features);
    for (const probe of probes) {
      const inPort = Number(/in_port=(\d+)/.exec(probe.packet)![1]);
      const ovs = parseOfprotoTrace(await sw.trace(probe.packet, { ctNext: probe.ctNext ?? [] }), inPort);
      const expected = [
        ...ovs.passes.map((p) => p.steps.map((s) => `${s.table}:${s.priority ?? 'miss'}`).join(' ')),
        `${ovs.verdict} ${ovs.outputs.join(',')}`,
      ];
      const options = {
        ctNext: (probe.ctNext ?? []).map(parseCtNext),
        ...(ovs.buckets[0] !== undefined ? { bucket: ovs.buckets[0] } : {}),
      };
      if (ovs.buckets.length > 0) viaGroups++;
      verdicts.add(ovs.verdict);
      for (const [label, tracer] of [
        ['bundle', fromBundle],
        ['numbered', numbered],
      ] as [string, Tracer][]) {
        const outline = traceOutline(tracer, tracer.trace(tracer.parsePacket(probe.packet), options));
        if (JSON.stringify(outline) !== JSON.stringify(expected)) {
          mismatches.push(
            `${label}: ${probe.packet} ${probe.ctNext?.join(' ') ?? ''}\n  ovs:       ${expected.join(' | ')}\n  flowscope: ${outline.join(' | ')}`,
          );
        }
      }
    }
    assert.deepEqual(mismatches, [], `${mismatches.length} traces of ${probes.length * 2} differ`);
    assert.ok(viaGroups >= minimumViaGroups, `only ${viaGroups} probes went through a group`);
    for (const v of verdictsWanted) assert.ok(verdicts.has(v), `no probe ended in ${v}`);
  });
}

test(
  'an Antrea 2.x pipeline traces as ofproto/trace does, from its support bundle and from its numbered dump alike',
  { ...skipUnlessOvs, timeout: 600_000 },
  async () => {
    await tracesLikeOvs({}, 6, ['output', 'drop', 'controller']);
  },
);

test(
  'with dual-stack, Multicast and LoadBalancer DSR too, it traces as ofproto/trace does from both forms',
  { ...skipUnlessOvs, timeout: 600_000 },
  async () => {
    await tracesLikeOvs(ALL_FEATURES, 10, ['output', 'drop', 'controller']);
  },
);
