/**
 * Physical text → logical lines. Handles CRLF and lone CR line ends, ANSI colour sequences
 * (`ovs-ofctl --color`), backslash continuations and the `1. ` numbering of listings pasted
 * from documents, while remembering where every character came from so that diagnostics
 * point at the right physical line and column.
 */

export interface LogicalLine {
  /** The text to parse (continuations joined, numbering and colour removed). */
  readonly text: string;
  /** 1-based physical line where the logical line starts. */
  readonly line: number;
  /** Maps an offset in `text` to a 1-based physical line and column. */
  position(offset: number): { line: number; column: number; lineText: string };
}

// Colour and erase-line sequences as ovs-ofctl --color prints them.
const ANSI = /\x1b\[[0-9;]*[mK]/g;
// `12. ` numbering of documentation listings, only when a flow-like word follows.
const NUMBERING =
  /^(\s*)\d{1,4}\.\s+(?=(?:cookie|table|priority|duration|n_packets|group_id|[a-z_]+=|[a-z_0-9]+,|actions))/;

interface Segment {
  /** Offset in the logical text where this segment starts. */
  readonly at: number;
  readonly line: number;
  /** Column (0-based) in the physical line where the segment's first character was. */
  readonly column: number;
  readonly physical: string;
}

const NO_SEGMENTS: readonly Segment[] = [];

class Logical implements LogicalLine {
  readonly text: string;
  readonly line: number;
  /** The first segment, held flat: most logical lines have no other. */
  private readonly column: number;
  private readonly physical: string;
  /** Continuation lines, in order. */
  private readonly rest: readonly Segment[];

  constructor(text: string, line: number, column: number, physical: string, rest: readonly Segment[] = NO_SEGMENTS) {
    this.text = text;
    this.line = line;
    this.column = column;
    this.physical = physical;
    this.rest = rest;
  }

  position(offset: number): { line: number; column: number; lineText: string } {
    // The last segment starting at or before the offset, found by halving: a line of many
    // continuations may have a diagnostic for each.
    let lo = 0;
    let hi = this.rest.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.rest[mid]!.at <= offset) lo = mid + 1;
      else hi = mid;
    }
    const seg: Segment =
      lo === 0 ? { at: 0, line: this.line, column: this.column, physical: this.physical } : this.rest[lo - 1]!;
    return { line: seg.line, column: seg.column + (offset - seg.at) + 1, lineText: seg.physical };
  }
}

/** Removes colour sequences, keeping track of nothing: columns refer to the cleaned line. */
function clean(raw: string): string {
  return raw.includes('\x1b') ? raw.replace(ANSI, '') : raw;
}

/** Physical lines; a final newline leaves no empty last line. */
function physicalLines(text: string): string[] {
  // Splitting on a plain string is much faster than on a pattern, and most dumps have no CR.
  const physical = text.includes('\r') ? text.split(/\r\n|\r|\n/) : text.split('\n');
  if (physical.length > 0 && physical[physical.length - 1] === '') physical.pop();
  return physical;
}

/** Whether `NUMBERING` could match: its first character after spaces is a digit (or odd white space). */
function mayBeNumbered(line: string): boolean {
  let i = 0;
  let c = line.charCodeAt(0);
  while (c === 0x20 || c === 0x09) c = line.charCodeAt(++i);
  return (c >= 0x30 && c <= 0x39) || (c < 0x20 && c !== 0x09) || c >= 0x80;
}

/** Calls `visit` with each logical line in order. */
export function eachLogicalLine(text: string, visit: (line: LogicalLine) => void): void {
  const physical = physicalLines(text);
  // Colour is looked for once in the whole text, not line by line: most dumps have none.
  const coloured = text.includes('\x1b');
  let parts: string[] = [];
  let segments: Segment[] = [];
  let startLine = 0;
  let length = 0;
  for (let i = 0; i < physical.length; i++) {
    const lineText = coloured ? clean(physical[i]!) : physical[i]!;
    let body = lineText;
    let column = 0;
    if (parts.length === 0) {
      startLine = i + 1;
      const numbered = mayBeNumbered(body) ? NUMBERING.exec(body) : null;
      if (numbered) {
        column = numbered[0].length;
        body = body.slice(column);
      }
    } else {
      // A continuation line: its indentation is layout, not content.
      const indent = /^\s*/.exec(body)![0].length;
      column = indent;
      body = body.slice(indent);
    }
    const continued = body.endsWith('\\') && !body.endsWith('\\\\');
    if (!continued && parts.length === 0) {
      // The common case: one physical line is one logical line.
      visit(new Logical(body, startLine, column, lineText));
      continue;
    }
    if (continued) {
      const withoutBackslash = body.slice(0, -1);
      // Keep one space where the document had white space before the backslash.
      body = /\s$/.test(withoutBackslash) ? withoutBackslash.trimEnd() + ' ' : withoutBackslash;
    }
    segments.push({ at: length, line: i + 1, column, physical: lineText });
    parts.push(body);
    length += body.length;
    if (!continued || i === physical.length - 1) {
      const first = segments[0]!;
      visit(new Logical(parts.join(''), startLine, first.column, first.physical, segments.slice(1)));
      parts = [];
      segments = [];
      length = 0;
    }
  }
}

export function logicalLines(text: string): LogicalLine[] {
  const out: LogicalLine[] = [];
  eachLogicalLine(text, (line) => out.push(line));
  return out;
}
