/**
 * `flowscope check` as a CI gate: quiet on healthy stock pipelines, loud on planted breakages,
 * with severities that follow evidence (counters), the profile's knowledge (dormant features,
 * by-design patterns) and whether the dump is whole; filters and a baseline for CI.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from './support/cli.ts';
import { generatedAntrea2Node } from './support/generated-node.ts';
import { corpusDir, repoRoot } from './support/paths.ts';

const ANTREA = join(repoRoot, 'examples', 'antrea', 'dump-flows.of13.txt');
const antreaText = readFileSync(ANTREA, 'utf8');

interface JsonFinding {
  kind: string;
  severity: string;
  message: string;
  known: boolean;
  key: string;
  problem?: string;
  standing?: { kind: string; features?: string[]; packets?: number; cause?: string; message: string };
  flows: { line: number; text: string }[];
}
interface JsonReport {
  counts: { error: number; warning: number; info: number };
  hidden: number;
  inBaseline: number;
  excerpt?: { message: string };
  summary: { kind: string; error: number; warning: number; info: number }[];
  findings: JsonFinding[];
}

async function checkJson(
  args: string[],
  stdin?: string,
): Promise<{ status: number; report: JsonReport; stderr: string }> {
  const r = await runCli(['check', '--json', ...args], stdin === undefined ? {} : { stdin });
  return { status: r.status, report: JSON.parse(r.stdout) as JsonReport, stderr: r.stderr };
}

function withDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-check-'));
  return body(dir).finally(() => rmSync(dir, { recursive: true, force: true }));
}

test('healthy pipelines of the corpus pass: Antrea unit-test pipelines, OpenShift SDN rule versions 3, 12 and 13', async () => {
  const files = [
    'antrea-pipeline_test-ipv4-encap.txt',
    'antrea-pipeline_test-ipv4-encap-egresstrafficshaping.txt',
    'antrea-pipeline_test-ipv4-noencap-bridging.txt',
    'antrea-pipeline_test-ipv6-encap.txt',
    'antrea-pipeline_test-ipv4-externalnode.txt',
    'openshift-sdn-3.x-multitenant-real-dump.txt',
    'openshift-sdn-expectedFlows-v12.txt',
    'openshift-sdn-expectedFlows-v13.txt',
  ];
  for (const file of files) {
    const { status, report } = await checkJson([join(corpusDir, file)]);
    assert.equal(status, 0, file);
    assert.equal(report.counts.error, 0, file);
  }
});

test('an excerpt is said once at the top, and what only follows from what it lacks becomes a note', async () => {
  // Antrea's unit-test pipelines hold only the default flows, all of one cookie.
  const { report } = await checkJson([join(corpusDir, 'antrea-pipeline_test-ipv4-encap.txt')]);
  assert.match(
    report.excerpt?.message ?? '',
    /^this dump is an excerpt, not a whole bridge: every flow carries cookie 0x1000000000000\./,
  );
  const unreachable = report.findings.filter((f) => f.kind === 'unreachable-table');
  assert.ok(unreachable.length > 10);
  assert.ok(unreachable.every((f) => f.severity === 'info' && f.standing?.kind === 'excerpt'));
  const text = await runCli(['check', join(corpusDir, 'antrea-pipeline_test-ipv4-encap.txt')]);
  assert.equal(
    text.stdout.split('\n')[2],
    'this dump is an excerpt, not a whole bridge: every flow carries cookie 0x1000000000000. Findings that may only follow from what it leaves out are notes.',
  );
  assert.equal(text.stdout.match(/this dump is an excerpt/g)?.length, 1, 'said once');
  // The whole example is no excerpt.
  assert.equal((await checkJson([ANTREA])).report.excerpt, undefined);
});

test('OpenShift SDN: the by-design shadowing is silent unless --all; a policy rule an earlier rule covers is a note', async () => {
  const v12 = join(corpusDir, 'openshift-sdn-expectedFlows-v12.txt');
  const quiet = await checkJson([v12]);
  assert.equal(quiet.status, 0);
  assert.deepEqual(quiet.report.counts, { error: 0, warning: 0, info: 2 });
  assert.equal(quiet.report.hidden, 4);
  assert.ok(
    quiet.report.findings.every(
      (f) =>
        f.kind === 'shadowed' &&
        /as configured: an EgressNetworkPolicy applies its first matching rule/.test(f.standing?.message ?? ''),
    ),
  );
  const all = await checkJson([v12, '--all']);
  const table60 = all.report.findings.filter((f) => f.known);
  assert.equal(table60.length, 4);
  assert.ok(table60.every((f) => f.flows[1]!.text.includes('table=60, priority=200, actions=output:2')));
  // The same flows at another priority than the plugin's are no design: an error.
  const moved = readFileSync(v12, 'utf8').replace(
    'table=60, priority=200, actions=output:2',
    'table=60, priority=150, actions=output:2',
  );
  const broken = await checkJson(['-'], moved);
  assert.equal(broken.status, 1);
  assert.equal(broken.report.counts.error, 3);
});

test('-o name lists the findings the text report shows: the by-design ones only with --all, and as --kind selects', async () => {
  const v12 = join(corpusDir, 'openshift-sdn-expectedFlows-v12.txt');
  const names = async (...args: string[]): Promise<string[]> =>
    (await runCli(['check', '-o', 'name', v12, ...args])).stdout.split('\n').filter((l) => l !== '');
  const shown = await names();
  const all = await names('--all');
  const json = await checkJson([v12]);
  assert.equal(shown.length, json.report.findings.length);
  assert.equal(all.length, shown.length + json.report.hidden);
  assert.ok(json.report.hidden > 0);
  // The hidden ones are table 60's shadowed flows under the plugin's output to the tunnel.
  assert.deepEqual(
    all.filter((n) => !shown.includes(n)).map((n) => n.replace(/\/.*/, '')),
    Array(json.report.hidden).fill('shadowed'),
  );
  assert.deepEqual(await names('--kind', 'unreachable-table'), []);
});

test('Antrea 2.x: flows for features not in use are dormant notes that name the feature', async () => {
  const { status, report } = await checkJson([
    join(corpusDir, 'antrea-ovs-pipeline-doc-HEAD.flows.txt'),
    '--kind',
    'unset-register',
  ]);
  assert.equal(status, 0);
  const features = report.findings.map((f) => [f.severity, f.standing?.kind, f.standing?.features]);
  assert.deepEqual(features, [
    ['info', 'dormant', ['a Service without Endpoints (its packets are rejected)']],
    ['info', 'dormant', ['the Node uplink attached to the bridge (connectUplinkToBridge, flexible IPAM)']],
    [
      'info',
      'dormant',
      ['packet-ins to the agent (NetworkPolicy logging or Reject rules)', 'a NetworkPolicy rule with logging enabled'],
    ],
    [
      'info',
      'dormant',
      ['packet-ins to the agent (NetworkPolicy logging or Reject rules)', 'a NetworkPolicy rule with action Reject'],
    ],
  ]);
});

test('counters are evidence: a flow that has matched packets is no flow that never matches', async () => {
  // Line 75 asks for output port 11, which no flow sets; the switch says it has matched.
  const counted = antreaText.replace(
    /(table=100, n_packets=)0(, n_bytes=)0(, priority=80,ip,reg1=0xb )/,
    '$112$21344$3',
  );
  assert.notEqual(counted, antreaText);
  const { report } = await checkJson(['-', '--kind', 'unset-register'], counted);
  const line75 = report.findings.find((f) => f.flows[0]!.line === 75)!;
  assert.equal(line75.severity, 'info');
  assert.deepEqual(
    [line75.standing?.kind, line75.standing?.packets, line75.standing?.cause],
    ['counted', 12, 'setter-removed'],
  );
  // The tables that send to a port are there, without a flow for port 11: the one that was went away since.
  assert.match(
    line75.standing!.message,
    /^yet it has matched 12 packets, so a setter is gone: the flows of [^:]*L2ForwardingCalcTable set these bits, and none does now, so the one that did was removed after this flow matched$/,
  );
});

/** The cause a counted finding of `kind` gets in the report of `text`, with its words. */
async function countedCauses(text: string, kind: string, ...args: string[]): Promise<[string | undefined, string][]> {
  const { report } = await checkJson(['-', '--all', '--kind', kind, ...args], text);
  return report.findings
    .filter((f) => f.standing?.kind === 'counted')
    .map((f) => [f.standing?.cause, f.standing!.message.replace(/^yet it has matched \d+ packets?, so /, '')]);
}

test('counters are evidence: which premise a matched flow proves wrong, the dump or the setter', async () => {
  // No flow sets reg5; the dump gives no group its flows send to, whose buckets may.
  const flows = 'table=0, duration=9s, n_packets=3, n_bytes=180, priority=5,reg5=0x1 actions=output:1\n';
  assert.deepEqual(
    await countedCauses(
      `${flows}table=0, duration=9s, n_packets=0, n_bytes=0, priority=1 actions=group:7\n`,
      'unset-register',
    ),
    [
      [
        'groups-not-given',
        'the dump is partial: its flows send to 1 group the input does not hold, whose buckets may set the bits (give their dump-groups output with --groups)',
      ],
    ],
  );
  // Every group there and nothing that sets it: the setter is outside the flows.
  assert.deepEqual(
    await countedCauses(
      `${flows}table=0, duration=9s, n_packets=0, n_bytes=0, priority=1 actions=output:2\n`,
      'unset-register',
    ),
    [
      [
        'unknown-setter',
        "the setter is unknown: no flow of the dump nor of the profile sets the bits, so something outside the flows does (the agent's packet-outs, another controller)",
      ],
    ],
  );
  // The generated Antrea 2.x node lacks the NodePortMark table, yet its NodePort flows matched; its groups are not given.
  const generated = await countedCauses(generatedAntrea2Node(), 'unset-register');
  assert.deepEqual(
    new Set(generated.map(([cause, words]) => `${cause}: ${words}`)),
    new Set([
      'setter-table-missing: the dump is partial: it lacks NodePortMark, whose flows set the bits',
      'groups-not-given: the dump is partial: its flows send to 44 groups the input does not hold, whose buckets may set the bits (give their dump-groups output with --groups)',
    ]),
  );
  // A shadowed flow that matched before the flow that hides it was added, and one that could not have.
  const hidden = (hiderAge: number): string =>
    `table=0, duration=${hiderAge}s, n_packets=0, n_bytes=0, priority=10 actions=drop\ntable=0, duration=500s, n_packets=7, n_bytes=420, priority=5,ip actions=output:1\n`;
  assert.deepEqual(await countedCauses(hidden(100), 'shadowed'), [
    ['hidden-later', 'it matched before the flow that hides it was added (that flow is 100 s old, this one 500 s)'],
  ]);
  assert.deepEqual(await countedCauses(hidden(900), 'shadowed'), [
    [
      'not-one-moment',
      'the dump is not of one moment: the flow that hides it was there first, so the flows changed while they were read, or were edited',
    ],
  ]);
});

test("check speaks in the pipeline's words: a port no flow sends to, the marks no flow sets, the registers after them", async () => {
  const messages = async (file: string): Promise<string[]> =>
    (await checkJson([file, '--all', '--kind', 'unset-register'])).report.findings.map((f) => f.message);
  const v1 = await messages(ANTREA);
  assert.ok(
    v1.includes(
      'never matches: it asks for TargetOFPort = port 412 (reg1=0x19c), but no port 412 exists for the pipeline: no flow, group bucket or learned flow sends packets to it by setting TargetOFPort (reg1 bits 0x198; registers start at 0)',
    ),
    v1.join('\n'),
  );
  const head = await messages(join(corpusDir, 'antrea-ovs-pipeline-doc-HEAD.flows.txt'));
  assert.deepEqual(
    head.map((m) => m.replace(/^never matches: it asks for .*?, but /, '')),
    [
      'no flow, group bucket or learned flow ever sets SvcNoEp (reg0 bit 0x4000; registers start at 0)',
      'no flow, group bucket or learned flow ever sets PktDestination = ToUplink (reg0 bit 0x40; registers start at 0)',
      'no flow, group bucket or learned flow ever sets OutputReg = OutputToController or PacketInOperation = Logging (reg0 bits 0x2400000; registers start at 0)',
      'no flow, group bucket or learned flow ever sets OutputReg = OutputToController or PacketInOperation = Reject (reg0 bits 0x4400000; registers start at 0)',
    ],
  );
  // Without a profile, the registers are all there is to say.
  const plain = await checkJson(['-', '--kind', 'unset-register'], 'table=0, priority=5,reg5=0x1 actions=output:1\n');
  assert.deepEqual(
    plain.report.findings.map((f) => f.message),
    [
      'never matches: it asks for reg5=0x1, but no flow, group bucket or learned flow ever sets reg5 bit 0x1 (registers start at 0)',
    ],
  );
});

test("Antrea's documentation listing (HEAD) is samples, not a dump: one real defect, its flow 11 at another priority than its text gives", async () => {
  const file = join(corpusDir, 'antrea-ovs-pipeline-doc-HEAD.flows.txt');
  const { status, report } = await checkJson([
    file,
    '--groups',
    join(corpusDir, 'antrea-ovs-pipeline-doc-HEAD.groups.txt'),
  ]);
  assert.equal(status, 1);
  // No cookie on any flow: the document's samples of each table, so a Node it does not show is a note.
  assert.match(report.excerpt?.message ?? '', /no flow carries the cookie the agent gives every flow it installs/);
  assert.deepEqual(
    report.findings.filter((f) => f.kind === 'unknown-tunnel-destination').map((f) => [f.severity, f.standing?.kind]),
    [['info', 'excerpt']],
  );
  // Table 0 is the named PipelineRootClassifier: it is where packets start, not a table nothing reaches.
  assert.deepEqual(
    report.findings.filter((f) => f.kind === 'unreachable-table'),
    [],
  );
  // The document says flows 11-13 are at priority 14599, but prints flow 11 at 14600: conjunction 4 has a clause at each.
  const errors = report.findings.filter((f) => f.severity === 'error');
  assert.deepEqual(
    errors.map((f) => [f.kind, f.problem, f.flows.map((x) => x.line)]),
    [['conjunction', 'split-priority', [142]]],
  );
  assert.match(
    errors[0]!.message,
    /^conjunction 4: clause flows are at priorities 14600, 14599: OVS treats each priority as a separate conjunction/,
  );
  const corrected = readFileSync(file, 'utf8').replace(
    'priority=14600,ip actions=conjunction(4,1/2)',
    'priority=14599,ip actions=conjunction(4,1/2)',
  );
  const fixed = await checkJson(['-'], corrected);
  assert.deepEqual([fixed.status, fixed.report.counts.error, fixed.report.counts.warning], [0, 0, 0]);
});

test('a conjunction whose clauses sit in another table than its conj_id flow is one error naming both', async () => {
  const split = antreaText.replace(
    'table=50, n_packets=0, n_bytes=0, priority=190,conj_id=2,ip',
    'table=60, n_packets=0, n_bytes=0, priority=190,conj_id=2,ip',
  );
  const { status, report } = await checkJson(['-'], split);
  assert.equal(status, 1);
  const errors = report.findings.filter((f) => f.severity === 'error');
  assert.deepEqual(
    errors.map((f) => [f.kind, f.flows[0]!.line]),
    [['conjunction-table', 36]],
  );
  assert.match(
    errors[0]!.message,
    /^conjunction 2: its conj_id flow is in table 60 \(EgressDefaultTable\) but its clause flows are in table 50 \(EgressRuleTable\); OVS joins clauses only within a table/,
  );
  assert.equal(errors[0]!.flows.length, 6);
});

test('the text report opens with a summary by kind, the worst first, and groups findings by kind; --kind and --table filter', async () => {
  const text = (await runCli(['check', join(corpusDir, 'antrea-pipeline_test-ipv4-encap.txt')])).stdout;
  const lines = text.split('\n');
  const unreachable = (
    await checkJson([join(corpusDir, 'antrea-pipeline_test-ipv4-encap.txt'), '--kind', 'unreachable-table'])
  ).report.findings.length;
  assert.deepEqual(
    lines.slice(4, 6).map((l) => l.replace(/\s+/g, ' ').trim()),
    [`unreachable-table ${unreachable} notes`, 'missing-expected 2 notes'],
  );
  assert.match(text, new RegExp(`\n\nunreachable-table \\(${unreachable}\\):\nnote `));
  const byKind = await checkJson([
    join(corpusDir, 'antrea-pipeline_test-ipv4-encap.txt'),
    '--kind',
    'missing-expected',
  ]);
  assert.deepEqual(byKind.report.summary, [{ kind: 'missing-expected', error: 0, warning: 0, info: 2 }]);
  const byTable = await checkJson([
    join(corpusDir, 'antrea-pipeline_test-ipv4-encap.txt'),
    '--table',
    'AntreaPolicyEgressRule',
  ]);
  assert.deepEqual(byTable.report.findings.map((f) => f.kind).sort(), ['missing-expected', 'unreachable-table']);
  assert.deepEqual(
    (await checkJson([ANTREA, '--table', '85'])).report.findings.map((f) => f.kind),
    ['unreachable-table', 'unset-register'],
  );
  const bad = await runCli(['check', ANTREA, '--kind', 'nonsense']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /expected one of shadowed, /);
});

test('symmetric findings once: two overlapping conjunctions are one finding', async () => {
  const flows = [
    'table=0,priority=200,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2),conjunction(2,1/2)',
    'table=0,priority=200,tcp,tp_dst=80 actions=conjunction(1,2/2)',
    'table=0,priority=200,tcp,tp_dst=0x50/0xfff0 actions=conjunction(2,2/2)',
    'table=0,priority=200,conj_id=1,ip actions=output:1',
    'table=0,priority=200,conj_id=2,ip actions=drop',
    'table=0,priority=0 actions=drop',
  ].join('\n');
  const { report } = await checkJson(['-', '--profile', 'generic'], flows);
  const overlaps = report.findings.filter((f) => f.problem === 'overlap');
  assert.equal(overlaps.length, 1);
  assert.match(overlaps[0]!.message, /^conjunction 1: overlaps conjunction 2 at the same priority/);
});

test('--baseline: only what the saved report does not hold is reported and fails, whatever the line numbers and counters', async () => {
  await withDir(async (dir) => {
    const baseline = join(dir, 'baseline.json');
    writeFileSync(baseline, (await runCli(['check', '--json', ANTREA])).stdout);
    // Later: lines moved down, counters grew, and a Pod's flow for port 3 lost its goto.
    const later = [
      '# dumped again',
      ...antreaText.split('\n').map((l) => l.replace('n_packets=0', 'n_packets=7')),
    ].join('\n');
    const same = await checkJson(['-', '--baseline', baseline], later);
    assert.equal(same.status, 0);
    assert.deepEqual(same.report.findings, []);
    assert.equal(same.report.inBaseline, 4);
    const split = later.replace(
      'table=50, n_packets=7, n_bytes=0, priority=190,conj_id=2,ip',
      'table=60, n_packets=7, n_bytes=0, priority=190,conj_id=2,ip',
    );
    const added = await checkJson(['-', '--baseline', baseline], split);
    assert.equal(added.status, 1);
    assert.deepEqual(
      added.report.findings.map((f) => f.kind),
      ['conjunction-table'],
    );
    const text = await runCli(['check', '-', '--baseline', baseline], { stdin: split });
    assert.match(text.stdout, /: 1 error, 0 warnings, 0 notes \(1 by design, shown with --all; 4 in the baseline\)\n/);
    writeFileSync(join(dir, 'not.json'), '{"flows": 3}');
    const refused = await runCli(['check', ANTREA, '--baseline', join(dir, 'not.json')]);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /not\.json: not a check --json report/);
  });
});

test('a Service group whose endpoints have no DNAT flow: the loop it makes is an error naming the flow, the buckets and the tables', async () => {
  const dir = join(repoRoot, 'examples', 'antrea-proxy');
  // The example without the DNAT flows of group 9's endpoints, as the document lists it.
  const broken = readFileSync(join(dir, 'dump-flows.of15.txt'), 'utf8')
    .split('\n')
    .filter((l) => !/reg3=0xa0a0(?:002|a03|a04),reg4=0x20050\//.test(l))
    .join('\n');
  const { status, report } = await checkJson(['-', '--groups', join(dir, 'dump-groups.of15.txt')], broken);
  assert.equal(status, 1);
  // Group 10 (the NodePort) selects 10.10.0.2:80 too.
  const loops = report.findings.filter((f) => f.kind === 'forwarding-loop');
  assert.equal(loops.length, 2);
  assert.match(
    loops[0]!.message,
    /^a packet this flow matches \(through buckets 0, 1, 2 of group 9\) goes round table 41 \(ServiceLBTable\) → table 42 \(EndpointDNATTable\) until OVS's resubmit limit/,
  );
  assert.match(loops[0]!.flows[0]!.text, /nw_dst=10\.101\.112\.140,tp_dst=80 actions=.*group:9$/);
  const endpoints = report.findings
    .filter((f) => f.kind === 'bucket-no-endpoint')
    .map((f) => f.message.replace(/:.*/, ''));
  // The endpoint in the pipeline's words, its registers after them.
  assert.deepEqual(endpoints, [
    'bucket 0 of group 9 selects the endpoint EndpointIP = 10.10.0.2, EndpointPort = 80 (reg3=0xa0a0002,reg4=0x50/0xffff), but table 42 (EndpointDNATTable) has no flow for it',
    'bucket 1 of group 9 selects the endpoint EndpointIP = 10.10.10.3, EndpointPort = 80 (reg3=0xa0a0a03,reg4=0x50/0xffff), but table 42 (EndpointDNATTable) has no flow for it',
    'bucket 2 of group 9 selects the endpoint EndpointIP = 10.10.10.4, EndpointPort = 80 (reg3=0xa0a0a04,reg4=0x50/0xffff), but table 42 (EndpointDNATTable) has no flow for it',
    'bucket 0 of group 10 selects the endpoint EndpointIP = 10.10.0.2, EndpointPort = 80 (reg3=0xa0a0002,reg4=0x50/0xffff), but table 42 (EndpointDNATTable) has no flow for it',
  ]);
});
