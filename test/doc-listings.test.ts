/**
 * Every built-in profile's documentation listings, read as `show` reads them: the Antrea design
 * documents of each era (../shared/spec, the v1.0.0 and HEAD listings in ../shared/corpus) and
 * OpenShift SDN's expected flows of each rule version with the real 3.x dump. Every flow must be
 * explained (no `? no pattern`), no sentence may hold an empty placeholder, and a sentence may name
 * as the place a packet continues in only a table the flow itself goes to: the tables the
 * annotation says the sentence states (`continuesIn`) are compared with the flow's exits, and no
 * sentence template of the profile names a next table in its own words, outside `{next}`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jumpTargets } from '../src/model/flow-exits.ts';
import { annotatePipeline } from '../src/analysis/detect/profile-choice.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import type { TableRef } from '../src/model/tables.ts';
import { PROFILES } from '../src/profiles/index.ts';
import { showReport } from '../src/render/show.ts';
import { explanationText } from '../src/render/words/explanation.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { corpusDir, specDir } from './support/paths.ts';

/** A listing, the profile that documents it, and the release it shows. */
const LISTINGS: readonly { path: string; profile: string; release: string }[] = [
  { path: join(specDir, 'antrea-ovs-pipeline.md'), profile: 'antrea-v1', release: '0.13' },
  // ClusterNetworkPolicy tables 45 and 85, no metric tables: the pipeline of 0.8 (pipeline.go at v0.8.0).
  { path: join(specDir, 'antrea-ovs-pipeline-cnp-era.txt'), profile: 'antrea-cnp', release: '0.8' },
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
 * backslash continuations joined and the `1. ` numbering of listings removed. A document rendered
 * to text runs a numbered listing on after its prose (`… like this: 1. table=45, … 2. table=45, …`):
 * each numbered item is a line of its own, the prose before the first left out.
 */
export function listingLines(text: string, markdown: boolean): string {
  const blocks = markdown ? [...text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].map((m) => m[1]!) : [];
  const body = (blocks.length > 0 ? blocks.join('\n') : text).replace(/\\\n\s*/g, ' ');
  return (
    body
      .split('\n')
      .flatMap((l) => {
        const items = l.split(/(?:^|\s)\d+\.\s+(?=(?:table|cookie|group_id)=)/);
        return items.length > 1 ? items.slice(1) : items;
      })
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
  test(`${name}: detected as ${profile}, read by show in ${release}, every flow explained, every placeholder filled, every next table one the flow goes to`, () => {
    const d = parseDump(listingLines(readFileSync(path, 'utf8'), path.endsWith('.md')), { file: name });
    assert.ok(d.flows.length >= 10, `${d.flows.length} flows`);
    assert.equal(annotatePipeline(new Pipeline(d.flows, d.groups, d.ports)).profile.id, profile);
    const read = annotatePipeline(new Pipeline(d.flows, d.groups, d.ports), { profile, release });
    const report = showReport(read);
    const problems: string[] = [];
    /** A table as one identity, however the flow or the sentence writes it (number, dump name, profile name). */
    const identity = (ref: TableRef): string => {
      const info = read.annotator.tableInfo(ref);
      return info.spec?.name ?? info.name ?? `#${info.number}`;
    };
    for (const t of report.tables) {
      for (const flow of t.flows) {
        const a = report.annotate(flow);
        const line = flow.origin.text.trim();
        const e = a.explanation;
        if (!e) problems.push(`no explanation: ${line}`);
        else if (e.kind === 'unknown') problems.push(`? ${explanationText(e)}: ${line}`);
        else {
          for (const re of EMPTY_PLACEHOLDER)
            if (re.test(explanationText(e)))
              problems.push(`empty placeholder ${re}: “${explanationText(e)}” (${line})`);
          // The flow's exits: every table its actions (nested ones too) go to.
          const exits = new Set(jumpTargets(flow.actions).map(identity));
          for (const stated of e.continuesIn.map(identity)) {
            if (!exits.has(stated))
              problems.push(
                `states next table ${stated}, the flow goes to ${[...exits].join('/') || 'no table'}: “${explanationText(e)}” (${line})`,
              );
          }
        }
      }
    }
    assert.deepEqual(problems, []);
  });
}

test('no sentence template of a built-in profile names the table a packet continues in in its own words: only {next}, from the flow, does', () => {
  const problems: string[] = [];
  for (const profile of PROFILES) {
    const names = [...new Set(profile.tables.flatMap((t) => [t.name, ...(t.aliases ?? [])]))];
    const said = (where: string, template: string): void => {
      const words = template.replace(/\{[^}]*\}/g, '{}');
      for (const n of names) {
        if (new RegExp(`\\b(?:in|to) ${n.replace(/[()]/g, '\\$&')}(?![\\w-])`).test(words))
          problems.push(`${profile.id} ${where} names ${n}: “${template}”`);
      }
    };
    for (const t of profile.tables) {
      t.patterns.forEach((p, i) => said(`${t.name} pattern ${i}`, p.meaning));
      if (t.miss.action === 'custom') said(`${t.name} miss`, t.miss.description);
    }
  }
  assert.deepEqual(problems, []);
});
