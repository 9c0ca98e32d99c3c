/** Which profile reads a dump and why, in words: its release, and each finding detection made. */
import type { DetectionReason, SignalFinding } from '../../analysis/detect/detect-profile.ts';
import type { ProfileChoiceProblem, ProfileNote, ReleaseNote } from '../../analysis/detect/profile-choice.ts';
import type { Versioned } from '../../profiles/types.ts';

/** `releases 1.6 and later`, `releases up to 1.14`, `release 1.4`, `releases 0.10–1.5`, `any release`: a range in words. */
export function rangeText(range: Versioned): string {
  if (range.since === undefined && range.until === undefined) return 'any release';
  if (range.until === undefined) return `releases ${range.since} and later`;
  if (range.since === undefined) return `releases up to ${range.until}`;
  return range.since === range.until ? `release ${range.since}` : `releases ${range.since}–${range.until}`;
}

/**
 * The release a dump is read in, in words: `release 1.0`, or the range the evidence leaves open
 * and the one read in (`releases 1.15–2.4, read as 2.4`).
 */
export function releaseWords(note: ProfileNote): string | undefined {
  if (note.release === undefined) return undefined;
  if (note.olderThan !== undefined) return `older than ${note.olderThan}, the first release ${note.id} describes`;
  const range = note.releases;
  if (!range || (range.since === note.release && range.until === note.release)) return `release ${note.release}`;
  return `${rangeText(range)}, read as ${note.release}`;
}

/**
 * The release in a few characters, for a table cell or a heading: `0.13`, the range the evidence
 * leaves open (`3–10`, `2.5+`), or `<0.10` for a dump older than the profile.
 */
export function releaseBrief(note: ReleaseNote): string | undefined {
  if (note.release === undefined) return undefined;
  if (note.olderThan !== undefined) return `<${note.olderThan}`;
  const range = note.releases;
  if (!range || (range.since === note.release && range.until === note.release)) return note.release;
  return range.until === undefined ? `${range.since}+` : `${range.since ?? ''}–${range.until}`;
}

function findingText(f: SignalFinding): string {
  switch (f.kind) {
    case 'table-name':
      return `a table named ${f.name}`;
    case 'table-number':
      return `table ${f.number} is used`;
    case 'note':
      return `table ${f.table} holds the note ${f.note}`;
    case 'port-name':
      return `a port named ${f.port}`;
    case 'field-used':
      return `flows use ${f.field}`;
    case 'flow': {
      const where = f.table === undefined ? 'a flow' : `a flow in table ${f.table}`;
      const what = f.match === '' ? '' : ` matching ${f.match}`;
      const does = f.actions.length > 0 ? ` that does ${f.actions.join(', ')}` : '';
      return `${where}${what}${does}`;
    }
  }
}

function signed(weight: number): string {
  return weight < 0 ? `−${-weight}` : `+${weight}`;
}

/** One reason a profile or release was chosen, one sentence. */
export function detectionReasonText(r: DetectionReason): string {
  switch (r.kind) {
    case 'signal':
      return `${findingText(r.finding)} (${signed(r.weight)})`;
    case 'table-names':
      return `${r.known} of the ${r.names} table names are tables of this profile (${signed(r.score)})`;
    case 'layout':
      return `read in layout ${r.layout.id} (${r.layout.description}), the flows of ${r.fit} of the ${r.tables} numbered tables fit their tables (${signed(r.score)})`;
    case 'stray-bits':
      return `bits the profile does not describe are in use: ${r.bits.join(', ')} (${signed(r.score)})`;
    case 'next-best':
      return `next best: ${r.profile} with ${r.score}`;
    case 'older-release': {
      const names = r.tables.map((t) => (t.number === undefined ? t.name : `${t.number} ${t.name}`));
      return `the dump has none of the tables ${r.first} added (${names.join(', ')}): it comes from a release before ${r.first}, the first ${r.profile} describes, and is read without them`;
    }
    case 'release-signal':
      return `${findingText(r.finding)}, which points to ${rangeText(r.points)}${r.outweighed ? ', but the rest of the dump outweighs it' : ''}`;
    case 'release-bits':
      return `other releases lack names for register or mark bits in use, which ${rangeText(r.range)} ${r.several ? 'have' : 'has'}`;
    case 'release-fit': {
      const several = r.readAs !== undefined;
      const flows = r.flows === r.total ? `${r.total} flows` : `${r.flows} flows sampled from ${r.total}`;
      return `${rangeText(r.range)} ${several ? 'explain' : 'explains'} ${r.misfits === 0 ? 'all' : `all but ${r.misfits} of`} the ${flows}${several ? `; reading the dump as release ${r.readAs}` : ''}`;
    }
    case 'release-given':
      return `--release ${r.release} was given`;
  }
}

/** The profile note as JSON: its reasons as sentences. */
export function profileNoteJson(p: ProfileNote): Record<string, unknown> {
  return { ...p, reasons: p.reasons.map(detectionReasonText) };
}

/** Why a profile request cannot be met, in words, with what the user can ask for instead. */
export function profileChoiceProblemText(p: ProfileChoiceProblem): string {
  switch (p.kind) {
    case 'unknown-profile':
      return `unknown profile ${p.profile} (known: ${p.known.join(', ')})`;
    case 'release-not-described': {
      const fix = p.how === 'given' ? '' : '; give --profile for the pipeline of that release';
      const among = p.among.map((q) => `${q.id}, ${rangeText(q.versions)}`).join('; ');
      return `--release ${p.release}: the ${p.how} profile ${p.profile.id} describes ${rangeText(p.profile.versions)}${fix} (profiles: ${among})`;
    }
  }
}
