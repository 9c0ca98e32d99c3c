import { test } from 'node:test';
import assert from 'node:assert/strict';
import { logicalLines } from '../src/syntax/lines.ts';

const texts = (input: string): string[] => [...logicalLines(input)].map((l) => l.text);

test('CRLF, lone CR and a missing final newline all end lines', () => {
  assert.deepEqual(texts('a=1 actions=drop\r\nb actions=drop\rc actions=drop'), [
    'a=1 actions=drop',
    'b actions=drop',
    'c actions=drop',
  ]);
});

test('colour sequences of ovs-ofctl --color are removed', () => {
  const coloured = ' \x1b[36m\x1b[Kcookie=\x1b[m\x1b[K0x0, \x1b[32m\x1b[Kactions=\x1b[m\x1b[Kdrop';
  assert.deepEqual(texts(coloured), [' cookie=0x0, actions=drop']);
});

test('documentation numbering is dropped and continuations are joined, keeping positions', () => {
  const doc = [
    '1. table=0, priority=200,ip \\',
    '      actions=goto_table:1',
    '12. table=1,priority=0 actions=drop',
  ].join('\n');
  const lines = [...logicalLines(doc)];
  assert.deepEqual(
    lines.map((l) => l.text),
    ['table=0, priority=200,ip actions=goto_table:1', 'table=1,priority=0 actions=drop'],
  );
  // `actions` on the continuation line is reported on physical line 2, column 7.
  const at = lines[0]!.text.indexOf('actions');
  assert.deepEqual((({ line, column }) => ({ line, column }))(lines[0]!.position(at)), { line: 2, column: 7 });
  assert.equal(lines[1]!.line, 3);
  assert.equal(lines[1]!.position(0).column, 5);
});

test('a backslash glued to the text joins without inserting a space', () => {
  assert.deepEqual(texts('priority=1,nw_src=10.0.0.1,\\\n   nw_dst=10.0.0.2 actions=drop'), [
    'priority=1,nw_src=10.0.0.1,nw_dst=10.0.0.2 actions=drop',
  ]);
});

test('numbers that are values, not list numbering, are kept', () => {
  assert.deepEqual(texts('10.0.0.1 actions=drop'), ['10.0.0.1 actions=drop']);
});
