/**
 * JSON text in pieces. A whole report of a million-flow dump is larger than the longest string
 * V8 can build, so the outer levels (the report object, its arrays) are written piece by piece and
 * only each element is stringified whole. Lazy lists and streamed objects are written piece by
 * piece at any depth. The text is the same as JSON.stringify(value, jsonReplacer, 2) would give,
 * except that a JsonText or an AsciiJson is written as its one line.
 *
 * Text that is ASCII bytes already (an AsciiJson, a StringList written joined) is handed on as
 * those bytes, valid until the next piece is asked for: a report of a large dump holds a hundred
 * megabytes of them, which as strings were made, joined and encoded again to be written.
 */
import { AsciiBuilder } from '../model/ascii-builder.ts';
import { AsciiJson, JsonText, jsonReplacer, LazyList, StreamedObject, StringList } from './json.ts';

export { AsciiJson, JsonText, LazyList, StreamedObject, StringList };

/** A piece of JSON text: a string, or ASCII bytes valid until the next piece is asked for. */
export type JsonPiece = string | Uint8Array;

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
    value instanceof AsciiJson ||
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

/**
 * The text of a value written whole at indentation `pad` (anything but a lazy list, a streamed
 * object, and the report's outer levels), or undefined for one written piece by piece; bytes
 * written into `out` for some (see JsonPiece).
 */
function wholeText(value: unknown, pad: string, depth: number, out: AsciiBuilder): JsonPiece | undefined {
  if (value instanceof JsonText) return value.text;
  if (value instanceof AsciiJson) {
    value.write(out);
    return out.takeBytes();
  }
  if (value instanceof StringList) return stringListText(value, pad, out);
  // One line, prepared already: nothing left for the replacer to do, no line to indent.
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (streamed(value, depth)) return undefined;
  // Nested lines get this level's indentation; JSON strings never hold a raw line end.
  const text = JSON.stringify(value, jsonReplacer, 2) ?? 'null';
  return pad === '' ? text : text.replace(/\n/g, `\n${pad}`);
}

/**
 * Text written whole, gathered: the pieces of a list or an object are joined into runs of about
 * RUN_CHARS characters, so that the writer, and each generator a piece passes through, takes a
 * few large pieces rather than a key, a number or a bracket each. A long text is a piece of its own.
 */
class Run {
  private text = '';
  /** Pieces to yield now: the run once it has grown long, a long text or bytes after it. */
  readonly ready: JsonPiece[] = [];

  add(text: JsonPiece): void {
    if (typeof text !== 'string') {
      this.end();
      this.ready.push(text);
    } else if (text.length < RUN_CHARS) {
      this.text += text;
      if (this.text.length < RUN_CHARS) return;
    } else {
      this.end();
      this.ready.push(text);
    }
    this.end();
  }

  /** Ends the run: what it holds is ready. */
  end(): void {
    if (this.text === '') return;
    this.ready.push(this.text);
    this.text = '';
  }

  /** The ready pieces, taken: bytes among them must be taken before `out` is written again. */
  *take(): Generator<JsonPiece> {
    yield* this.ready.splice(0);
  }
}

function* pieces(key: string, raw: unknown, pad: string, depth: number, out: AsciiBuilder): Generator<JsonPiece> {
  const value = prepared(key, raw);
  const whole = wholeText(value, pad, depth, out);
  if (whole !== undefined) yield whole;
  else yield* streamedPieces(value as object, pad, depth, out);
}

/** A list or an object (prepared), written piece by piece. */
function* streamedPieces(value: object, pad: string, depth: number, out: AsciiBuilder): Generator<JsonPiece> {
  const inner = pad + INDENT;
  const run = new Run();
  // Adds `head` and `p` (prepared) to the run; false when `p` is to be streamed after what the run holds.
  const gathered = (head: string, p: unknown): boolean => {
    run.add(head);
    const whole = wholeText(p, inner, depth + 1, out);
    if (whole === undefined) run.end();
    else run.add(whole);
    return whole !== undefined;
  };
  if (Array.isArray(value) || value instanceof LazyList) {
    let i = 0;
    const [opening, separator] = [`[\n${inner}`, `,\n${inner}`];
    // By index: a lazy list's elements are made here, without a generator step for each.
    const list = value as readonly unknown[] | LazyList<unknown, unknown>;
    const element = list instanceof LazyList ? (n: number): unknown => list.at(n) : (n: number): unknown => list[n];
    for (; i < list.length; i++) {
      const item = element(i);
      const skipped = item === undefined || typeof item === 'function' || typeof item === 'symbol';
      const p = skipped ? null : prepared(String(i), item);
      const whole = gathered(i === 0 ? opening : separator, p);
      if (run.ready.length > 0) yield* run.take();
      if (!whole) yield* streamedPieces(p as object, inner, depth + 1, out);
    }
    run.end();
    yield* run.take();
    yield i === 0 ? '[]' : `\n${pad}]`;
    return;
  }
  const members: [string, unknown][] = [];
  for (const [k, v] of Object.entries(value instanceof StreamedObject ? value.members : value)) {
    const p = prepared(k, v);
    if (p !== undefined && typeof p !== 'function' && typeof p !== 'symbol') members.push([k, p]);
  }
  if (members.length === 0) {
    yield '{}';
    return;
  }
  let first = true;
  for (const [k, p] of members) {
    const whole = gathered(`${first ? '{' : ','}\n${inner}${JSON.stringify(k)}: `, p);
    first = false;
    if (run.ready.length > 0) yield* run.take();
    if (!whole) yield* streamedPieces(p as object, inner, depth + 1, out);
  }
  run.end();
  yield* run.take();
  yield `\n${pad}}`;
}

/**
 * What JSON.stringify escapes in a string: a quote, a backslash, a control character, a lone
 * surrogate (a pair too is taken here, and then written by JSON.stringify, as it would be anyway).
 */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A list of strings as JSON.stringify(strings, undefined, 2) writes it, its lines indented by
 * `pad`; bytes written into `out` when the list writes itself joined (see StringList).
 */
function stringListText(list: StringList, pad: string, out: AsciiBuilder): JsonPiece {
  const inner = pad + INDENT;
  if (list.writeJoined) {
    out.ascii(`[\n${inner}"`);
    const opened = out.length;
    if (list.writeJoined(out, `",\n${inner}"`)) {
      if (out.length === opened) {
        out.takeBytes();
        return '[]';
      }
      out.ascii(`"\n${pad}]`);
      return out.takeBytes();
    }
    out.takeBytes();
  }
  const { strings } = list;
  if (strings.length === 0) return '[]';
  // Most lists need no escaping at all: their strings are joined between the quotes.
  const body = strings.some((s) => ESCAPED.test(s))
    ? strings.map((s) => JSON.stringify(s)).join(`,\n${inner}`)
    : `"${strings.join(`",\n${inner}"`)}"`;
  return `[\n${inner}${body}\n${pad}]`;
}

/** The JSON text of `value` in pieces, each small enough to be a string; bytes among them (see JsonPiece). */
export function jsonBytePieces(value: unknown): Generator<JsonPiece> {
  return pieces('', value, '', 0, new AsciiBuilder());
}

/** The JSON text of `value` in pieces, each small enough to be a string. */
export function* jsonPieces(value: unknown): Generator<string> {
  for (const piece of jsonBytePieces(value))
    yield typeof piece === 'string'
      ? piece
      : Buffer.from(piece.buffer, piece.byteOffset, piece.length).toString('latin1');
}

/** The JSON text of `value` as one string, as the command line prints it (without the final line end). */
export function formatJson(value: unknown): string {
  return [...jsonPieces(value)].join('');
}
