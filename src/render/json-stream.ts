/**
 * JSON text in pieces. A whole report of a million-flow dump is larger than the longest string
 * V8 can build, so the outer levels (the report object, its arrays) are written piece by piece and
 * only each element is stringified whole. Lazy lists and streamed objects are written piece by
 * piece at any depth. The text is the same as JSON.stringify(value, jsonReplacer, 2) would give,
 * except that a JsonText is written as its one line.
 */
import { JsonText, jsonReplacer, LazyList, StreamedObject, StringList } from './json.ts';

export { JsonText, LazyList, StreamedObject, StringList };

const INDENT = '  ';
/** Levels written piece by piece: the report, its arrays, and their elements' own arrays. */
const STREAMED_DEPTH = 2;
/** Consecutive JSON texts of a list are joined into pieces of about this many characters. */
const RUN_CHARS = 1 << 14;

function prepared(key: string, value: unknown): unknown {
  // Streamed here, member by member; the replacer would make them whole.
  if (
    value instanceof LazyList ||
    value instanceof StreamedObject ||
    value instanceof JsonText ||
    value instanceof StringList
  )
    return value;
  const own =
    value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function'
      ? (value as { toJSON(k: string): unknown }).toJSON(key)
      : value;
  return jsonReplacer(key, own);
}

function streamed(value: unknown, depth: number): value is object {
  return (
    value instanceof LazyList ||
    value instanceof StreamedObject ||
    (depth < STREAMED_DEPTH && value !== null && typeof value === 'object')
  );
}

function* pieces(key: string, raw: unknown, pad: string, depth: number): Generator<string> {
  const value = prepared(key, raw);
  if (value instanceof JsonText) {
    yield value.text;
    return;
  }
  if (value instanceof StringList) {
    yield stringListText(value.strings, pad);
    return;
  }
  if (value === null || typeof value !== 'object') {
    // One line, `prepared` already: nothing left for the replacer to do, no line to indent.
    yield JSON.stringify(value) ?? 'null';
    return;
  }
  if (!streamed(value, depth)) {
    // Nested lines get this level's indentation; JSON strings never hold a raw line end.
    const text = JSON.stringify(value, jsonReplacer, 2) ?? 'null';
    yield pad === '' ? text : text.replace(/\n/g, `\n${pad}`);
    return;
  }
  const inner = pad + INDENT;
  if (Array.isArray(value) || value instanceof LazyList) {
    let i = 0;
    const [opening, separator] = [`[\n${inner}`, `,\n${inner}`];
    // A list of JSON texts (references repeated across a report) is joined here, not piece by piece.
    let run: string[] = [];
    let runChars = 0;
    // By index: a lazy list's elements are made here, without a generator step for each.
    const list = value as readonly unknown[] | LazyList<unknown, unknown>;
    const element = list instanceof LazyList ? (n: number): unknown => list.at(n) : (n: number): unknown => list[n];
    for (; i < list.length;) {
      const item = element(i);
      const before = i === 0 ? opening : separator;
      i++;
      if (item instanceof JsonText) {
        run.push(before, item.text);
        runChars += before.length + item.text.length;
        if (runChars < RUN_CHARS) continue;
      }
      if (run.length > 0) {
        yield run.join('');
        run = [];
        runChars = 0;
      }
      if (item instanceof JsonText) continue;
      yield before;
      const skipped = item === undefined || typeof item === 'function' || typeof item === 'symbol';
      if (skipped) yield 'null';
      else yield* pieces(String(i - 1), item, inner, depth + 1);
    }
    if (run.length > 0) yield run.join('');
    yield i === 0 ? '[]' : `\n${pad}]`;
    return;
  }
  const entries = Object.entries(value instanceof StreamedObject ? value.members : value).filter(([k, v]) => {
    const p = prepared(k, v);
    return p !== undefined && typeof p !== 'function' && typeof p !== 'symbol';
  });
  if (entries.length === 0) {
    yield '{}';
    return;
  }
  yield '{';
  let first = true;
  for (const [k, v] of entries) {
    yield `${first ? '' : ','}\n${inner}${JSON.stringify(k)}: `;
    first = false;
    yield* pieces(k, v, inner, depth + 1);
  }
  yield `\n${pad}}`;
}

/**
 * What JSON.stringify escapes in a string: a quote, a backslash, a control character, a lone
 * surrogate (a pair too is taken here, and then written by JSON.stringify, as it would be anyway).
 */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A list of strings as JSON.stringify(strings, undefined, 2) writes it, its lines indented by `pad`. */
function stringListText(strings: readonly string[], pad: string): string {
  if (strings.length === 0) return '[]';
  const inner = pad + INDENT;
  // Most lists need no escaping at all: their strings are joined between the quotes.
  const body = strings.some((s) => ESCAPED.test(s))
    ? strings.map((s) => JSON.stringify(s)).join(`,\n${inner}`)
    : `"${strings.join(`",\n${inner}"`)}"`;
  return `[\n${inner}${body}\n${pad}]`;
}

/** The JSON text of `value` in pieces, each small enough to be a string. */
export function jsonPieces(value: unknown): Generator<string> {
  return pieces('', value, '', 0);
}

/** The JSON text of `value` as one string, as the command line prints it (without the final line end). */
export function formatJson(value: unknown): string {
  return [...jsonPieces(value)].join('');
}
