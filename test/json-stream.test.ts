import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDump } from '../src/syntax/reader.ts';
import { flowJson, groupJson, jsonReplacer } from '../src/render/json.ts';
import { jsonPieces, LazyList } from '../src/render/json-stream.ts';
import { repoRoot } from './support/paths.ts';

const text = (v: unknown): string => [...jsonPieces(v)].join('');

test('pieces join to exactly what JSON.stringify gives', () => {
  const dump = readFileSync(join(repoRoot, 'examples', 'antrea-proxy', 'dump-flows.of15.txt'), 'utf8');
  const groups = readFileSync(join(repoRoot, 'examples', 'antrea-proxy', 'dump-groups.of15.txt'), 'utf8');
  const r = parseDump(dump + groups, { file: 'x' });
  const report = { schemaVersion: 1, flows: r.flows.map(flowJson), groups: r.groups.map(groupJson), empty: [], none: {}, skipped: undefined, n: null };
  assert.equal(text(report), JSON.stringify(report, jsonReplacer, 2));
  for (const v of [1, 'a\nb', null, [], {}, [undefined, 2n], { a: { b: [{ c: 1 }] } }, [[1, [2, [3]]]]]) {
    assert.equal(text(v), JSON.stringify(v, jsonReplacer, 2), JSON.stringify(v, jsonReplacer));
  }
});

test('no piece holds more than one element of a long list', () => {
  const big = { items: Array.from({ length: 1000 }, (_, i) => ({ i, text: 'x'.repeat(100) })) };
  const longest = Math.max(...[...jsonPieces(big)].map((p) => p.length));
  assert.ok(longest < 200, `longest piece ${longest}`);
});

test('a lazy list is written as the array it stands for, making one element at a time', () => {
  let made = 0;
  const lazy = new LazyList([1, 2, 3], (n) => {
    made++;
    return { n, square: n * n };
  });
  const pieces = jsonPieces({ items: lazy, empty: new LazyList([], (n: number) => n) });
  assert.equal(made, 0);
  const out = [...pieces].join('');
  assert.equal(made, 3);
  const eager = { items: [1, 2, 3].map((n) => ({ n, square: n * n })), empty: [] };
  assert.equal(out, JSON.stringify(eager, jsonReplacer, 2));
});

test('a lazy list inside an element written whole is made whole there', () => {
  const nested = { outer: [{ inner: { deeper: new LazyList([1, 2], (n) => n * 10) } }] };
  assert.equal([...jsonPieces(nested)].join(''), JSON.stringify({ outer: [{ inner: { deeper: [10, 20] } }] }, null, 2));
});
