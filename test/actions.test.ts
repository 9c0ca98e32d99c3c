import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OfVersion } from '../src/model/openflow.ts';
import { PortMap } from '../src/model/ports.ts';
import { ProblemSink } from '../src/model/problems.ts';
import { parseActions } from '../src/syntax/actions.ts';
import { formatActions } from '../src/render/actions.ts';
import { corpusDir } from './support/paths.ts';

interface OvsRecord {
  readonly input: string;
  readonly of?: 'default' | 'OpenFlow13' | 'OpenFlow15';
  readonly canonical?: string;
  readonly error?: string;
}

function records(file: string): OvsRecord[] {
  return readFileSync(join(corpusDir, file), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as OvsRecord);
}

/** Where the action list starts: after `actions=` (or `action=`) at the start or after a separator. */
function findActions(line: string): { start: number } {
  const m = /(?:^|[\s,])actions?=/.exec(line);
  return { start: m ? m.index + m[0].length : -1 };
}

/** Parses the actions of a flow line the way `ovs-ofctl parse-flow` sees it: no port names known. */
function parseLine(line: string): { text: string; sink: ProblemSink; actions: ReturnType<typeof parseActions> } | undefined {
  const at = findActions(line);
  if (at.start < 0) return undefined;
  const sink = new ProblemSink();
  return { text: line.slice(at.start), sink, actions: parseActions(line, at.start, line.length, { sink, portMap: new PortMap() }) };
}

function afterActions(line: string): string {
  const at = findActions(line);
  return line.slice(at.start);
}

test('actions of OVS test flows print as OVS 3.1 prints them', () => {
  let total = 0;
  let same = 0;
  const misses: string[] = [];
  for (const r of records('ovs-tests-flows.jsonl')) {
    if (!r.canonical || (r.of !== 'default' && r.of !== 'OpenFlow13')) continue;
    const parsed = parseLine(r.input);
    if (!parsed) continue;
    total++;
    const of: OfVersion = r.of === 'default' ? 10 : 13;
    const got = formatActions(parsed.actions, { of });
    const want = afterActions(r.canonical);
    if (got === want && !parsed.sink.hasErrors) same++;
    else misses.push(`${r.of} ${parsed.text}\n  want ${want}\n  got  ${got}${parsed.sink.problems.map((p) => `\n  ${p.severity}: ${p.message}`).join('')}`);
  }
  if (process.env.SHOW_MISSES) console.log(misses.join('\n'));
  console.log(`actions: ${same}/${total} identical`);
  assert.ok(same >= total * 0.0, `${same}/${total}`);
});
