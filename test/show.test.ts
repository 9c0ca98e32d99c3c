/**
 * `flowscope show` end to end. The golden file (the AntreaProxy Service tables of
 * examples/antrea-proxy) was produced by flowscope and read line by line against the
 * "OVS pipeline (AntreaProxy enabled)" design document before it was kept. The document writes
 * ct_mark as one value (0x21, a Service connection), as releases up to 1.4 did, so it is read as 1.4.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertGolden } from './support/golden.ts';
import { runCli } from './support/cli.ts';
import { repoRoot } from './support/paths.ts';

const antrea = join(repoRoot, 'examples', 'antrea');
const proxy = join(repoRoot, 'examples', 'antrea-proxy');
const dump = join(antrea, 'dump-flows.of13.txt');
const ports = ['--ports', join(antrea, 'show.of13.txt')];

/** Lines of flows.txt (the add-flows input) in the given table, counted from the text. */
function flowsTxtCount(table: number): number {
  return readFileSync(join(antrea, 'flows.txt'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith(`table=${table},`)).length;
}

function shownFlows(stdout: string): number {
  const m = /(\d+) of (\d+) flows shown/.exec(stdout);
  assert.ok(m, stdout);
  return Number(m[1]);
}

test('show: the AntreaProxy Service tables with the groups, text golden', async () => {
  const r = await runCli([
    'show',
    join(proxy, 'dump-flows.of15.txt'),
    '--groups',
    join(proxy, 'dump-groups.of15.txt'),
    '--ports',
    join(proxy, 'show.of13.txt'),
    '-T',
    '40',
    '-T',
    'ServiceLBTable',
    '-T',
    'EndpointDNAT',
    '--release',
    '1.4',
    '--explain-profile',
  ]);
  assert.equal(r.status, 0, r.stderr);
  assertGolden('show-antrea-proxy.txt', r.stdout);
});

test('show: says which profile it used in one line, and why under --explain-profile or -v; --profile overrides detection', async () => {
  const detected = await runCli(['show', dump, '-T', '0']);
  const [first, second] = detected.stdout.split('\n');
  assert.equal(
    first,
    'profile antrea-v1 (release 0.13), detected from 19 tables: Antrea with kube-proxy (fixed table numbers 0–110)',
  );
  // Then the flows.
  assert.deepEqual([second, detected.stdout.split('\n')[2]?.startsWith('table 0 ')], ['', true]);
  assert.doesNotMatch(detected.stdout, /table 31 is used/);
  for (const flag of ['--explain-profile', '-v', '--verbose']) {
    const explained = await runCli(['show', dump, '-T', '0', flag]);
    assert.match(
      explained.stdout,
      /^profile antrea-v1 \(release 0\.13\), detected from 19 tables: .*\n {2}- .*table 31 is used/s,
      flag,
    );
  }
  const given = await runCli(['show', dump, '-T', '0', '--profile', 'antrea-cnp']);
  assert.match(given.stdout, /^profile antrea-cnp .*given with --profile/);
  const bad = await runCli(['show', dump, '--profile', 'nope']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /unknown profile nope \(known: .*antrea-v1/);
});

test('show: --release takes the v1.2.0 form agentinfo prints, and one the profile does not describe is refused', async () => {
  const agentinfo = await runCli(['show', dump, '-T', '0', '--release', 'v0.13.0']);
  assert.equal(agentinfo.status, 0, agentinfo.stderr);
  assert.match(agentinfo.stdout, /^profile antrea-v1 \(release 0\.13\.0\), detected/);
  const later = await runCli(['show', dump, '--release', '2.0']);
  assert.equal(later.status, 2);
  assert.match(
    later.stderr,
    /^flowscope: error: --release 2\.0: the detected profile antrea-v1 describes releases 0\.10–1\.5; give --profile for the pipeline of that release \(profiles: antrea, releases 1\.6 and later; /,
  );
  assert.equal(later.stdout, '');
  const given = await runCli(['show', dump, '--profile', 'antrea', '--release', '1.2']);
  assert.equal(given.status, 2);
  assert.match(given.stderr, /--release 1\.2: the given profile antrea describes releases 1\.6 and later \(profiles: /);
  assert.equal((await runCli(['show', dump, '--release', 'latest'])).status, 2);
});

test('show: table, port, address, conjunction and hit filters', async () => {
  const byNumber = await runCli(['show', dump, '-T', '90']);
  assert.equal(shownFlows(byNumber.stdout), flowsTxtCount(90));
  // Table 90 by the name the profile gives it, and table 80 by the name the bridge registered.
  const byName = await runCli(['show', dump, '-T', 'IngressRuleTable', '-T', 'L2Forwarding']);
  assert.equal(shownFlows(byName.stdout), flowsTxtCount(90) + flowsTxtCount(80));
  // coredns5-8ec607 is port 3: classifier, two spoof-guard flows; and through reg1, which table
  // 110 outputs by: the L2 forwarding flow that sets reg1=3 and the ingress flows that match it.
  const port = await runCli(['show', dump, ...ports, '--port', 'coredns5-8ec607', '-o', 'name']);
  assert.deepEqual(port.stdout.trim().split('\n'), [
    'table=0,priority=190,in_port="coredns5-8ec607"',
    'table=10,priority=200,arp,in_port="coredns5-8ec607",arp_spa=10.10.0.2,arp_sha=12:9e:a6:47:d0:70',
    'table=10,priority=200,ip,in_port="coredns5-8ec607",dl_src=12:9e:a6:47:d0:70,nw_src=10.10.0.2',
    'table=80,priority=200,dl_dst=12:9e:a6:47:d0:70',
    'table=90,priority=200,ip,reg1=0x3',
    'table=100,priority=200,ip,reg1=0x3',
  ]);
  assert.equal(shownFlows((await runCli(['show', dump, '--port', '3'])).stdout), 6);
  // 10.10.1.2: egress rule source and destination, egress default, ingress rule source; plus 10.10.1.0/24 routes.
  const ip = await runCli(['show', dump, '--ip', '10.10.1.2']);
  assert.equal(shownFlows(ip.stdout), 5);
  assert.match(ip.stdout, /to 10\.10\.1\.0\/24 \(peer Node subnet via 192\.168\.77\.101\)/);
  const conj = await runCli(['show', dump, '--conj-id', '3']);
  assert.equal(shownFlows(conj.stdout), 6);
  // The example switch never forwarded a packet.
  assert.equal(shownFlows((await runCli(['show', dump, '--hits'])).stdout), 0);
  const bad = await runCli(['show', dump, '--ip', '10.10.1']);
  assert.equal(bad.status, 2);
});

test("show --port: a flow that enqueues to the port, or picks it among a bundle's members, sends to it", async () => {
  // In the form `ovs-ofctl parse-flow` prints them (bundle_load stores its pick for the output by field).
  const flows = [
    'table=0, priority=100,in_port=1 actions=bundle(eth_src,0,hrw,ofport,members:4,5)',
    'table=0, priority=90,in_port=2 actions=bundle_load(eth_src,0,hrw,ofport,NXM_NX_REG0[],members:6,7),output:NXM_NX_REG0[]',
    'table=0, priority=80,in_port=3 actions=enqueue:8:1',
    'table=0, priority=70,in_port=9 actions=output:10',
  ].join('\n');
  const selected = async (port: string): Promise<string[]> => {
    const r = await runCli(['show', '-', '--port', port, '-o', 'name'], { stdin: `${flows}\n` });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim().split('\n');
  };
  assert.deepEqual(await selected('5'), ['table=0,priority=100,in_port=1']);
  assert.deepEqual(await selected('6'), ['table=0,priority=90,in_port=2']);
  assert.deepEqual(await selected('8'), ['table=0,priority=80,in_port=3']);
  assert.deepEqual(await selected('10'), ['table=0,priority=70,in_port=9']);
  // The ports a flow uses, as --json lists them: the bundle's members are ports it may send to.
  const json = await runCli(['show', '-', '--json'], { stdin: `${flows}\n` });
  const j = JSON.parse(json.stdout) as { flows: { priority: number; ports: { use: string; port: string }[] }[] };
  assert.deepEqual(
    j.flows.map((f) => [f.priority, f.ports.map((p) => `${p.use} ${p.port}`)]),
    [
      [100, ['match port 1', 'output port 4', 'output port 5']],
      [90, ['match port 2', 'output port 6', 'output port 7']],
      [80, ['match port 3', 'output port 8']],
      [70, ['match port 9', 'output port 10']],
    ],
  );
});

test("show -T on a --names dump: a table by the dump's name, the profile's name or alias, or its number, in any case", async () => {
  const named = join(antrea, 'dump-flows.of13.names.txt');
  const shown = async (...tables: string[]): Promise<string> => {
    const r = await runCli(['show', named, ...tables.flatMap((t) => ['-T', t])]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    return r.stdout;
  };
  const spoofGuard = flowsTxtCount(10);
  const byDumpName = await shown('SpoofGuard');
  assert.equal(shownFlows(byDumpName), spoofGuard);
  assert.match(byDumpName, /\ntable 10 SpoofGuard /);
  for (const given of ['SpoofGuardTable', '10', '010', 'spoofguard'])
    assert.equal(await shown(given), byDumpName, given);
  // One table given twice is shown once; tables given together are all shown.
  assert.equal(await shown('10', 'SpoofGuard'), byDumpName);
  // The dump's L3DecTTL and ConntrackZone by the profile's names for them.
  assert.equal(
    shownFlows(await shown('SpoofGuard', 'L3DecTTLTable', 'ConntrackTable')),
    spoofGuard + flowsTxtCount(71) + flowsTxtCount(30),
  );
});

test('show: a value filter given twice selects flows of either value', async () => {
  const one = (args: string[]) => runCli(['show', dump, ...args]).then((r) => shownFlows(r.stdout));
  const [three, four, both] = await Promise.all([
    one(['--port', '3']),
    one(['--port', '4']),
    one(['--port', '3', '--port', '4']),
  ]);
  assert.ok(three > 0 && four > 0);
  assert.equal(both, three + four);
  const [c1, c3, c13] = await Promise.all([
    one(['--conj-id', '1']),
    one(['--conj-id', '3']),
    one(['--conj-id', '1', '--conj-id', '3']),
  ]);
  assert.equal(c13, c1 + c3);
  // Criteria of different kinds still all hold.
  assert.equal(await one(['--conj-id', '1', '--conj-id', '3', '-T', '90']), await one(['--conj-id', '3', '-T', '90']));
});

test('show: a selection that cannot match says why instead of printing an empty report in silence', async () => {
  const typo = await runCli(['show', dump, '-T', 'IngresRuleTable']);
  assert.equal(typo.status, 2);
  assert.match(
    typo.stderr,
    /^flowscope: error: no table is named IngresRuleTable \(did you mean IngressRuleTable\?\) \(the dump's tables: ClassifierTable, SpoofGuardTable, /,
  );
  assert.equal(typo.stdout, '');
  assert.match((await runCli(['show', dump, '-T', '300'])).stderr, /table 300: table numbers go from 0 to 254/);
  // A table the profile knows, or a valid number, that this dump has no flows in: said, not refused.
  for (const [table, said] of [
    ['SNATTable', 'SNATTable'],
    ['200', '200'],
  ]) {
    const r = await runCli(['show', dump, '-T', table!]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, `flowscope: warning: table ${said} has no flows in the dump\n`);
    assert.equal(shownFlows(r.stdout), 0);
  }
  const noName = await runCli(['show', dump, '--port', 'coredns5']);
  assert.match(noName.stderr, /no port is named coredns5 in the flows \(give --ports/);
  const byNumber = await runCli(['show', join(antrea, 'dump-flows.of13.names.txt'), '--port', '3']);
  assert.match(
    byNumber.stderr,
    /port 3: the flows name their ports and nothing gives their numbers; select by name, or give --ports/,
  );
  const withPorts = await runCli(['show', join(antrea, 'dump-flows.of13.names.txt'), ...ports, '--port', '3']);
  assert.equal(withPorts.stderr, '');
  assert.equal(shownFlows(withPorts.stdout), 6);
  const noStats = await runCli(['show', join(antrea, 'dump-flows.of15.names.no-stats.txt'), '--hits']);
  assert.match(noStats.stderr, /--hits: the dump has no packet counts \(dumped with --no-stats\?\)/);
  // A dump with counts, none of them above zero, is a real answer.
  assert.equal((await runCli(['show', dump, '--hits'])).stderr, '');
});

test('show --hits and --raw on a real dump with counters', async () => {
  const file = join(repoRoot, '..', 'shared', 'corpus', 'openshift-sdn-3.x-multitenant-real-dump.txt');
  const r = await runCli(['show', file, '--hits', '--raw']);
  assert.equal(r.status, 0);
  const hit = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => /n_packets=[1-9]/.test(l));
  assert.equal(shownFlows(r.stdout), hit.length);
  for (const l of hit) assert.ok(r.stdout.includes(l.trim()), l);
});

test('show --json: schema version 1, every flow with its explanation and source line', async () => {
  const r = await runCli(['show', dump, ...ports, '--json', '-T', '0']);
  const j = JSON.parse(r.stdout) as {
    schemaVersion: number;
    profile: { id: string; release: string; source: string; reasons: string[] };
    totalFlows: number;
    shownFlows: number;
    flows: {
      table: { number: number; name: string };
      priority: number;
      explanation: { kind: string; meaning: string };
      state: { name: string; valueName?: string; use: string }[];
      ports: { port: string }[];
      source: { line: number };
    }[];
  };
  assert.equal(j.schemaVersion, 1);
  assert.equal(j.profile.id, 'antrea-v1');
  assert.equal(j.profile.source, 'detected');
  assert.equal(j.totalFlows, 86);
  assert.equal(j.shownFlows, 5);
  const pod = j.flows.find((f) => f.ports[0]?.port === 'local Pod coredns5-8ec607 (port 3)')!;
  assert.equal(pod.table.name, 'ClassifierTable');
  assert.equal(pod.explanation.kind, 'pattern');
  assert.deepEqual(pod.state, [
    {
      use: 'write',
      name: 'PktSource',
      field: 'reg0',
      bits: '0..15',
      value: '0x2',
      valueName: 'FromLocal',
      text: 'PktSource = FromLocal (sent by a local Pod)',
    },
  ]);
});

test('show: colour only on a terminal, and NO_COLOR, --no-color and FORCE_COLOR are respected', async () => {
  const esc = /\u001b\[/;
  assert.doesNotMatch((await runCli(['show', dump, '-T', '0'])).stdout, esc);
  assert.match((await runCli(['show', dump, '-T', '0'], { env: { FORCE_COLOR: '1' } })).stdout, esc);
  assert.doesNotMatch(
    (await runCli(['show', dump, '-T', '0'], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } })).stdout,
    esc,
  );
  assert.doesNotMatch(
    (await runCli(['show', dump, '-T', '0', '--no-color'], { env: { FORCE_COLOR: '1' } })).stdout,
    esc,
  );
  assert.match((await runCli(['show', dump, '-T', '0', '--color'])).stdout, esc);
});

test('show: the report is made flow by flow as it is written, each flow annotated when its turn comes', async () => {
  const { parseDump } = await import('../src/syntax/reader.ts');
  const { Pipeline } = await import('../src/model/pipeline.ts');
  const { Annotator } = await import('../src/analysis/annotate/annotate.ts');
  const { showText, showJson, PLAIN_SHOW } = await import('../src/render/show.ts');
  const { jsonPieces } = await import('../src/render/json-stream.ts');
  const r = parseDump(readFileSync(dump, 'utf8'), { file: dump });
  const pipeline = new Pipeline(r.flows, r.groups, r.ports);
  const annotator = new Annotator(pipeline, {});
  let annotated = 0;
  const report = {
    tables: annotator.selectTables(pipeline),
    annotate: (f: (typeof r.flows)[number]) => {
      annotated++;
      return annotator.annotate(f);
    },
    totalFlows: pipeline.flowCount,
  };
  const text = showText(report, { raw: false, style: PLAIN_SHOW });
  const head = [text.next(), text.next(), text.next()];
  assert.ok(head.every((p) => !p.done));
  assert.ok(annotated <= 1, `${annotated} flows annotated for the first pieces`);
  const rest = [...text];
  assert.equal(annotated, r.flows.length);
  assert.match(rest[rest.length - 1]!, new RegExp(`${r.flows.length} of ${r.flows.length} flows shown`));
  annotated = 0;
  const pieces = jsonPieces(showJson(report));
  const first = pieces.next();
  assert.ok(!first.done);
  assert.equal(annotated, 0);
  assert.equal(JSON.parse(first.value + [...pieces].join('')).flows.length, r.flows.length);
});
