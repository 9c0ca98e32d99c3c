/**
 * Conjunctions named by their NetworkPolicy rules: a support bundle built from the generated
 * Antrea 2.x pipeline and the policies that generated it, in the YAML the agent writes. Every
 * conjunction is matched to the rule it came from; a rule whose flows are gone, and a conjunction
 * whose policy is gone, are check findings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { antrea2Groups, antrea2NamedFlows, PODS } from './support/antrea2-pipeline.ts';
import { ANTREA2_POLICIES, ANTREA2_RULE_CONJUNCTIONS, antrea2PolicyFiles, antrea2PortsDesc } from './support/antrea2-policies.ts';
import { agentInfo, agentText, tarGz } from './support/bundle.ts';
import { runCli } from './support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'flowscope-policies-'));
let bundles = 0;

async function bundle(flows: string, policies = ANTREA2_POLICIES): Promise<string> {
  const files = antrea2PolicyFiles(policies);
  const path = join(dir, `agent_node-${bundles++}.tar.gz`);
  writeFileSync(
    path,
    await tarGz([
      { name: 'flows', data: agentText(flows) },
      { name: 'groups', data: agentText(antrea2Groups()) },
      { name: 'ovsports', data: antrea2PortsDesc() },
      { name: 'agentinfo', data: agentInfo('node-a', {}) },
      { name: 'networkpolicies', data: files.networkpolicies },
      { name: 'addressgroups', data: files.addressgroups },
      { name: 'appliedtogroups', data: files.appliedtogroups },
    ]),
  );
  return path;
}

interface ConjJson {
  conjunctions: { id: number; policy?: { type: string; name: string; namespace?: string; direction: string; rule: number; text: string; confidence: string } }[];
}

/** The rule each conjunction came from, as the fixture writes them: policy name, direction and index. */
function expectedRules(): Map<number, string> {
  const out = new Map<number, string>();
  let i = 0;
  for (const p of ANTREA2_POLICIES) {
    const seen = { In: 0, Out: 0 };
    for (const r of p.rules) out.set(ANTREA2_RULE_CONJUNCTIONS[i++]!, `${p.namespace ? `${p.namespace}/` : ''}${p.name} ${r.direction} ${++seen[r.direction]}`);
  }
  return out;
}

const withoutConjunction = (flows: string, id: number): string =>
  flows
    .split('\n')
    .filter((l) => !new RegExp(`conjunction\\(${id},|conj_id=${id}[ ,]`).test(l))
    .join('\n');

test('every conjunction of the generated bundle is named by the rule that generated it, every dimension matching', async () => {
  const run = await runCli(['conj', '--json', await bundle(antrea2NamedFlows())]);
  assert.equal(run.status, 0, run.stderr);
  const j = JSON.parse(run.stdout) as ConjJson;
  const expected = expectedRules();
  assert.equal(j.conjunctions.length, expected.size);
  for (const c of j.conjunctions) {
    assert.ok(c.policy, `conjunction ${c.id} has no rule`);
    assert.equal(`${c.policy.namespace ? `${c.policy.namespace}/` : ''}${c.policy.name} ${c.policy.direction} ${c.policy.rule}`, expected.get(c.id), `conjunction ${c.id}`);
    assert.equal(c.policy.confidence, 'exact', `conjunction ${c.id}`);
  }
  const text = await runCli(['conj', await bundle(antrea2NamedFlows()), '3', '6']);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /conjunction 3 .*\n {2}rule: ingress rule 1 of NetworkPolicy prod\/web-ingress \(every dimension matches\)\n {4}peer addresses the same \(10\.10\.0\.26\)\n {4}applied-to Pods the same \(4\)\n {4}services the same \(tcp\/80\)/);
  assert.match(text.stdout, /conjunction 6 .*\n {2}rule: ingress rule 1 \("allow-client-http"\) of Antrea ClusterNetworkPolicy app-web/);
});

test('trace names the rule of each conjunction the packet takes', async () => {
  const [client, web] = PODS as [(typeof PODS)[0], (typeof PODS)[0]];
  const packet = `in_port=${client.port},tcp,dl_src=${client.mac},dl_dst=${web.mac},nw_src=${client.ip},nw_dst=${web.ip},nw_ttl=64,tp_dst=80`;
  const run = await runCli(['trace', await bundle(antrea2NamedFlows()), packet]);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /-> conjunction 6 = ingress rule 1 \("allow-client-http"\) of Antrea ClusterNetworkPolicy app-web\n/);
});

test('check: a rule whose flows are gone is not enforced; a conjunction whose policy is gone is explained by no rule', async () => {
  const removed = await runCli(['check', '--json', '--kind', 'policy-unimplemented,policy-unexplained', await bundle(withoutConjunction(antrea2NamedFlows(), 6))]);
  assert.equal(removed.status, 0, removed.stderr);
  const r = JSON.parse(removed.stdout) as { findings: { kind: string; message: string }[] };
  assert.deepEqual(r.findings.map((f) => f.kind), ['policy-unimplemented']);
  assert.match(r.findings[0]!.message, /^ingress rule 1 \("allow-client-http"\) of Antrea ClusterNetworkPolicy app-web applies to Pods on this node, but no conjunction/);

  const policies = ANTREA2_POLICIES.filter((p) => p.name !== 'web-egress');
  const orphan = await runCli(['check', '--json', '--kind', 'policy-unimplemented,policy-unexplained', await bundle(antrea2NamedFlows(), policies)]);
  assert.equal(orphan.status, 0, orphan.stderr);
  const o = JSON.parse(orphan.stdout) as { findings: { kind: string; message: string }[] };
  assert.deepEqual(o.findings.map((f) => [f.kind, /^conjunction (\d+):/.exec(f.message)?.[1]]), [['policy-unexplained', '2']]);

  const whole = await runCli(['check', '--kind', 'policy-unimplemented,policy-unexplained', await bundle(antrea2NamedFlows())]);
  assert.equal(whole.status, 0, whole.stderr);
  assert.match(whole.stdout, /0 errors, 0 warnings, 0 notes/);
});
