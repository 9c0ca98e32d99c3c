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

/** Whether `NUMBERING` could match at `start`: its first character after spaces is a digit (or odd white space). */
function mayBeNumbered(text: string, start: number): boolean {
  let i = start;
  let c = text.charCodeAt(i);
  while (c === 0x20 || c === 0x09) c = text.charCodeAt(++i);
  return (c >= 0x30 && c <= 0x39) || (c < 0x20 && c !== 0x09) || c >= 0x80;
}

/**
 * A physical line offered as it stands, `text[start, end)`, before it is made a LogicalLine:
 * true when the taker has read it (it is then not visited). A large dump's flow lines are read
 * this way straight from the whole text, without a string or an object each.
 */
export type PlainLineTaker = (text: string, start: number, end: number, line: number) => boolean;

/** Joins physical lines into logical ones (continuations, numbering) and visits each. */
class Joiner {
  private parts: string[] = [];
  /** Whether no logical line is being joined (parts is empty): a line may then be offered as it stands. */
  idle = true;
  private segments: Segment[] = [];
  private startLine = 0;
  private length = 0;
  private readonly visit: (line: LogicalLine) => void;
  private readonly take: PlainLineTaker | undefined;

  constructor(visit: (line: LogicalLine) => void, take: PlainLineTaker | undefined) {
    this.visit = visit;
    this.take = take;
  }

  /**
   * The physical line `text[start, end)` (colour removed), number `n`; `last` when no line
   * follows; `offered` when `take` has turned it down already.
   */
  add(text: string, start: number, end: number, n: number, last: boolean, offered = false): void {
    const { take } = this;
    // A plain line: not within a continuation, not continued, not numbered.
    if (
      !offered &&
      take !== undefined &&
      this.idle &&
      text.charCodeAt(end - 1) !== 0x5c &&
      !mayBeNumbered(text, start) &&
      take(text, start, end, n)
    )
      return;
    const lineText = start === 0 && end === text.length ? text : text.slice(start, end);
    let body = lineText;
    let column = 0;
    if (this.parts.length === 0) {
      this.startLine = n;
      const numbered = mayBeNumbered(body, 0) ? NUMBERING.exec(body) : null;
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
    if (!continued && this.parts.length === 0) {
      // The common case: one physical line is one logical line.
      this.visit(new Logical(body, n, column, lineText));
      return;
    }
    if (continued) {
      const withoutBackslash = body.slice(0, -1);
      // Keep one space where the document had white space before the backslash.
      body = /\s$/.test(withoutBackslash) ? withoutBackslash.trimEnd() + ' ' : withoutBackslash;
    }
    this.segments.push({ at: this.length, line: n, column, physical: lineText });
    this.parts.push(body);
    this.idle = false;
    this.length += body.length;
    if (!continued || last) {
      const first = this.segments[0]!;
      this.visit(
        new Logical(this.parts.join(''), this.startLine, first.column, first.physical, this.segments.slice(1)),
      );
      this.parts = [];
      this.idle = true;
      this.segments = [];
      this.length = 0;
    }
  }
}

/**
 * Calls `visit` with each logical line in order; a physical line that is a logical line on its
 * own is first offered to `take`, if given.
 */
export function eachLogicalLine(
  text: string,
  take: PlainLineTaker | undefined,
  visit: (line: LogicalLine) => void,
): void {
  const joiner = new Joiner(visit, take);
  // Colour and CR are looked for once in the whole text, not line by line: most dumps have none.
  if (!text.includes('\r') && !text.includes('\x1b')) {
    // Lines found in the whole text rather than split from it: a line taken costs no string.
    let n = 0;
    for (let start = 0; start < text.length;) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      n++;
      // A dump's usual line (` cookie=…`, so not numbered) is offered here, without a call of the joiner.
      const offered =
        take !== undefined && joiner.idle && text.startsWith(' cookie=', start) && text.charCodeAt(end - 1) !== 0x5c;
      if (!offered || !take(text, start, end, n)) joiner.add(text, start, end, n, end >= text.length - 1, offered);
      start = end + 1;
    }
    return;
  }
  const physical = text.split(/\r\n|\r|\n/);
  if (physical.length > 0 && physical[physical.length - 1] === '') physical.pop();
  for (let i = 0; i < physical.length; i++) {
    const lineText = clean(physical[i]!);
    joiner.add(lineText, 0, lineText.length, i + 1, i === physical.length - 1);
  }
}

export function logicalLines(text: string): LogicalLine[] {
  const out: LogicalLine[] = [];
  eachLogicalLine(text, undefined, (line) => out.push(line));
  return out;
}
