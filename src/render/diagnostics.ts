/** Diagnostics as GNU-style `file:line:col: severity: message` with the source line and a caret. */
import type { Diagnostic } from '../model/diagnostics.ts';

export function formatDiagnostic(d: Diagnostic): string {
  const tabsKept = d.lineText.slice(0, d.column - 1).replace(/[^\t]/g, ' ');
  const width = Math.max(1, Math.min(d.length, d.lineText.length - d.column + 1));
  const caret = '^' + (width > 1 ? '~'.repeat(width - 1) : '');
  return `${d.file}:${d.line}:${d.column}: ${d.severity}: ${d.message}\n    ${d.lineText}\n    ${tabsKept}${caret}`;
}
