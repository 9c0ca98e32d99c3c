/**
 * What is wrong with a profile as data, found before any dump is read: sentences whose
 * placeholders name no field, patterns and hints that are not OVS syntax, tables referred to but
 * not defined, and patterns of one table that can never be told apart (an earlier pattern fits
 * every flow a later one fits, so the later one is never said). Each problem says where in the
 * profile it is, as a path of keys and indexes, for the loader's map of the file to place.
 */
import { fieldByName } from '../../model/fields.ts';
import { matchCovers } from '../../model/match.ts';
import { compareVersions } from '../../profiles/versions.ts';
import {
  type ActionHint,
  type FlowPattern,
  type Profile,
  TEMPLATE_WORDS,
  type TableSpec,
  type Versioned,
} from '../../profiles/types.ts';
import { type LoadOptions, parseProfileText } from '../../profiles/load.ts';
import { type Place, ProfilePlaces } from '../../profiles/place.ts';
import { parsePattern, valueHint } from '../fit/pattern-fit.ts';
import { templateParts } from '../fit/sentence-template.ts';

/** Where in the profile's data a problem is: `['tables', 3, 'patterns', 0, 'match']`. */
export type ProfilePath = readonly (string | number)[];

/** A flaw of the profile, and where it is. */
export type ProfileFlaw = { readonly path: ProfilePath } & Flaw;

type Flaw =
  /** A sentence's placeholder that is no field, no bit field of the profile and no template word. */
  | { readonly kind: 'placeholder'; readonly placeholder: string }
  /** Match text OVS would not read; `message` is the parser's. */
  | { readonly kind: 'match-syntax'; readonly text: string; readonly message: string }
  /** A field name the field registry does not know (a pattern's `fields`, a hint's `set:F`, a bit field's field). */
  | { readonly kind: 'unknown-field'; readonly field: string }
  /** An action hint that is none of the kinds `ActionHint` lists. */
  | { readonly kind: 'unknown-hint'; readonly hint: string }
  /** A table named (next, miss, goto hint, layout) that the profile does not define. */
  | { readonly kind: 'undefined-table'; readonly table: string }
  /** Two tables of one name (or alias). */
  | { readonly kind: 'duplicate-table'; readonly table: string; readonly first: ProfilePath }
  /**
   * A pattern that an earlier one of its table always wins over: no flow is ever said to fit it.
   * `sameMeaning`: it says what the earlier one says, so nothing is lost but a line.
   */
  | {
      readonly kind: 'indistinguishable';
      readonly table: string;
      readonly hiddenBy: ProfilePath;
      readonly sameMeaning: boolean;
    };

/** Whether a problem makes the profile wrong (an error), or only untidy. */
export function flawIsError(p: ProfileFlaw): boolean {
  return !(p.kind === 'indistinguishable' && p.sameMeaning);
}

export type ProfileFlawKind = ProfileFlaw['kind'];

/** Action hints without an argument, as `ActionHint` lists them. */
const PLAIN_HINTS: ReadonlySet<string> = new Set<ActionHint>([
  'drop',
  'normal',
  'in_port',
  'output',
  'controller',
  'group',
  'conjunction',
  'learn',
  'ct',
  'ct(commit)',
  'ct(nat)',
  'ct_clear',
  'dec_ttl',
  'meter',
  'note',
  'move',
]);

class Checker {
  readonly flaws: ProfileFlaw[] = [];
  private readonly tables = new Map<string, ProfilePath>();
  private readonly profile: Profile;

  constructor(profile: Profile) {
    this.profile = profile;
    profile.tables.forEach((t, i) => {
      for (const name of [t.name, ...(t.aliases ?? [])]) {
        const first = this.tables.get(name);
        if (first) this.flaws.push({ kind: 'duplicate-table', path: ['tables', i, 'name'], table: name, first });
        else this.tables.set(name, ['tables', i, 'name']);
      }
    });
  }

  private table(key: string, path: ProfilePath): void {
    if (!this.tables.has(key)) this.flaws.push({ kind: 'undefined-table', path, table: key });
  }

  private field(name: string, path: ProfilePath): void {
    if (!fieldByName(name)) this.flaws.push({ kind: 'unknown-field', path, field: name });
  }

  match(text: string, path: ProfilePath): void {
    for (const message of parsePattern(text).problems) this.flaws.push({ kind: 'match-syntax', path, text, message });
  }

  hints(hints: readonly string[] | undefined, path: ProfilePath): void {
    (hints ?? []).forEach((hint, i) => {
      const at = [...path, i];
      if (hint.startsWith('goto:')) this.table(hint.slice(5), at);
      else if (hint.startsWith('set:') && hint.includes('=')) {
        if (parsePattern(hint.slice(4)).problems.length > 0 || !valueHint(hint as ActionHint))
          this.match(hint.slice(4), at);
      } else if (hint.startsWith('set:')) this.field(hint.slice(4), at);
      else if (!PLAIN_HINTS.has(hint)) this.flaws.push({ kind: 'unknown-hint', path: at, hint });
    });
  }

  private placeholders(meaning: string, path: ProfilePath): void {
    const bitNames = new Set(this.profile.bitFields.map((b) => b.name));
    for (const part of templateParts(meaning)) {
      if (!('run' in part)) continue;
      for (const { name } of part.run) {
        const known =
          name in TEMPLATE_WORDS ||
          (name.startsWith('reg.')
            ? bitNames.has(name.slice(4))
            : name.startsWith('set.')
              ? fieldByName(name.slice(4)) !== undefined
              : fieldByName(name) !== undefined);
        if (!known) this.flaws.push({ kind: 'placeholder', path, placeholder: name });
      }
    }
  }

  private pattern(p: FlowPattern, path: ProfilePath): void {
    this.match(p.match, [...path, 'match']);
    (p.fields ?? []).forEach((f, i) => this.field(f, [...path, 'fields', i]));
    this.hints(p.actions, [...path, 'actions']);
    this.placeholders(p.meaning, [...path, 'meaning']);
  }

  tableSpec(t: TableSpec, i: number): void {
    const path = ['tables', i];
    t.next.forEach((key, j) => this.table(key, [...path, 'next', j]));
    if (t.miss.action === 'goto') this.table(t.miss.table, [...path, 'miss', 'table']);
    if (t.expectedWith) {
      this.match(t.expectedWith.match, [...path, 'expectedWith', 'match']);
      this.hints(t.expectedWith.actions, [...path, 'expectedWith', 'actions']);
    }
    t.patterns.forEach((p, k) => this.pattern(p, [...path, 'patterns', k]));
    t.patterns.forEach((p, k) => {
      const by = t.patterns.findIndex((q, j) => j < k && alwaysWinsOver(q, p));
      if (by < 0) return;
      const sameMeaning = t.patterns[by]!.meaning === p.meaning;
      this.flaws.push({
        kind: 'indistinguishable',
        path: [...path, 'patterns', k],
        table: t.name,
        hiddenBy: [...path, 'patterns', by],
        sameMeaning,
      });
    });
  }

  rest(): void {
    const p = this.profile;
    (p.layouts ?? []).forEach((l, i) => l.tables.forEach((key, j) => this.table(key, ['layouts', i, 'tables', j])));
    p.bitFields.forEach((b, i) => this.field(b.field, ['bitFields', i, 'field']));
    p.detect.forEach((s, i) => {
      if (s.kind === 'flow') {
        this.match(s.match, ['detect', i, 'match']);
        this.hints(s.actions, ['detect', i, 'actions']);
      } else if (s.kind === 'field-used') this.field(s.field, ['detect', i, 'field']);
    });
  }
}

/** Whether `outer` exists in every release `inner` does. */
function spans(outer: Versioned, inner: Versioned): boolean {
  const starts =
    outer.since === undefined || (inner.since !== undefined && compareVersions(outer.since, inner.since) <= 0);
  const ends =
    outer.until === undefined || (inner.until !== undefined && compareVersions(inner.until, outer.until) <= 0);
  return starts && ends;
}

function priorityRange(p: FlowPattern): { min: number; max: number } {
  if (typeof p.priority === 'number') return { min: p.priority, max: p.priority };
  return { min: p.priority?.min ?? 0, max: p.priority?.max ?? 65535 };
}

/** Placeholders that every flow fills (see sentence-template's ALWAYS). */
const ALWAYS_FILLED = new Set(['zone', 'priority', 'table']);

/**
 * Whether a flow that fits `later` surely fills every placeholder run of `earlier`'s sentence:
 * each run has words for an absent value, a placeholder every flow fills, a field `later` makes
 * the flow match, or all the names of one of `later`'s own runs (which a flow fitting it fills).
 */
function fillsAll(earlier: FlowPattern, later: FlowPattern): boolean {
  const matched = new Set([
    ...parsePattern(later.match).match.fields.map((f) => f.field.storage),
    ...(later.fields ?? []).flatMap((f) => fieldByName(f)?.storage ?? []),
  ]);
  const laterRuns = templateParts(later.meaning).flatMap((p) => ('run' in p ? [p.run.map((x) => x.name)] : []));
  return templateParts(earlier.meaning).every((part) => {
    if (!('run' in part)) return true;
    const names = part.run.map((x) => x.name);
    if (part.run.some((x) => x.fallback !== undefined || ALWAYS_FILLED.has(x.name))) return true;
    if (names.some((n) => !n.includes('.') && matched.has(fieldByName(n)?.storage ?? ''))) return true;
    return laterRuns.some((run) => run.every((n) => names.includes(n)));
  });
}

/**
 * Whether `earlier` fits every flow that `later` fits, in every release `later` has: then the
 * first-listed rule makes `earlier` win each time and `later` is never said.
 */
function alwaysWinsOver(earlier: FlowPattern, later: FlowPattern): boolean {
  if (!spans(earlier, later)) return false;
  const pe = priorityRange(earlier);
  const pl = priorityRange(later);
  if (pe.min > pl.min || pe.max < pl.max) return false;
  const me = parsePattern(earlier.match);
  const ml = parsePattern(later.match);
  if (me.problems.length > 0 || ml.problems.length > 0 || !matchCovers(me.match, ml.match)) return false;
  const laterFields = new Set(
    [...(later.fields ?? []), ...ml.match.fields.map((f) => f.field.name)].map((f) => fieldByName(f)?.storage ?? f),
  );
  if (!(earlier.fields ?? []).every((f) => laterFields.has(fieldByName(f)?.storage ?? f))) return false;
  if (!(earlier.actions ?? []).every((h) => (later.actions ?? []).includes(h))) return false;
  return fillsAll(earlier, later);
}

/** Every problem of the profile, in the order of its data. */
export function checkProfile(profile: Profile): readonly ProfileFlaw[] {
  const checker = new Checker(profile);
  profile.tables.forEach((t, i) => checker.tableSpec(t, i));
  checker.rest();
  return checker.flaws;
}

/**
 * A problem of a profile file at its place: what the loader refuses (YAML, the schema,
 * `extends:`; its `message` is the loader's), or a flaw of the profile it makes, with the place
 * of the value the flaw points to (the first table of a name, the pattern that hides this one).
 */
export type ProfileFileProblem =
  | {
      readonly kind: 'schema';
      /** The value it is about, as `tables[3].patterns[0].match` (empty for the file as a whole). */
      readonly path: string;
      readonly message: string;
      readonly at: Place;
    }
  | {
      readonly kind: 'flaw';
      readonly flaw: ProfileFlaw;
      readonly path: string;
      readonly at: Place;
      readonly other?: Place;
    };

/** A profile file checked: the profile when the loader could make it (even with flaws), and every problem. */
export interface ProfileFileCheck {
  readonly file: string;
  readonly profile?: Profile;
  readonly problems: readonly ProfileFileProblem[];
}

/** Loads a profile file's text and checks the profile it makes, each problem placed in the file. */
export function checkProfileFile(text: string, file: string, options: LoadOptions = {}): ProfileFileCheck {
  const load = parseProfileText(text, file, options);
  if (!load.profile || !load.origins) {
    const lineText = (line: number): string => text.split('\n')[line - 1]?.replace(/\r$/, '') ?? '';
    return {
      file,
      problems: load.problems.map((p) => ({
        kind: 'schema',
        path: p.path,
        message: p.message,
        at: { line: p.line, column: p.col, length: 1, lineText: lineText(p.line) },
      })),
    };
  }
  const places = new ProfilePlaces(text, load.profile, load.origins);
  const problems = checkProfile(load.profile).map((flaw): ProfileFileProblem => {
    const other =
      flaw.kind === 'duplicate-table' ? flaw.first : flaw.kind === 'indistinguishable' ? flaw.hiddenBy : undefined;
    return {
      kind: 'flaw',
      flaw,
      path: pathText(flaw.path),
      at: places.place(flaw.path),
      ...(other ? { other: places.place(other) } : {}),
    };
  });
  return { file, profile: load.profile, problems };
}

/** `tables[3].patterns[0].match`, as the loader names values. */
function pathText(path: ProfilePath): string {
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
}
