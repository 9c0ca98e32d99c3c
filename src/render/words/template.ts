/** A profile's sentence (`FlowPattern.meaning`) with its placeholders filled. */
import { templateParts } from '../../analysis/fit/sentence-template.ts';

/**
 * The sentence with each run of placeholders replaced by the values `value` gives them (every one
 * of the run, in order, or the first that has one), else by the run's words for an absent value,
 * else by `absent`. An annotation fills every placeholder of a run and leaves nothing for an
 * unfilled one; a check's finding knows only a few words, takes the first and marks a gap `…`.
 */
export function fillTemplate(
  meaning: string,
  value: (name: string) => string | undefined,
  run: 'all' | 'first',
  absent: string,
): string {
  // Said of thousands of flows of a report, each with its own values: one pass, no arrays, and
  // indexed loops (an iterator makes a result object per step until its loop is optimised).
  let out = '';
  const parts = templateParts(meaning);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if ('text' in part) {
      out += part.text;
      continue;
    }
    let filled = '';
    const { run: placeholders } = part;
    for (let j = 0; j < placeholders.length; j++) {
      const p = placeholders[j]!;
      const v = value(p.name) ?? '';
      if (run === 'all') filled += v;
      else if (v !== '') {
        filled = v;
        break;
      }
    }
    out += filled !== '' ? filled : (part.run.find((p) => p.fallback !== undefined)?.fallback ?? absent);
  }
  return out;
}
