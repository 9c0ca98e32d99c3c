/**
 * An Antrea 2.x pipeline generated from Antrea's sources (test/support/antrea2-pipeline.ts),
 * loaded into a real Open vSwitch whose tables carry the agent's names, and read back two ways:
 * as a support bundle stores it (flows dumped `--names` in OpenFlow 1.5, groups by number,
 * ovsports) and as the numbered dump. Both must trace every packet as `ofproto/trace` does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCtNext } from '../src/cli/commands/trace.ts';
import type { Tracer } from '../src/analysis/trace.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import { traceWithWords } from '../src/render/trace-words.ts';
import { openBundleArchive, selectNode } from '../src/sources/bundle.ts';
import { readNode } from '../src/sources/node-dump.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { ANTREA2_PORTS, ANTREA2_TABLE_NAMES, antrea2Flows, antrea2Groups, antrea2Probes } from './support/antrea2-pipeline.ts';
import { agentText, tarGz } from './support/bundle.ts';
import { traceOutline } from './support/bundle-trace.ts';
import { parseOfprotoTrace } from './support/ofproto-trace.ts';
import { skipUnlessOvs, withOvsSwitch } from './support/ovs.ts';

const BRIDGE = { bridge: 'br-int', ports: ANTREA2_PORTS, tableNames: ANTREA2_TABLE_NAMES, datapathId: '0000a2c4e6f80202', hwaddr: 'a2:c4:e6:f8:02:02' };

test('an Antrea 2.x pipeline traces as ofproto/trace does, from its support bundle and from its numbered dump alike', { ...skipUnlessOvs, timeout: 600_000 }, async () => {
  await withOvsSwitch(BRIDGE, async (sw) => {
    await sw.addGroups(antrea2Groups(), 15);
    await sw.addFlows(antrea2Flows(), 15);
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
    assert.ok(node.groups.some((g) => /resubmit\(,11\)/.test(g.origin.text)));
    const fromBundle = traceWithWords(new Pipeline(node.flows, node.groups, node.ports), 15).tracer;
    const plain = parseDump([await sw.dumpFlows({ of: 15 }), await sw.dumpGroups({ of: 15 }), await sw.show(15)].join('\n'), { file: 'numbered' });
    assert.equal(plain.badLines, 0);
    const numbered = traceWithWords(new Pipeline(plain.flows, plain.groups, plain.ports), 15).tracer;

    const mismatches: string[] = [];
    let viaGroups = 0;
    const verdicts = new Set<string>();
    const probes = antrea2Probes();
    for (const probe of probes) {
      const inPort = Number(/in_port=(\d+)/.exec(probe.packet)![1]);
      const ovs = parseOfprotoTrace(await sw.trace(probe.packet, { ctNext: probe.ctNext ?? [] }), inPort);
      const expected = [...ovs.passes.map((p) => p.steps.map((s) => `${s.table}:${s.priority ?? 'miss'}`).join(' ')), `${ovs.verdict} ${ovs.outputs.join(',')}`];
      const options = { ctNext: (probe.ctNext ?? []).map(parseCtNext), ...(ovs.buckets[0] !== undefined ? { bucket: ovs.buckets[0] } : {}) };
      if (ovs.buckets.length > 0) viaGroups++;
      verdicts.add(ovs.verdict);
      for (const [label, tracer] of [
        ['bundle', fromBundle],
        ['numbered', numbered],
      ] as [string, Tracer][]) {
        const outline = traceOutline(tracer, tracer.trace(tracer.parsePacket(probe.packet), options));
        if (JSON.stringify(outline) !== JSON.stringify(expected)) {
          mismatches.push(`${label}: ${probe.packet} ${probe.ctNext?.join(' ') ?? ''}\n  ovs:       ${expected.join(' | ')}\n  flowscope: ${outline.join(' | ')}`);
        }
      }
    }
    assert.deepEqual(mismatches, [], `${mismatches.length} traces of ${probes.length * 2} differ`);
    assert.ok(viaGroups >= 6, `only ${viaGroups} probes went through a Service group`);
    for (const v of ['output', 'drop', 'controller']) assert.ok(verdicts.has(v), `no probe ended in ${v}`);
  });
});
