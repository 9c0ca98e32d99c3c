/**
 * Lexical helpers shared by the action parsers: the OVS key/value scanner for action lists
 * (`name`, `name:arg`, `name=arg`, `name(arg)`), numbers and ports.
 */
import { type PortMap, type PortRef, reservedPortByName, reservedPortByNumber } from '../model/ports.ts';
import { parseUint, plainNumberAt } from './numbers.ts';
import { findClose, scanValue, skipQuoted, unquoteName } from './tokens.ts';
import { classesOf, KEY_END, LINE_END, OPEN_PAREN, QUOTE, SEPARATOR } from './char-codes.ts';

/** One element of an action list, with offsets into the line. */
export interface ActionToken {
  /** Name as written (case kept). */
  readonly name: string;
  readonly nameOffset: number;
  /** Text after `:`/`=`, or inside the parentheses; undefined for a bare word. */
  readonly arg?: string;
  readonly argOffset: number;
  /** Whether the argument was parenthesised. */
  readonly paren: boolean;
  /** Text after the closing parenthesis up to the next separator (`check_pkt_larger(N)->F`). */
  readonly tail: string;
  readonly end: number;
  /** The parenthesis was never closed. */
  readonly unbalanced: boolean;
}

/** What separates the elements of an action list: what separates a flow's key/value part's, and line ends. */
const ACTION_SEPARATOR = SEPARATOR | LINE_END;

/**
 * Splits `text[start, end)` the way OVS's `ofputil_parse_key_value` does: elements separated by
 * commas and/or white space; a key ends at `=`, `:` or `(`.
 */
export function scanActionTokens(text: string, start: number, end: number): ActionToken[] {
  const out: ActionToken[] = [];
  let i = start;
  while (i < end) {
    while (i < end && (classesOf(text.charCodeAt(i)) & ACTION_SEPARATOR) !== 0) i++;
    if (i >= end) break;
    const nameOffset = i;
    let c = text.charCodeAt(i);
    while (i < end && (classesOf(c) & (ACTION_SEPARATOR | KEY_END)) === 0) {
      i = c === QUOTE ? skipQuoted(text, i, end) : i + 1;
      c = text.charCodeAt(i);
    }
    const name = text.slice(nameOffset, i);
    if (i < end && c === OPEN_PAREN) {
      const close = findClose(text, i, end);
      const unbalanced = close >= end;
      const after = unbalanced ? end : scanValue(text, close + 1, end, ACTION_SEPARATOR);
      out.push({
        name,
        nameOffset,
        arg: text.slice(i + 1, Math.min(close, end)),
        argOffset: i + 1,
        paren: true,
        tail: unbalanced ? '' : text.slice(close + 1, after),
        end: after,
        unbalanced,
      });
      i = after;
    } else if (i < end && (classesOf(c) & KEY_END) !== 0) {
      const argOffset = i + 1;
      i = scanValue(text, argOffset, end, ACTION_SEPARATOR);
      out.push({
        name,
        nameOffset,
        arg: text.slice(argOffset, i),
        argOffset,
        paren: false,
        tail: '',
        end: i,
        unbalanced: false,
      });
    } else {
      out.push({ name, nameOffset, argOffset: i, paren: false, tail: '', end: i, unbalanced: false });
    }
  }
  return out;
}

/** parseUint for values that fit a JavaScript number. */
export function parseSmall(text: string, max: number): number | undefined {
  const plain = plainNumberAt(text, 0, text.length);
  if (plain >= 0) return plain <= max ? plain : undefined;
  const v = parseUint(text, BigInt(max));
  return v === undefined ? undefined : Number(v);
}

/**
 * A port as OVS accepts it in actions: a number (reserved numbers become reserved ports), a reserved
 * name in any case, or a port name (bare or JSON-quoted). With a port map, names must be in it;
 * without one, names are taken as written, except a `bareWord` (an action list element that is
 * not an action), which OVS only takes for a port when its name is known.
 */
export function parsePortRef(text: string, portMap: PortMap | undefined, bareWord = false): PortRef | undefined {
  const quoted = text.trim().startsWith('"');
  const name = unquoteName(text.trim());
  if (name === undefined || name === '') return undefined;
  const n = parseUint(name, 0xffffffffn);
  if (n !== undefined) {
    const reserved = reservedPortByNumber(Number(n));
    if (reserved) return { kind: 'reserved', name: reserved };
    if (n >= 0xff00n && n < 0xffffff00n) return undefined;
    return { kind: 'number', number: Number(n) };
  }
  const reserved = reservedPortByName(name);
  if (reserved && name === text.trim()) return { kind: 'reserved', name: reserved };
  if (portMap) return portMap.number(name) === undefined ? undefined : { kind: 'name', name };
  return bareWord && !quoted ? undefined : { kind: 'name', name };
}

/** Parses `01.02.ab` / `0102ab` hex bytes (dots optional between bytes). */
export function parseHexBytes(text: string): number[] | undefined {
  const bytes: number[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '.') {
      i++;
      continue;
    }
    const pair = text.slice(i, i + 2);
    if (!/^[0-9a-fA-F]{2}$/.test(pair)) return undefined;
    bytes.push(parseInt(pair, 16));
    i += 2;
  }
  return bytes;
}
