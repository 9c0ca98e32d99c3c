/**
 * Every built-in profile's documentation listings, read as `show` reads them: the Antrea design
 * documents of each era (../shared/spec, the v1.0.0 and HEAD listings in ../shared/corpus) and
 * OpenShift SDN's expected flows of each rule version with the real 3.x dump. Every flow must be
 * explained (no `? no pattern`), no sentence may hold an empty placeholder, and a sentence may name
 * as the place a packet continues in only a table the flow itself goes to.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jumpTargets } from '../src/analysis/pattern-fit.ts';
import { annotatePipeline } from '../src/analysis/profile-choice.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import { inVersion } from '../src/profiles/versions.ts';
import { showReport } from '../src/render/show.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { corpusDir, specDir } from './support/paths.ts';

/** A listing, the profile that documents it, and the release it shows. */
const LISTINGS: readonly { path: string; profile: string; release: string }[] = [
  { path: join(specDir, 'antrea-ovs-pipeline.md'), profile: 'antrea-v1', release: '0.13' },
  { path: join(specDir, 'antrea-ovs-pipeline-cnp-era.txt'), profile: 'antrea-v1', release: '1.2' },
  { path: join(specDir, 'antrea-ovs-pipeline-proxy.md'), profile: 'antrea-proxy', release: '1.4' },
  { path: join(corpusDir, 'antrea-ovs-pipeline-doc-v1.0.0.flows.txt'), profile: 'antrea-v1', release: '1.0' },
  // Its ConntrackCommit flow (ct_mark bit 5) is that of 2.5 and later.
  { path: join(corpusDir, 'antrea-ovs-pipeline-doc-HEAD.flows.txt'), profile: 'antrea', release: '2.5' },
  { path: join(specDir, 'openshift-sdn-centralized-snat.md'), profile: 'openshift-sdn', release: '10' },
  { path: join(corpusDir, 'openshift-sdn-3.x-multitenant-real-dump.txt'), profile: 'openshift-sdn', release: '3' },
  { path: join(corpusDir, 'openshift-sdn-expectedFlows-v12.txt'), profile: 'openshift-sdn', release: '12' },
  { path: join(corpusDir, 'openshift-sdn-expectedFlows-v13.txt'), profile: 'openshift-sdn', release: '13' },
];

/**
 * The flow lines of a document: its fenced code blocks (the whole text when it has none), with
 * backslash continuations joined and the `1. ` numbering of listings removed.
 */
export function listingLines(text: string, markdown: boolean): string {
  const blocks = markdown ? [...text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].map((m) => m[1]!) : [];
  const body = (blocks.length > 0 ? blocks.join('\n') : text).replace(/\\\n\s*/g, ' ');
  return (
    body
      .split('\n')
      .filter((l) => l.includes('actions=') || /^\s*(?:\d+\.\s+)*group_id=/.test(l))
      .map((l) => l.replace(/^\s*(?:\d+\.\s+)+/, ''))
      .join('\n') + '\n'
  );
}

/** What is left of a placeholder that got no value: `()`, `zone )`, `Traffic to is`, `continue in.`. */
const EMPTY_PLACEHOLDER = [
  /\{[^}]*\}/,
  /\(\s*\)/,
  /\(\s|\s\)/,
  /\s[.,;:]/,
  / {2}/,
  /\b(?:continues?|go|goes|sent|passes|resubmitted|jumps?) (?:in|to)[.,;:)]/,
  /\b(?:to|from|for) (?:is|are)\b/,
];

for (const { path, profile, release } of LISTINGS) {
  const name = path.slice(path.lastIndexOf('/') + 1);
  test(`${name}: read by show as ${profile} ${release}, every flow explained, every placeholder filled, every next table one the flow goes to`, () => {
    const d = parseDump(listingLines(readFileSync(path, 'utf8'), path.endsWith('.md')), { file: name });
    assert.ok(d.flows.length >= 10, `${d.flows.length} flows`);
    const read = annotatePipeline(new Pipeline(d.flows, d.groups, d.ports), { profile, release });
    const report = showReport(read);
    const spec = read.annotator.profile!;
    const dumpNames = [...read.pipeline.tables.values()].flatMap((t) => (t.ref.kind === 'name' ? [t.ref.name] : []));
    const tableNames = [...new Set([...spec.tables.filter((t) => inVersion(t, release)).flatMap((t) => [t.name, ...(t.aliases ?? [])]), ...dumpNames])];
    const problems: string[] = [];
    for (const t of report.tables) {
      for (const flow of t.flows) {
        const a = report.annotate(flow);
        const line = flow.origin.text.trim();
        const e = a.explanation;
        if (!e) problems.push(`no explanation: ${line}`);
        else if (e.kind === 'unknown') problems.push(`? ${e.reason}: ${line}`);
        else {
          for (const re of EMPTY_PLACEHOLDER) if (re.test(e.meaning)) problems.push(`empty placeholder ${re}: “${e.meaning}” (${line})`);
          // Names the flow may continue in: its own table and the tables its actions go to, as every report names them.
          const reach = new Set<string | undefined>([t.table.name, t.table.profileName]);
          for (const ref of jumpTargets(flow.actions)) {
            const to = read.annotator.tableInfo(ref);
            for (const n of [to.name, to.profileName, ...(to.spec?.aliases ?? [])]) reach.add(n);
          }
          for (const n of tableNames) {
            const stated = new RegExp(`\\b(?:in|to) ${n}\\b(?! (?:zone|port|mark|tag|flow|address|traffic))`).test(e.meaning);
            if (stated && !reach.has(n)) problems.push(`states next table ${n}, the flow goes to ${[...reach].filter(Boolean).join('/')}: “${e.meaning}” (${line})`);
          }
        }
      }
    }
    assert.deepEqual(problems, []);
  });
}
