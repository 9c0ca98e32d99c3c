/**
 * Diagnostics as GNU-style `file:line:col: severity: message`, with a window of the source line
 * and a caret under the column.
 */
import type { Diagnostic } from '../model/diagnostics.ts';
import { clip, ELLIPSIS } from './clip.ts';

/** How much of the line is shown: enough for a flow's match, never a whole 100 KB line. */
const WINDOW = 100;
/** Of the window, how much comes before the column. */
const BEFORE = 40;
/** A message quotes the input at times (an unknown field's name): as long as that, no longer. */
const MESSAGE = 200;

export function formatDiagnostic(d: Diagnostic): string {
  const at = Math.max(0, Math.min(d.column - 1, d.lineText.length));
  const from = d.lineText.length <= WINDOW ? 0 : Math.max(0, Math.min(at - BEFORE, d.lineText.length - WINDOW));
  const to = Math.min(d.lineText.length, from + WINDOW);
  const head = from > 0 ? ELLIPSIS : '';
  const shown = head + d.lineText.slice(from, to) + (to < d.lineText.length ? ELLIPSIS : '');
  const tabsKept = (head ? ' ' : '') + d.lineText.slice(from, at).replace(/[^\t]/g, ' ');
  const width = Math.max(1, Math.min(d.length, to - at));
  const caret = '^' + (width > 1 ? '~'.repeat(width - 1) : '');
  const message = clip(d.message, MESSAGE);
  return `${d.file}:${d.line}:${d.column}: ${d.severity}: ${message}\n    ${shown}\n    ${tabsKept}${caret}`;
}

/** Diagnostics shown per file unless --max-errors says otherwise, and per line. */
export const DEFAULT_MAX_DIAGNOSTICS = 20;
export const MAX_DIAGNOSTICS_PER_LINE = 3;

/**
 * The diagnostics worth showing, at most `max` per file and MAX_DIAGNOSTICS_PER_LINE per line,
 * and how many of each file's were left out: a file of bad lines reads as a few examples and a
 * count, not as megabytes of carets.
 */
export function capDiagnostics(
  all: readonly Diagnostic[],
  max: number,
): { shown: Diagnostic[]; left: Map<string, number> } {
  const shown: Diagnostic[] = [];
  const left = new Map<string, number>();
  const perFile = new Map<string, number>();
  let line = '';
  let onLine = 0;
  for (const d of all) {
    const key = `${d.file}\0${d.line}`;
    onLine = key === line ? onLine + 1 : 1;
    line = key;
    const n = perFile.get(d.file) ?? 0;
    if (n < max && onLine <= MAX_DIAGNOSTICS_PER_LINE) {
      shown.push(d);
      perFile.set(d.file, n + 1);
    } else {
      left.set(d.file, (left.get(d.file) ?? 0) + 1);
    }
  }
  return { shown, left };
}
