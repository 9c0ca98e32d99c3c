/** How text reports name a severity: `info`, its name in JSON, reads as "note". */
import type { Severity } from '../analysis/check/finding.ts';

export function severityWord(s: Severity): string {
  return s === 'info' ? 'note' : s;
}
