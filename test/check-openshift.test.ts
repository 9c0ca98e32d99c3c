/**
 * `flowscope check` on OpenShift SDN nodes as a real switch holds them: rule version 7 (generated
 * from openshift/sdn's sources, each plugin), rule version 12 (its expected flows) and rule
 * version 13 with each plugin's flows on the expected setup, loaded into br0 of a real Open vSwitch and dumped with their counters and
 * groups, as an operator would. Healthy, they pass; what openshift-sdn installs on purpose in
 * tables 27, 60 and 80 is known and silent unless --all; the same flows out of their design fail.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from './support/cli.ts';
import { withSdnNode } from './support/openshift-sdn-bridge.ts';
import { openshiftV7Flows } from './support/openshift-sdn-v7.ts';
import { openshiftV13Flows } from './support/openshift-sdn-v13.ts';
import { skipUnlessOvs } from './support/ovs.ts';
import { corpusDir } from './support/paths.ts';

interface JsonFinding {
  kind: string;
  severity: string;
  message: string;
  known: boolean;
  table?: { number?: number; name?: string };
  standing?: { kind: string; why?: string; message: string };
  flows: { line: number; text: string }[];
}

interface CheckRun {
  status: number;
  release?: string;
  counts: { error: number; warning: number; info: number };
  findings: JsonFinding[];
}

/** `check --json` of the node's flows and groups as br0 dumps them, with the extra arguments. */
async function checkNode(flows: string, ...args: string[]): Promise<CheckRun> {
  const dumped = await withSdnNode(flows, async (sw) => ({
    flows: await sw.dumpFlows({ of: 13 }),
    groups: await sw.dumpGroups({ of: 13 }),
  }));
  // The dump is the switch's: every flow with its counters.
  assert.match(dumped.flows, /^ cookie=0x[0-9a-f]+, duration=[\d.]+s, table=0, n_packets=0, n_bytes=0,/m);
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-check-sdn-'));
  try {
    writeFileSync(join(dir, 'flows.txt'), dumped.flows);
    writeFileSync(join(dir, 'groups.txt'), dumped.groups);
    const r = await runCli(['check', '--json', join(dir, 'flows.txt'), '--groups', join(dir, 'groups.txt'), ...args]);
    const report = JSON.parse(r.stdout) as {
      profile?: { release?: string };
      counts: CheckRun['counts'];
      findings: JsonFinding[];
    };
    return {
      status: r.status,
      ...(report.profile?.release ? { release: report.profile.release } : {}),
      counts: report.counts,
      findings: report.findings,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const NODES: readonly { name: string; version: string; flows: () => string }[] = [
  { name: 'rule version 7, multitenant plugin', version: '7', flows: () => openshiftV7Flows('multitenant') },
  { name: 'rule version 7, networkpolicy plugin', version: '7', flows: () => openshiftV7Flows('networkpolicy') },
  {
    name: 'rule version 12, expected flows',
    version: '12',
    flows: () => readFileSync(join(corpusDir, 'openshift-sdn-expectedFlows-v12.txt'), 'utf8'),
  },
  { name: 'rule version 13, multitenant plugin', version: '13', flows: () => openshiftV13Flows('multitenant') },
  { name: 'rule version 13, networkpolicy plugin', version: '13', flows: () => openshiftV13Flows('networkpolicy') },
];

for (const node of NODES) {
  test(
    `check: OpenShift SDN ${node.name}, as br0 holds it, passes with no error or warning`,
    skipUnlessOvs,
    async () => {
      const r = await checkNode(node.flows());
      assert.equal(r.release, node.version);
      assert.deepEqual(
        r.findings.filter((f) => f.severity !== 'info').map((f) => f.message),
        [],
      );
      assert.equal(r.status, 0);
    },
  );
}

/** Each known finding with --all, as `table: standing, the hidden flow`. */
function known(r: CheckRun): string[] {
  return r.findings
    .filter((f) => f.known)
    .map((f) => `${f.table?.number}: ${f.standing?.kind}, ${f.flows[0]!.text.replace(/^.*priority=/, 'priority=')}`);
}

test(
  'check: what openshift-sdn installs on purpose in tables 27, 60 and 80 is known, silent unless --all',
  skipUnlessOvs,
  async () => {
    // The networkpolicy plugin: a policy that allows every peer beside the isolation drop of the Pod it selects, both ways.
    const policy = await checkNode(openshiftV13Flows('networkpolicy'), '--all');
    assert.deepEqual(known(policy), [
      '27: known, priority=100,ip,reg0=0x2a,nw_src=10.128.0.2 actions=drop',
      '80: known, priority=100,ip,reg1=0x2a,nw_dst=10.128.0.2 actions=drop',
    ]);
    assert.ok(
      policy.findings
        .filter((f) => f.known)
        .every((f) =>
          /a NetworkPolicy that allows every peer is installed beside the isolation drop/.test(f.standing!.message),
        ),
    );
    // The multitenant plugin's catch-all in table 27 over the setup's drop; table 60's output to tun0 over its drop (version 7, conntrack).
    const tenant = await checkNode(openshiftV13Flows('multitenant'), '--all');
    assert.deepEqual(known(tenant), ['27: redundant-miss, priority=0 actions=drop']);
    const services = await checkNode(openshiftV7Flows('networkpolicy'), '--all');
    assert.deepEqual(known(services), ['60: redundant-miss, priority=0 actions=drop']);
    for (const r of [policy, tenant, services])
      assert.deepEqual([r.status, r.counts.error, r.counts.warning], [0, 0, 0]);
  },
);

test('check: flows hidden in tables 27 and 80 that are no isolation drop are errors', skipUnlessOvs, async () => {
  // Flows that send elsewhere, under the policy that allows every peer: nothing the design explains.
  const text =
    openshiftV13Flows('networkpolicy') +
    'table=80, priority=120, reg1=42, tcp, tp_dst=8080, actions=output:4\ntable=27, priority=120, reg0=42, udp, actions=output:2\n';
  const r = await checkNode(text);
  assert.equal(r.status, 1);
  assert.deepEqual(
    r.findings
      .filter((f) => f.severity === 'error')
      .map((f) => [
        f.kind,
        f.table?.number,
        f.flows.map((x) => x.text.replace(/^.*priority=/, 'priority=').replace(/ actions=.*/, '')),
      ]),
    [
      ['shadowed', 27, ['priority=120,udp,reg0=0x2a', 'priority=150,reg0=0x2a']],
      ['shadowed', 80, ['priority=120,tcp,reg1=0x2a,tp_dst=8080', 'priority=150,reg1=0x2a']],
    ],
  );
});
