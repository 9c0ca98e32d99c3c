/**
 * Named pipelines read from numbered dumps. Without `--names`, a dump of Antrea's flexible
 * pipeline prints the numbers the agent handed out at start-up, which depend on the enabled
 * features; the profile's layouts are the usual numberings, and the one under which the most
 * flows land in a table that has a pattern for them is taken.
 */
import type { Flow } from '../model/flow.ts';
import type { Profile, TableLayout, TableSpec } from '../profiles/types.ts';
import { fitClasses } from './fit-classes.ts';
import { misfitCount, resolveTable } from './pattern-fit.ts';

/** A copy of the profile whose tables carry the layout's numbers; tables the layout leaves out get none. */
export function numberTables(profile: Profile, layout: TableLayout): Profile {
  const numbers = new Map(layout.tables.map((name, i) => [name, i]));
  const tables = profile.tables.map((t) => {
    const number = numbers.get(t.name);
    return number === undefined ? t : { ...t, number };
  });
  return { ...profile, tables, numbering: layout.id };
}

/**
 * The numbers the agent gave the tables of a `--names` dump: it numbers the tables its features
 * need densely from 0 in the profile's order (Antrea's table declaration order), and every table
 * it creates gets a miss flow, so the tables a whole dump names are those it numbered. The copy
 * of the profile keeps `numbering` unset: tables the dump lacks are still the profile's to report.
 */
export function numberNamedTables(profile: Profile, names: Iterable<string>, release: string): Profile {
  const present = new Set<TableSpec>();
  for (const name of names) {
    const spec = resolveTable(profile, { kind: 'name', name }, release);
    if (spec) present.add(spec);
  }
  if (present.size === 0) return profile;
  let next = 0;
  const tables = profile.tables.map((t) => (present.has(t) ? { ...t, number: next++ } : t));
  return { ...profile, tables };
}

/** Whether the profile names its tables, has layouts to number them by, and the dump prints numbers. */
export function readsNumbered(profile: Profile, flows: readonly Flow[]): boolean {
  let numbered = 0;
  for (const f of flows) numbered += f.table.kind === 'number' ? 1 : -1;
  return readsByNumbers(profile, numbered);
}

/** Whether the profile names its tables, leaves their numbers to configuration, and the dump prints names. */
export function readsByNames(profile: Profile, numberedBalance: number): boolean {
  return profile.tableNaming === 'name' && profile.numbering === undefined && (profile.layouts?.length ?? 0) > 0 && numberedBalance < 0;
}

/** readsNumbered, given how many more flows name their table by number than by name. */
export function readsByNumbers(profile: Profile, numberedBalance: number): boolean {
  if (profile.tableNaming !== 'name' || profile.numbering !== undefined || !profile.layouts?.length) return false;
  return numberedBalance > 0;
}

export interface LayoutChoice {
  readonly layout: TableLayout;
  /** The profile with the layout's numbers. */
  readonly profile: Profile;
  /** Tables of the dump whose flows the layout explains, at least half of them each. */
  readonly tablesFit: number;
  /** Tables of the dump that are unknown under the layout or whose flows mostly fit no pattern. */
  readonly tablesAmiss: number;
  /** What the layout cannot explain about the flows, as `misfitCount` adds it up. */
  readonly misfits: number;
}

/** Reads the flows under one layout, table by table. */
function judge(profile: Profile, layout: TableLayout, flows: readonly Flow[], release: string): LayoutChoice {
  const numbered = numberTables(profile, layout);
  const perTable = new Map<number, { flows: number; amiss: number }>();
  let misfits = 0;
  for (const { flow: f, count } of fitClasses(numbered, flows)) {
    if (f.table.kind !== 'number') continue;
    const n = misfitCount(numbered, f, release);
    misfits += n * count;
    const t = perTable.get(f.table.number) ?? { flows: 0, amiss: 0 };
    t.flows += count;
    if (n > 0) t.amiss += count;
    perTable.set(f.table.number, t);
  }
  let tablesFit = 0;
  for (const t of perTable.values()) if (t.amiss * 2 <= t.flows) tablesFit++;
  return { layout, profile: numbered, tablesFit, tablesAmiss: perTable.size - tablesFit, misfits };
}

/**
 * The layout that explains the flows best: the most tables that fit, then the fewest misfits;
 * among equals the one listed first (the default configuration).
 */
export function chooseLayout(profile: Profile, flows: readonly Flow[], release: string): LayoutChoice | undefined {
  let best: LayoutChoice | undefined;
  for (const layout of profile.layouts ?? []) {
    const c = judge(profile, layout, flows, release);
    if (!best || c.tablesFit - c.tablesAmiss > best.tablesFit - best.tablesAmiss || (c.tablesFit - c.tablesAmiss === best.tablesFit - best.tablesAmiss && c.misfits < best.misfits)) best = c;
    // Every layout judges the same numbered tables: one that explains all of their flows cannot be
    // beaten, and among equals the first is taken, so the layouts after it need no judging.
    if (best.tablesAmiss === 0 && best.misfits === 0) break;
  }
  return best;
}
