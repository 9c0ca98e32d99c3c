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
  return templateParts(meaning)
    .map((part) => {
      if ('text' in part) return part.text;
      const values = part.run.map((p) => value(p.name) ?? '');
      const filled = run === 'all' ? values.join('') : (values.find((v) => v !== '') ?? '');
      return filled !== '' ? filled : (part.run.find((p) => p.fallback !== undefined)?.fallback ?? absent);
    })
    .join('');
}
