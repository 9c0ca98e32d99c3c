/**
 * How a profile's words attach to flows: which of its tables a flow lives in, and which flow
 * pattern of that table the flow fits (match fields implied, required fields present, priority
 * in range, action hints holding), for one release of the product.
 */
import { type Action, flattenActions } from '../../model/actions.ts';
import { fieldByName } from '../../model/fields.ts';
import type { Flow, Match, MatchField } from '../../model/flow.ts';
import { matchCovers, matchField, portNameOnly } from '../../model/match.ts';
import { ProblemSink } from '../../model/problems.ts';
import type { TableRef } from '../../model/tables.ts';
import { jumpTargets } from '../../model/flow-exits.ts';
import type { ActionHint, FlowPattern, Profile, TableSpec } from '../../profiles/types.ts';
import { inVersion } from '../../profiles/versions.ts';
import { buildMatch } from '../../syntax/match.ts';
import { scanKeyValues } from '../../syntax/tokens.ts';
import { fillable } from './sentence-template.ts';

/** A pattern's match text, parsed once. Patterns are checked by the profile tests to parse cleanly. */
const parsedPatterns = new Map<string, { match: Match; problems: string[] }>();

/** The match of a pattern, with the messages of any problems the match parser reported. */
export function parsePattern(text: string): { match: Match; problems: string[] } {
  let p = parsedPatterns.get(text);
  if (!p) {
    const sink = new ProblemSink();
    const match = buildMatch(scanKeyValues(text, 0, text.length), { sink });
    p = { match, problems: sink.problems.map((x) => x.message) };
    parsedPatterns.set(text, p);
  }
  return p;
}

function isNamed(t: TableSpec, key: string): boolean {
  return t.name === key || (t.aliases ?? []).includes(key);
}

/**
 * What a profile's tables answer, found once: detection fits thousands of flows to every release
 * and layout of every profile, asking the same few questions of the same tables each time. Keyed
 * by the profile object (a layout's numbering is a profile of its own) and the release.
 */
interface TableLookups {
  readonly byKey: Map<string, TableSpec | null>;
  /** By release: the table of each number and name. */
  readonly releases: Map<
    string,
    { readonly byNumber: Map<number, TableSpec | null>; readonly byName: Map<string, TableSpec | null> }
  >;
}

const lookups = new WeakMap<Profile, TableLookups>();

function lookupsOf(profile: Profile): TableLookups {
  let l = lookups.get(profile);
  if (!l) lookups.set(profile, (l = { byKey: new Map(), releases: new Map() }));
  return l;
}

/** A table of the profile by its name or one of its aliases, in whichever release has it. */
export function tableByKey(profile: Profile, key: string): TableSpec | undefined {
  const { byKey } = lookupsOf(profile);
  let t = byKey.get(key);
  if (t === undefined) byKey.set(key, (t = profile.tables.find((x) => isNamed(x, key)) ?? null));
  return t ?? undefined;
}

/**
 * The profile's table a flow names, in the given release. A name counts only in the releases
 * that have its table, as a number does: a dump that prints names then reads in the same
 * release as the same flows printed with numbers.
 */
export function resolveTable(profile: Profile, ref: TableRef, release: string): TableSpec | undefined {
  const { releases } = lookupsOf(profile);
  let r = releases.get(release);
  if (!r) releases.set(release, (r = { byNumber: new Map(), byName: new Map() }));
  if (ref.kind === 'name') {
    let t = r.byName.get(ref.name);
    if (t === undefined)
      r.byName.set(ref.name, (t = profile.tables.find((x) => isNamed(x, ref.name) && inVersion(x, release)) ?? null));
    return t ?? undefined;
  }
  let t = r.byNumber.get(ref.number);
  if (t === undefined)
    r.byNumber.set(
      ref.number,
      (t = profile.tables.find((x) => x.number === ref.number && inVersion(x, release)) ?? null),
    );
  return t ?? undefined;
}

/** Whether an action writes the storage of `field` (set_field/load/mod_*, or move into it). */
export function writesField(a: Action, field: string): boolean {
  const want = fieldByName(field);
  if (!want) return false;
  if (a.kind === 'set_field') return a.field.storage === want.storage;
  if (a.kind === 'move') return a.dst.field.storage === want.storage;
  return false;
}

const valueHints = new Map<string, MatchField | undefined>();

/** The field, value and mask a `set:F=V/M` hint asks to be written; undefined for other hints. */
export function valueHint(hint: ActionHint): MatchField | undefined {
  if (!hint.startsWith('set:') || !hint.includes('=')) return undefined;
  if (!valueHints.has(hint)) valueHints.set(hint, parsePattern(hint.slice(4)).match.fields[0]);
  return valueHints.get(hint);
}

/** Whether one action hint of a pattern holds for the flow's actions (see `ActionHint`); what it reads of them, `fitClasses` keys flows by. */
export function hintHolds(profile: Profile, hint: ActionHint, actions: readonly Action[], release: string): boolean {
  const all = flattenActions(actions);
  const reserved = (name: string): boolean =>
    all.some((a) => a.kind === 'output' && a.port.kind === 'reserved' && a.port.name === name);
  if (hint.startsWith('goto:')) {
    const want = tableByKey(profile, hint.slice(5));
    return jumpTargets(actions).some((t) => resolveTable(profile, t, release) === want);
  }
  if (hint.startsWith('set:')) {
    const value = valueHint(hint);
    if (!value) return all.some((a) => writesField(a, hint.slice(4)));
    return all.some(
      (a) =>
        a.kind === 'set_field' &&
        a.field.storage === value.field.storage &&
        (a.mask & value.mask) === value.mask &&
        (a.value & value.mask) === value.value,
    );
  }
  switch (hint) {
    case 'drop':
      return actions.length === 0;
    case 'normal':
      return reserved('NORMAL');
    case 'in_port':
      return reserved('IN_PORT');
    case 'controller':
      return all.some((a) => a.kind === 'controller') || reserved('CONTROLLER');
    case 'output':
      return all.some((a) => a.kind === 'output_field' || (a.kind === 'output' && a.port.kind !== 'reserved'));
    case 'ct(commit)':
      return all.some((a) => a.kind === 'ct' && a.commit);
    case 'ct(nat)':
      return all.some((a) => a.kind === 'ct' && a.actions.some((n) => n.kind === 'nat'));
    default:
      return all.some((a) => a.kind === hint);
  }
}

/**
 * The flow's match as the profile's patterns are written: an input port the dump names without
 * giving its number (`in_port=tun0`, dumped `--names` with no port map) takes the number the
 * pipeline gives the port of that name, so that it reads as the numeric dump does.
 */
export function matchInProfilePorts(profile: Profile, match: Match, release: string): Match {
  const inPort = matchField(match, 'in_port');
  const name = inPort && portNameOnly(inPort);
  if (!inPort || name === undefined) return match;
  const numbers = profile.ports.find((r) => (r.names ?? []).includes(name) && inVersion(r, release))?.numbers ?? [];
  if (numbers.length !== 1) return match;
  const number: MatchField = { ...inPort, value: BigInt(numbers[0]!), port: { kind: 'number', number: numbers[0]! } };
  return { ...match, fields: match.fields.map((e) => (e === inPort ? number : e)) };
}

/** Whether a flow fits a pattern in the given release (the rules are in `FlowPattern`'s comment). */
export function fits(profile: Profile, p: FlowPattern, flow: Flow, release: string): boolean {
  return inVersion(p, release) && fitsParsed(profile, p, parsePattern(p.match).match, flow, release);
}

/** `fits` for a pattern known to be in the release, its match parsed. */
function fitsParsed(profile: Profile, p: FlowPattern, match: Match, flow: Flow, release: string): boolean {
  if (typeof p.priority === 'number' && flow.priority !== p.priority) return false;
  if (
    typeof p.priority === 'object' &&
    ((p.priority.min ?? 0) > flow.priority || flow.priority > (p.priority.max ?? 65535))
  )
    return false;
  if (!matchCovers(match, matchInProfilePorts(profile, flow.match, release))) return false;
  if (!(p.fields ?? []).every((f) => matchField(flow.match, f) !== undefined)) return false;
  if (!(p.actions ?? []).every((h) => hintHolds(profile, h, flow.actions, release))) return false;
  // A sentence is only said of a flow that gives each of its placeholders a value.
  return fillable(p.meaning, flow, (name) => profile.bitFields.find((b) => b.name === name && inVersion(b, release)));
}

interface ReleasePattern {
  readonly index: number;
  readonly pattern: FlowPattern;
  readonly match: Match;
}

/** A table's patterns in each release, with their matches parsed: found once, fitted to many flows. */
const releasePatterns = new WeakMap<TableSpec, Map<string, readonly ReleasePattern[]>>();

function patternsIn(table: TableSpec, release: string): readonly ReleasePattern[] {
  let byRelease = releasePatterns.get(table);
  if (!byRelease) releasePatterns.set(table, (byRelease = new Map()));
  let list = byRelease.get(release);
  if (!list) {
    list = table.patterns.flatMap((pattern, index) =>
      inVersion(pattern, release) ? [{ index, pattern, match: parsePattern(pattern.match).match }] : [],
    );
    byRelease.set(release, list);
  }
  return list;
}

/** The first pattern of the table the flow fits, as the profile lists them (specific first). */
export function findPattern(
  profile: Profile,
  table: TableSpec,
  flow: Flow,
  release: string,
): { index: number; pattern: FlowPattern } | undefined {
  for (const p of patternsIn(table, release))
    if (fitsParsed(profile, p.pattern, p.match, flow, release)) return { index: p.index, pattern: p.pattern };
  return undefined;
}

/** A table-miss flow: priority 0 with an empty match, explained by the table's `miss`. */
export function isTableMiss(flow: Flow): boolean {
  return flow.priority === 0 && flow.match.fields.length === 0;
}

/**
 * What a release of the profile cannot explain about one flow: its table unknown (1), else one
 * for each jump off the table's documented edges and one when no pattern fits.
 */
export function misfitCount(profile: Profile, flow: Flow, release: string): number {
  const table = resolveTable(profile, flow.table, release);
  if (!table) return 1;
  let count = 0;
  for (const ref of jumpTargets(flow.actions)) {
    const to = resolveTable(profile, ref, release);
    const edge =
      to !== undefined &&
      (to === table || table.next.includes(to.name) || (table.miss.action === 'goto' && table.miss.table === to.name));
    if (!edge) count++;
  }
  if (!isTableMiss(flow) && !findPattern(profile, table, flow, release)) count++;
  return count;
}

/**
 * The release a profile is read in when none is given: the last one it covers, or, for a
 * profile that is still current, a release later than any bound it names.
 */
export function defaultRelease(profile: Profile): string {
  return profile.versions.until ?? '9999';
}
