/**
 * OpenShift SDN nodes as they are: pipelines of rule versions 7 (generated from openshift/sdn's
 * sources, both plugins), 12 and 13 (openshift/sdn's expected flows, 13 also with each plugin's
 * flows) and the real 3.x dump, each
 * loaded into a real Open vSwitch bridge br0 and dumped as an operator would, with and without
 * port names. Every dump is recognised as OpenShift SDN with its rule version in the detected
 * range, with or without the table-253 note; every flow is explained, and a dump that names its
 * ports reads flow for flow as the numeric one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Annotator } from '../src/analysis/annotate/annotate.ts';
import { chooseProfile } from '../src/analysis/detect/profile-choice.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import { profileLine } from '../src/render/show.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { withSdnNode } from './support/openshift-sdn-bridge.ts';
import { openshiftV7Flows } from './support/openshift-sdn-v7.ts';
import { openshiftV13Flows } from './support/openshift-sdn-v13.ts';
import { skipUnlessOvs } from './support/ovs.ts';
import { corpusDir } from './support/paths.ts';
import { detectionReasonText } from '../src/render/words/profile.ts';

/** Detection's reasons, each in its sentence. */
const said = (reasons: readonly Parameters<typeof detectionReasonText>[0][]): string[] =>
  reasons.map(detectionReasonText);

const corpus = (file: string): string => readFileSync(join(corpusDir, file), 'utf8');

const PIPELINES: readonly { name: string; version: string; flows: () => string }[] = [
  { name: 'rule version 7, multitenant (no conntrack)', version: '7', flows: () => openshiftV7Flows('multitenant') },
  { name: 'rule version 7, networkpolicy', version: '7', flows: () => openshiftV7Flows('networkpolicy') },
  {
    name: 'rule version 13, multitenant plugin on the expected flows',
    version: '13',
    flows: () => openshiftV13Flows('multitenant'),
  },
  {
    name: 'rule version 13, networkpolicy plugin on the expected flows',
    version: '13',
    flows: () => openshiftV13Flows('networkpolicy'),
  },
  {
    name: 'rule version 12 (expected flows)',
    version: '12',
    flows: () => corpus('openshift-sdn-expectedFlows-v12.txt'),
  },
  {
    name: 'rule version 13 (expected flows)',
    version: '13',
    flows: () => corpus('openshift-sdn-expectedFlows-v13.txt'),
  },
  {
    name: 'rule version 3 (real 3.x dump)',
    version: '3',
    flows: () =>
      corpus('openshift-sdn-3.x-multitenant-real-dump.txt').replace(
        /duration=[^,]*, |n_packets=\d+, n_bytes=\d+, /g,
        '',
      ),
  },
];

interface Reading {
  readonly release?: string;
  /** The first line show prints: profile and release range. */
  readonly headline: string;
  readonly reasons: readonly string[];
  /** Per flow, in dump order: table/priority and which pattern explained it. */
  readonly fits: readonly string[];
  readonly unexplained: readonly string[];
}

function readDump(text: string): Reading {
  const d = parseDump(text, { file: 'dump' });
  assert.deepEqual(d.diagnostics, []);
  const choice = chooseProfile(d.flows, d.groups, d.ports);
  assert.equal(choice.profile.id, 'openshift-sdn', said(choice.note.reasons).join('\n'));
  const pipeline = new Pipeline(d.flows, d.groups, d.ports);
  const annotated = new Annotator(pipeline, choice).annotatePipeline(pipeline).flatMap((t) => t.flows);
  return {
    ...(choice.release !== undefined ? { release: choice.release } : {}),
    headline: profileLine(choice.note),
    reasons: said(choice.note.reasons),
    fits: annotated.map(
      (a) =>
        `${a.table.number}/${a.flow.priority}/${a.flow.cookie}: ${a.explanation?.kind === 'pattern' ? a.explanation.index : (a.explanation?.kind ?? '-')}`,
    ),
    unexplained: annotated.filter((a) => a.explanation?.kind === 'unknown').map((a) => a.flow.origin.text.trim()),
  };
}

/** The range of rule versions detection says explain the flows (`releases 11–12 explain …`, `release 13 explains …`), and whether it is open-ended. */
function explainedRange(r: Reading): [number, number, boolean] {
  const why = r.reasons.find((x) => / explains? all/.test(x));
  assert.ok(why, r.reasons.join('\n'));
  const m = /releases? (\d+)(?:–(\d+)| and later)?/.exec(why)!;
  const open = why.includes('and later');
  return [Number(m[1]), m[2] !== undefined ? Number(m[2]) : open ? 13 : Number(m[1]), open];
}

for (const p of PIPELINES) {
  test(`OpenShift SDN ${p.name}: recognised with and without its note, every flow explained`, () => {
    const text = p.flows();
    const withNote = readDump(text);
    assert.equal(withNote.release, p.version);
    assert.deepEqual(withNote.unexplained, []);
    // Excerpts and old dumps lack the note: the tables, ports, registers and cookies still tell.
    const bare = readDump(
      text
        .split('\n')
        .filter((l) => !/table=253\b/.test(l))
        .join('\n'),
    );
    const [from, to, open] = explainedRange(bare);
    assert.ok(
      from <= Number(p.version) && Number(p.version) <= to,
      `${p.version} in ${from}–${to}: ${bare.reasons.join('; ')}`,
    );
    assert.ok(Number(bare.release) >= from && Number(bare.release) <= to);
    // The headline gives the whole range, not only the release read in.
    const range =
      from === to && !open
        ? `release ${from}`
        : `${open ? `releases ${from} and later` : `releases ${from}–${to}`}, read as ${bare.release}`;
    assert.ok(bare.headline.startsWith(`profile openshift-sdn (${range}), detected`), `${bare.headline} — ${range}`);
    assert.deepEqual(bare.unexplained, []);
  });

  test(
    `OpenShift SDN ${p.name}: loaded into br0, dumped with and without port names, read flow for flow alike`,
    skipUnlessOvs,
    async () => {
      const text = p.flows();
      await withSdnNode(text, async (sw) => {
        const numeric = readDump(await sw.dumpFlows({ of: 13 }));
        const named = readDump(await sw.dumpFlows({ of: 13, names: true }));
        assert.equal(numeric.release, p.version);
        assert.deepEqual(numeric.unexplained, []);
        assert.ok(numeric.fits.length >= 20);
        assert.equal(named.release, numeric.release);
        assert.equal(named.headline, numeric.headline);
        assert.deepEqual(named.fits, numeric.fits);
      });
    },
  );
}
