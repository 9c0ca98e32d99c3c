/**
 * Detection, layout choice and trace's table words judge a big dump from a per-table sample of its
 * flows, so that a million-flow dump starts fast.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SAMPLE_PER_TABLE, sampleFlows } from '../src/analysis/detect/flow-sample.ts';
import { parseDump } from '../src/syntax/reader.ts';

test('small tables are kept whole; a large one is cut to evenly spaced flows from first to last', () => {
  const lines = ['table=0,priority=0 actions=goto_table:5'];
  for (let i = 0; i < 2000; i++)
    lines.push(`table=5,priority=${1000 + i},ip,nw_dst=10.0.${i >> 8}.${i & 255} actions=drop`);
  const { flows } = parseDump(lines.join('\n'), { file: 'big-table' });
  const sample = sampleFlows(flows);
  const table5 = sample.filter((f) => f.table.kind === 'number' && f.table.number === 5);
  assert.equal(sample.length - table5.length, 1);
  assert.equal(table5.length, SAMPLE_PER_TABLE);
  // Dump order is kept and the sample spans the whole table.
  assert.equal(table5[0]!.priority, 1000);
  assert.ok(table5.at(-1)!.priority > 2990, String(table5.at(-1)!.priority));
  assert.equal(new Set(table5).size, SAMPLE_PER_TABLE);
});

test('a dump whose tables are all small is its own sample', () => {
  const { flows } = parseDump('table=0,priority=1,ip actions=drop\ntable=1,priority=0 actions=drop\n', {
    file: 'small',
  });
  assert.equal(sampleFlows(flows), flows);
});
