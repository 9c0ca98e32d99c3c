/**
 * `profile check` in words: each problem of a profile file as a diagnostic at its place in the
 * file (`file:line:col: error: …` with the line and a caret), and the report as JSON.
 */
import {
  type ProfileFileCheck,
  type ProfileFileProblem,
  type ProfileFlaw,
  flawIsError,
} from '../analysis/profile/profile-check.ts';
import type { Diagnostic } from '../model/diagnostics.ts';
import { formatDiagnostic } from './diagnostics.ts';
import { SCHEMA_VERSION, diagnosticJson } from './json.ts';
import { plural } from './plural.ts';

/** A line of the file, 1-based, and the place of a value in the profile's data (for `hiddenBy`, `first`). */
export interface FlawPlace {
  readonly line: number;
  readonly column: number;
}

const HINTS =
  'drop, normal, in_port, output, controller, group, conjunction, learn, ct, ct(commit), ct(nat), ct_clear, dec_ttl, meter, note, move, goto:TABLE, set:FIELD, set:FIELD=VALUE/MASK';

/** What is wrong, in a sentence; `other` is the place of the value it points to (the first table of a name, the pattern that hides this one). */
export function flawMessage(f: ProfileFlaw, other?: FlawPlace): string {
  const lineOf = (): string => (other === undefined ? '' : ` (line ${other.line})`);
  switch (f.kind) {
    case 'placeholder':
      return `{${f.placeholder}} names no match field, no bit field of the profile (reg.NAME), no written field (set.FIELD) and no template word`;
    case 'match-syntax':
      return `"${f.text}" is not an OVS match: ${f.message}`;
    case 'unknown-field':
      return `${f.field} is no field OVS knows`;
    case 'unknown-hint':
      return `action hint ${f.hint} is none of: ${HINTS}`;
    case 'undefined-table':
      return `table ${f.table} is referred to but the profile defines no table of that name or alias`;
    case 'duplicate-table':
      return `table ${f.table} is defined twice: first${lineOf()}`;
    case 'indistinguishable': {
      const other = `pattern ${Number(f.hiddenBy[f.hiddenBy.length - 1]) + 1} of ${f.table}${lineOf()}`;
      return f.sameMeaning
        ? `this pattern says what ${other} says, and that one fits every flow this one fits and comes first: this one is never used`
        : `this pattern can never be told apart from ${other}: that one fits every flow this one fits and comes first, so this sentence is never said (list the more specific pattern first, or tell them apart by match, priority, fields or actions)`;
    }
  }
}

export function flawSeverity(f: ProfileFlaw): Diagnostic['severity'] {
  return flawIsError(f) ? 'error' : 'warning';
}

/** A problem of a profile file: what kind (a flaw's, or `schema` for what the loader refuses) and where in the data. */
export interface ProfileDiagnostic extends Diagnostic {
  readonly kind: ProfileFlaw['kind'] | 'schema';
  /** The value it is about, as `tables[3].patterns[0].match`. */
  readonly path: string;
}

/** The diagnostics one after another, and a count of errors and warnings for each file. */
export function profileCheckText(diagnostics: readonly ProfileDiagnostic[], files: readonly string[]): string[] {
  const lines = diagnostics.map(formatDiagnostic);
  for (const file of files) {
    const mine = diagnostics.filter((d) => d.file === file);
    const errors = mine.filter((d) => d.severity === 'error').length;
    const warnings = mine.length - errors;
    lines.push(
      mine.length === 0
        ? `${file}: no problems found`
        : `${file}: ${plural(errors, 'error')}, ${plural(warnings, 'warning')}`,
    );
  }
  return lines;
}

export function profileCheckJson(
  diagnostics: readonly ProfileDiagnostic[],
  files: readonly string[],
): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    files: files.map((file) => {
      const mine = diagnostics.filter((d) => d.file === file);
      return {
        file,
        errors: mine.filter((d) => d.severity === 'error').length,
        problems: mine.map((d) => ({ kind: d.kind, path: d.path, ...diagnosticJson(d) })),
      };
    }),
  };
}

/** A profile file's problems as diagnostics, each at its place in the file. */
export function profileDiagnostics(check: ProfileFileCheck): readonly ProfileDiagnostic[] {
  return check.problems.map((p) => problemDiagnostic(p, check.file));
}

function problemDiagnostic(p: ProfileFileProblem, file: string): ProfileDiagnostic {
  if (p.kind === 'schema')
    return {
      kind: 'schema',
      path: p.path,
      severity: 'error',
      message: p.path === '' ? p.message : `${p.path}: ${p.message}`,
      file,
      line: p.at.line,
      column: p.at.column,
      length: p.at.length,
      lineText: p.at.lineText,
    };
  return {
    kind: p.flaw.kind,
    path: p.path,
    severity: flawSeverity(p.flaw),
    message: flawMessage(p.flaw, p.other),
    file,
    ...p.at,
  };
}
