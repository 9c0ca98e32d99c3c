/** What the profile says of a flow, in words: its pattern's sentence, its table's miss, or why it says nothing. */
import type { Explanation, MissExplanation, UnknownExplanation } from '../../analysis/annotate/annotate.ts';
import { jumpTargets } from '../../model/flow-exits.ts';
import { rangeText } from '../../profiles/versions.ts';
import type { VerdictReason } from '../../analysis/trace/trace-verdict.ts';
import { describeActions, flowWords } from './flow.ts';
import { expectedMissWords, missPredicate } from './miss.ts';

/** The miss flow told against the documented miss; as the flow does it where it departs from it. */
function missSentence(e: MissExplanation): string {
  const name = e.wording.profileTable;
  const miss = e.documented;
  const lead = `Packets no other flow of ${e.table} matches`;
  const does = (): string => describeActions(e.actions, e.wording).join(', ');
  if (e.differs) return `${lead}: ${does()}. This differs from the documented miss (${expectedMissWords(miss, name)}).`;
  switch (miss.action) {
    case 'next': {
      const next = [...new Set(jumpTargets(e.actions).map((t) => e.wording.table(t)))];
      return `${lead} ${missPredicate(miss, name)} (here ${next.join(' and ')}).`;
    }
    case 'drop':
    case 'goto':
    case 'normal':
    case 'controller':
      return `${lead} ${missPredicate(miss, name)}.`;
    case 'custom':
      return `${lead}: ${miss.description}`;
    case 'none':
      return `${e.table} usually has no miss flow; this one: ${does()}.`;
  }
}

export function unknownReason(e: UnknownExplanation): string {
  switch (e.why) {
    case 'other-release':
      return `table ${e.table} is a table of ${e.profile} only in ${rangeText(e.releases)}`;
    case 'no-table':
      return `table ${e.table} is not a table of ${e.profile}`;
    case 'no-pattern':
      return `no pattern of table ${e.table} fits`;
  }
}

/** The explanation's one sentence (for an unknown flow, the reason the profile says nothing). */
export function explanationText(e: Explanation): string {
  switch (e.kind) {
    case 'pattern':
      return e.meaning;
    case 'miss':
      return missSentence(e);
    case 'unknown':
      return unknownReason(e);
  }
}

/** As JSON: the pattern as it is, a miss by its sentence, an unknown flow by its reason. */
export function explanationJson(e: Explanation): Record<string, unknown> {
  switch (e.kind) {
    case 'pattern':
      return { ...e };
    case 'miss':
      return { kind: e.kind, meaning: missSentence(e), continuesIn: e.continuesIn };
    case 'unknown':
      return { kind: e.kind, reason: unknownReason(e) };
  }
}

/** Why a trace's path ended where it did, one sentence. */
export function verdictReasonText(why: VerdictReason): string {
  switch (why.source) {
    case 'pattern':
    case 'miss':
      return explanationText(why.explanation);
    case 'no-match':
      return 'no flow matched';
    case 'unexplained':
      return flowWords(why.flow, why.wording).sentence;
  }
}
