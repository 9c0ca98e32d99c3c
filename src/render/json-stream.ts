/**
 * JSON text in pieces. A whole report of a million-flow dump is larger than the longest string
 * V8 can build, so the outer levels (the report object, its arrays) are written piece by piece and
 * only each element is stringified whole. Lazy lists and streamed objects are written piece by
 * piece at any depth. The text is the same as JSON.stringify(value, jsonReplacer, 2) would give,
 * except that a JsonText or an AsciiJson is written as its one line.
 *
 * The text is written as UTF-8 bytes into one buffer, handed on in pieces of those bytes: a report
 * of a large dump runs to a hundred megabytes, and as strings its keys, numbers and brackets were
 * made, joined and encoded again to be written, and the lists of numbers and addresses an AsciiJson
 * or a StringList writes as bytes were copied once more.
 */
import { AsciiBuilder } from '../model/ascii-builder.ts';
import { AsciiJson, JsonText, jsonReplacer, LazyList, StreamedObject, StringList } from './json.ts';

export { AsciiJson, JsonText, LazyList, StreamedObject, StringList };

/** A piece of JSON text: UTF-8 bytes, valid until the next piece is asked for. */
export type JsonPiece = Uint8Array;

const INDENT = '  ';
/** Levels written piece by piece: the report, its arrays, and their elements' own arrays. */
const STREAMED_DEPTH = 2;
/** Text written is handed on once it holds about this many bytes (and before a value written piece by piece). */
const PIECE_BYTES = 1 << 14;

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

/** Whether a value (prepared) is skipped as JSON.stringify skips it: a member left out, an element written null. */
function skipped(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

function streamed(value: unknown, depth: number): value is object {
  return (
    value instanceof LazyList ||
    value instanceof StreamedObject ||
    (depth < STREAMED_DEPTH && value !== null && typeof value === 'object')
  );
}

/**
 * Writes a value (prepared) whole into `out` at indentation `pad`, anything but a lazy list, a
 * streamed object and the report's outer levels; false (nothing written) for those, which are
 * written piece by piece.
 */
function wroteWhole(value: unknown, pad: string, depth: number, out: AsciiBuilder): boolean {
  if (value instanceof JsonText) out.utf8(value.text);
  else if (value instanceof AsciiJson) value.write(out);
  else if (value instanceof StringList) writeStringList(value, pad, out);
  // One line, prepared already: nothing left for the replacer to do, no line to indent.
  else if (value === null || typeof value !== 'object') out.utf8(JSON.stringify(value) ?? 'null');
  else if (streamed(value, depth)) return false;
  else {
    // Nested lines get this level's indentation; JSON strings never hold a raw line end.
    out.indented(JSON.stringify(value, jsonReplacer, 2) ?? 'null', pad);
  }
  return true;
}

/** Object keys as JSON strings, each made once: a report repeats a few keys hundreds of thousands of times. */
const quotedKeys = new Map<string, string>();

function quotedKey(key: string): string {
  let q = quotedKeys.get(key);
  if (q === undefined) quotedKeys.set(key, (q = JSON.stringify(key)));
  return q;
}

/** Said by Level.next when the level's list or object is written to its end. */
const ENDED = Symbol('ended');

/**
 * A list or an object (prepared) being written piece by piece: its elements and members are
 * written whole where they can be, the others each as a level of its own. The levels are kept on
 * a stack rather than each written by a generator of its own: a report of a large dump streams
 * hundreds of thousands of values, and each step of each generator between a piece and the writer
 * made an object.
 */
class Level {
  private readonly list: readonly unknown[] | LazyList<unknown, unknown> | undefined;
  private readonly lazy: boolean;
  private readonly members: Readonly<Record<string, unknown>> | undefined;
  private readonly keys: readonly string[] | undefined;
  /** The next element or member. */
  private at = 0;
  /** Whether a member was written. */
  private wrote = false;
  readonly pad: string;
  /** The indentation of its elements and members. */
  readonly inner: string;
  readonly depth: number;

  constructor(value: object, pad: string, depth: number) {
    this.pad = pad;
    this.inner = pad + INDENT;
    this.depth = depth;
    if (Array.isArray(value) || value instanceof LazyList) {
      this.list = value as readonly unknown[] | LazyList<unknown, unknown>;
      this.lazy = value instanceof LazyList;
      this.members = undefined;
      this.keys = undefined;
    } else {
      this.list = undefined;
      this.lazy = false;
      this.members = value instanceof StreamedObject ? value.members : (value as Record<string, unknown>);
      this.keys = Object.keys(this.members);
    }
  }

  /**
   * Writes what comes before the next element or member (its key) into `out` and gives it
   * (prepared), made only now (a lazy list's element, a getter's member); or writes the end of the
   * list or object and says ENDED.
   */
  next(out: AsciiBuilder): unknown {
    const { list, inner } = this;
    if (list !== undefined) {
      const i = this.at;
      if (i >= list.length) {
        if (i === 0) out.ascii('[]');
        else this.close(out, 0x5d); // ]
        return ENDED;
      }
      this.at++;
      out.ascii(i === 0 ? '[\n' : ',\n');
      out.ascii(inner);
      // By index: a lazy list's elements are made here, without an iterator.
      const item = this.lazy ? (list as LazyList<unknown, unknown>).at(i) : (list as readonly unknown[])[i];
      return skipped(item) ? null : prepared(String(i), item);
    }
    const keys = this.keys!;
    while (this.at < keys.length) {
      const k = keys[this.at++]!;
      const p = prepared(k, this.members![k]);
      if (skipped(p)) continue;
      out.char(this.wrote ? 0x2c : 0x7b); // , or {
      out.char(0x0a);
      out.ascii(inner);
      out.utf8(quotedKey(k));
      out.ascii(': ');
      this.wrote = true;
      return p;
    }
    if (this.wrote)
      this.close(out, 0x7d); // }
    else out.ascii('{}');
    return ENDED;
  }

  private close(out: AsciiBuilder, bracket: number): void {
    out.char(0x0a);
    out.ascii(this.pad);
    out.char(bracket);
  }
}

/**
 * What JSON.stringify escapes in a string: a quote, a backslash, a control character, a lone
 * surrogate (a pair too is taken here, and then written by JSON.stringify, as it would be anyway).
 */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A list of strings as JSON.stringify(strings, undefined, 2) writes it, its lines indented by
 * `pad`, written into `out`; joined by the list itself where it can (see StringList).
 */
function writeStringList(list: StringList, pad: string, out: AsciiBuilder): void {
  const inner = pad + INDENT;
  if (list.writeJoined) {
    const mark = out.length;
    out.ascii(`[\n${inner}"`);
    const opened = out.length;
    if (list.writeJoined(out, `",\n${inner}"`)) {
      if (out.length === opened) {
        out.truncate(mark);
        out.ascii('[]');
      } else out.ascii(`"\n${pad}]`);
      return;
    }
    out.truncate(mark);
  }
  const { strings } = list;
  if (strings.length === 0) {
    out.ascii('[]');
    return;
  }
  // Most lists need no escaping at all: their strings are joined between the quotes.
  const body = strings.some((s) => ESCAPED.test(s))
    ? strings.map((s) => JSON.stringify(s)).join(`,\n${inner}`)
    : `"${strings.join(`",\n${inner}"`)}"`;
  out.ascii(`[\n${inner}`);
  out.utf8(body);
  out.char(0x0a);
  out.ascii(pad);
  out.char(0x5d);
}

/** The JSON text of `value` in pieces of UTF-8 bytes, each valid until the next is asked for. */
export function* jsonBytePieces(value: unknown): Generator<JsonPiece> {
  const out = new AsciiBuilder();
  const p = prepared('', value);
  if (!wroteWhole(p, '', 0, out)) {
    const levels = [new Level(p as object, '', 0)];
    while (levels.length > 0) {
      const level = levels[levels.length - 1]!;
      const item = level.next(out);
      if (item === ENDED) levels.pop();
      else if (!wroteWhole(item, level.inner, level.depth + 1, out)) {
        // The text before a value written piece by piece is handed on first, so that what the
        // value holds (a lazy list's elements) is made only once that text is out.
        if (out.length > 0) yield out.takeBytes();
        levels.push(new Level(item as object, level.inner, level.depth + 1));
      }
      if (out.length >= PIECE_BYTES) yield out.takeBytes();
    }
  }
  if (out.length > 0) yield out.takeBytes();
}

/** The JSON text of `value` in pieces, each small enough to be a string. */
export function* jsonPieces(value: unknown): Generator<string> {
  // A piece ends after a whole value, never inside a character.
  for (const piece of jsonBytePieces(value))
    yield Buffer.from(piece.buffer, piece.byteOffset, piece.length).toString('utf8');
}

/** The JSON text of `value` as one string, as the command line prints it (without the final line end). */
export function formatJson(value: unknown): string {
  return [...jsonPieces(value)].join('');
}
