/**
 * Boxed tables: boxTable draws the usual table (one line per cell, characters one column wide) on
 * its own, and must draw it exactly as cli-table3, which draws every other, would.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Table from 'cli-table3';
import { boxTable } from '../src/render/columns.ts';

/** The table as cli-table3 draws it with boxTable's frame. */
function drawnByCliTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const table = new Table({
    head: [...head],
    style: { head: [], border: [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  table.push(...rows.map((r) => [...r]));
  return table.toString();
}

const bold = (s: string): string => `\u001b[1m${s}\u001b[22m`;
const yellow = (s: string): string => `\u001b[33m${s}\u001b[39m`;

test('a table of one-column characters, coloured or not, is drawn as cli-table3 draws it', () => {
  const head = ['Table', 'Name', 'Flows', 'Next tables', 'Miss'];
  const rows = [
    ['0', 'PipelineRootClassifier', '3', 'Classifier, ARPSpoofGuard', 'drop'],
    ['', `Foo ${yellow('(not in profile)')}`, '12', '', `goto Output ${yellow('(profile: drop)')}`],
    ['255', ' leading blank', '0', 'trailing blank ', ''],
  ];
  for (const h of [head, head.map(bold)]) {
    assert.equal(boxTable(h, rows), drawnByCliTable(h, rows));
    assert.equal(boxTable(h, []), drawnByCliTable(h, []));
  }
});

test('cells cli-table3 measures otherwise (wide characters, several lines) are left to it', () => {
  const head = ['Table', 'Miss'];
  for (const rows of [[['1', 'send it to the bridge’s LOCAL port']], [['2', '表']], [['3', 'two\nlines']]])
    assert.equal(boxTable(head, rows), drawnByCliTable(head, rows));
});
