/** The pipeline model: tables in order, flows in the order the switch matches them. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Flow } from '../src/model/flow.ts';
import { inMatchOrder, Pipeline } from '../src/model/pipeline.ts';
import { parseDump } from '../src/syntax/reader.ts';

const flows = (text: string) => parseDump(text, { file: 'pipeline.txt' }).flows;

test('pipeline: flows by descending priority, equal priorities in dump order, across interleaved tables', () => {
  const dump = [
    'table=3,priority=10,ip actions=drop',
    'table=0,priority=5,in_port=1 actions=drop',
    'table=3,priority=200,tcp actions=drop',
    'table=3,priority=10,udp actions=drop',
    'table=0,priority=5,in_port=2 actions=drop',
    'table=3,priority=200,icmp actions=drop',
    'table=3,priority=0 actions=drop',
    'table=0,priority=7,in_port=3 actions=drop',
    'table=3,priority=10,arp actions=drop',
  ].join('\n');
  const p = new Pipeline(flows(dump));
  const lines = (n: number): number[] =>
    [...p.tables.values()].find((t) => t.ref.kind === 'number' && t.ref.number === n)!.flows.map((f) => f.origin.line);
  assert.deepEqual([...p.tables.keys()], ['#0', '#3']);
  assert.deepEqual(lines(0), [8, 2, 5]);
  assert.deepEqual(lines(3), [3, 6, 1, 4, 9, 7]);
  assert.equal(p.flowCount, 9);
});

test('pipeline: numbered tables in numeric order before named tables in order of appearance', () => {
  const dump = [
    'table="Zeta",priority=1 actions=drop',
    'table=10,priority=1 actions=drop',
    'table="Alpha",priority=1 actions=drop',
    'table=2,priority=1 actions=drop',
  ].join('\n');
  const p = new Pipeline(flows(dump));
  assert.deepEqual([...p.tables.keys()], ['#2', '#10', 'Zeta', 'Alpha']);
});

test('pipeline: match order is a stable sort by descending priority, whether priorities are dense or spread thin', () => {
  // Counted over the range of priorities, or sorted when they are few over a wide range: both must agree with a stable sort.
  let seed = 7;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (const [count, range] of [
    [1, 10],
    [50, 3],
    [50, 200],
    [50, 65536],
    [3000, 65536],
    [3000, 100],
  ] as const) {
    const low = random(65536 - range);
    const given = Array.from({ length: count }, (_, place) => ({ priority: low + random(range), place }));
    const expected = [...given].sort((a, b) => b.priority - a.priority || a.place - b.place);
    const ordered = inMatchOrder(given as unknown as Flow[]) as unknown as typeof given;
    assert.deepEqual(ordered, expected, `${count} flows over ${range} priorities`);
  }
});
