/** What the profile says of a flow, in words: its pattern's sentence, its table's miss, or why it says nothing. */
import {
  ClausesExplanation,
  type Explanation,
  type MissExplanation,
  type OutputTarget,
  type PatternExplanation,
  type PlaceholderValue,
  type UnknownExplanation,
} from '../../analysis/annotate/annotate.ts';
import { fillTemplate } from './template.ts';
import { jumpTargets } from '../../model/flow-exits.ts';
import { rangeText } from './profile.ts';
import type { VerdictReason } from '../../analysis/trace/trace-verdict.ts';
import { describeActions, flowWords } from './flow.ts';
import { subfieldWords, tableNameWords } from './names.ts';
import { bitsValueWords } from './bits.ts';
import { plainPortWords, portWords } from './port.ts';
import { expectedMissWords, missPredicate } from './miss.ts';

/** A port a flow outputs to, in words. */
export function outputTargetText(t: OutputTarget): string {
  switch (t.kind) {
    case 'port':
      return portWords(t.port);
    case 'in-port':
      return 'the port the packet came in on';
    case 'subfield':
      return `the port in ${subfieldWords(t.subfield)}`;
  }
}

/** What a placeholder stands for, in words; empty when the flow gives it nothing. */
function placeholderText(v: PlaceholderValue): string {
  switch (v.kind) {
    case 'text':
      return v.text;
    case 'port':
      return plainPortWords(v.port);
    case 'bits':
      return bitsValueWords(v.value);
    case 'tables':
      return v.tables.map(tableNameWords).join(' and ');
    case 'outputs':
      return v.ports.map(outputTargetText).join(' and ');
    case 'groups':
      return v.ids.join(' and ');
    case 'clauses': {
      // In one pass, indexed (see showText): a policy table's thousands of flows each say their own.
      const { clauses } = v;
      let text = '';
      for (let i = 0; i < clauses.length; i++) {
        const c = clauses[i]!;
        text += clauseWords(c.clause, c.of, c.id, i);
      }
      return text;
    }
    case 'zone':
      return v.zone !== undefined
        ? `zone ${v.zone}`
        : v.subfield !== undefined
          ? `the zone in ${subfieldWords(v.subfield)}`
          : 'the default zone';
  }
}

/**
 * The pattern's sentence with its placeholders filled from the flow: of placeholders written back
 * to back, those with a value; when none has one, the words the template gives for its absence.
 */
export function patternSentence(e: PatternExplanation): string {
  if (e !== lastSaid) {
    lastSentence = e instanceof ClausesExplanation ? clausesSentence(e) : fill(e, e.fills);
    lastSaid = e;
  }
  return lastSentence;
}

/**
 * The sentence of a flow's own clauses in its frame's, said once with a mark where the clauses go:
 * a policy table's thousands of flows each say their own clauses (in one pass, indexed).
 */
function clausesSentence(e: ClausesExplanation): string {
  const around = frameText(e.frame);
  if (around.length === 1) return around[0]!;
  const list = e.conjunctions;
  let clauses = '';
  for (let i = 0; i < list.length; i++) {
    const a = list[i]!;
    if (a.kind === 'conjunction') clauses += clauseWords(a.clause, a.nClauses, a.id, i);
  }
  return around.length === 2 ? around[0]! + clauses + around[1]! : around.join(clauses);
}

/** `2/3 of conjunction 7`, the `i`th clause of a list: led by `, ` but for the first. */
function clauseWords(clause: number, of: number, id: number, i: number): string {
  return `${i === 0 ? '' : ', '}${clause}/${of} of conjunction ${id}`;
}

/** Where a frame's clauses go: a character no sentence holds, and neither spaces nor punctuation (which fill tidies). */
const CLAUSES = '\0';

/** A frame's sentence in pieces, around its clauses; the last frame said and its pieces. */
let lastFrame: PatternExplanation | undefined;
let lastFramePieces: readonly string[] = [];

function frameText(frame: PatternExplanation): readonly string[] {
  if (frame !== lastFrame) {
    lastFramePieces = fill(frame, {
      get: (name) => (name === 'conjunction' ? { kind: 'text', text: CLAUSES } : frame.fills.get(name)),
    }).split(CLAUSES);
    lastFrame = frame;
  }
  return lastFramePieces;
}

/**
 * The sentence said last, and its explanation: the annotator gives flows with the same actions
 * one explanation when its sentence reads only them, and a report says a policy table's flows of
 * one action list one after the other. Remembering every sentence (a weak map by explanation)
 * cost more than saying again the few that come back later.
 */
let lastSaid: PatternExplanation | undefined;
let lastSentence = '';

/** Spaces that fill tidies: two or more, or one before punctuation. */
const GAP = / [ .,;:]/;

function fill(e: PatternExplanation, fills: Pick<ReadonlyMap<string, PlaceholderValue>, 'get'>): string {
  const filled = fillTemplate(
    e.template,
    (name) => {
      const v = fills.get(name);
      return v === undefined ? '' : placeholderText(v);
    },
    'all',
    '',
  );
  // Tidied where an empty value left a gap, found in one pass: most sentences need nothing done.
  return GAP.test(filled) ? filled.replace(/ {2,}/g, ' ').replace(/ ([.,;:])/g, '$1') : filled;
}

/** The miss flow told against the documented miss; as the flow does it where it departs from it. */
function missSentence(e: MissExplanation): string {
  const name = e.wording.profileTable;
  const miss = e.documented;
  const lead = `Packets no other flow of ${e.table} matches`;
  const does = (): string => describeActions(e.actions, e.wording).join(', ');
  if (e.differs) return `${lead}: ${does()}. This differs from the documented miss (${expectedMissWords(miss, name)}).`;
  switch (miss.action) {
    case 'next': {
      const next = [...new Set(jumpTargets(e.actions).map((t) => tableNameWords(e.wording.table(t))))];
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
      return patternSentence(e);
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
      return { kind: e.kind, index: e.index, match: e.match, meaning: patternSentence(e), continuesIn: e.continuesIn };
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
