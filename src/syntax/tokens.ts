/**
 * The key/value scanner for the part of a flow line before `actions=`, and the comma splitter
 * used inside action lists. Both are position-preserving and never throw: they only cut text.
 */
import {
  BACKSLASH,
  classesOf,
  CLOSE_PAREN,
  CLOSES,
  COLON,
  COMMA,
  KEY_END,
  OPEN_PAREN,
  OPENS,
  QUOTE,
  SEPARATOR,
} from './char-codes.ts';

/** `key`, `key=value` or `key:value`, with offsets into the line. */
export interface KeyValueToken {
  readonly key: string;
  /** undefined for a bare word (`ip`, `send_flow_rem`). */
  readonly value?: string;
  /** Whether the separator was `:` (flow-mod print forms such as `table:1`, `idle:5`). */
  readonly colon: boolean;
  readonly keyOffset: number;
  readonly valueOffset: number;
  /** Offset just past the token. */
  readonly end: number;
}

/**
 * What separates the elements of a flow's key/value part: the SEPARATOR class's members compared
 * one by one, not looked up through classesOf, which outside optimised code is a second call for
 * each character (lines are read so before V8 optimises any reader).
 */
export const isSeparator = (c: number): boolean => c === 0x2c || c === 0x20 || c === 0x09;

/**
 * Walks `text[start, end)` one key/value element at a time, holding only offsets: the flow-line
 * reader looks at most elements (cookie, counters, priority) without ever cutting them out.
 * Elements are separated by commas and/or white space; quoted values (`in_port="antrea-gw0"`) and
 * parenthesised values keep their separators.
 */
export class KeyValueCursor {
  private readonly text: string;
  private readonly limit: number;
  private at: number;
  keyOffset = 0;
  keyEnd = 0;
  /** Whether the element has a value (`key=value`, `key:value`, `KEY(value)`). */
  hasValue = false;
  colon = false;
  valueOffset = 0;
  valueEnd = 0;
  /** Offset just past the element. */
  end = 0;

  constructor(text: string, start: number, end: number) {
    this.text = text;
    this.at = start;
    this.limit = end;
  }

  /** Moves to the next element; false when there is none. */
  next(): boolean {
    const { text, limit } = this;
    let i = this.at;
    while (i < limit && isSeparator(text.charCodeAt(i))) i++;
    if (i >= limit) {
      this.at = i;
      return false;
    }
    this.keyOffset = i;
    let c = text.charCodeAt(i);
    while (i < limit && (classesOf(c) & (SEPARATOR | KEY_END)) === 0) c = text.charCodeAt(++i);
    this.keyEnd = i;
    this.colon = false;
    if (i < limit && c === OPEN_PAREN) {
      // NXM printouts such as NXM_OF_ETH_TYPE(0800): keep the parenthesised part as the value.
      const close = findClose(text, i, limit);
      this.hasValue = true;
      this.valueOffset = i + 1;
      this.valueEnd = close;
      i = Math.min(limit, close + 1);
    } else if (i < limit && (classesOf(c) & KEY_END) !== 0) {
      this.hasValue = true;
      this.colon = c === COLON;
      this.valueOffset = i + 1;
      i = scanValue(text, i + 1, limit);
      this.valueEnd = i;
    } else {
      this.hasValue = false;
      this.valueOffset = i;
      this.valueEnd = i;
    }
    this.end = i;
    this.at = i;
    return true;
  }

  /** Whether the current key is exactly `word`. */
  keyIs(word: string): boolean {
    return this.keyEnd - this.keyOffset === word.length && this.text.startsWith(word, this.keyOffset);
  }

  get key(): string {
    return this.text.slice(this.keyOffset, this.keyEnd);
  }

  /** undefined for a bare word. */
  get value(): string | undefined {
    return this.hasValue ? this.text.slice(this.valueOffset, this.valueEnd) : undefined;
  }

  /** The current element as a token. */
  token(): KeyValueToken {
    const { key, keyOffset, valueOffset, end, colon } = this;
    return this.hasValue
      ? { key, value: this.text.slice(valueOffset, this.valueEnd), colon, keyOffset, valueOffset, end }
      : { key, colon, keyOffset, valueOffset, end };
  }
}

/** Splits `text[start, end)` into key/value tokens (see KeyValueCursor for the syntax). */
export function scanKeyValues(text: string, start: number, end: number): KeyValueToken[] {
  const out: KeyValueToken[] = [];
  const cursor = new KeyValueCursor(text, start, end);
  while (cursor.next()) out.push(cursor.token());
  return out;
}

/**
 * End of a value starting at `i`: up to the next top-level character of the classes `separators`
 * (by default the separators of a flow's key/value part), honouring quotes and brackets.
 */
export function scanValue(text: string, i: number, end: number, separators = SEPARATOR): number {
  let depth = 0;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = skipQuoted(text, i, end);
      continue;
    }
    const classes = classesOf(c);
    if ((classes & OPENS) !== 0) depth++;
    else if ((classes & CLOSES) !== 0 && depth > 0) depth--;
    else if (depth === 0 && (classes & separators) !== 0) break;
    i++;
  }
  return i;
}

/** Offset just past the closing quote of the JSON-style string starting at `i` (or `end`). */
export function skipQuoted(text: string, i: number, end: number): number {
  i++;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) break;
    i += c === BACKSLASH ? 2 : 1;
  }
  return Math.min(end, i + 1);
}

/** Offset of the parenthesis closing the one at `open`, or `end` when unbalanced. */
export function findClose(text: string, open: number, end: number): number {
  let depth = 0;
  for (let i = open; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = skipQuoted(text, i, end) - 1;
      continue;
    }
    if (c === OPEN_PAREN) depth++;
    else if (c === CLOSE_PAREN && --depth === 0) return i;
  }
  return end;
}

/** A piece of a comma-separated list, with its offset in the line. */
export interface Piece {
  readonly text: string;
  readonly offset: number;
}

/**
 * Splits `text[start, end)` at top-level commas (and white space, `whitespaceSeparates`) into
 * trimmed pieces, each read as scanValue reads a value (quotes and brackets kept whole): a group
 * line's items, and the fields its selection method hashes.
 */
export function splitTopLevel(text: string, start: number, end: number, whitespaceSeparates = false): Piece[] {
  const out: Piece[] = [];
  const separators = whitespaceSeparates ? SEPARATOR : COMMA;
  for (let from = start; ;) {
    const to = scanValue(text, from, end, separators);
    let a = from;
    let b = to;
    while (a < b && /\s/.test(text[a]!)) a++;
    while (b > a && /\s/.test(text[b - 1]!)) b--;
    if (a < b) out.push({ text: text.slice(a, b), offset: a });
    if (to >= end) return out;
    from = to + 1;
  }
}

/** JSON-decodes a quoted name (`"antrea-gw0"`); returns bare text unchanged. */
export function unquoteName(text: string): string | undefined {
  if (!text.startsWith('"')) return text;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}
