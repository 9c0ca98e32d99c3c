/**
 * JSON text in pieces. A whole report of a million-flow dump is larger than the longest string
 * V8 can build, so the outer levels (the report object, its arrays) are written piece by piece and
 * only each element is stringified whole. The text is the same as JSON.stringify(value,
 * jsonReplacer, 2) would give.
 */
import { jsonReplacer, LazyList } from './json.ts';

export { LazyList };

const INDENT = '  ';
/** Levels written piece by piece: the report, its arrays, and their elements' own arrays. */
const STREAMED_DEPTH = 2;

function prepared(key: string, value: unknown): unknown {
  // Streamed here, element by element; the replacer would make it whole.
  if (value instanceof LazyList) return value;
  const own = value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function' ? (value as { toJSON(k: string): unknown }).toJSON(key) : value;
  return jsonReplacer(key, own);
}

function* pieces(key: string, raw: unknown, pad: string, depth: number): Generator<string> {
  const value = prepared(key, raw);
  if (value === null || typeof value !== 'object' || depth >= STREAMED_DEPTH) {
    // Nested lines get this level's indentation; JSON strings never hold a raw line end.
    const text = JSON.stringify(value, jsonReplacer, 2) ?? 'null';
    yield pad === '' ? text : text.replace(/\n/g, `\n${pad}`);
    return;
  }
  const inner = pad + INDENT;
  if (Array.isArray(value) || value instanceof LazyList) {
    let i = 0;
    for (const item of value as Iterable<unknown>) {
      yield `${i === 0 ? '[' : ','}\n${inner}`;
      const skipped = item === undefined || typeof item === 'function' || typeof item === 'symbol';
      if (skipped) yield 'null';
      else yield* pieces(String(i), item, inner, depth + 1);
      i++;
    }
    yield i === 0 ? '[]' : `\n${pad}]`;
    return;
  }
  const entries = Object.entries(value).filter(([k, v]) => {
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

/** The JSON text of `value` in pieces, each small enough to be a string. */
export function jsonPieces(value: unknown): Generator<string> {
  return pieces('', value, '', 0);
}
