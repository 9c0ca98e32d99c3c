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
import { antrea2Flows, antrea2Groups, antrea2NamedFlows, PODS, V6 } from './support/antrea2-pipeline.ts';
import {
  ANTREA2_POLICIES,
  ANTREA2_RULE_CONJUNCTIONS,
  antrea2PolicyFiles,
  antrea2PortsDesc,
  type MemberShape,
} from './support/antrea2-policies.ts';
import { agentInfo, agentText, tarGz } from './support/bundle.ts';
import { runCli } from './support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'flowscope-policies-'));
let bundles = 0;

async function bundle(flows: string, policies = ANTREA2_POLICIES, shape: MemberShape = {}): Promise<string> {
  const files = antrea2PolicyFiles(policies, shape);
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
  conjunctions: {
    id: number;
    policy?: {
      type: string;
      name: string;
      namespace?: string;
      direction: string;
      rule: number;
      text: string;
      confidence: string;
    };
  }[];
}

/** The rule each conjunction came from, as the fixture writes them: policy name, direction and index. */
function expectedRules(): Map<number, string> {
  const out = new Map<number, string>();
  let i = 0;
  for (const p of ANTREA2_POLICIES) {
    const seen = { In: 0, Out: 0 };
    for (const r of p.rules)
      out.set(
        ANTREA2_RULE_CONJUNCTIONS[i++]!,
        `${p.namespace ? `${p.namespace}/` : ''}${p.name} ${r.direction} ${++seen[r.direction]}`,
      );
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
    assert.equal(
      `${c.policy.namespace ? `${c.policy.namespace}/` : ''}${c.policy.name} ${c.policy.direction} ${c.policy.rule}`,
      expected.get(c.id),
      `conjunction ${c.id}`,
    );
    assert.equal(c.policy.confidence, 'exact', `conjunction ${c.id}`);
  }
  const text = await runCli(['conj', await bundle(antrea2NamedFlows()), '3', '6']);
  assert.equal(text.status, 0, text.stderr);
  assert.match(
    text.stdout,
    /conjunction 3 .*\n {2}rule: ingress rule 1 of NetworkPolicy prod\/web-ingress \(every dimension matches\)\n {4}peer addresses the same \(10\.10\.0\.26\)\n {4}applied-to Pods the same \(4\)\n {4}services the same \(tcp\/80\)/,
  );
  assert.match(
    text.stdout,
    /conjunction 6 .*\n {2}rule: ingress rule 1 \("allow-client-http"\) of Antrea ClusterNetworkPolicy app-web/,
  );
});

test('trace names the rule of each conjunction the packet takes', async () => {
  const [client, web] = PODS as [(typeof PODS)[0], (typeof PODS)[0]];
  const packet = `in_port=${client.port},tcp,dl_src=${client.mac},dl_dst=${web.mac},nw_src=${client.ip},nw_dst=${web.ip},nw_ttl=64,tp_dst=80`;
  const run = await runCli(['trace', await bundle(antrea2NamedFlows()), packet]);
  assert.equal(run.status, 0, run.stderr);
  assert.match(
    run.stdout,
    /-> conjunction 6 = ingress rule 1 \("allow-client-http"\) of Antrea ClusterNetworkPolicy app-web\n/,
  );
});

test('check: a rule whose flows are gone is not enforced; a conjunction whose policy is gone is explained by no rule', async () => {
  const removed = await runCli([
    'check',
    '--json',
    '--kind',
    'policy-unimplemented,policy-unexplained',
    await bundle(withoutConjunction(antrea2NamedFlows(), 6)),
  ]);
  assert.equal(removed.status, 0, removed.stderr);
  const r = JSON.parse(removed.stdout) as { findings: { kind: string; message: string }[] };
  assert.deepEqual(
    r.findings.map((f) => f.kind),
    ['policy-unimplemented'],
  );
  assert.match(
    r.findings[0]!.message,
    /^ingress rule 1 \("allow-client-http"\) of Antrea ClusterNetworkPolicy app-web applies to Pods on this node, but no conjunction/,
  );

  const policies = ANTREA2_POLICIES.filter((p) => p.name !== 'web-egress');
  const orphan = await runCli([
    'check',
    '--json',
    '--kind',
    'policy-unimplemented,policy-unexplained',
    await bundle(antrea2NamedFlows(), policies),
  ]);
  assert.equal(orphan.status, 0, orphan.stderr);
  const o = JSON.parse(orphan.stdout) as { findings: { kind: string; message: string }[] };
  assert.deepEqual(
    o.findings.map((f) => [f.kind, /^conjunction (\d+):/.exec(f.message)?.[1]]),
    [['policy-unexplained', '2']],
  );

  const whole = await runCli([
    'check',
    '--kind',
    'policy-unimplemented,policy-unexplained',
    await bundle(antrea2NamedFlows()),
  ]);
  assert.equal(whole.status, 0, whole.stderr);
  assert.match(whole.stdout, /0 errors, 0 warnings, 0 notes/);
});

interface EvidenceJson {
  dimension: string;
  agreement: string;
  rule: string[];
  flows: string[];
  both: string[];
  ruleOnly: string[];
  flowsOnly: string[];
}
interface MatchJson {
  conjunctions: {
    id: number;
    policy?: { text: string; confidence: string; action?: string; evidence: EvidenceJson[] };
  }[];
}

async function conjJson(flows: string, policies = ANTREA2_POLICIES, shape: MemberShape = {}): Promise<MatchJson> {
  const run = await runCli(['conj', '--json', await bundle(flows, policies, shape)]);
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as MatchJson;
}

const evidenceOf = (j: MatchJson, id: number, dimension: string): EvidenceJson | undefined =>
  j.conjunctions.find((c) => c.id === id)?.policy?.evidence.find((e) => e.dimension === dimension);

test('the action of each Antrea-native rule is compared with what its conjunction does; a changed action is evidence against the match', async () => {
  const j = await conjJson(antrea2NamedFlows());
  // The disposition recorded (Pass, Reject, a logged Drop), a deny mark (Drop), else a commit (Allow).
  for (const [id, action] of [
    [31, 'Drop'],
    [32, 'Pass'],
    [6, 'Allow'],
    [4, 'Drop'],
    [7, 'Allow'],
    [8, 'Reject'],
    [40, 'Drop'],
    [33, 'Drop'],
  ] as const) {
    const e = evidenceOf(j, id, 'action');
    assert.deepEqual(e && [e.agreement, e.rule, e.flows], ['same', [action], [action]], `conjunction ${id}`);
  }
  // K8s NetworkPolicies allow, and have no action to compare.
  assert.equal(evidenceOf(j, 3, 'action'), undefined);
  const changed = ANTREA2_POLICIES.map((p) =>
    p.name !== 'app-web'
      ? p
      : { ...p, rules: p.rules.map((r) => (r.name === 'deny-rest' ? { ...r, action: 'Reject' } : r)) },
  );
  const c = await conjJson(antrea2NamedFlows(), changed);
  const four = c.conjunctions.find((x) => x.id === 4)?.policy;
  assert.equal(four?.confidence, 'partial');
  assert.match(four?.text ?? '', /^ingress rule 2 \("deny-rest"\) of Antrea ClusterNetworkPolicy app-web$/);
  const text = await runCli(['conj', await bundle(antrea2NamedFlows(), changed), '4']);
  assert.match(
    text.stdout,
    /\n {2}rule: ingress rule 2 \("deny-rest"\) of Antrea ClusterNetworkPolicy app-web \(partial match: 1 of 2 dimensions the same\)\n {4}applied-to Pods the same \(4\)\n {4}action differs: the rule Reject, the flows Drop\n/,
  );
});

test('partial evidence says which values both hold and which only the rule or only the flows have', async () => {
  const extra = antrea2NamedFlows().replace(
    /(\n[^\n]*table=AntreaPolicyIngressRule,priority=14900,)ip,nw_src=10\.10\.0\.26 actions=conjunction\(6,1\/3\)/,
    '$&$1ip,nw_src=10.10.0.99 actions=conjunction(6,1/3)',
  );
  const j = await conjJson(extra);
  const e = evidenceOf(j, 6, 'addresses');
  assert.deepEqual(e && [e.agreement, e.both, e.ruleOnly, e.flowsOnly], [
    'overlap',
    ['10.10.0.26'],
    [],
    ['10.10.0.99'],
  ]);
  const text = await runCli(['conj', await bundle(extra), '6']);
  assert.match(
    text.stdout,
    /\(partial match: 3 of 4 dimensions the same\)\n {4}peer addresses overlap: both 10\.10\.0\.26; only the flows 10\.10\.0\.99\n/,
  );
});

test("an egress rule whose Pods the flows match by input port is matched by the Pods' ports", async () => {
  const byPort = antrea2NamedFlows().replace(
    `ip,nw_src=${PODS[0]!.ip} actions=conjunction(8,1/2)`,
    `in_port=${PODS[0]!.port} actions=conjunction(8,1/2)`,
  );
  assert.notEqual(byPort, antrea2NamedFlows());
  const j = await conjJson(byPort);
  const eight = j.conjunctions.find((c) => c.id === 8)?.policy;
  assert.equal(eight?.text, 'egress rule 2 ("reject-ssh") of Antrea ClusterNetworkPolicy app-web');
  assert.equal(eight?.confidence, 'exact');
  assert.deepEqual(evidenceOf(j, 8, 'pods')?.flows, [String(PODS[0]!.port)]);
});

/** Each clause flow that matches a Pod's IPv4 address, matching its IPv6 address too (`keep`), or instead. */
function withIpv6Clauses(flows: string, keep: boolean): string {
  const ip = new Map(PODS.map((p) => [p.ip, V6[p.name]!]));
  return flows
    .split('\n')
    .flatMap((line) => {
      const m = /,ip,nw_(src|dst)=([\d.]+) actions=conjunction\(/.exec(line);
      const v6 = m && ip.get(m[2]!);
      if (!m || !v6) return [line];
      const six = line.replace(m[0], `,ipv6,ipv6_${m[1]}=${v6} actions=conjunction(`);
      return keep ? [line, six] : [six];
    })
    .join('\n');
}

test("IPv6: dual-stack rules are matched by both families' clauses, and IPv6-only Pods by their IPv6 addresses and ports", async () => {
  const expected = expectedRules();
  for (const [keep, family] of [
    [true, 'dual'],
    [false, 'ipv6'],
  ] as const) {
    const flows = withIpv6Clauses(antrea2NamedFlows(antrea2Flows({ ipv6: true }), { ipv6: true }), keep);
    // Unnamed members: a Pod's port is found by its address, not by its name.
    const j = await conjJson(flows, ANTREA2_POLICIES, { family, named: false });
    assert.equal(j.conjunctions.length, expected.size);
    for (const c of j.conjunctions) {
      assert.equal(
        c.policy?.confidence,
        'exact',
        `${family}: conjunction ${c.id}: ${JSON.stringify(c.policy?.evidence)}`,
      );
    }
    const web = evidenceOf(j, 7, 'pods');
    assert.deepEqual(web?.flows, keep ? [PODS[1]!.ip, V6[PODS[1]!.name]!].sort() : [V6[PODS[1]!.name]!]);
    assert.deepEqual(evidenceOf(j, 6, 'pods')?.flows, [String(PODS[1]!.port)]);
  }
});

test('show names the rule behind each flow of a conjunction, and check the rule of a conjunction it finds a problem in', async () => {
  const b = await bundle(antrea2NamedFlows());
  const show = await runCli(['show', '--conj-id', '6', b]);
  assert.equal(show.status, 0, show.stderr);
  const rule = 'conjunction 6 = ingress rule 1 \\("allow-client-http"\\) of Antrea ClusterNetworkPolicy app-web';
  // Each clause flow and the conj_id flow.
  assert.equal(show.stdout.match(new RegExp(`\\n {6,}${rule}\\n`, 'g'))?.length, 4, show.stdout);
  const json = JSON.parse((await runCli(['show', '--json', '--conj-id', '6', b])).stdout) as {
    flows: { policyRules?: string[] }[];
  };
  assert.equal(json.flows.length, 4);
  assert.ok(
    json.flows.every((f) => f.policyRules?.length === 1 && new RegExp(`^${rule}$`).test(f.policyRules[0]!)),
    JSON.stringify(json.flows.map((f) => f.policyRules)),
  );
  // Without policy objects, nothing is said of rules.
  const plain = await runCli(['show', '--conj-id', '6', '-'], { stdin: antrea2NamedFlows() });
  assert.doesNotMatch(plain.stdout, /= ingress rule/);

  // The web Pod's clause gone: conjunction 6 never matches, and check says whose rule it was.
  const broken = antrea2NamedFlows().replace(/\n[^\n]*reg1=0x4 actions=conjunction\(6,2\/3\)/, '');
  const check = await runCli(['check', '--json', '--kind', 'conjunction', await bundle(broken)]);
  const findings = (
    JSON.parse(check.stdout) as { findings: { conjunction?: number; message: string; policyRule?: string }[] }
  ).findings.filter((f) => f.conjunction === 6);
  assert.ok(findings.length > 0, check.stdout);
  for (const f of findings) {
    assert.match(f.message, new RegExp(`^${rule}(?: \\(partial match\\))?: `));
    assert.match(f.policyRule ?? '', /^ingress rule 1 \("allow-client-http"\) of Antrea ClusterNetworkPolicy app-web/);
  }

  // Its conj_id flow moved to another table: the one defect check reports names the rule too.
  const split = antrea2NamedFlows().replace(
    'table=AntreaPolicyIngressRule,priority=14900,conj_id=6,',
    'table=IngressRule,priority=14900,conj_id=6,',
  );
  assert.notEqual(split, antrea2NamedFlows());
  const tables = await runCli(['check', '--json', '--kind', 'conjunction-table', await bundle(split)]);
  const table = (
    JSON.parse(tables.stdout) as { findings: { kind: string; message: string; policyRule?: string }[] }
  ).findings.filter((f) => f.kind === 'conjunction-table');
  assert.equal(table.length, 1, tables.stdout);
  assert.match(table[0]!.message, new RegExp(`^${rule}(?: \\(partial match\\))?: its conj_id flow is in`));
  assert.match(
    table[0]!.policyRule ?? '',
    /^ingress rule 1 \("allow-client-http"\) of Antrea ClusterNetworkPolicy app-web/,
  );
});

test("trace --compare names the rules of both bundles' conjunctions, each by its own policy objects", async () => {
  const [client, web] = PODS as [(typeof PODS)[0], (typeof PODS)[0]];
  const packet = `in_port=${client.port},tcp,dl_src=${client.mac},dl_dst=${web.mac},nw_src=${client.ip},nw_dst=${web.ip},nw_ttl=64,tp_dst=80`;
  // The right bundle's agent knows the rule by another name.
  const renamed = ANTREA2_POLICIES.map((p) => (p.name !== 'app-web' ? p : { ...p, name: 'app-web-v2' }));
  const run = await runCli([
    'trace',
    '--json',
    await bundle(antrea2NamedFlows()),
    '--compare',
    await bundle(antrea2NamedFlows(), renamed),
    packet,
  ]);
  assert.equal(run.status, 0, run.stderr);
  type Side = { passes: { steps: { conjunction?: number; policyRule?: string }[] }[] };
  const j = JSON.parse(run.stdout) as { left: Side; right: Side };
  const rules = (side: Side): string[] =>
    side.passes.flatMap((p) => p.steps.filter((s) => s.conjunction === 6).map((s) => s.policyRule ?? 'none'));
  assert.deepEqual(rules(j.left), ['ingress rule 1 ("allow-client-http") of Antrea ClusterNetworkPolicy app-web']);
  assert.deepEqual(rules(j.right), ['ingress rule 1 ("allow-client-http") of Antrea ClusterNetworkPolicy app-web-v2']);
});
