/**
 * A support bundle of Antrea 2.0 or later stores the flows dumped with `--names`, the groups
 * dumped by number and the ports: read together they are the same pipeline as the numbered dump,
 * so every packet takes the same steps through both.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pipeline } from '../src/model/pipeline.ts';
import { openBundleArchive, selectNode } from '../src/sources/bundle.ts';
import { readNode } from '../src/sources/node-dump.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { profiledTracer } from '../src/analysis/trace/profiled-tracer.ts';
import { antreaProxyAgentFiles, example, tarGz } from './support/bundle.ts';
import { traceOutline } from './support/bundle-trace.ts';
import { runCli } from './support/cli.ts';

const CLIENT = 'in_port=19,tcp,dl_src=6e:c7:01:a0:a9:23,nw_src=10.10.0.18';
const PROBES: readonly string[] = [
  `${CLIENT},nw_dst=10.101.112.140,nw_ttl=64,tp_src=1000,tp_dst=80`,
  `${CLIENT},nw_dst=10.107.100.231,nw_ttl=64,tp_src=2000,tp_dst=443`,
  'in_port=2,tcp,nw_src=10.10.0.1,nw_dst=10.107.100.231,nw_ttl=64,tp_src=3000,tp_dst=443',
  'in_port=1,tcp,nw_src=10.10.1.5,nw_dst=192.168.77.100,nw_ttl=64,tp_src=4000,tp_dst=30001',
  'in_port=18,arp,arp_spa=10.10.0.17,arp_tpa=169.254.169.253,arp_op=1,arp_sha=c2:6f:f8:a0:7e:a1',
  `${CLIENT},nw_dst=169.254.169.252,nw_ttl=64,tp_dst=80`,
];

test('a bundle (flows --names, groups by number, ovsports) traces step for step as the numbered dump', async () => {
  const bundle = await openBundleArchive(await tarGz(antreaProxyAgentFiles('node-b')), 'agent_node-b.tar.gz');
  const node = readNode(selectNode(bundle, undefined));
  assert.ok(node.flows.every((f) => f.table.kind === 'name'));
  const named = profiledTracer(new Pipeline(node.flows, node.groups, node.ports)).tracer;
  const dump = parseDump(
    [
      example('antrea-proxy/dump-flows.of15.txt'),
      example('antrea-proxy/dump-groups.of15.txt'),
      example('antrea-proxy/show.of13.txt'),
    ].join('\n'),
    { file: 'numbered' },
  );
  const numbered = profiledTracer(new Pipeline(dump.flows, dump.groups, dump.ports)).tracer;
  let throughGroups = 0;
  for (const probe of PROBES) {
    const a = named.trace(named.parsePacket(probe));
    const b = numbered.trace(numbered.parsePacket(probe));
    assert.deepEqual(traceOutline(named, a), traceOutline(numbered, b), probe);
    if (
      a.passes.some(
        (p) =>
          p.nodes.length > 0 &&
          JSON.stringify(p.nodes, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)).includes(
            '"kind":"bucket"',
          ),
      )
    )
      throughGroups++;
  }
  assert.ok(throughGroups >= 2, `only ${throughGroups} probes went through a group`);
});

test("flowscope trace on a bundle: the bucket's resubmit(,42) continues in EndpointDNAT", async () => {
  const data = await tarGz(antreaProxyAgentFiles('node-b'));
  const run = await runCli(['trace', '-', `${CLIENT},nw_dst=10.101.112.140,nw_ttl=64,tp_dst=80`], { stdin: data });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /resubmit\(,42\)\n\s+EndpointDNAT\. /);
  assert.doesNotMatch(run.stdout, /42\. No match/);
});
