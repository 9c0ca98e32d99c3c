/**
 * Named pipelines read from numbered dumps. Without `--names`, a dump of Antrea's flexible
 * pipeline prints the numbers the agent handed out at start-up, which depend on the enabled
 * features; the profile's layouts are the usual numberings, and the one under which the most
 * flows land in a table that has a pattern for them is taken.
 */
import { type Action, flattenActions } from '../../model/actions.ts';
import { fieldByName } from '../../model/fields.ts';
import type { Flow, Group } from '../../model/flow.ts';
import { ones } from '../../model/values.ts';
import type { Profile, TableLayout, TableSpec } from '../../profiles/types.ts';
import { inVersion } from '../../profiles/versions.ts';
import { fitClasses } from './fit-classes.ts';
import { MisfitMemo } from './misfit-memo.ts';
import { resolveTable, tableByKey } from './pattern-fit.ts';
import { jumpTargets } from '../../model/flow-exits.ts';

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
 * What a `--names` dump says of its tables' numbers besides their names: a rule's own table
 * number it hands the agent (a bit field that holds the flow's own table, Antrea's PacketInTable
 * in reg2) and the numbers that group buckets and flows jump to (`resubmit(,11)` in a support
 * bundle's groups).
 */
export interface NumberedReferences {
  /** Number and the name of the table it is the number of. */
  readonly own: readonly (readonly [number, string])[];
  /** Numbers group buckets jump to. */
  readonly buckets: readonly number[];
  /** Numbers flows jump to. */
  readonly jumps: readonly number[];
}

/** The numbered references of a dump, as the profile reads them. */
export function numberedReferences(
  profile: Profile,
  flows: readonly Flow[],
  groups: Iterable<Group>,
  release: string,
): NumberedReferences {
  const ownFields = profile.bitFields
    .filter((b) => b.ownTable && inVersion(b, release))
    .flatMap((b) => {
      const f = fieldByName(b.field);
      return f ? [{ storage: f.storage, start: b.start, span: ones(b.end - b.start + 1) << BigInt(b.start) }] : [];
    });
  const own = new Map<string, readonly [number, string]>();
  const jumps = new Set<number>();
  const numbers = (actions: readonly Action[], into: Set<number>): void => {
    for (const t of jumpTargets(actions)) if (t.kind === 'number') into.add(t.number);
  };
  for (const f of flows) {
    numbers(f.actions, jumps);
    if (f.table.kind !== 'name' || ownFields.length === 0) continue;
    for (const a of flattenActions(f.actions)) {
      if (a.kind !== 'set_field') continue;
      const o = ownFields.find((x) => x.storage === a.field.storage && (a.mask & x.span) === x.span);
      if (o) own.set(f.table.name, [Number((a.value & o.span) >> BigInt(o.start)), f.table.name]);
    }
  }
  const buckets = new Set<number>();
  for (const g of groups) for (const b of g.buckets) numbers(b.actions, buckets);
  return { own: [...own.values()], buckets: [...buckets], jumps: [...jumps] };
}

/** Tables numbered densely from 0 in the profile's order (Antrea's table declaration order). */
function denseNumbers(profile: Profile, present: ReadonlySet<TableSpec>): Map<TableSpec, number> {
  const numbers = new Map<TableSpec, number>();
  for (const t of profile.tables) if (present.has(t)) numbers.set(t, numbers.size);
  return numbers;
}

/** How many of the references a numbering bears out: own numbers equal, jumps to tables it has, bucket jumps to tables a group's buckets go to. */
function referencesMet(
  profile: Profile,
  numbers: ReadonlyMap<TableSpec, number>,
  refs: NumberedReferences,
  release: string,
): number {
  const byNumber = new Map([...numbers].map(([t, n]) => [n, t]));
  const bucketTargets = new Set<TableSpec | undefined>(
    (profile.groups ?? []).flatMap((g) =>
      g.bucketActions.flatMap((h) =>
        h.startsWith('goto:') ? [tableByKey(profile, h.slice(5))].filter((t) => t !== undefined) : [],
      ),
    ),
  );
  let met = 0;
  for (const [n, name] of refs.own) {
    const spec = resolveTable(profile, { kind: 'name', name }, release);
    if (spec && numbers.get(spec) === n) met++;
  }
  for (const n of refs.buckets) if (bucketTargets.has(byNumber.get(n))) met++;
  for (const n of refs.jumps) if (byNumber.has(n)) met++;
  return met;
}

/**
 * The numbers the agent gave the tables of a `--names` dump: it numbers the tables its features
 * need densely from 0 in the profile's order (Antrea's table declaration order), and every table
 * it creates gets a miss flow, so the tables a whole dump names are those it numbered. An excerpt
 * names only some of them: the tables of each of the profile's layouts are added in turn, and the
 * numbering that bears out most of the dump's numbered references (see NumberedReferences) is
 * taken; the dump's own tables alone where none does better. The copy of the profile keeps
 * `numbering` unset: tables the dump lacks are still the profile's to report.
 */
export function numberNamedTables(
  profile: Profile,
  names: Iterable<string>,
  release: string,
  refs?: NumberedReferences,
): Profile {
  const present = new Set<TableSpec>();
  for (const name of names) {
    const spec = resolveTable(profile, { kind: 'name', name }, release);
    if (spec) present.add(spec);
  }
  if (present.size === 0) return profile;
  let best = denseNumbers(profile, present);
  if (refs && refs.own.length + refs.buckets.length + refs.jumps.length > 0) {
    let bestMet = referencesMet(profile, best, refs, release);
    for (const layout of profile.layouts ?? []) {
      const withLayout = new Set(present);
      for (const name of layout.tables) {
        const spec = resolveTable(profile, { kind: 'name', name }, release);
        if (spec) withLayout.add(spec);
      }
      const numbers = denseNumbers(profile, withLayout);
      const met = referencesMet(profile, numbers, refs, release);
      if (met > bestMet) [best, bestMet] = [numbers, met];
    }
  }
  const tables = profile.tables.map((t) => {
    const number = best.get(t);
    return present.has(t) && number !== undefined ? { ...t, number } : t;
  });
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
  return (
    profile.tableNaming === 'name' &&
    profile.numbering === undefined &&
    (profile.layouts?.length ?? 0) > 0 &&
    numberedBalance < 0
  );
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
function judge(
  profile: Profile,
  layout: TableLayout,
  flows: readonly Flow[],
  release: string,
  memo: MisfitMemo,
): LayoutChoice {
  const numbered = numberTables(profile, layout);
  const perTable = new Map<number, { flows: number; amiss: number }>();
  let misfits = 0;
  for (const { flow: f, count } of fitClasses(numbered, flows)) {
    if (f.table.kind !== 'number') continue;
    const n = memo.count(numbered, f, release);
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
 * among equals the one listed first (the default configuration). `memo` holds the misfits of
 * the profile's flows, which the layouts mostly read alike, and can be handed on to count them
 * in other releases.
 */
export function chooseLayout(
  profile: Profile,
  flows: readonly Flow[],
  release: string,
  memo = new MisfitMemo(),
): LayoutChoice | undefined {
  let best: LayoutChoice | undefined;
  for (const layout of profile.layouts ?? []) {
    const c = judge(profile, layout, flows, release, memo);
    if (
      !best ||
      c.tablesFit - c.tablesAmiss > best.tablesFit - best.tablesAmiss ||
      (c.tablesFit - c.tablesAmiss === best.tablesFit - best.tablesAmiss && c.misfits < best.misfits)
    )
      best = c;
    // Every layout judges the same numbered tables: one that explains all of their flows cannot be
    // beaten, and among equals the first is taken, so the layouts after it need no judging.
    if (best.tablesAmiss === 0 && best.misfits === 0) break;
  }
  return best;
}
