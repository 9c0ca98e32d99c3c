/**
 * `profile fit` in words and as JSON: how many flows the profile explains, table by table, the
 * flows it cannot explain (the next patterns to write) and the patterns no flow of the dump fits.
 */
import { profileNoteJson } from './words/profile.ts';
import type { ProfileNote } from '../analysis/detect/profile-choice.ts';
import type { Misfit, MisfitReason, ProfileFit, TableFit } from '../analysis/profile/profile-fit.ts';
import type { FlowPattern } from '../profiles/types.ts';
import { formatActions } from './actions.ts';
import { formatPriorityAndMatch } from './flow.ts';
import { SCHEMA_VERSION, flowJson } from './json.ts';
import { plural } from './plural.ts';
import type { Style } from './style.ts';
import { profileHead, tableHeading } from './show.ts';

export type FitStyle = Style<'head' | 'warn' | 'dim'>;

export interface FitTextOptions {
  /** Unexplained flows shown per table; the rest are counted. Undefined: every one. */
  readonly perTable?: number;
  readonly explainProfile?: boolean;
}

const REASON_WORDS: Record<MisfitReason, string> = {
  'no-pattern': 'no pattern fits',
  'no-table': 'not a table of the profile',
  'other-release': 'a table of the profile in other releases only',
};

/** The flow's priority, match and actions, without its counters: what a pattern is written from. */
function flowText(m: Misfit): string {
  const head = formatPriorityAndMatch(m.flow);
  return `line ${m.flow.origin.line}: ${head === '' ? '' : `${head} `}actions=${formatActions(m.flow.actions, { of: 15 })}`;
}

/** A pattern as its author wrote it, in short: priority, match, action hints, the sentence's start. */
function patternText(p: FlowPattern): string {
  const priority =
    p.priority === undefined
      ? []
      : [
          typeof p.priority === 'number'
            ? `priority ${p.priority}`
            : `priority ${p.priority.min ?? 0}–${p.priority.max ?? 65535}`,
        ];
  const parts = [
    ...priority,
    p.match === '' ? 'any match' : p.match,
    ...(p.actions?.length ? [`actions ${p.actions.join(', ')}`] : []),
  ];
  const meaning = p.meaning.length > SENTENCE_START ? `${p.meaning.slice(0, SENTENCE_START - 1)}…` : p.meaning;
  return `${parts.join('; ')}: “${meaning}”`;
}

/** Characters of a pattern's sentence that say which one it is. */
const SENTENCE_START = 50;

function tableLine(t: TableFit): string {
  const parts = [`${plural(t.flows, 'flow')}`, `${t.fitted} by a pattern`];
  if (t.misses > 0) parts.push(`${t.misses} by the miss`);
  if (t.misfits.length > 0) parts.push(`${t.misfits.length} unexplained`);
  return `${tableHeading(t.table)}: ${parts.join(', ')}`;
}

/** The report as lines of text. */
export function profileFitText(
  fit: ProfileFit,
  profile: ProfileNote,
  style: FitStyle,
  o: FitTextOptions = {},
): string[] {
  const explained = fit.fitted + fit.misses;
  const lines = profileHead(profile, fit.tables.length, o.explainProfile ?? false).map((l) => style.dim(l));
  const summary = `${explained} of ${plural(fit.flows, 'flow')} explained (${fit.fitted} by a pattern, ${fit.misses} by their table's miss)`;
  lines.push(fit.misfits === 0 ? summary : `${summary}; ${style.warn(`${fit.misfits} unexplained`)}`);
  for (const t of fit.tables) {
    lines.push('', style.head(tableLine(t)));
    const byReason = new Map<MisfitReason, Misfit[]>();
    for (const m of t.misfits) byReason.set(m.reason, [...(byReason.get(m.reason) ?? []), m]);
    for (const [reason, misfits] of byReason) {
      lines.push(`  ${style.warn(`? ${REASON_WORDS[reason]}`)}:`);
      const shown = o.perTable === undefined ? misfits : misfits.slice(0, o.perTable);
      for (const m of shown) lines.push(`    ${flowText(m)}`);
      if (shown.length < misfits.length)
        lines.push(style.dim(`    … and ${misfits.length - shown.length} more (-o wide shows every one)`));
    }
    const unused = t.patterns.filter((p) => p.flows === 0);
    if (unused.length > 0) {
      lines.push(style.dim(`  ${plural(unused.length, 'pattern')} no flow fits:`));
      for (const p of unused) lines.push(style.dim(`    pattern ${p.index + 1}: ${patternText(p.pattern)}`));
    }
  }
  return lines;
}

function misfitJson(m: Misfit): Record<string, unknown> {
  return { reason: m.reason, flow: flowJson(m.flow) };
}

export function profileFitJson(fit: ProfileFit, profile: ProfileNote): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    profile: { ...profileNoteJson(profile), release: profile.release ?? null },
    flows: fit.flows,
    fitted: fit.fitted,
    misses: fit.misses,
    unexplained: fit.misfits,
    tables: fit.tables.map((t) => ({
      number: t.table.number ?? null,
      name: t.table.name ?? null,
      known: t.table.spec !== undefined,
      flows: t.flows,
      fitted: t.fitted,
      misses: t.misses,
      unexplained: t.misfits.map(misfitJson),
      patterns: t.patterns.map((p) => ({ index: p.index, match: p.pattern.match, flows: p.flows })),
    })),
  };
}
