/**
 * Reads pipeline profiles from YAML (the format docs/profiles.md describes and
 * profiles/profile.schema.json defines): checks each file against the schema, resolves
 * `extends:` against the profile it names, and returns the profile with every problem found,
 * each at its line and column in the file. Nothing here throws on what a file holds.
 */
import { readFileSync } from 'node:fs';
import { type Origins, SchemaChecker, type SchemaNode } from './schema-check.ts';
import { yamlLibrary } from '../syntax/yaml-library.ts';
import { profileById } from './index.ts';
import type { Profile, TableSpec } from './types.ts';

/** A problem of a profile file, at a 1-based line and column; `path` names the value (`tables[3].miss`). */
export interface ProfileProblem {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly path: string;
  readonly message: string;
}

/** A profile read from a file: the profile when it could be made, and every problem found. */
export interface ProfileLoad {
  readonly profile?: Profile;
  /** The profile it extends, when it names one. */
  readonly extends?: string;
  readonly problems: readonly ProfileProblem[];
  /** Where the values the profile was made from are in the text (see place.ts). */
  readonly origins?: Origins;
}

export interface LoadOptions {
  /** The profile an `extends:` names (default: the built-in profiles). */
  readonly base?: (id: string) => Profile | undefined;
}

/** The schema, beside the built-in profiles in the package (read once, when a file is first read). */
const SCHEMA_URL = new URL('../../../profiles/profile.schema.json', import.meta.url);
let schema: SchemaNode | undefined;

export function profileSchema(): SchemaNode {
  return (schema ??= JSON.parse(readFileSync(SCHEMA_URL, 'utf8')) as SchemaNode);
}

/** Keys a complete profile must have, once its base's are taken in; lists default to empty. */
const REQUIRED = ['title', 'product', 'description', 'tableNaming'] as const;
const LISTS = ['tables', 'bitFields', 'ctZones', 'addresses', 'ports', 'detect'] as const;
/** Keys a table must have once its base table's are taken in. */
const TABLE_REQUIRED = ['purpose', 'miss'] as const;
const TABLE_LISTS = ['next', 'patterns'] as const;

/** Reads a profile from YAML text; `file` names it in problems. */
export function parseProfileText(text: string, file: string, options: LoadOptions = {}): ProfileLoad {
  const { LineCounter, parseDocument } = yamlLibrary();
  const lines = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter: lines,
    intAsBigInt: true,
    merge: true,
    uniqueKeys: false,
    prettyErrors: true,
  });
  const at = (offset: number, path: string, message: string): ProfileProblem => {
    const { line, col } = lines.linePos(offset);
    return { file, line, col, path, message };
  };
  // The first syntax error is the one to fix: those after it mostly follow from it.
  const syntax = doc.errors[0];
  if (syntax)
    return {
      problems: [at(syntax.pos[0], '', syntax.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''))],
    };
  const problems: ProfileProblem[] = [];
  const checker = new SchemaChecker(profileSchema(), doc);
  const draft = checker.check(doc.contents) as Draft | undefined;
  problems.push(...checker.problems.map((p) => at(p.offset, p.path, p.message)));
  if (draft === undefined || problems.length > 0)
    return { problems, ...(typeof draft?.extends === 'string' ? { extends: draft.extends } : {}) };
  const resolved = resolveDraft(draft, options.base ?? profileById, checker.origins, (o, p, m) =>
    problems.push(at(o, p, m)),
  );
  return {
    ...(resolved && problems.length === 0 ? { profile: resolved } : {}),
    ...(draft.extends ? { extends: draft.extends } : {}),
    problems,
    origins: checker.origins,
  };
}

/** Reads a profile file; a file that cannot be read is a problem like any other. */
export function loadProfileFile(path: string, options: LoadOptions = {}): ProfileLoad {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    return { problems: [{ file: path, line: 1, col: 1, path: '', message: `cannot read the profile: ${reason}` }] };
  }
  return parseProfileText(text, path, options);
}

/** A profile as its file gives it, before `extends:` is resolved. */
type Draft = Record<string, unknown> & {
  readonly id: string;
  readonly extends?: string;
  readonly tables?: readonly DraftTable[];
};
type DraftTable = string | (Record<string, unknown> & { readonly name: string; readonly from?: string });

type Report = (offset: number, path: string, message: string) => void;
/** The offset of an object made from the file, or of one of its values (by key or index). */
type Where = (o: object, key?: string | number) => number;

function resolveDraft(
  draft: Draft,
  base: (id: string) => Profile | undefined,
  origins: Origins,
  report: Report,
): Profile | undefined {
  const where: Where = (o, key) => {
    const origin = origins.get(o);
    return (key === undefined ? undefined : origin?.values.get(key)) ?? origin?.at ?? 0;
  };
  let parent: Profile | undefined;
  if (draft.extends !== undefined) {
    parent = base(draft.extends);
    if (parent === undefined) {
      report(where(draft, 'extends'), 'extends', `no profile ${draft.extends} to extend`);
      return undefined;
    }
  }
  const { extends: _e, shared: _s, tables, ...own } = draft;
  const out: Record<string, unknown> = parent ? { ...parent, ...own } : { ...own };
  delete out.numbering;
  if (tables !== undefined) out.tables = resolveTables(tables, parent, where, report, origins);
  else if (parent === undefined) out.tables = [];
  for (const key of REQUIRED)
    if (out[key] === undefined)
      report(where(draft), '', `the profile lacks ${key}${parent ? '' : ' (and extends none that gives it)'}`);
  for (const key of LISTS) out[key] ??= [];
  out.versions ??= {};
  if (out.check !== undefined) out.check = { dormant: [], known: [], ...(out.check as object) };
  // The profile and its tables are placed where the file writes them, for diagnostics about them (place.ts).
  copyOrigin(origins, draft, out);
  if (tables !== undefined) copyOrigin(origins, tables, out.tables as object);
  return out as unknown as Profile;
}

function copyOrigin(origins: Origins, from: object, to: object): void {
  const origin = origins.get(from);
  if (origin !== undefined) origins.set(to, origin);
}

function resolveTables(
  entries: readonly DraftTable[],
  parent: Profile | undefined,
  where: Where,
  report: Report,
  origins: Origins,
): TableSpec[] {
  const parentTables = new Map(parent?.tables.map((t) => [t.name, t]));
  const out: TableSpec[] = [];
  entries.forEach((entry, i) => {
    const path = `tables[${i}]`;
    if (typeof entry === 'string') {
      const t = parentTables.get(entry);
      if (t) out.push(t);
      else
        report(
          where(entries, i),
          path,
          parent
            ? `${parent.id} has no table ${entry}`
            : `${entry}: a table is a mapping (name, purpose, miss, …) in a profile that extends none`,
        );
      return;
    }
    const { from, ...fields } = entry;
    const baseName = from ?? entry.name;
    const baseTable = parentTables.get(baseName);
    if (from !== undefined && baseTable === undefined) {
      report(
        where(entry, 'from'),
        `${path}.from`,
        parent
          ? `${parent.id} has no table ${from}`
          : 'from: names a table of the profile this one extends, and it extends none',
      );
      return;
    }
    // A member set to null in the YAML removes what the base table gives it.
    const table: Record<string, unknown> = Object.fromEntries(
      Object.entries({ ...baseTable, ...fields }).filter(([, v]) => v !== null),
    );
    for (const key of TABLE_REQUIRED)
      if (table[key] === undefined)
        report(
          where(entry),
          path,
          `table ${entry.name} lacks ${key}${baseTable ? '' : ' (and starts from no table of a base)'}`,
        );
    for (const key of TABLE_LISTS) table[key] ??= [];
    copyOrigin(origins, entry, table);
    out.push(table as unknown as TableSpec);
  });
  return out;
}
