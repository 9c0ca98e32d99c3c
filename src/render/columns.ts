/**
 * Text tables, in one of two frames: boxed (`tables`: a line around and between the columns, one
 * line per row, words wrapped within their cells when widths are given; drawn here when every cell
 * is one line of one-column characters, by cli-table3 otherwise) and plain (the small tables of counts of `bundle` and `diff --per-table`: columns two
 * spaces apart, words left-aligned, numbers right-aligned, cut with … when narrowed). Given a
 * width (the terminal's), a table is fitted by `narrowWidest`; `-o wide` and pipes get it whole.
 */
import Table from 'cli-table3';
import { maxOf } from '../model/append.ts';

type Rows = readonly (readonly string[])[];

/**
 * Narrows the widest of the columns `narrowable` allows, a character at a time and none below
 * its `floor`, until `total(widths)` is at most `width` or no column can give more.
 */
export function narrowWidest(
  widths: number[],
  width: number,
  total: (widths: readonly number[]) => number,
  narrowable: (i: number) => boolean,
  floor: (i: number) => number,
): void {
  while (total(widths) > width) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++)
      if (narrowable(i) && widths[i]! > floor(i) && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    if (widest < 0) return;
    widths[widest]!--;
  }
}

/** No line but the one between the columns: two spaces. */
const PLAIN_CHARS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
};
const GAP = PLAIN_CHARS.middle.length;

/**
 * A table framed in box-drawing lines, one line per row (no rule between rows). `widths`, cell
 * padding included, fix the columns' widths; words then wrap within their cells. Colour in the
 * cells is the caller's: cli-table3's own is switched off.
 */
export function boxTable(head: readonly string[], rows: Rows, widths?: readonly number[]): string {
  if (widths === undefined) {
    const drawn = drawBox([head, ...rows]);
    if (drawn !== undefined) return drawn;
  }
  const table = new Table({
    head: [...head],
    style: { head: [], border: [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    ...(widths ? { colWidths: [...widths], wordWrap: true } : {}),
  });
  table.push(...rows.map((r) => [...r]));
  return table.toString();
}

/** Colour sequences, which take no room on a terminal. */
const COLOUR = /\u001b\[[0-9;]*m/g;
/** Text whose every character takes one column: printable ASCII. */
const ONE_COLUMN_EACH = /^[\x20-\x7e]*$/;

/**
 * The table boxTable draws with no widths given, drawn here as cli-table3 draws it (each column as
 * wide as its widest cell, a blank either side), when every cell is one line of characters one
 * column wide each; undefined for any other table, which cli-table3 draws. Most tables are such:
 * drawing them here spares a short command most of cli-table3's cold start.
 */
function drawBox(rows: Rows): string | undefined {
  const widths: number[] = [];
  const lengths: number[][] = [];
  for (const row of rows) {
    const lens: number[] = [];
    for (let i = 0; i < row.length; i++) {
      const plain = row[i]!.replace(COLOUR, '');
      if (!ONE_COLUMN_EACH.test(plain)) return undefined;
      lens.push(plain.length);
      widths[i] = Math.max(widths[i] ?? 0, plain.length);
    }
    lengths.push(lens);
  }
  if (rows.some((r) => r.length !== widths.length)) return undefined;
  const rule = (left: string, mid: string, right: string): string =>
    left + widths.map((w) => '─'.repeat(w + 2)).join(mid) + right;
  const lines = [rule('┌', '┬', '┐')];
  rows.forEach((row, r) =>
    lines.push(`│${row.map((cell, i) => ` ${cell}${' '.repeat(widths[i]! - lengths[r]![i]!)} `).join('│')}│`),
  );
  lines.push(rule('└', '┴', '┘'));
  return lines.join('\n');
}

/** A column of words keeps at least this many characters, or its heading's. */
const LEAST = 8;

/**
 * Rows as aligned columns two spaces apart; `rows[0]` is the heading, `numbers` the columns
 * aligned right. Given a width, the widest column of words is cut (with …) until the rows fit,
 * never below its heading.
 */
export function alignColumns(rows: Rows, numbers: ReadonlySet<number>, width?: number): string[] {
  const widths = rows[0]!.map((_, i) => maxOf(rows.map((r) => r[i]!.length)));
  if (width !== undefined)
    narrowWidest(
      widths,
      width,
      (ws) => ws.reduce((a, b) => a + b, 0) + GAP * (ws.length - 1),
      (i) => !numbers.has(i),
      (i) => Math.max(LEAST, rows[0]![i]!.length),
    );
  const table = new Table({
    chars: PLAIN_CHARS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
    colAligns: widths.map((_, i) => (numbers.has(i) ? 'right' : 'left')),
    colWidths: widths,
  });
  table.push(...rows.map((r) => [...r]));
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd());
}
