import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { flowKey, type Naming } from '../src/model/flow-key.ts';
import { SlotIndex, sameSlot, slotHash } from '../src/model/slot-index.ts';
import type { Flow } from '../src/model/flow.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { corpusDir } from './support/paths.ts';

const dumps = readdirSync(corpusDir).filter((f) => f.endsWith('.txt') && !f.endsWith('.groups.txt'));

function read(name: string): { flows: readonly Flow[]; naming: Naming } {
  const path = join(corpusDir, name);
  const r = parseDump(readFileSync(path, 'utf8'), { file: path });
  return { flows: r.flows, naming: r.ports.size > 0 ? { ports: r.ports } : {} };
}

/** What the index must do, with flowKey strings: a queue per key, keys in order of first appearance. */
function reference(flows: readonly Flow[], naming: Naming) {
  const queues = new Map<string, Flow[]>();
  for (const f of flows) {
    const k = flowKey(f, naming);
    const q = queues.get(k);
    if (q) q.push(f);
    else queues.set(k, [f]);
  }
  return {
    take: (f: Flow): Flow | undefined => queues.get(flowKey(f, naming))?.shift(),
    rest: (): Flow[] => [...queues.values()].flat(),
  };
}

test('the corpus dumps hold every flow key the slot index tells apart', () => {
  assert.ok(dumps.length >= 5);
  for (const name of dumps) {
    const { flows, naming } = read(name);
    const keys = new Set(flows.map((f) => flowKey(f, naming)));
    // Flows of one key share a hash; sameSlot agrees with key equality on neighbours and on equal hashes.
    const byHash = new Map<number, Flow[]>();
    for (const f of flows) byHash.set(slotHash(f, naming), [...(byHash.get(slotHash(f, naming)) ?? []), f]);
    for (const group of byHash.values())
      for (const f of group)
        for (const g of group) assert.equal(sameSlot(f, g, naming), flowKey(f, naming) === flowKey(g, naming), name);
    for (let i = 1; i < flows.length; i++)
      assert.equal(
        sameSlot(flows[i - 1]!, flows[i]!, naming),
        flowKey(flows[i - 1]!, naming) === flowKey(flows[i]!, naming),
      );
    assert.ok(keys.size <= byHash.size + 1, `${name}: ${keys.size} keys, ${byHash.size} hashes`);
  }
});

test('the slot index takes flows as a queue per flow key and leaves the rest in key order', () => {
  for (const name of dumps) {
    const { flows, naming } = read(name);
    // Every slot twice (a dump concatenated with itself), and a side with half the flows in reverse.
    const doubled = [...flows, ...flows.slice().reverse()];
    const wanted = flows.filter((_, i) => i % 2 === 0).reverse();
    const index = new SlotIndex(doubled, naming);
    const ref = reference(doubled, naming);
    for (const f of wanted) assert.equal(index.take(f), ref.take(f), `${name} line ${f.origin.line}`);
    assert.deepEqual([...index.rest()], ref.rest(), name);
  }
});
