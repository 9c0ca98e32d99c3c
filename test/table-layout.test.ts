/**
 * Numbered dumps of Antrea's flexible pipeline: without `--names` the tables print as the
 * numbers the agent handed out for its features. Detection must find the layout, and the
 * annotator must then name the tables as a named dump would.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Annotator, type FlowAnnotation } from '../src/analysis/annotate/annotate.ts';
import { explanationText } from '../src/render/words/explanation.ts';
import { detectProfile, QUICK_SAMPLE_PER_TABLE } from '../src/analysis/detect/detect-profile.ts';
import { sampleFlows } from '../src/analysis/detect/flow-sample.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import type { PortMap } from '../src/model/ports.ts';
import { profileById } from '../src/profiles/index.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { ensureDump } from '../bench/generate.ts';
import { skipUnlessOvs, withOvsSwitch } from './support/ovs.ts';
import { corpusDir } from './support/paths.ts';
import { detectionReasonText } from '../src/render/words/profile.ts';

/** Detection's reasons, each in its sentence. */
const said = (reasons: readonly Parameters<typeof detectionReasonText>[0][]): string[] =>
  reasons.map(detectionReasonText);

/**
 * The numbering the pipeline document assumes (proxyAll, TrafficControl and L7NetworkPolicy on),
 * as the reference derives it from the agent's table declarations (layout C).
 */
const DOC_LAYOUT = [
  'PipelineRootClassifier',
  'ARPSpoofGuard',
  'ARPResponder',
  'Classifier',
  'SpoofGuard',
  'UnSNAT',
  'ConntrackZone',
  'ConntrackState',
  'PreRoutingClassifier',
  'NodePortMark',
  'SessionAffinity',
  'ServiceLB',
  'EndpointDNAT',
  'AntreaPolicyEgressRule',
  'EgressRule',
  'EgressDefaultRule',
  'EgressMetric',
  'L3Forwarding',
  'EgressMark',
  'L3DecTTL',
  'SNATMark',
  'SNAT',
  'L2ForwardingCalc',
  'TrafficControl',
  'IngressSecurityClassifier',
  'AntreaPolicyIngressRule',
  'IngressRule',
  'IngressDefaultRule',
  'IngressMetric',
  'ConntrackCommit',
  'Output',
];

/** Table names in `table=`, `goto_table:` and `resubmit(,…)` replaced by their numbers. */
function numbered(text: string): string {
  return text.replace(/(table=|goto_table:|resubmit\(,)([A-Z][A-Za-z0-9]*)/g, (whole, lead: string, name: string) => {
    const n = DOC_LAYOUT.indexOf(name);
    return n < 0 ? whole : `${lead}${n}`;
  });
}

function annotated(
  text: string,
  file: string,
  portMap?: PortMap,
): { detection: ReturnType<typeof detectProfile>; flows: FlowAnnotation[] } {
  const dump = parseDump(text, { file, ...(portMap ? { portMap } : {}) });
  const detection = detectProfile(dump.flows, dump.groups, dump.ports);
  const pipeline = new Pipeline(dump.flows, dump.groups, dump.ports);
  const release = detection.release?.release;
  const annotator = new Annotator(pipeline, {
    profile: detection.profile,
    ...(release !== undefined ? { release } : {}),
  });
  return { detection, flows: annotator.annotatePipeline(pipeline).flatMap((t) => t.flows) };
}

function countBy<T>(items: readonly T[], key: (x: T) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const x of items) out.set(key(x), (out.get(key(x)) ?? 0) + 1);
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const meaning = (a: FlowAnnotation): string =>
  a.explanation === undefined
    ? '-'
    : a.explanation.kind === 'unknown'
      ? `? ${explanationText(a.explanation)}`
      : explanationText(a.explanation);

test('detection of a large dump stops at the quick sample when it decides, and fits the larger one when it does not', () => {
  const { path } = ensureDump({ flows: 20_000, seed: 1 });
  const { flows, groups, ports } = parseDump(readFileSync(path, 'utf8'), { file: path });
  const sampled = (d: ReturnType<typeof detectProfile>): number =>
    Number(/ the (\d+) flows sampled from /.exec(said(d.reasons).at(-1)!)?.[1]);
  const decided = detectProfile(flows, groups, ports);
  assert.equal(sampled(decided), sampleFlows(flows, QUICK_SAMPLE_PER_TABLE).length, said(decided.reasons).at(-1));
  // Two profiles alike lead each other by nothing: the quick sample cannot decide between them.
  const antrea = profileById('antrea')!;
  const undecided = detectProfile(flows, groups, ports, { profiles: [antrea, antrea] });
  assert.equal(sampled(undecided), sampleFlows(flows).length, said(undecided.reasons).at(-1));
  assert.ok(sampleFlows(flows).length > sampleFlows(flows, QUICK_SAMPLE_PER_TABLE).length);
  assert.equal(undecided.release?.release, decided.release?.release);
  assert.equal(undecided.layout?.id, decided.layout?.id);
});

const docText = readFileSync(join(corpusDir, 'antrea-ovs-pipeline-doc-HEAD.flows.txt'), 'utf8');
const docGroups = readFileSync(join(corpusDir, 'antrea-ovs-pipeline-doc-HEAD.groups.txt'), 'utf8');

test('the benchmark’s synthetic Antrea Node (default features, tables 0–28) reads as the flexible pipeline in the default layout', () => {
  const { path } = ensureDump({ flows: 20_000, seed: 1 });
  const text = readFileSync(path, 'utf8');
  const { detection, flows } = annotated(text, path);
  assert.equal(detection.profile.id, 'antrea', said(detection.reasons).join('\n'));
  assert.equal(detection.layout?.id, 'ipv4-default');
  assert.ok(detection.candidates[1]!.score * 2 < detection.score, JSON.stringify(detection.candidates));
  assert.ok(
    said(detection.reasons).some((r) =>
      /^read in layout ipv4-default .*the flows of 29 of the 29 numbered tables fit/.test(r),
    ),
    said(detection.reasons).join('\n'),
  );
  assert.ok(
    said(detection.reasons)
      .at(-1)!
      .endsWith(` flows sampled from ${flows.length}; reading the dump as release ${detection.release?.release}`),
    said(detection.reasons).at(-1),
  );
  // Numbers known from Antrea's own reports of a default Node: ConntrackState is 7, Output 28.
  const names = new Map(flows.map((a) => [a.table.number, a.table.name]));
  assert.equal(names.get(0), 'PipelineRootClassifier');
  assert.equal(names.get(7), 'ConntrackState');
  assert.equal(names.get(10), 'ServiceLB');
  assert.equal(names.get(28), 'Output');
  assert.deepEqual(
    countBy(
      flows.filter((a) => a.explanation?.kind === 'unknown'),
      meaning,
    ),
    new Map(),
  );
});

test('the pipeline document’s flows with numbers for names are read in the document’s layout, table by table as with names', () => {
  const named = annotated(docText, 'named');
  const plain = annotated(numbered(docText), 'numbered');
  assert.equal(plain.detection.profile.id, 'antrea');
  assert.equal(plain.detection.layout?.id, 'ipv4-proxyall-trafficcontrol', said(plain.detection.reasons).join('\n'));
  assert.equal(plain.flows.length, named.flows.length);
  plain.flows.forEach((a, i) => {
    assert.equal(a.table.name, named.flows[i]!.table.name, a.flow.origin.text);
    assert.equal(meaning(a), meaning(named.flows[i]!), a.flow.origin.text);
  });
});

test('a named pipeline given by hand is numbered by the annotator itself', () => {
  const dump = parseDump(numbered(docText), { file: 'numbered' });
  const pipeline = new Pipeline(dump.flows, dump.groups, dump.ports);
  const annotator = new Annotator(pipeline, { profile: profileById('antrea')! });
  assert.equal(annotator.profile?.numbering, 'ipv4-proxyall-trafficcontrol');
  assert.equal(annotator.tableInfo({ kind: 'number', number: 23 }).name, 'TrafficControl');
  // A named dump is left as it is.
  const named = parseDump(docText, { file: 'named' });
  assert.equal(
    new Annotator(new Pipeline(named.flows, named.groups, named.ports), { profile: profileById('antrea')! }).profile
      ?.numbering,
    undefined,
  );
});

test(
  'the document’s flows loaded into a real switch without table names and dumped read as with names',
  skipUnlessOvs,
  async () => {
    const ports = [
      'antrea-tun0',
      'antrea-gw0',
      'client-6-3353ef',
      'web-7975-274540',
      'db-755c6-5080e3',
      'antrea-tc-tap2',
      'antrea-l7-tap0',
      'antrea-l7-tap1',
    ];
    const defined = new Set([...docGroups.matchAll(/^group_id=(\d+)/gm)].map((m) => m[1]));
    // Flows that send to groups the document does not list, or through meters, cannot be loaded.
    const loadable = docText
      .split('\n')
      .filter((l) => !/\bmeter:/.test(l) && [...l.matchAll(/group:(\d+)/g)].every((m) => defined.has(m[1])));
    const [dumped, show] = await withOvsSwitch(
      { ports: ports.map((name, i) => ({ name, ofport: i + 1 })) },
      async (sw) => {
        await sw.addGroups(numbered(docGroups), 15);
        await sw.addFlows(numbered(loadable.join('\n')), 15);
        return [await sw.dumpFlows({ of: 15 }), await sw.show(15)];
      },
    );
    assert.match(dumped, /table=23, /);
    assert.doesNotMatch(dumped, /table=[A-Z]/);
    const portMap = parseDump(show, { file: 'show' }).ports;
    const plain = annotated(dumped, 'dump-flows', portMap);
    const named = annotated(loadable.join('\n'), 'listing', portMap);
    assert.equal(plain.detection.profile.id, 'antrea');
    assert.equal(plain.detection.layout?.id, 'ipv4-proxyall-trafficcontrol', said(plain.detection.reasons).join('\n'));
    assert.deepEqual(
      countBy(plain.flows, (a) => a.table.name ?? '?'),
      countBy(named.flows, (a) => a.table.name ?? '?'),
    );
    assert.deepEqual(countBy(plain.flows, meaning), countBy(named.flows, meaning));
  },
);
