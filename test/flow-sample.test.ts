/**
 * trace detects the profile, and learns address roles, from a per-table sample of the flows so
 * that a big dump starts fast; the sample must not change what is detected.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDump } from '../bench/generate.ts';
import { detectProfile } from '../src/analysis/detect-profile.ts';
import { SAMPLE_PER_TABLE, sampleFlows } from '../src/analysis/flow-sample.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { corpusDir } from './support/paths.ts';

function pipelineOf(text: string, file: string): Pipeline {
  const r = parseDump(text, { file });
  return new Pipeline(r.flows, r.groups, r.ports);
}

test('small tables are kept whole; a large one is cut to evenly spaced flows from first to last', () => {
  const lines = ['table=0,priority=0 actions=goto_table:5'];
  for (let i = 0; i < 1000; i++) lines.push(`table=5,priority=${1000 + i},ip,nw_dst=10.0.${i >> 8}.${i & 255} actions=drop`);
  const pipeline = pipelineOf(lines.join('\n'), 'big-table');
  const sample = sampleFlows(pipeline);
  const table5 = sample.filter((f) => f.table.kind === 'number' && f.table.number === 5);
  assert.equal(sample.length - table5.length, 1);
  assert.equal(table5.length, SAMPLE_PER_TABLE);
  // The table is sorted by priority, highest first; the sample spans all of it.
  assert.equal(table5[0]!.priority, 1999);
  assert.ok(table5.at(-1)!.priority < 1010, String(table5.at(-1)!.priority));
  assert.equal(new Set(table5).size, SAMPLE_PER_TABLE);
});

test('detection on the sample picks the profile and release it picks on every flow', () => {
  const files = readdirSync(corpusDir).filter((f) => f.endsWith('.txt')).map((f) => join(corpusDir, f));
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-sample-'));
  try {
    // A generated Antrea dump whose policy tables hold thousands of flows each.
    const generated = join(dir, 'antrea-30000.txt');
    writeDump(generated, { flows: 30_000, seed: 3 });
    for (const file of [...files, generated]) {
      const r = parseDump(readFileSync(file, 'utf8'), { file });
      if (r.flows.length === 0) continue;
      const sample = sampleFlows(new Pipeline(r.flows, r.groups, r.ports));
      const all = detectProfile(r.flows, r.groups, r.ports);
      const sampled = detectProfile(sample, r.groups, r.ports);
      assert.deepEqual([sampled.profile.id, sampled.release?.release], [all.profile.id, all.release?.release], file);
      if (file === generated) assert.ok(sample.length < r.flows.length / 4, `${sample.length} of ${r.flows.length}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
