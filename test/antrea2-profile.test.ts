/**
 * Antrea 2.x dumps as users bring them: named tables numbered as the agent numbers them, tables
 * of features that are off never "missing", the release narrowed by the flows that changed
 * between releases, and sentences that say what each flow does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ALL_FEATURES,
  ANTREA2_TABLES,
  type Antrea2Table,
  antrea2Flows,
  antrea2Groups,
  antrea2NamedFlows,
  antrea2Tables,
} from './support/antrea2-pipeline.ts';
import { agentText, tarGz } from './support/bundle.ts';
import { runCli } from './support/cli.ts';
import { repoRoot, sharedDir } from './support/paths.ts';

const corpus = (name: string): string => join(sharedDir, 'corpus', name);

interface TablesJson {
  profile: { id: string; release: string; releases?: { since?: string; until?: string } };
  tables: { number: number | null; name: string | null }[];
  missing: { number: number | null; name: string }[];
}

async function tablesOf(args: readonly string[], stdin?: string): Promise<TablesJson> {
  const r = await runCli(['tables', '--json', ...args], stdin === undefined ? {} : { stdin });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as TablesJson;
}

test('a --names dump of the flexible pipeline gets the numbers the agent gave its tables', async () => {
  const j = await tablesOf(['-'], antrea2NamedFlows());
  const numbers = new Map(j.tables.map((t) => [t.name, t.number]));
  for (const [i, name] of ANTREA2_TABLES.entries()) assert.equal(numbers.get(name), i, name);
  assert.deepEqual(j.missing, []);
  // The pipeline document's listing assumes proxyAll and TrafficControl: EndpointDNAT is 12 there, Output 30.
  const doc = await tablesOf([corpus('antrea-ovs-pipeline-doc-HEAD.flows.txt')]);
  const docNumbers = new Map(doc.tables.map((t) => [t.name, t.number]));
  assert.deepEqual(
    [
      docNumbers.get('PipelineRootClassifier'),
      docNumbers.get('NodePortMark'),
      docNumbers.get('EndpointDNAT'),
      docNumbers.get('TrafficControl'),
      docNumbers.get('Output'),
    ],
    [0, 9, 12, 23, 30],
  );
});

test('a numbered dump of the flexible pipeline with TrafficControl on names its tables as the agent did', async () => {
  const j = await tablesOf(['-'], antrea2Flows());
  assert.deepEqual(
    j.tables.map((t) => [t.number, t.name]),
    ANTREA2_TABLES.map((name, i) => [i, name]),
  );
});

test("an excerpt of a --names dump is numbered by its numbered references (the rule's own table in reg2, the groups' resubmit(,N)), not by its own tables alone", async () => {
  const wanted = ['ServiceLB', 'EndpointDNAT', 'AntreaPolicyEgressRule', 'TrafficControl', 'Output'];
  const excerpt = antrea2NamedFlows()
    .split('\n')
    .filter((l) => wanted.some((t) => l.includes(`table=${t},`)))
    .join('\n');
  // The groups as a bundle stores them: dumped by number.
  const j = await tablesOf(['-'], `${excerpt}\n${antrea2Groups()}`);
  const numbers = new Map(j.tables.map((t) => [t.name, t.number]));
  assert.deepEqual(
    wanted.map((t) => [t, numbers.get(t)]),
    wanted.map((t) => [t, ANTREA2_TABLES.indexOf(t as Antrea2Table)]),
  );
  // Without any numbered reference the excerpt's tables, and those its flows jump to (EgressRule,
  // EgressMetric, IngressSecurityClassifier), are numbered densely, as a whole dump's are.
  const alone = await tablesOf(
    ['-'],
    excerpt.replace(/,set_field:0x[0-9a-f]+\/0xff->reg2/g, '').replace(/,group:\d+/g, ''),
  );
  assert.deepEqual(
    wanted.map((t) => alone.tables.find((x) => x.name === t)?.number),
    [0, 1, 2, 5, 8],
  );
});

test('tables of features that are off (IPv4, Multicast, DSR, TrafficControl, ExternalNode, …) are never missing', async () => {
  for (const name of [
    'antrea-pipeline_test-ipv6-encap.txt',
    'antrea-pipeline_test-ipv4-externalnode.txt',
    'antrea-pipeline_test-ipv4-encap.txt',
  ]) {
    const j = await tablesOf([corpus(name)]);
    assert.deepEqual(j.missing, [], name);
  }
  // The generated pipeline with dual-stack, Multicast and DSR: every table numbered as the agent numbers it, none missing.
  const all = await tablesOf(
    ['-'],
    `${antrea2NamedFlows(antrea2Flows(ALL_FEATURES), ALL_FEATURES)}\n${antrea2Groups(ALL_FEATURES)}`,
  );
  assert.deepEqual(all.missing, []);
  const numbers = new Map(all.tables.map((t) => [t.name, t.number]));
  for (const [i, name] of antrea2Tables(ALL_FEATURES).entries()) assert.equal(numbers.get(name), i, name);
  // A table every configuration has still is.
  const without = antrea2NamedFlows()
    .split('\n')
    .filter((l) => !l.includes('table=L3Forwarding,'))
    .join('\n');
  const j = await tablesOf(['-'], without);
  assert.deepEqual(
    j.missing.map((m) => m.name),
    ['L3Forwarding'],
  );
});

/** The release range the profile line of `show` gives for the dump. */
async function releaseLine(dump: string): Promise<string> {
  const r = await runCli(['show', '-'], { stdin: dump });
  assert.equal(r.status, 0, r.stderr);
  return /^profile antrea \(([^)]*)\)/.exec(r.stdout)?.[1] ?? r.stdout.split('\n')[0]!;
}

test('the release is narrowed by the flows that changed between releases, not taken as the newest that fits', async () => {
  const v25 = antrea2NamedFlows();
  assert.match(v25, /ct_state=\+new\+trk,ct_mark=0\/0x20,ip/);
  assert.match(await releaseLine(v25), /^releases 2\.5 and later, read as /);
  // Up to 2.4 ConntrackCommit skipped Service connections (ct_mark bit 4) and SNATed ones (-snat).
  const v24 = v25.replace('ct_state=+new+trk,ct_mark=0/0x20,ip', 'ct_state=+new-snat+trk,ct_mark=0/0x10,ip');
  assert.equal(await releaseLine(v24), 'releases 2.0–2.4, read as 2.4');
  // Egress marks on every tracked packet, not only the first, are 1.15's and later's; without
  // FromLocal (reg4 bit 28, new in 2.0) nothing rules out 1.15.
  const v115 = v24.replace(/,set_field:0x10000000\/0x10000000->reg4/g, '');
  assert.equal(await releaseLine(v115), 'releases 1.15–2.4, read as 2.4');
  // Up to 1.14 the Egress SNAT marks went on a connection's first packet only (+new); reg2's
  // PacketInTable (1.13) rules out the releases before.
  const v114 = v115.replace(
    /priority=200,ct_state=\+trk,ip,(tun_dst|in_port)=/g,
    'priority=200,ct_state=+new+trk,ip,$1=',
  );
  assert.notEqual(v114, v115);
  assert.equal(await releaseLine(v114), 'releases 1.13–1.14, read as 1.14');
});

test('a multicast group a flow hands to a group is no Service address', async () => {
  const r = await runCli(['show', '-', '-T', 'MulticastRouting'], {
    stdin: antrea2NamedFlows(antrea2Flows(ALL_FEATURES), ALL_FEATURES),
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /IPv4, to 239\.1\.1\.1 \(in IPv4 multicast 224\.0\.0\.0\/4\): hand it to group 30\n/);
  assert.doesNotMatch(r.stdout, /239\.1\.1\.1 \(Service address\)/);
});

test("check's heading and bundle's PROFILE column give the release range the evidence leaves open, as show does", async () => {
  const v24 = antrea2NamedFlows().replace(
    'ct_state=+new+trk,ct_mark=0/0x20,ip',
    'ct_state=+new-snat+trk,ct_mark=0/0x10,ip',
  );
  const c = await runCli(['check', '-'], { stdin: v24 });
  assert.match(
    c.stdout,
    /^profile antrea \(releases 2\.0–2\.4, read as 2\.4\), detected from 30 tables: [^\n]*\n161 flows in 30 tables: /,
  );
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-release-'));
  try {
    writeFileSync(join(dir, 'agent_k8s-node-1.tar.gz'), await tarGz([{ name: 'flows', data: agentText(v24) }]));
    const b = await runCli(['bundle', dir]);
    assert.equal(b.status, 0, b.stderr);
    assert.match(b.stdout, /\nk8s-node-1 +161 +0 +0 +antrea 2\.0–2\.4 /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Egress SNAT marks of 1.15 and later (ct_state=+trk) say which traffic gets which mark', async () => {
  const r = await runCli(['show', '-', '-T', 'EgressMark'], { stdin: antrea2NamedFlows() });
  assert.equal(r.status, 0, r.stderr);
  assert.match(
    r.stdout,
    /\n {2}\[200\] Tracked traffic from Pod port 4 gets Egress SNAT mark 0x1\/0xff, so the host SNATs it to the Egress IP; it continues in L2ForwardingCalc\.\n/,
  );
  assert.match(
    r.stdout,
    /\n {2}\[200\] Tracked traffic tunnelled from other Nodes to 192\.168\.77\.112, an Egress IP this Node holds, gets SNAT mark 0x1\/0xff, so the host SNATs it to that IP; it continues in L2ForwardingCalc\.\n/,
  );
  // Those flows are no exemption from Egress, which is what the last pattern of the table says.
  assert.equal(r.stdout.match(/is not subject to Egress/g)?.length, 3);
});

test("on a Node upgraded from 1.x (tunnel port 1, gateway port 2) the gateway, its address and MAC are known from the Classifier's source marks", async () => {
  const upgraded = antrea2NamedFlows()
    .replace(/in_port=32769\b/g, 'in_port=2')
    .replace(/in_port=32768\b/g, 'in_port=1')
    .replace(/set_field:0x8001->reg1/g, 'set_field:0x2->reg1')
    .replace(/set_field:0x8000->reg1/g, 'set_field:0x1->reg1');
  const r = await runCli(['show', '-'], { stdin: upgraded });
  assert.equal(r.status, 0, r.stderr);
  assert.match(
    r.stdout,
    /IPv4, arriving on gateway port 2, from 10\.10\.0\.1 \(gateway port 2\): set PktSource = FromGateway/,
  );
  assert.match(
    r.stdout,
    /IPv4, to 10\.10\.0\.1 \(gateway port 2\): set the destination MAC to ba:5e:d1:55:aa:c0 \(gateway port 2\)/,
  );
  assert.match(r.stdout, /arriving on tunnel port 1: set PktSource = FromTunnel/);
  assert.doesNotMatch(r.stdout, /usually the/);
});

test('a dump of Antrea before 0.10 is read as older than the first release antrea-v1 describes, without the tables 0.10 added', async () => {
  // The example's pipeline without the tables 0.10 added (Antrea-native policy and metric tables) nor 0.13's table 71.
  const old = readFileSync(join(repoRoot, 'examples', 'antrea', 'dump-flows.of13.txt'), 'utf8')
    .split('\n')
    .filter((l) => !/table=(?:45|61|71|85|101),/.test(l))
    .join('\n')
    .replace(
      /(goto_table:|resubmit\(,)(45|61|71|85|101)\b/g,
      (_m, how: string, n: string) => `${how}${{ 45: 50, 61: 70, 71: 80, 85: 90, 101: 105 }[n]}`,
    );
  const r = await runCli(['tables', '-'], { stdin: old });
  assert.equal(r.status, 0, r.stderr);
  assert.match(
    r.stdout,
    /^profile antrea-v1 \(older than 0\.10, the first release antrea-v1 describes\), detected from 14 tables: Antrea with kube-proxy \(fixed table numbers 0–110\)\n/,
  );
  assert.doesNotMatch(r.stdout, /expects that the dump lacks/);
  const json = JSON.parse((await runCli(['show', '--json', '-'], { stdin: old })).stdout) as {
    profile: { release: string; olderThan: string };
  };
  assert.deepEqual([json.profile.release, json.profile.olderThan], ['0.9', '0.10']);
});

test('Antrea-native rules that reject, pass to the next tier or are logged say so, naming the table or group they continue in', async () => {
  const r = await runCli(['show', '-', '-T', 'AntreaPolicyEgressRule', '-T', 'AntreaPolicyIngressRule'], {
    stdin: antrea2NamedFlows(),
  });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /\? no pattern/);
  assert.match(
    r.stdout,
    /\n {2}\[14899\] Rule 8 rejects the packet: group 20 has the metric table count it and sends it to the Antrea agent, which answers the sender with a TCP reset or an ICMP unreachable\.\n/,
  );
  assert.match(
    r.stdout,
    /\n {2}\[44960\] Rule 32 passes the packet to the next tier: the Antrea-native rules below it are skipped, and the K8s NetworkPolicy rules of EgressRule decide\.\n/,
  );
  assert.match(
    r.stdout,
    /\n {2}\[24980\] Rule 40 drops the packet and logs it: group 21 has the metric table count and drop it, and sends a copy to the Antrea agent for the audit log\.\n/,
  );
  // A logged Pass goes through its group.
  const logged = antrea2NamedFlows().replace(
    /conj_id=32 actions=set_field:0x20->reg5,set_field:0x1800\/0x1800->reg0,goto_table:EgressRule/,
    'conj_id=32 actions=set_field:0x20->reg5,set_field:0x1800/0x1800->reg0,set_field:0x2000000/0xfe000000->reg0,set_field:0xc/0xff->reg2,group:22',
  );
  const p = await runCli(['show', '-', '-T', 'AntreaPolicyEgressRule'], { stdin: logged });
  assert.match(
    p.stdout,
    /\n {2}\[44960\] Rule 32 passes the packet to the next tier, the K8s NetworkPolicy rules, and logs it: group 22 continues there and sends a copy to the Antrea agent for the audit log\.\n/,
  );
});

test("every flow of the generated 2.x pipeline and of Antrea's pipeline tests fits a pattern", async () => {
  for (const [label, stdin] of [
    ['generated', antrea2NamedFlows()],
    [
      'generated with dual-stack, Multicast and DSR',
      `${antrea2NamedFlows(antrea2Flows(ALL_FEATURES), ALL_FEATURES)}\n${antrea2Groups(ALL_FEATURES)}`,
    ],
    ...[
      'ipv4-encap',
      'ipv4-encap-egresstrafficshaping',
      'ipv4-externalnode',
      'ipv4-noencap-bridging',
      'ipv6-encap',
    ].map((n) => [n, readFileSync(corpus(`antrea-pipeline_test-${n}.txt`), 'utf8')]),
  ] as const) {
    const r = await runCli(['show', '-'], { stdin });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(
      r.stdout.split('\n').filter((l) => l.includes('? no pattern')),
      [],
      label,
    );
  }
});
