import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDump } from '../src/syntax/reader.ts';
import { flowJson, groupJson, jsonReplacer } from '../src/render/json.ts';
import { JsonText, jsonPieces, LazyList, StreamedObject } from '../src/render/json-stream.ts';
import { repoRoot } from './support/paths.ts';

const text = (v: unknown): string => [...jsonPieces(v)].join('');

test('pieces join to exactly what JSON.stringify gives', () => {
  const dump = readFileSync(join(repoRoot, 'examples', 'antrea-proxy', 'dump-flows.of15.txt'), 'utf8');
  const groups = readFileSync(join(repoRoot, 'examples', 'antrea-proxy', 'dump-groups.of15.txt'), 'utf8');
  const r = parseDump(dump + groups, { file: 'x' });
  const report = {
    schemaVersion: 1,
    flows: r.flows.map(flowJson),
    groups: r.groups.map(groupJson),
    empty: [],
    none: {},
    skipped: undefined,
    n: null,
  };
  assert.equal(text(report), JSON.stringify(report, jsonReplacer, 2));
  for (const v of [1, 'a\nb', null, [], {}, [undefined, 2n], { a: { b: [{ c: 1 }] } }, [[1, [2, [3]]]]]) {
    assert.equal(text(v), JSON.stringify(v, jsonReplacer, 2), JSON.stringify(v, jsonReplacer));
  }
});

test('a long list is written in pieces of a run of its elements each, not as one string', () => {
  const big = { items: Array.from({ length: 1000 }, (_, i) => ({ i, text: 'x'.repeat(100) })) };
  const pieces = [...jsonPieces(big)];
  const longest = Math.max(...pieces.map((p) => p.length));
  // A run is about 16k characters, and ends with the element that makes it that long.
  assert.ok(longest < (1 << 14) + 200, `longest piece ${longest}`);
  assert.ok(pieces.length >= (1000 * 100) / ((1 << 14) + 200), `${pieces.length} pieces`);
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

test('JSON texts are copied as their one line, and parse back to the values they encode', () => {
  const refs = Array.from({ length: 5000 }, (_, i) => ({ line: i, match: `ip,nw_src=10.0.${i >> 8}.${i & 255}` }));
  const report = {
    items: [new StreamedObject({ id: 1, flows: new LazyList(refs, (r) => new JsonText(JSON.stringify(r))) })],
  };
  const pieces = [...jsonPieces(report)];
  const out = pieces.join('');
  assert.deepEqual(JSON.parse(out), { items: [{ id: 1, flows: refs }] });
  // Each reference is one line of the list, at the list's indentation.
  assert.ok(out.includes(`[\n        {"line":0,"match":"ip,nw_src=10.0.0.0"},\n        {"line":1,`), out.slice(0, 200));
  // Runs of texts are joined into pieces, neither one per reference nor one for the whole list.
  assert.ok(pieces.length > 5 && pieces.length < 100, `${pieces.length} pieces`);
  assert.ok(Math.max(...pieces.map((p) => p.length)) < 20_000);
});

test('a streamed object is written member by member at any depth, the same as its members whole', () => {
  let made = 0;
  const inner = new StreamedObject({ c: new LazyList([1, 2], (n) => (made++, { n })), d: 'x' });
  const pieces = jsonPieces({ a: [new StreamedObject({ b: inner })] });
  const texts: string[] = [];
  // The first element of the innermost list is made only when the writer reaches it.
  for (const piece of pieces) {
    texts.push(piece);
    if (piece.includes('"c"')) assert.equal(made, 0);
  }
  const out = texts.join('');
  assert.equal(made, 2);
  assert.equal(out, JSON.stringify({ a: [{ b: { c: [{ n: 1 }, { n: 2 }], d: 'x' } }] }, null, 2));
});

test('inside an element written whole, a JSON text stands for its value', () => {
  const whole = { outer: [{ inner: [new JsonText('{"x":[1,2]}')] }] };
  assert.equal([...jsonPieces(whole)].join(''), JSON.stringify({ outer: [{ inner: [{ x: [1, 2] }] }] }, null, 2));
});
