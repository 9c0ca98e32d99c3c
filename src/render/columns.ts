/**
 * Rows as aligned columns two spaces apart, for the small tables of counts that `bundle` and
 * `diff --per-table` print: words left-aligned, numbers right-aligned. Given a width (the
 * terminal's), the widest column of words is cut (with …) until the rows fit, never below its
 * heading; `-o wide` and pipes get them whole.
 */
import { maxOf } from '../model/append.ts';
import { clip } from './clip.ts';

const GAP = '  ';
/** A column of words keeps at least this many characters, or its heading's. */
const LEAST = 8;

/** `rows[0]` is the heading; `numbers` are the columns aligned right. */
export function alignColumns(
  rows: readonly (readonly string[])[],
  numbers: ReadonlySet<number>,
  width?: number,
): string[] {
  const widths = rows[0]!.map((_, i) => maxOf(rows.map((r) => r[i]!.length)));
  if (width !== undefined) {
    const floor = (i: number): number => Math.max(LEAST, rows[0]![i]!.length);
    const total = (): number => widths.reduce((a, b) => a + b, 0) + GAP.length * (widths.length - 1);
    while (total() > width) {
      let widest = -1;
      for (let i = 0; i < widths.length; i++)
        if (!numbers.has(i) && widths[i]! > floor(i) && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
      if (widest < 0) break;
      widths[widest]!--;
    }
  }
  return rows.map((r) =>
    r
      .map((cell, i) => {
        const w = widths[i]!;
        const shown = cell.length > w ? clip(cell, w - 1) : cell;
        return numbers.has(i) ? shown.padStart(w) : shown.padEnd(w);
      })
      .join(GAP)
      .trimEnd(),
  );
}
