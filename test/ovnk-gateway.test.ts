/**
 * The OVN-Kubernetes gateway-bridge profile, written only as a YAML file, on the flows
 * ovn-kubernetes keeps on breth0 / br-ex: nodes generated from its node agent's sources (a
 * dual-stack shared-gateway node with Egress IP, an IPv4 local-gateway node on br-ex), loaded into
 * a real switch with the uplink and the patch port and dumped as an operator would; and the flows
 * its design documents walk through (host to Service, the hairpins back to the host, replies
 * through the uplink, externalTrafficPolicy Local), written out here from the documents'
 * description. Detection picks the profile, and every flow is explained: no `? no pattern fits`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from './support/cli.ts';
import {
  type GatewayNode,
  gatewayBridgeFlows,
  gatewayBridgeSwitch,
  LOCAL_GATEWAY_NODE,
  OFPORT_PATCH,
  OFPORT_UPLINK,
  patchPortName,
  SHARED_GATEWAY_NODE,
} from './support/ovnk-gateway-bridge.ts';
import { skipUnlessOvs, withOvsSwitch } from './support/ovs.ts';
import { corpusDir } from './support/paths.ts';

const PROFILE = 'ovn-kubernetes-gateway';
const OVS_TIMEOUT = { timeout: 600_000 };

interface FitReport {
  profile: { id: string; source: string };
  flows: number;
  unexplained: number;
  tables: { number: number | null; unexplained: { flow: { text: string } }[] }[];
}

function inTemp<T>(files: Record<string, string>, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-ovnk-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return fn(dir).finally(() => rmSync(dir, { recursive: true, force: true }));
}

/** `profile fit --json` and `show` of one dump: the profile detected, and every flow explained. */
async function assertExplained(dump: string, label: string): Promise<void> {
  await inTemp({ 'flows.txt': dump }, async (dir) => {
    const fit = await runCli(['profile', 'fit', '--json', join(dir, 'flows.txt')]);
    const report = JSON.parse(fit.stdout) as FitReport;
    const left = report.tables.flatMap((t) => t.unexplained.map((u) => u.flow.text));
    assert.equal(report.profile.id, PROFILE, `${label}: detected ${report.profile.id}`);
    assert.equal(report.profile.source, 'detected');
    assert.deepEqual(left, [], `${label}: flows no pattern explains`);
    assert.equal(fit.status, 0, fit.stderr);
    assert.ok(report.flows > 10, `${label}: ${report.flows} flows`);
    const show = await runCli(['show', join(dir, 'flows.txt')]);
    assert.equal(show.status, 0, show.stderr);
    assert.match(show.stdout, new RegExp(`^profile ${PROFILE}, detected`, 'm'));
    assert.doesNotMatch(show.stdout, /\? /, `${label}: a flow show cannot explain`);
    // No sentence is left with a placeholder unfilled.
    assert.doesNotMatch(show.stdout, /\{[\w.|]+\}/);
    // LOCAL and the patch port are named for what they are, by name or by the number the agent usually gives.
    assert.match(show.stdout, /arriving on LOCAL \(the host\)/);
    assert.match(
      show.stdout,
      /arriving on (?:patch port to br-int patch-|port 2 \(usually the patch port to br-int\))/,
    );
  });
}

const NODES: readonly { name: string; node: GatewayNode }[] = [
  { name: 'dual-stack shared gateway on breth0', node: SHARED_GATEWAY_NODE },
  { name: 'IPv4 local gateway on br-ex', node: LOCAL_GATEWAY_NODE },
];

for (const { name, node } of NODES) {
  test(
    `ovn-kubernetes ${name}: the switch's dumps, with and without port names, read by the gateway-bridge profile`,
    { ...skipUnlessOvs, ...OVS_TIMEOUT },
    async () => {
      const dumps = await withOvsSwitch(gatewayBridgeSwitch(node), async (sw) => {
        await sw.addFlows(gatewayBridgeFlows(node), 15);
        return { numbers: await sw.dumpFlows({ of: 15 }), names: await sw.dumpFlows({ of: 13, names: true }) };
      });
      // The switch holds the uplink and the patch port at their numbers, and prints the patch port's name cut to 15 characters.
      assert.match(dumps.numbers, new RegExp(`in_port=${OFPORT_PATCH},`));
      assert.match(dumps.names, new RegExp(`in_port="?${patchPortName(node).slice(0, 15)}"?,`));
      assert.match(dumps.names, new RegExp(`output:${node.uplink}`));
      assert.doesNotMatch(dumps.numbers, new RegExp(`in_port=${OFPORT_UPLINK + OFPORT_PATCH + 1}\\b`));
      await assertExplained(dumps.numbers, `${name}, numbered ports`);
      await assertExplained(dumps.names, `${name}, named ports`);
    },
  );
}

/**
 * The gateway-bridge flows the design documents show (host-to-node-port-hairpin-trafficflow.md,
 * service-traffic-policy.md), written out from what they describe for their example node
 * (172.18.0.3, MAC 02:42:ac:12:00:03, Services in 10.96.0.0/16, uplink eth0 as port 1, the patch
 * port as port 2) in the form those documents' releases installed them: the hairpin flows of
 * table 0 and tables 2–5, the conntrack mark loaded into zone 64000, the local-gateway flows of
 * priority 175, and a NodePort of a Service with externalTrafficPolicy Local (tables 6 and 7).
 */
const DOCUMENTED_FLOWS = [
  'table=0, priority=500, ip, in_port=2, nw_src=172.18.0.3, nw_dst=169.254.169.2, actions=ct(commit,table=4,zone=64001,nat(dst=172.18.0.3))',
  'table=0, priority=500, ip, in_port=2, nw_src=172.18.0.3, nw_dst=172.20.0.2, actions=ct(commit,table=4,zone=64001)',
  'table=0, priority=500, ip, in_port=LOCAL, nw_dst=169.254.169.1, actions=ct(table=5,zone=64002,nat)',
  'table=0, priority=500, ip, in_port=LOCAL, nw_dst=10.96.0.0/16, actions=ct(commit,table=2,zone=64001,nat(src=169.254.169.2))',
  'table=0, priority=500, ip, in_port=2, nw_src=10.96.0.0/16, nw_dst=169.254.169.2, actions=ct(table=3,zone=64001,nat)',
  'table=0, priority=175, tcp, in_port=2, nw_src=172.18.0.3, actions=ct(table=4,zone=64001)',
  'table=0, priority=100, tcp, in_port=1, tp_dst=31746, actions=ct(commit,table=6,zone=64003,nat(dst=172.18.0.3:8080))',
  'table=0, priority=100, tcp, in_port=LOCAL, tp_src=8080, actions=ct(commit,table=7,zone=64003,nat)',
  'table=0, priority=100, ip, in_port=2, actions=ct(commit,zone=64000,exec(load:0x1->NXM_NX_CT_MARK[])),output:1',
  'table=0, priority=100, ip, in_port=LOCAL, actions=ct(commit,zone=64000,exec(load:0x2->NXM_NX_CT_MARK[])),output:1',
  'table=0, priority=50, ip, in_port=1, actions=ct(table=1,zone=64000)',
  'table=1, priority=100, ct_state=+est+trk, ct_mark=0x1, ip, actions=output:2',
  'table=1, priority=100, ct_state=+rel+trk, ct_mark=0x1, ip, actions=output:2',
  'table=1, priority=0, actions=NORMAL',
  'table=2, actions=set_field:02:42:ac:12:00:03->eth_dst,output:2',
  'table=3, actions=move:NXM_OF_ETH_DST[]->NXM_OF_ETH_SRC[],set_field:02:42:ac:12:00:03->eth_dst,LOCAL',
  'table=4, ip, actions=ct(commit,table=3,zone=64002,nat(src=169.254.169.1))',
  'table=5, ip, actions=ct(commit,table=2,zone=64001,nat)',
  'table=6, priority=100, actions=LOCAL',
  'table=7, priority=100, actions=output:1',
].map((f) => `cookie=0xdeff105, ${f}`);

test(
  "the gateway-bridge flows of ovn-kubernetes' design documents: OVS takes them, and the profile explains each one",
  { ...skipUnlessOvs, ...OVS_TIMEOUT },
  async () => {
    const listing = DOCUMENTED_FLOWS.join('\n') + '\n';
    const dump = await withOvsSwitch(gatewayBridgeSwitch(SHARED_GATEWAY_NODE), async (sw) => {
      await sw.addFlows(listing, 13);
      return sw.dumpFlows({ of: 13, names: true });
    });
    assert.equal(dump.trim().split('\n').length, DOCUMENTED_FLOWS.length);
    await assertExplained(listing, "the documents' listing as written");
    await assertExplained(dump, "the documents' listing as the switch dumps it");
  },
);

test('the gateway-bridge profile is not detected for the Antrea and OpenShift SDN dumps of the corpus', async () => {
  for (const file of [
    'antrea-ovs-pipeline-doc-HEAD.flows.txt',
    'antrea-pipeline_test-ipv4-encap.txt',
    'openshift-sdn-expectedFlows-v13.txt',
  ]) {
    const r = await runCli(['tables', '--json', join(corpusDir, file)]);
    const id = (JSON.parse(r.stdout) as { profile: { id: string } }).profile.id;
    assert.notEqual(id, PROFILE, file);
  }
});
