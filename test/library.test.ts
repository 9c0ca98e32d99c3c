// The library as a program uses it: imported by the package's name (its `exports`), run on the
// bundled examples, its results checked against the examples' known facts and its renderers
// against what the command line prints for the same input.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  addressLabelText,
  annotatePipeline,
  buildGraph,
  compareTraces,
  diffImpact,
  impactJson,
  namingFor,
  traceComparisonJson,
  profiledTracer,
  traceWords,
  explainTrace,
  type Annotator,
  checkAnnotated,
  checkJson,
  conjunctionsForPacket,
  conjunctionsJson,
  conjunctionsText,
  detectProfile,
  diffDumps,
  dumpDiffJson,
  dumpsVersion,
  findConjunctions,
  formatCheck,
  formatDot,
  formatDumpDiff,
  formatJson,
  formatTrace,
  formatVerification,
  graphJson,
  packetConjunctionsText,
  PacketSpecError,
  packetSpecProblemText,
  parseDump,
  Pipeline,
  PLAIN_CHECK,
  PLAIN_DIFF,
  PLAIN_SHOW,
  profileTableNames,
  readPortDescriptions,
  ProfileChoiceError,
  profileChoiceProblemText,
  showReport,
  showText,
  traceJson,
  sampleAnnotator,
  Tracer,
  verifyDump,
  type ParseResult,
  type ProfiledTracer,
  type TraceNode,
  type TraceRenderOptions,
} from 'flowscope';
import { runCli } from './support/cli.ts';
import { repoRoot } from './support/paths.ts';

const example = (name: string): string => join(repoRoot, 'examples', name);
const ANTREA = example('antrea/dump-flows.of13.txt');

function parse(path: string): ParseResult {
  return parseDump(readFileSync(path, 'utf8'), { file: path });
}

function pipelineOf(dump: ParseResult): Pipeline {
  return new Pipeline(dump.flows, dump.groups, dump.ports);
}

/** Text as the command line writes it: with a final line end. */
function printed(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** Pod coredns5-8ec607 (port 3) to a Pod on another node (10.10.1.0/24, through the tunnel, port 1). */
const TO_REMOTE_POD =
  'in_port=3,tcp,dl_src=12:9e:a6:47:d0:70,dl_dst=aa:bb:cc:dd:ee:ff,nw_src=10.10.0.2,nw_dst=10.10.1.5,nw_ttl=64,tp_dst=80';
/** Pod coredns5-8ec607 to the other local Pod, coredns5-9d9530 (port 4), whose ingress isolation drops it. */
const TO_ISOLATED_POD =
  'in_port=3,tcp,dl_src=12:9e:a6:47:d0:70,dl_dst=ba:a8:13:ca:ed:cf,nw_src=10.10.0.2,nw_dst=10.10.0.3,nw_ttl=64,tp_dst=53';

test('library: parse, detect and annotate an example as the Antrea v1 pipeline, as show prints it', async () => {
  const dump = parse(ANTREA);
  assert.equal(dump.flows.length, 86);
  assert.deepEqual(dump.diagnostics, []);
  const detection = detectProfile(dump.flows, dump.groups, dump.ports);
  assert.equal(detection.profile.id, 'antrea-v1');
  // examples/README.md: the layout of Antrea 0.13, where L3DecTTL is table 71.
  assert.equal(detection.release?.release, '0.13');
  assert.ok(detection.reasons.length > 0);

  const read = annotatePipeline(pipelineOf(dump));
  assert.equal(read.profile.id, 'antrea-v1');
  assert.equal(read.profile.source, 'detected');
  assert.equal(read.annotator.tableInfo({ kind: 'number', number: 71 }).name, 'L3DecTTLTable');
  const spoofGuard = dump.flows.find((f) => f.table.kind === 'number' && f.table.number === 10 && f.priority === 0)!;
  const note = read.annotator.annotate(spoofGuard);
  assert.equal(note.table.name, 'SpoofGuardTable');
  assert.equal(note.explanation?.kind, 'miss');

  const cli = await runCli(['show', ANTREA]);
  assert.equal(cli.status, 0);
  assert.equal(printed([...showText(showReport(read), { raw: false, style: PLAIN_SHOW })].join('')), cli.stdout);
});

test('library: a profile asked for by name, and one that does not exist', () => {
  const pipeline = pipelineOf(parse(ANTREA));
  const read = annotatePipeline(pipeline, { profile: 'antrea-v1', release: '1.0' });
  assert.deepEqual([read.profile.source, read.profile.release], ['option', '1.0']);
  // From 1.0 on, table 71 is SNAT and TTL moves to 72.
  assert.equal(read.annotator.tableInfo({ kind: 'number', number: 71 }).name, 'SNATTable');
  assert.equal(read.annotator.tableInfo({ kind: 'number', number: 72 }).name, 'IPTTLDecTable');
  assert.throws(
    () => annotatePipeline(pipeline, { profile: 'no-such-pipeline' }),
    (err: unknown) =>
      err instanceof ProfileChoiceError &&
      err.problem.kind === 'unknown-profile' &&
      /^unknown profile no-such-pipeline \(known: .*antrea-v1/.test(profileChoiceProblemText(err.problem)),
  );
});

test('library: conjunctions explained all at once, by id, and against a packet', async () => {
  const dump = parse(ANTREA);
  const pipeline = pipelineOf(dump);
  const read = annotatePipeline(pipeline);
  const all = findConjunctions(pipeline);
  // examples/antrea/flows.txt: conjunctions 1 to 6.
  assert.deepEqual(all.conjunctions.map((c) => c.id).sort(), [1, 2, 3, 4, 5, 6]);
  const [five] = findConjunctions(pipeline, { ids: [5] }).conjunctions;
  // conjunction(5,1/2) on two source addresses, conjunction(5,2/2) on one destination network.
  assert.deepEqual([five!.table, five!.priority, five!.n], [{ kind: 'number', number: 60 }, 80, 2]);
  assert.deepEqual(
    five!.dimensions.map((d) =>
      d.flows.map(
        (f) => f.match.fields.find((m) => m.field.name.startsWith('nw_') || m.field.name.startsWith('ip_'))?.value,
      ),
    ),
    [[0x0a0a010bn, 0x0a0a010an], [0x0a000a00n]],
  );

  const cli = await runCli(['conj', ANTREA]);
  assert.equal(printed(conjunctionsText(all, read)), cli.stdout);
  const json = await runCli(['conj', ANTREA, '--json']);
  assert.equal(`${formatJson(conjunctionsJson(all, read))}\n`, json.stdout);

  // A packet that satisfies both dimensions of conjunction 5.
  const tracer = new Tracer(pipeline);
  const spec = 'in_port=3,ip,dl_src=12:9e:a6:47:d0:70,nw_src=10.10.1.10,nw_dst=10.0.10.5';
  const conjunction5 = findConjunctions(pipeline, { ids: [5] });
  const against = conjunctionsForPacket(tracer, conjunction5, tracer.parsePacket(spec), {}, read.annotator);
  assert.deepEqual(
    against.conjunctions.map((c) => [c.conjunction.id, c.satisfied]),
    [[5, true]],
  );
  const withPacket = await runCli(['conj', ANTREA, '5', '--packet', spec]);
  assert.equal(printed(packetConjunctionsText(against, read)), withPacket.stdout);
});

test('library: diff of two examples, and of the same switch dumped two ways', async () => {
  const of13 = parse(ANTREA);
  const of15 = parse(example('antrea/dump-flows.of15.txt'));
  assert.equal(diffDumps(of13, of15).equal, true);

  const proxyPath = example('antrea-proxy/dump-flows.of13.txt');
  const proxy = parse(proxyPath);
  const diff = diffDumps(of13, proxy);
  assert.equal(diff.equal, false);
  // Each side's flows are counted whole, table by table.
  assert.equal(
    diff.tables.reduce((n, t) => n + t.before, 0),
    of13.flows.length,
  );
  assert.equal(
    diff.tables.reduce((n, t) => n + t.after, 0),
    proxy.flows.length,
  );
  // The AntreaProxy fragment has no L2ForwardingOut table (110): its flows are removed.
  const t110 = diff.tables.find((t) => t.table.kind === 'number' && t.table.number === 110)!;
  assert.deepEqual([t110.after, t110.removed.length], [0, t110.before]);

  const of = dumpsVersion([of13, proxy]);
  assert.equal(of, 13);
  const cli = await runCli(['diff', ANTREA, proxyPath]);
  assert.equal(cli.status, 1);
  // The headings name the tables as the detected profile does.
  assert.equal(
    printed(
      formatDumpDiff(diff, { labels: [ANTREA, proxyPath], of, style: PLAIN_DIFF, tableName: profileTableNames(proxy) }),
    ),
    cli.stdout,
  );
  const json = await runCli(['diff', '--json', ANTREA, proxyPath]);
  assert.equal(`${formatJson(dumpDiffJson(diff, of))}\n`, json.stdout);
});

test('library: verify a dump against the flows it was loaded from, and against another pipeline', async () => {
  const flowsPath = example('antrea/flows.txt');
  const expected = parse(flowsPath);
  const dump = parse(ANTREA);
  // flows.txt names the ports the dump gives by number: the flows they share number them.
  const inferred = verifyDump(expected, dump);
  assert.deepEqual([inferred.ok, inferred.matched], [true, 86]);
  const showPath = example('antrea/show.of13.txt');
  const ports = readPortDescriptions(readFileSync(showPath, 'utf8'));
  const ok = verifyDump(expected, dump, { ports });
  assert.deepEqual([ok.ok, ok.matched, ok.expectedFlows], [true, 86, 86]);
  const passed = await runCli(['verify', '--expect', flowsPath, '--ports', showPath, ANTREA]);
  assert.equal(passed.status, 0);
  assert.equal(
    printed(
      formatVerification(ok, { labels: [flowsPath, ANTREA], of: dumpsVersion([expected, dump]), style: PLAIN_DIFF }),
    ),
    passed.stdout,
  );

  const proxyFlows = example('antrea-proxy/flows.txt');
  const wrong = verifyDump(parse(proxyFlows), dump);
  assert.equal(wrong.ok, false);
  assert.ok(wrong.tables.some((t) => t.missing.length > 0));
  const cli = await runCli(['verify', '--expect', proxyFlows, ANTREA]);
  assert.equal(cli.status, 1);
  const of = dumpsVersion([parse(proxyFlows), dump]);
  assert.equal(
    printed(
      formatVerification(wrong, {
        labels: [proxyFlows, ANTREA],
        of,
        style: PLAIN_DIFF,
        tableName: profileTableNames(dump),
      }),
    ),
    cli.stdout,
  );
});

test('library: trace a packet to its verdict, with the words flowscope trace prints', async () => {
  const dump = parse(ANTREA);
  const { tracer, annotator } = profiledTracer(pipelineOf(dump));
  const render = traceWords(tracer, annotator, dump.protocols[0] ?? 10);

  const remote = explainTrace(tracer.tracePacket(TO_REMOTE_POD), annotator, tracer);
  assert.equal(remote.verdict, 'output');
  assert.deepEqual(remote.outputs, [1]);
  const cli = await runCli(['trace', ANTREA, TO_REMOTE_POD]);
  assert.equal(printed(formatTrace(remote, render)), cli.stdout);
  assert.match(cli.stdout, /^Verdict: output to port 1 /m);

  const isolated = explainTrace(tracer.tracePacket(TO_ISOLATED_POD), annotator, tracer);
  assert.equal(isolated.verdict, 'drop');
  assert.deepEqual(isolated.last?.table, { kind: 'number', number: 100 });
  assert.equal(isolated.reason?.table.name, 'IngressDefaultTable');
  const json = await runCli(['trace', '--json', ANTREA, TO_ISOLATED_POD]);
  assert.equal(`${formatJson(traceJson(isolated, render))}\n`, json.stdout);

  assert.throws(
    () => tracer.tracePacket('in_port=3,bogus=1'),
    (err: unknown) =>
      err instanceof PacketSpecError &&
      err.problem.kind === 'unknown-field' &&
      /^bogus: unknown field/.test(packetSpecProblemText(err.problem)),
  );
});

test('library: trace with groups and port names (AntreaProxy example)', async () => {
  const flows = example('antrea-proxy/dump-flows.of15.txt');
  const groups = example('antrea-proxy/dump-groups.of15.txt');
  const ports = example('antrea-proxy/show.of13.txt');
  const text = [flows, groups, ports].map((p) => readFileSync(p, 'utf8')).join('\n');
  const dump = parseDump(text, { file: flows });
  assert.ok(dump.groups.length > 0);
  const tracer = new Tracer(pipelineOf(dump));
  // The NodePort Service 10.101.112.140:80 (examples/README.md), sent by the client Pod, its port given by name.
  const spec = 'in_port="client-3c1f0a",tcp,dl_src=6e:c7:01:a0:a9:23,nw_src=10.10.0.18,nw_dst=10.101.112.140,tp_dst=80';
  const result = tracer.tracePacket(spec);
  const buckets = (nodes: readonly TraceNode[]): number[] =>
    nodes.flatMap((n) => [...(n.kind === 'bucket' ? [n.group] : []), ...('nodes' in n ? buckets(n.nodes) : [])]);
  // Its ClusterIP is load-balanced by group 9 (examples/antrea-proxy/flows.txt, table 41).
  const met = new Set(result.passes.flatMap((p) => buckets(p.nodes)));
  assert.deepEqual([...met], [9]);
  const cli = await runCli(['trace', flows, '--groups', groups, '--ports', ports, spec]);
  assert.equal(cli.status, 0, cli.stderr);
  const annotator = sampleAnnotator(tracer.pipeline);
  assert.equal(
    printed(
      formatTrace(explainTrace(result, annotator, tracer), traceWords(tracer, annotator, dump.protocols[0] ?? 10)),
    ),
    cli.stdout,
  );
});

test("library: check finds the example's flows for ports that do not exist, as flowscope check prints them", async () => {
  const read = annotatePipeline(pipelineOf(parse(ANTREA)));
  const report = checkAnnotated(read);
  // examples/README.md: the document's policy examples refer to ports 11, 12 and 412 through reg1.
  const unset = report.findings.filter((f) => f.kind === 'unset-register');
  assert.deepEqual(
    unset.map((f) => /reg1=(0x[0-9a-f]+)/.exec(f.flows[0]!.origin.text)?.[1]),
    ['0x19c', '0xb', '0xc'],
  );
  assert.equal(report.counts.warning, unset.length + 1);
  const cli = await runCli(['check', ANTREA]);
  assert.equal(cli.status, 0);
  assert.equal(printed(formatCheck(report, read.annotator.wording, read.profile, PLAIN_CHECK)), cli.stdout);
  const json = await runCli(['check', '--json', ANTREA]);
  assert.equal(`${formatJson(checkJson(report, read.annotator.wording, read.profile))}\n`, json.stdout);
});

test('library: the graph as data and as the DOT flowscope graph prints', async () => {
  const read = annotatePipeline(pipelineOf(parse(ANTREA)));
  const graph = buildGraph(read.pipeline, (ref) => read.annotator.tableInfo(ref));
  const id = (n: number): string | undefined =>
    graph.nodes.find((x) => x.kind === 'table' && x.table.kind === 'number' && x.table.number === n)?.id;
  const edge = graph.edges.find((e) => e.from === id(0) && e.to === id(10));
  assert.ok(edge, 'table 0 goes on to table 10 (SpoofGuard)');
  const cli = await runCli(['graph', ANTREA]);
  assert.equal(printed(formatDot(graph)), cli.stdout);
  const json = await runCli(['graph', '--json', ANTREA]);
  assert.equal(`${formatJson(graphJson(graph))}\n`, json.stdout);
});

/** A dump traced in the words of its profile. */
type Side = { tracer: Tracer; annotator: Annotator; render: TraceRenderOptions };

test('library: a packet through two dumps side by side, and what a diff does to traffic, as trace --compare and diff --impact print them', async () => {
  const before = parse(ANTREA);
  // The route to the other node's Pod subnet gone.
  const text = readFileSync(ANTREA, 'utf8');
  const route = text.split('\n').find((l) => /nw_dst=10\.10\.1\.0\/24/.test(l) && /table=70\b/.test(l));
  assert.ok(route, 'the example routes 10.10.1.0/24 in table 70');
  const path = join(mkdtempSync(join(tmpdir(), 'flowscope-library-')), 'unrouted.txt');
  writeFileSync(path, text.replace(`${route}\n`, ''));
  const after = parse(path);

  const [left, right] = [before, after].map((d) => {
    const { tracer, annotator } = profiledTracer(pipelineOf(d));
    return { tracer, annotator, render: traceWords(tracer, annotator, d.protocols[0] ?? 10) };
  }) as [Side, Side];
  const options = { ctNext: [], keepPackets: true };
  const traced = (side: typeof left) => ({
    tracer: side.tracer,
    result: explainTrace(
      side.tracer.trace(side.tracer.parsePacket(TO_REMOTE_POD), options),
      side.annotator,
      side.tracer,
    ),
  });
  const c = compareTraces(traced(left), traced(right), namingFor(before, after, {}));
  // The paths part at the route; the tunnel's MAC still takes the packet to the tunnel port.
  assert.deepEqual(c.divergence?.left?.table, { kind: 'number', number: 70 });
  assert.equal(c.divergence?.right?.flow?.priority, 0);
  const cli = await runCli(['trace', '--json', ANTREA, '--compare', path, TO_REMOTE_POD]);
  assert.equal(cli.status, 1, cli.stderr);
  assert.equal(
    `${formatJson(traceComparisonJson(c, { label: ANTREA, render: left.render }, { label: path, render: right.render }))}\n`,
    cli.stdout,
  );

  const of = dumpsVersion([before, after]);
  const [b, a] = [before, after].map((d) => profiledTracer(pipelineOf(d))) as [ProfiledTracer, ProfiledTracer];
  const report = diffImpact(diffDumps(before, after), b.tracer, a.tracer, {
    maxProbes: 8,
    annotators: { before: b.annotator, after: a.annotator },
  });
  assert.equal(report.changes.length, 1);
  assert.ok(report.changes[0]!.outcomes.some((o) => o.effect !== 'none'));
  const { annotator } = annotatePipeline(b.tracer.pipeline);
  const words = {
    of,
    before: traceWords(b.tracer, b.annotator, of),
    after: traceWords(a.tracer, a.annotator, of),
    address: (...args: Parameters<typeof annotator.addresses.label>) => {
      const label = annotator.addresses.label(...args);
      return label && addressLabelText(label);
    },
  };
  const impact = await runCli(['diff', '--impact', '--json', ANTREA, path]);
  assert.equal(impact.status, 1, impact.stderr);
  assert.equal(`${formatJson(impactJson(report, words))}\n`, impact.stdout);
});
