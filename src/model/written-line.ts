/**
 * The text of a dump line after its statistics (see Origin.statsEnd): the flow as written, which
 * two dumps of one switch mostly share line for line, whatever order they list them in.
 */
import { mix } from './hash.ts';

/**
 * A hash of the text of a dump line after its statistics (from `start`), from its length and a
 * sample of its characters: the first 40 (priority and match, where flows of one table differ
 * most), the last 12 and 12 spread between. Lines that hash alike are compared whole; reading
 * every character of two million-flow dumps cost more than the rest of a diff. The line may lie
 * in a longer text, ending at `end`.
 */
export function writtenHash(text: string, start: number, end = text.length): number {
  let h = Math.imul(0x811c9dc5 ^ (end - start), 0x01000193);
  if (end - start <= 64) {
    for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    return mix(h) & 0x3fffffff;
  }
  for (let i = start; i < start + 40; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  const stride = Math.floor((end - 12 - (start + 40)) / 12) || 1;
  for (let i = start + 40; i < end - 12; i += stride) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  for (let i = end - 12; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return mix(h) & 0x3fffffff;
}

/** Whether line `a`, its statistics ending at `ea`, says after them what line `b` says after `eb`. */
export function sameWritten(a: string, ea: number, b: string, eb: number): boolean {
  return a.length - ea === b.length - eb && a.endsWith(b.slice(eb));
}
