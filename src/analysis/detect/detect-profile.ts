/**
 * Which pipeline a dump comes from, and which release of it, judged from the dump alone: the
 * profiles' detection signals (table numbers and names, notes, port names, registers, telling
 * flows), the table names a named dump shares with a profile, and for the release how well the
 * flows fit each release's tables, edges and patterns. The generic profile's baseline is what a
 * pipeline profile has to beat.
 */
import { type Action, flattenActions } from '../../model/actions.ts';
import { sentPorts } from '../../model/port-refs.ts';
import { pushTo } from '../../model/append.ts';
import { fieldByName } from '../../model/fields.ts';
import type { Flow, Group, Match } from '../../model/flow.ts';
import { matchCovers } from '../../model/match.ts';
import type { PortMap, PortRef } from '../../model/ports.ts';
import type { TableRef } from '../../model/tables.ts';
import { listProfiles } from '../../profiles/index.ts';
import type { ActionHint, DetectionSignal, Profile, TableLayout, TableSpec, Versioned } from '../../profiles/types.ts';
import { compareVersions, inVersion } from '../../profiles/versions.ts';
import {
  defaultRelease,
  hintHolds,
  matchInProfilePorts,
  parsePattern,
  tableByKey,
  valueHint,
} from '../fit/pattern-fit.ts';
import { jumpTargets } from '../../model/flow-exits.ts';
import { chooseLayout, type LayoutChoice, readsNumbered } from '../fit/table-layout.ts';
import { fitClasses } from '../fit/fit-classes.ts';
import { MisfitMemo } from '../fit/misfit-memo.ts';
import { SAMPLE_PER_TABLE, sampleFlows } from './flow-sample.ts';

export interface DetectOptions {
  /** Profiles to choose among; all built-in ones by default. */
  readonly profiles?: readonly Profile[];
}

export interface ProfileScore {
  readonly id: string;
  readonly score: number;
}

export interface ReleaseChoice {
  /** The release the dump is read in: the latest of those that fit it best. */
  readonly release: string;
  /**
   * Set when the dump predates the profile: its first release, the nearest one. `release` is then
   * the one before it, in which the tables that release added do not exist.
   */
  readonly olderThan?: string;
  /** Every release that fits equally well. */
  readonly range: Versioned;
  readonly reasons: readonly ReleaseReason[];
}

/** What in the dump makes a profile's detection signal hold. */
export type SignalFinding =
  | { readonly kind: 'table-name'; readonly name: string }
  | { readonly kind: 'table-number'; readonly number: number }
  | { readonly kind: 'note'; readonly table: number; readonly note: string }
  | { readonly kind: 'port-name'; readonly port: string }
  | { readonly kind: 'field-used'; readonly field: string }
  /** A flow (in `table`, when the signal names one) matching `match` and doing the action hints `actions`. */
  | { readonly kind: 'flow'; readonly table?: number; readonly match: string; readonly actions: readonly string[] };

/** One finding for a profile, with what it weighs for or against it where it is scored. */
export type ProfileReason =
  /** A signal of the profile that holds, and its weight. */
  | { readonly kind: 'signal'; readonly finding: SignalFinding; readonly weight: number }
  /** Of the dump's `names` table names, `known` are tables of the profile. */
  | { readonly kind: 'table-names'; readonly known: number; readonly names: number; readonly score: number }
  /** A named pipeline's numbered dump read in a layout: the numbered tables whose flows fit. */
  | {
      readonly kind: 'layout';
      readonly layout: TableLayout;
      readonly fit: number;
      readonly tables: number;
      readonly score: number;
    }
  /** Register and mark bits in use the profile does not describe (`reg4/0x10000000`). */
  | { readonly kind: 'stray-bits'; readonly bits: readonly string[]; readonly score: number }
  /** The profile that came second, and its score. */
  | { readonly kind: 'next-best'; readonly profile: string; readonly score: number };

/** One finding of detection for the release of a profile. */
export type ReleaseReason =
  /** The dump lacks every table the profile's first release added: it is older. */
  | {
      readonly kind: 'older-release';
      readonly profile: string;
      readonly first: string;
      readonly tables: readonly TableSpec[];
    }
  /** A versioned signal that holds, the releases it points to, and whether the rest of the dump outweighs it. */
  | {
      readonly kind: 'release-signal';
      readonly finding: SignalFinding;
      readonly points: Versioned;
      readonly outweighed: boolean;
    }
  /** Other releases lack names for bits in use that `range` has. */
  | { readonly kind: 'release-bits'; readonly range: Versioned; readonly several: boolean }
  /** How many of the flows `range` explains; with several releases, the one the dump is read as. */
  | {
      readonly kind: 'release-fit';
      readonly range: Versioned;
      readonly misfits: number;
      readonly flows: number;
      readonly total: number;
      /** Set when `range` holds several releases. */
      readonly readAs?: string;
    };

/** One reason a profile or release was chosen: what detection found, or that the release was given (--release). */
export type DetectionReason =
  ProfileReason | ReleaseReason | { readonly kind: 'release-given'; readonly release: string };

export interface Detection {
  /** The profile chosen; for a named pipeline read from a numbered dump, numbered by `layout`. */
  readonly profile: Profile;
  readonly score: number;
  /** Why the profile (and release) was chosen, one finding per entry: the profile's, then its release's. */
  readonly reasons: readonly (ProfileReason | ReleaseReason)[];
  /** Every profile considered, best first. */
  readonly candidates: readonly ProfileScore[];
  /** Absent when the profile has no releases to tell apart. */
  readonly release?: ReleaseChoice;
  /** The numbering a named pipeline's numbered dump was read in. */
  readonly layout?: TableLayout;
}

/** What the signals are checked against, gathered once per dump. */
interface DumpFacts {
  /** The flows that patterns are fitted to: all of them, or a sample of each large table. */
  readonly flows: readonly Flow[];
  /** The same flows by the number of their table. */
  readonly byTable: ReadonlyMap<number, readonly Flow[]>;
  /** How many flows the dump has. */
  readonly total: number;
  /** Tables flows are written in or jump to, group buckets included. */
  readonly tableNumbers: ReadonlySet<number>;
  readonly tableNames: ReadonlySet<string>;
  /** Printed note bytes (`01.03.00.00.00.00`) by table number. */
  readonly notes: ReadonlyMap<number, readonly string[]>;
  readonly portNames: ReadonlySet<string>;
  /** Storages of the fields flows match on or write. */
  readonly fieldsUsed: ReadonlySet<string>;
  /** Bits of each storage that flows and buckets match on or write, as masks. */
  readonly bitsUsed: ReadonlyMap<string, ReadonlySet<bigint>>;
}

function portName(ref: PortRef | undefined, ports: PortMap): string | undefined {
  if (!ref) return undefined;
  if (ref.kind === 'name') return ref.name;
  return ref.kind === 'number' ? ports.name(ref.number) : undefined;
}

function gatherFacts(
  flows: readonly Flow[],
  groups: readonly Group[],
  ports: PortMap,
  perTable = SAMPLE_PER_TABLE,
): DumpFacts {
  const tableNumbers = new Set<number>();
  const tableNames = new Set<string>();
  const notes = new Map<number, string[]>();
  const portNames = new Set<string>([...ports.entries()].map(([, name]) => name));
  const fieldsUsed = new Set<string>();
  const bitsUsed = new Map<string, Set<bigint>>();
  // Flow after flow repeats the masks of the one before: comparing with the last mask of each
  // field is much cheaper than hashing a bigint into a set.
  const lastMask = new Map<string, bigint>();
  const use = (storage: string, mask: bigint): void => {
    if (lastMask.get(storage) === mask) return;
    lastMask.set(storage, mask);
    fieldsUsed.add(storage);
    const masks = bitsUsed.get(storage);
    if (masks) masks.add(mask);
    else bitsUsed.set(storage, new Set([mask]));
  };
  const addPort = (ref: PortRef | undefined): void => {
    const name = portName(ref, ports);
    if (name !== undefined) portNames.add(name);
  };
  // One pass over the actions, nested ones included; this runs for every flow of the dump. A list
  // of conjunction actions alone (most lists of a large dump) says none of it. Lists and matches
  // the parser shared between flows say the same each time: they are read once (lists with a note
  // once per table, as the note counts for each).
  const seen = new Set<Match | readonly Action[]>();
  const addActions = (actions: readonly Action[], noteTable?: number): void => {
    if (seen.has(actions) || actions.every((a) => a.kind === 'conjunction')) return;
    let noted = false;
    for (const a of flattenActions(actions)) {
      for (const p of sentPorts(a)) addPort(p);
      if (a.kind === 'set_field') use(a.field.storage, a.mask);
      else if (a.kind === 'move') use(a.dst.field.storage, ((1n << BigInt(a.dst.bits)) - 1n) << BigInt(a.dst.start));
      else if (a.kind === 'note') {
        noted = true;
        if (noteTable === undefined) continue;
        const text = a.bytes.map((b) => b.toString(16).padStart(2, '0')).join('.');
        notes.set(noteTable, [...(notes.get(noteTable) ?? []), text]);
      }
    }
    if (!noted) seen.add(actions);
    // A jump shows that its target table exists, which is all a groups-only dump can tell.
    for (const t of jumpTargets(actions)) {
      if (t.kind === 'name') tableNames.add(t.name);
      else tableNumbers.add(t.number);
    }
  };
  // A dump lists each table's flows together, and most flows of a large table share their
  // outline's match with the flow before: the table and the match of the flow before are kept at hand.
  let lastTable: TableRef | undefined;
  let lastMatch: Match | undefined;
  // Indexed, as flowsByTable's loop is: an iterator allocates a result for each flow.
  for (let i = 0; i < flows.length; i++) {
    const flow = flows[i]!;
    const { table } = flow;
    if (table !== lastTable) {
      lastTable = table;
      if (table.kind === 'number') tableNumbers.add(table.number);
      else tableNames.add(table.name);
    }
    // A lazily read flow's outline has the fields, masks and ports of its match, shared by many
    // flows, and its actions' kinds, fields, ports and jumps (each told without making the outline).
    const match = flow.outlineMatch ?? flow.match;
    if (match !== lastMatch && !seen.has(match)) {
      seen.add(match);
      for (const f of match.fields) {
        use(f.field.storage, f.mask);
        addPort(f.port);
      }
    }
    lastMatch = match;
    const actions = flow.outlineActions ?? flow.actions;
    if (actions !== 'conjunctions') addActions(actions, table.kind === 'number' ? table.number : undefined);
  }
  for (const g of groups) {
    for (const b of g.buckets) {
      addActions(b.actions);
      addPort(b.watchPort);
    }
  }
  const facts = {
    flows,
    byTable: new Map(),
    total: flows.length,
    tableNumbers,
    tableNames,
    notes,
    portNames,
    fieldsUsed,
    bitsUsed,
  };
  return withSample(facts, flows, perTable);
}

/** The facts with the flows that patterns are fitted to: up to `perTable` flows of each table of `flows`. */
function withSample(facts: DumpFacts, flows: readonly Flow[], perTable: number): DumpFacts {
  const sample = sampleFlows(flows, perTable);
  return { ...facts, flows: sample, byTable: byTableNumber(sample) };
}

/** The numbered flows by table, in their order: a signal of one table is looked for among its flows only. */
function byTableNumber(flows: readonly Flow[]): Map<number, Flow[]> {
  const out = new Map<number, Flow[]>();
  for (const f of flows) {
    if (f.table.kind !== 'number') continue;
    pushTo(out, f.table.number, f);
  }
  return out;
}

/** A signal's anchored expression (port names must match whole), case-insensitive as hex digits are. */
function wholeName(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`, 'i');
}

/** The release a signal's action hints are read in: its own last release, else the profile's. */
function signalRelease(profile: Profile, s: DetectionSignal): string {
  return s.until ?? defaultRelease(profile);
}

/** What in the dump makes the signal hold; undefined when it does not hold. */
function signalFinding(profile: Profile, s: DetectionSignal, facts: DumpFacts): SignalFinding | undefined {
  switch (s.kind) {
    case 'table-name':
      return facts.tableNames.has(s.name) ? { kind: 'table-name', name: s.name } : undefined;
    case 'table-number':
      return facts.tableNumbers.has(s.number) ? { kind: 'table-number', number: s.number } : undefined;
    case 'note': {
      const re = new RegExp(s.pattern, 'i');
      const note = (facts.notes.get(s.table) ?? []).find((n) => re.test(n));
      return note === undefined ? undefined : { kind: 'note', table: s.table, note };
    }
    case 'port-name': {
      const re = wholeName(s.pattern);
      const port = [...facts.portNames].find((n) => re.test(n));
      return port === undefined ? undefined : { kind: 'port-name', port };
    }
    case 'field-used': {
      const f = fieldByName(s.field);
      return f && facts.fieldsUsed.has(f.storage) ? { kind: 'field-used', field: s.field } : undefined;
    }
    case 'flow': {
      const pattern = parsePattern(s.match).match;
      const release = signalRelease(profile, s);
      const candidates = s.table === undefined ? facts.flows : (facts.byTable.get(s.table) ?? []);
      const holds = actionHints(profile, s.actions ?? [], release);
      const hit = candidates.some(
        (f) =>
          outlineMayCover(pattern, f) &&
          matchCovers(pattern, matchInProfilePorts(profile, f.match, release)) &&
          holds(f),
      );
      if (!hit) return undefined;
      return {
        kind: 'flow',
        ...(s.table === undefined ? {} : { table: s.table }),
        match: s.match,
        actions: s.actions ?? [],
      };
    }
  }
}

/**
 * Whether a flow's actions meet the hints, once per action list the flows share. Hints that ask
 * no value written read only what a lazily read flow's outline has of its actions (kinds, fields,
 * ports, jumps: see FlowOutline), so its actions are not made; a list of conjunctions meets only
 * the hint that asks for one.
 */
function actionHints(profile: Profile, hints: readonly ActionHint[], release: string): (f: Flow) => boolean {
  const held = new Map<readonly Action[], boolean>();
  const outlined = !hints.some((h) => valueHint(h) !== undefined);
  return (f) => {
    const actions = (outlined ? f.outlineActions : undefined) ?? f.actions;
    if (actions === 'conjunctions') return hints.every((h) => h === 'conjunction');
    let holds = held.get(actions);
    if (holds === undefined) held.set(actions, (holds = hints.every((h) => hintHolds(profile, h, actions, release))));
    return holds;
  };
}

/**
 * Whether `pattern` can cover the flow's match, told from the flow's outline where it has one
 * (the same fields and masks, and the same values but where the outline says they vary) without
 * making the match, which most flows of a sample are never asked for otherwise: false only when
 * it cannot. A port's value is left to matchCovers, as the profile may number a port the flow names.
 */
function outlineMayCover(pattern: Match, flow: Flow): boolean {
  const outline = flow.outlineMatch;
  if (outline === undefined) return true;
  const { fields } = outline;
  const varying = flow.outlineVarying;
  const entry = varying === undefined ? flow.outlineEntry : -1;
  for (const want of pattern.fields) {
    const at = fields.findIndex((e) => e.field.storage === want.field.storage);
    if (at < 0) return false;
    const e = fields[at]!;
    if ((e.mask & want.mask) !== want.mask) return false;
    const valueKnown = varying !== undefined ? !varying.has(want.field.storage) : at !== entry;
    if (valueKnown && e.port === undefined && want.port === undefined && (e.value & want.mask) !== want.value)
      return false;
  }
  return true;
}

interface Evidence {
  readonly score: number;
  readonly reasons: ProfileReason[];
}

/** Named dumps: each table name the profile knows counts for it, each it does not know against it. */
function nameEvidence(profile: Profile, facts: DumpFacts): Evidence {
  if (facts.tableNames.size === 0 || profile.tables.length === 0) return { score: 0, reasons: [] };
  const names = [...facts.tableNames];
  const known = names.filter((n) => tableByKey(profile, n) !== undefined).length;
  const score = known - (names.length - known);
  return { score, reasons: [{ kind: 'table-names', known, names: names.length, score }] };
}

/**
 * Register and mark bits in use that the profile's bit layout leaves undescribed count against
 * it, one per distinct mask; fields it describes nothing of are not judged.
 */
function bitEvidence(profile: Profile, facts: DumpFacts): Evidence {
  const strays = strayBits(profile, facts);
  if (strays.length === 0) return { score: 0, reasons: [] };
  return { score: -strays.length, reasons: [{ kind: 'stray-bits', bits: strays, score: -strays.length }] };
}

/** Masks in use that reach beyond the bits the profile describes (in one release, when given), as `reg4/0x10000000`. */
function strayBits(profile: Profile, facts: DumpFacts, release?: string): string[] {
  const strays: string[] = [];
  const declared = new Map<string, bigint>();
  for (const b of profile.bitFields) {
    const f = fieldByName(b.field);
    if (!f || (release !== undefined && !inVersion(b, release))) continue;
    const bits = ((1n << BigInt(b.end - b.start + 1)) - 1n) << BigInt(b.start);
    declared.set(f.storage, (declared.get(f.storage) ?? 0n) | bits);
  }
  for (const [storage, known] of declared) {
    for (const mask of facts.bitsUsed.get(storage) ?? [])
      if ((mask & ~known) !== 0n) strays.push(`${storage}/0x${mask.toString(16)}`);
  }
  return strays;
}

/** A numbered dump of a named pipeline: each table whose flows the chosen layout explains counts for it, each other against it. */
function layoutEvidence(choice: LayoutChoice | undefined): Evidence {
  if (!choice) return { score: 0, reasons: [] };
  const score = choice.tablesFit - choice.tablesAmiss;
  const tables = choice.tablesFit + choice.tablesAmiss;
  return { score, reasons: [{ kind: 'layout', layout: choice.layout, fit: choice.tablesFit, tables, score }] };
}

function scoreProfile(profile: Profile, facts: DumpFacts, layout?: LayoutChoice): Evidence {
  const held = profile.detect
    .map((s) => ({ s, finding: signalFinding(profile, s, facts) }))
    .filter((h): h is { s: DetectionSignal; finding: SignalFinding } => h.finding !== undefined)
    .sort((a, b) => Math.abs(b.s.weight) - Math.abs(a.s.weight));
  const names = nameEvidence(profile, facts);
  const numbers = layoutEvidence(layout);
  const bits = bitEvidence(profile, facts);
  return {
    score: held.reduce((sum, h) => sum + h.s.weight, names.score + numbers.score + bits.score),
    reasons: [
      ...held.map((h): ProfileReason => ({ kind: 'signal', finding: h.finding, weight: h.s.weight })),
      ...names.reasons,
      ...numbers.reasons,
      ...bits.reasons,
    ],
  };
}

/** The next release after a dotted one (`1.5` → `1.6`, `10` → `11`): where an `until` stops holding. */
function successor(release: string): string {
  const parts = release.split('.').map(Number);
  parts[parts.length - 1] = (parts[parts.length - 1] ?? 0) + 1;
  return parts.join('.');
}

/**
 * Releases at which the profile can change: every bound its tables, patterns and signals name,
 * and the release after each last one. Any release reads like one of these.
 */
function releasePoints(profile: Profile): string[] {
  const items: Versioned[] = [
    profile.versions,
    ...profile.tables,
    ...profile.tables.flatMap((t) => t.patterns),
    ...profile.detect,
    ...profile.bitFields,
  ];
  const points = new Set<string>();
  for (const v of items) {
    if (v.since !== undefined) points.add(v.since);
    if (v.until !== undefined) {
      points.add(v.until);
      points.add(successor(v.until));
    }
  }
  return [...points].filter((r) => inVersion(profile.versions, r)).sort(compareVersions);
}

/**
 * What the flows cannot explain in each release (unknown tables, jumps off the documented edges,
 * flows no pattern fits: `misfitCount`). Most of a large dump's flows are of a few kinds that
 * fit alike (`fitClasses`): each kind is fitted once, and once per way the releases read it
 * (`MisfitMemo`, which may know them from choosing the layout already).
 */
function misfitsByRelease(
  profile: Profile,
  flows: readonly Flow[],
  releases: readonly string[],
  memo: MisfitMemo,
): Map<string, number> {
  const classes = fitClasses(profile, flows);
  const out = new Map<string, number>();
  for (const release of releases) {
    let count = 0;
    for (const c of classes) count += memo.count(profile, c.flow, release) * c.count;
    out.set(release, count);
  }
  return out;
}

/**
 * The release of a profile that a dump reads best in: the weights of the versioned signals that
 * hold in it, less the flows it cannot explain and the bits it has no names for; among equals the
 * latest release is taken.
 */
export function detectRelease(
  profile: Profile,
  flows: readonly Flow[],
  groups: readonly Group[],
  ports: PortMap,
): ReleaseChoice | undefined {
  const facts = gatherFacts(flows, groups, ports);
  const memo = new MisfitMemo();
  return chooseRelease(numberedReading(profile, facts, memo)?.profile ?? profile, facts, memo);
}

/** For a named pipeline and a numbered dump, the layout the flows read best in. */
function numberedReading(profile: Profile, facts: DumpFacts, memo: MisfitMemo): LayoutChoice | undefined {
  return readsNumbered(profile, facts.flows)
    ? chooseLayout(profile, facts.flows, defaultRelease(profile), memo)
    : undefined;
}

/** The release just before a dotted one (`0.10` → `0.9`), when its last part can go down. */
function predecessor(release: string): string | undefined {
  const parts = release.split('.').map(Number);
  const last = parts[parts.length - 1]!;
  if (last === 0) return undefined;
  parts[parts.length - 1] = last - 1;
  return parts.join('.');
}

/** Tables of the dump that the profile knows in some release, by number or name. */
function knownTables(profile: Profile, facts: DumpFacts): TableSpec[] {
  return profile.tables.filter(
    (t) =>
      (t.number !== undefined && facts.tableNumbers.has(t.number)) ||
      [t.name, ...(t.aliases ?? [])].some((n) => facts.tableNames.has(n)),
  );
}

/**
 * A whole dump of the pipeline that lacks every table the profile's first release added (tables
 * every configuration has, such as Antrea 0.10's metric tables) comes from an older release.
 */
const WHOLE_DUMP_TABLES = 8;

function olderRelease(profile: Profile, facts: DumpFacts): ReleaseChoice | undefined {
  const first = profile.versions.since;
  const before = first === undefined ? undefined : predecessor(first);
  if (first === undefined || before === undefined) return undefined;
  const added = profile.tables.filter((t) => t.since === first && t.requires === undefined);
  const held = knownTables(profile, facts);
  if (added.length === 0 || held.length < WHOLE_DUMP_TABLES || held.some((t) => added.includes(t))) return undefined;
  return {
    release: before,
    olderThan: first,
    range: { until: before },
    reasons: [{ kind: 'older-release', profile: profile.id, first, tables: added }],
  };
}

/** The release the profile (or a numbered copy of it: see MisfitMemo) reads the dump best in. */
function chooseRelease(profile: Profile, facts: DumpFacts, memo: MisfitMemo): ReleaseChoice | undefined {
  const older = olderRelease(profile, facts);
  if (older) return older;
  const points = releasePoints(profile);
  if (points.length === 0) return undefined;
  const versioned = profile.detect
    .filter((s) => s.since !== undefined || s.until !== undefined)
    .map((s) => ({ s, finding: signalFinding(profile, s, facts) }))
    .filter((h): h is { s: DetectionSignal; finding: SignalFinding } => h.finding !== undefined);
  const misfits = misfitsByRelease(profile, facts.flows, points, memo);
  const rated = points.map((release) => ({
    release,
    signals: versioned.filter((h) => inVersion(h.s, release)).reduce((sum, h) => sum + h.s.weight, 0),
    misfits: misfits.get(release)!,
    // Register and mark bits a release has no name for (a flag added later) count like flows it cannot explain.
    strays: strayBits(profile, facts, release).length,
  }));
  const better = (a: (typeof rated)[number], b: (typeof rated)[number]): number =>
    b.signals - b.misfits - b.strays - (a.signals - a.misfits - a.strays);
  const best = [...rated].sort(better)[0]!;
  const equal = rated.filter((r) => better(r, best) === 0).map((r) => r.release);
  const release = equal[equal.length - 1]!;
  // The last point of a profile that is still current stands for every later release too.
  const openEnded = profile.versions.until === undefined && release === points[points.length - 1];
  const range: Versioned = openEnded ? { since: equal[0]! } : { since: equal[0]!, until: release };
  const several = equal.length > 1 || openEnded;
  const pointsTo = (h: { s: DetectionSignal }): Versioned => ({
    ...(h.s.since !== undefined ? { since: h.s.since } : {}),
    ...(h.s.until !== undefined ? { until: h.s.until } : {}),
  });
  const reasons: ReleaseReason[] = [
    ...versioned
      .filter((h) => inVersion(h.s, release))
      .map((h): ReleaseReason => ({
        kind: 'release-signal',
        finding: h.finding,
        points: pointsTo(h),
        outweighed: false,
      })),
    // A listing put together by hand can mix releases: what points elsewhere is said, not hidden.
    ...versioned
      .filter((h) => !inVersion(h.s, release))
      .map((h): ReleaseReason => ({
        kind: 'release-signal',
        finding: h.finding,
        points: pointsTo(h),
        outweighed: true,
      })),
    ...(rated.some((r) => r.strays > best.strays) ? [{ kind: 'release-bits' as const, range, several }] : []),
    {
      kind: 'release-fit',
      range,
      misfits: best.misfits,
      flows: facts.flows.length,
      total: facts.total,
      ...(several ? { readAs: release } : {}),
    },
  ];
  return { release, range, reasons };
}

/**
 * Picks the profile whose signals the dump shows most strongly, with its release. The generic
 * profile wins when nothing scores above its baseline; ties go to the profile listed first.
 */
/**
 * Flows of each table fitted first. A pipeline shows its shape in a few flows of each table: when
 * they decide (see `decides`), the larger sample is not fitted at all. A dump whose tables are no
 * larger is judged on every flow either way.
 */
export const QUICK_SAMPLE_PER_TABLE = 64;

/** How far the best profile must lead the next for the quick sample's verdict to stand. */
const DECISIVE_LEAD = 10;

interface Candidate extends Evidence {
  readonly profile: Profile;
  readonly layout: LayoutChoice | undefined;
  /** The misfits of flows under the profile given and its layouts (see MisfitMemo). */
  readonly memo: MisfitMemo;
}

/** The profiles by their scores on `facts`, best first; `memos` keeps each profile's misfits between rankings. */
function rankProfiles(profiles: readonly Profile[], facts: DumpFacts, memos: Map<Profile, MisfitMemo>): Candidate[] {
  const scored = profiles.map((given) => {
    let memo = memos.get(given);
    if (!memo) memos.set(given, (memo = new MisfitMemo()));
    const layout = numberedReading(given, facts, memo);
    const profile = layout?.profile ?? given;
    return { profile, layout, memo, ...scoreProfile(profile, facts, layout) };
  });
  const ranked = [...scored].sort((a, b) => b.score - a.score);
  // With no evidence at all, the profile that claims no tables (the generic one) goes first.
  const fallback = ranked.find((c) => c.profile.tables.length === 0);
  if (fallback && ranked[0]!.score <= 0) {
    ranked.splice(ranked.indexOf(fallback), 1);
    ranked.unshift(fallback);
  }
  return ranked;
}

/**
 * Whether a ranking leaves nothing for more flows to overturn: the best profile leads by
 * DECISIVE_LEAD or more and, read in a layout, explains every numbered table sampled.
 */
function decides(ranked: readonly Candidate[]): boolean {
  const [best, runnerUp] = ranked;
  if (!best || best.score - Math.max(runnerUp?.score ?? 0, 0) < DECISIVE_LEAD) return false;
  return best.layout === undefined || best.layout.tablesAmiss === 0;
}

/**
 * Picks the profile whose signals the dump shows most strongly, with its release. The generic
 * profile wins when nothing scores above its baseline; ties go to the profile listed first.
 */
export function detectProfile(
  flows: readonly Flow[],
  groups: readonly Group[],
  ports: PortMap,
  options: DetectOptions = {},
): Detection {
  const profiles = options.profiles ?? listProfiles();
  const quick = gatherFacts(flows, groups, ports, QUICK_SAMPLE_PER_TABLE);
  const memos = new Map<Profile, MisfitMemo>();
  const quickRanking = rankProfiles(profiles, quick, memos);
  // A dump with no table larger than the quick sample is its own sample, whichever is taken.
  const whole = quick.flows === flows;
  const facts = whole || decides(quickRanking) ? quick : withSample(quick, flows, SAMPLE_PER_TABLE);
  const ranked = facts === quick ? quickRanking : rankProfiles(profiles, facts, memos);
  const best = ranked[0];
  if (!best) throw new RangeError('detectProfile needs at least one profile to choose from');
  const release = chooseRelease(best.profile, facts, best.memo);
  const runnerUp = ranked[1];
  const margin: ProfileReason[] = runnerUp
    ? [{ kind: 'next-best', profile: runnerUp.profile.id, score: runnerUp.score }]
    : [];
  return {
    profile: best.profile,
    score: best.score,
    reasons: [...best.reasons, ...margin, ...(release?.reasons ?? [])],
    candidates: ranked.map((c) => ({ id: c.profile.id, score: c.score })),
    ...(release ? { release } : {}),
    ...(best.layout ? { layout: best.layout.layout } : {}),
  };
}
