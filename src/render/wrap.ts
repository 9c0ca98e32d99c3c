/**
 * Text fitted to a terminal's width: a line longer than the width is broken at a blank or after a
 * comma, and its continuation lines are indented past the line's own indentation and any leading
 * marker (`[200] `, `- `, `✗ 1: `, a `trace --brief` row's table and priority), so that a wrapped line still reads as one item. Colour escape
 * sequences take no width and are never broken.
 */

const ESCAPE = /\u001b\[[0-9;]*m/g;

/** The text as a terminal shows it, without its colour sequences. */
export function withoutColour(text: string): string {
  return text.replace(ESCAPE, '');
}

function visibleLength(text: string): number {
  return withoutColour(text).length;
}

/** Leading blanks, then a marker that starts an item (a row of `trace --brief`: table, name, priority). */
const HANGING =
  /^\s*(?:\[\d+\]\s+|[-•✓✗]\s+(?:\d+:\s+)?|\d+\.\s+|(?:if|and|then)\s+(?:\d+:\s+)?|\d+ \S+ +(?:\d+|-) {2})?/;

/** Pieces that may end a line: each ends with a blank or a comma, or ends the text. */
function pieces(line: string): string[] {
  return line.match(/[^ ,]*(?:,| +|$)/g)?.filter((p) => p !== '') ?? [line];
}

function wrapLine(line: string, width: number): string[] {
  if (visibleLength(line) <= width) return [line];
  const plain = withoutColour(line);
  let indent = HANGING.exec(plain)?.[0].length ?? 0;
  // A marker so wide that little room is left does not set the indentation.
  if (indent > width / 2) indent = Math.min(4, Math.floor(width / 4));
  const pad = ' '.repeat(indent);
  const out: string[] = [];
  let current = '';
  for (const piece of pieces(line)) {
    if (current !== '' && visibleLength(current) + visibleLength(piece.trimEnd()) > width) {
      out.push(current.trimEnd());
      current = pad;
    }
    current += current === pad ? piece.trimStart() : piece;
  }
  if (current.trim() !== '') out.push(current.trimEnd());
  return out;
}

/** Every line of `text` fitted to `width` columns; undefined leaves the text as it is. */
export function wrapText(text: string, width: number | undefined): string {
  if (width === undefined || width < 20) return text;
  return text
    .split('\n')
    .flatMap((l) => wrapLine(l, width))
    .join('\n');
}

/** Each of `of`'s lines fitted to `width` columns, as they come: for reports written line by line. */
export function* wrapLines(of: Iterable<string>, width: number | undefined): Generator<string> {
  for (const line of of) yield wrapText(line, width);
}
