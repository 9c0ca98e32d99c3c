import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FlowIndex, MatchIndex, newTermId, type Ranked, type Term } from '../src/model/flow-index.ts';
import type { Flow } from '../src/model/flow.ts';
import { matchCovers } from '../src/model/match.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { corpusDir } from './support/paths.ts';

function flowsOf(text: string): Flow[] {
  const r = parseDump(text, { file: 'test' });
  assert.deepEqual(
    r.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  return r.flows;
}

/** The highest-priority flow at `min` or above covering `flow`, the first in match order among equals: by scanning. */
function coveringByScan(inMatchOrder: readonly Flow[], flow: Flow, min: number): Flow | undefined {
  return inMatchOrder.find((c) => c !== flow && c.priority >= min && matchCovers(c.match, flow.match));
}

test('the match index finds the covering flow a scan of every flow finds, on every corpus dump', () => {
  const dumps = readdirSync(corpusDir).filter((f) => f.endsWith('.txt') && !f.endsWith('.groups.txt'));
  assert.ok(dumps.length >= 5);
  let asked = 0;
  let found = 0;
  for (const name of dumps) {
    const path = join(corpusDir, name);
    const r = parseDump(readFileSync(path, 'utf8'), { file: path });
    const pipeline = new Pipeline(r.flows, r.groups, r.ports);
    for (const table of pipeline.tables.values()) {
      const flows = table.flows;
      const index = new MatchIndex<Flow>();
      for (const f of flows) index.add(f);
      for (const f of flows) {
        const min = f.priority + 1;
        const expected = coveringByScan(flows, f, min);
        const got = index.covering(f.match, min);
        asked++;
        if (expected) found++;
        // Of several covering flows of the best priority, either may be named: the priority must agree.
        assert.equal(got?.priority, expected?.priority, `${name}: ${f.origin.line}`);
        if (got) assert.ok(matchCovers(got.match, f.match));
      }
    }
  }
  assert.ok(asked > 500 && found > 10, `${asked} asked, ${found} covered`);
});

test('a covering flow below the priority asked for is not taken; at it, it is', () => {
  const [wide, narrow] = flowsOf(
    ['priority=100,ip,nw_dst=10.0.0.0/8 actions=drop', 'priority=50,ip,nw_dst=10.1.2.3 actions=output:1'].join('\n'),
  );
  const index = new MatchIndex<Flow>();
  index.add(wide!);
  assert.equal(index.covering(narrow!.match, 100), wide);
  assert.equal(index.covering(narrow!.match, 101), undefined);
  // The wide flow does not cover itself under a narrower mask the other way round.
  const other = new MatchIndex<Flow>();
  other.add(narrow!);
  assert.equal(other.covering(wide!.match, 0), undefined);
});

test('a port known only by name meets the same name only, never a number', () => {
  const flows = flowsOf(
    [
      'priority=100,in_port="pod-a" actions=drop',
      'priority=90,in_port=3 actions=drop',
      'priority=10,in_port="pod-a",ip actions=output:2',
      'priority=10,in_port="pod-b",ip actions=output:2',
      'priority=10,in_port=3,ip actions=output:2',
    ].join('\n'),
  );
  const index = new MatchIndex<Flow>();
  index.add(flows[0]!);
  index.add(flows[1]!);
  assert.equal(index.covering(flows[2]!.match, 11), flows[0]);
  assert.equal(index.covering(flows[3]!.match, 11), undefined);
  assert.equal(index.covering(flows[4]!.match, 11), flows[1]);
});

interface Item extends Ranked {
  readonly name: string;
}

test('a subtable keeps the flows of one value in match order and finds them by value, narrow or wide', () => {
  const narrow: Term = { id: newTermId(), parts: [{ slot: 'reg0', mask: 0xffn }] };
  const wide: Term = { id: newTermId(), parts: [{ slot: 'ipv6_dst', mask: (1n << 128n) - 1n }] };
  const index = new FlowIndex<Item>();
  const a = index.subtable([narrow]);
  const b = index.subtable([narrow, wide]);
  assert.equal(index.subtable([narrow]), a);
  assert.notEqual(a, b);
  assert.deepEqual(b.slots, ['reg0', 'ipv6_dst']);
  const v6 = (1n << 127n) | 5n;
  index.insert(b, [7n, v6], { priority: 10, name: 'low' }, 0);
  index.insert(b, [7n, v6], { priority: 30, name: 'high' }, 1);
  index.insert(b, [7n, v6], { priority: 10, name: 'low, later' }, 2);
  index.insert(a, [7n], { priority: 20, name: 'narrow' }, 3);
  assert.deepEqual(
    b.get([7n, v6])?.map((i) => i.name),
    ['high', 'low', 'low, later'],
  );
  assert.equal(b.get([7n, 5n]), undefined);
  const packet = new Map([
    ['reg0', 0x1207n],
    ['ipv6_dst', v6],
  ]);
  assert.deepEqual(
    a.probe((s) => packet.get(s) ?? 0n)?.map((i) => i.name),
    ['narrow'],
  );
  assert.deepEqual(index.inLookupOrder, [b, a]);
});

test('a subtable of many values finds each of them, and none it was not given', () => {
  const ethType: Term = { id: newTermId(), parts: [{ slot: 'eth_type', mask: 0xffffn }] };
  const address: Term = { id: newTermId(), parts: [{ slot: 'nw_dst', mask: 0xffffffffn }] };
  const index = new FlowIndex<Item>();
  const sub = index.subtable([ethType, address]);
  const addresses = Array.from(
    { length: 20_000 },
    (_, i) => BigInt((0x0a000000 + i * 7919) >>> 0) | (BigInt(i & 1) << 31n),
  );
  addresses.forEach((a, i) => index.insert(sub, [0x800n, a], { priority: i % 7, name: a.toString(16) }, i));
  for (const a of addresses)
    assert.deepEqual(
      sub.get([0x800n, a])?.map((x) => x.name),
      [a.toString(16)],
    );
  assert.equal(sub.get([0x86ddn, addresses[0]!]), undefined);
  assert.equal(sub.get([0x800n, 0xffffffffn]), undefined);
  assert.equal(sub.maxPriority, 6);
});
