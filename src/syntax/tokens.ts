/**
 * The key/value scanner for the part of a flow line before `actions=`, and the comma splitter
 * used inside action lists. Both are position-preserving and never throw: they only cut text.
 */

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

// Character codes: the scanners below run once per character of a dump, so they compare codes
// rather than allocate one-character strings.
const COMMA = 0x2c;
const SPACE = 0x20;
const TAB = 0x09;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const EQUALS = 0x3d;
const COLON = 0x3a;
const OPEN_PAREN = 0x28;
const CLOSE_PAREN = 0x29;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const isSeparator = (c: number): boolean => c === COMMA || c === SPACE || c === TAB;

/**
 * Splits `text[start, end)` into key/value tokens separated by commas and/or white space.
 * Quoted values (`in_port="antrea-gw0"`) and parenthesised values keep their separators.
 */
export function scanKeyValues(text: string, start: number, end: number): KeyValueToken[] {
  const out: KeyValueToken[] = [];
  let i = start;
  while (i < end) {
    while (i < end && isSeparator(text.charCodeAt(i))) i++;
    if (i >= end) break;
    const keyOffset = i;
    let c = text.charCodeAt(i);
    while (i < end && !isSeparator(c) && c !== EQUALS && c !== COLON && c !== OPEN_PAREN) c = text.charCodeAt(++i);
    const key = text.slice(keyOffset, i);
    if (i < end && c === OPEN_PAREN) {
      // NXM printouts such as NXM_OF_ETH_TYPE(0800): keep the parenthesised part as the value.
      const close = findClose(text, i, end);
      out.push({ key, value: text.slice(i + 1, close), colon: false, keyOffset, valueOffset: i + 1, end: Math.min(end, close + 1) });
      i = Math.min(end, close + 1);
      continue;
    }
    if (i < end && (c === EQUALS || c === COLON)) {
      const colon = c === COLON;
      i++;
      const valueOffset = i;
      i = scanValue(text, i, end);
      out.push({ key, value: text.slice(valueOffset, i), colon, keyOffset, valueOffset, end: i });
    } else {
      out.push({ key, colon: false, keyOffset, valueOffset: i, end: i });
    }
  }
  return out;
}

/** End of a value starting at `i`: up to the next top-level separator, honouring quotes and brackets. */
function scanValue(text: string, i: number, end: number): number {
  let depth = 0;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = skipQuoted(text, i, end);
      continue;
    }
    if (c === OPEN_PAREN || c === OPEN_BRACKET) depth++;
    else if ((c === CLOSE_PAREN || c === CLOSE_BRACKET) && depth > 0) depth--;
    else if (depth === 0 && isSeparator(c)) break;
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
 * Splits `text[start, end)` on commas at parenthesis depth 0 (quotes honoured), trimming white
 * space. Used for action lists and the arguments of `ct(...)`, `learn(...)` and friends; group
 * lines also separate items by white space (`whitespaceSeparates`).
 */
export function splitTopLevel(text: string, start: number, end: number, whitespaceSeparates = false): Piece[] {
  const out: Piece[] = [];
  let depth = 0;
  let pieceStart = start;
  const push = (to: number): void => {
    let a = pieceStart;
    let b = to;
    while (a < b && /\s/.test(text[a]!)) a++;
    while (b > a && /\s/.test(text[b - 1]!)) b--;
    if (a < b) out.push({ text: text.slice(a, b), offset: a });
  };
  for (let i = start; i < end; i++) {
    const c = text[i]!;
    if (c === '"') {
      i = skipQuoted(text, i, end) - 1;
      continue;
    }
    if (c === '(' || c === '[') depth++;
    else if ((c === ')' || c === ']') && depth > 0) depth--;
    else if (depth === 0 && (c === ',' || (whitespaceSeparates && (c === ' ' || c === '\t')))) {
      push(i);
      pieceStart = i + 1;
    }
  }
  push(end);
  return out;
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
