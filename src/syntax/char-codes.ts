/**
 * Characters as the scanners tell them apart: they run over every character of a dump, so they
 * compare codes rather than allocate one-character strings, and look a code's classes up in a
 * table (a bit per class) rather than compare it with each member of a class in turn.
 */

/** Between the elements of a flow's key/value part: `,`, space, tab. */
export const SEPARATOR = 1;
/** `\r`, `\n`: between the elements of an action list too. */
export const LINE_END = 2;
/** Ends a key: `=`, `:`, `(`. */
export const KEY_END = 4;
/** Opens a bracketed part a separator does not end: `(`, `[`. */
export const OPENS = 8;
/** Closes one: `)`, `]`. */
export const CLOSES = 16;
/** `,` alone: between the items of a list that white space does not separate. */
export const COMMA = 32;

const MEMBERS: readonly (readonly [number, string])[] = [
  [SEPARATOR, ', \t'],
  [LINE_END, '\r\n'],
  [KEY_END, '=:('],
  [OPENS, '(['],
  [CLOSES, ')]'],
  [COMMA, ','],
];

/** The classes of each ASCII code; other characters are of none. */
const CLASSES = new Uint8Array(128);
for (const [bit, members] of MEMBERS) for (let i = 0; i < members.length; i++) CLASSES[members.charCodeAt(i)]! |= bit;

/** The classes of the character of code `c`, as bits; none past the end of a text (`c` NaN). */
export function classesOf(c: number): number {
  return c < 128 ? CLASSES[c]! : 0;
}

/** Characters a scanner looks for one by one. */
export const QUOTE = 0x22;
export const OPEN_PAREN = 0x28;
export const CLOSE_PAREN = 0x29;
export const COLON = 0x3a;
export const BACKSLASH = 0x5c;
