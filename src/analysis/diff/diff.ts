/**
 * Semantic diff of two dumps: flows compared as a set keyed by table, priority and normalised
 * match (flow-key.ts), their actions by meaning rather than spelling (action-equivalence.ts),
 * groups by id. Statistics, durations and flow flags never count; cookies only when asked.
 */
import type { Action } from '../../model/actions.ts';
import { type Bucket, type Flow, type Group, type Match, matchOutline, selectWeight } from '../../model/flow.ts';
import { portNameOnly } from '../../model/match.ts';
import { PortMap } from '../../model/ports.ts';
import type { TableRef } from '../../model/tables.ts';
import { actionsKey, canonicalActions } from '../../model/action-equivalence.ts';
import {
  type Naming,
  inferPortNumbers,
  inferTableNumbers,
  portKey,
  resolveTable,
  tableId,
} from '../../model/flow-key.ts';
import { eachPortRef } from '../../model/port-refs.ts';
import { SlotIndex } from '../../model/slot-index.ts';
import type { PairedLines } from '../../syntax/paired-lines.ts';
import { lineKeys, pairWritten } from '../../syntax/written-pairs.ts';
import { tableRefOf } from '../../syntax/interned.ts';

/** The parts of a parsed dump a comparison needs. */
export interface DumpSide {
  readonly flows: readonly Flow[];
  readonly groups: readonly Group[];
  /** Ports the dump itself described (`show` output concatenated with it). */
  readonly ports?: PortMap;
  /** Read along the dump it is compared with (see ReadAlong): its lines that pair that dump's flows. */
  readonly paired?: PairedLines;
}

export interface CompareOptions {
  /** Compare cookies too (they change on every agent restart in some CNIs). */
  readonly cookies?: boolean;
  /** Port numbers ↔ names, for dumps made with `--names`. */
  readonly ports?: PortMap;
  /** Table name → number; names not given here are inferred by comparing the two dumps. */
  readonly tables?: ReadonlyMap<string, number>;
}

/** What two flows of one slot may differ in, in the order reports list them. */
export const FLOW_ATTRIBUTES = ['actions', 'cookie', 'idle_timeout', 'hard_timeout', 'importance'] as const;
export type FlowAttribute = (typeof FLOW_ATTRIBUTES)[number];

/** One step of an action-level edit script. */
export interface ActionEdit {
  readonly op: 'same' | 'removed' | 'added';
  readonly action: Action;
}

/**
 * How two collections differ: what only the first holds (`removed`), what only the second holds
 * (`added`), and the pairs both hold that differ (`changed`).
 */
export interface Changes<T, C> {
  readonly removed: readonly T[];
  readonly added: readonly T[];
  readonly changed: readonly C[];
}

/** Changes, with how many each dump holds. */
export interface CountedChanges<T, C> extends Changes<T, C> {
  readonly before: number;
  readonly after: number;
}

/** Two of a kind that hold one place in both dumps (a flow's slot, a group's id), and what they differ in. */
export interface Changed<T, A> {
  readonly before: T;
  readonly after: T;
  readonly attributes: readonly A[];
}

export interface FlowChange extends Changed<Flow, FlowAttribute> {
  /** The canonical actions of both, aligned (empty unless the actions differ). */
  readonly actions: readonly ActionEdit[];
}

export interface TableDiff extends CountedChanges<Flow, FlowChange> {
  /** Number when known (or inferred from the other dump), else the name. */
  readonly table: TableRef;
}

export type GroupAttribute = 'type' | 'selection' | 'buckets';

export type GroupChange = Changed<Group, GroupAttribute>;

/** The groups of both dumps: how many each has, and how they differ. */
export type GroupsDiff = CountedChanges<Group, GroupChange>;

/** Two dumps compared, table by table and in their groups, in the naming they were paired by. */
export interface Comparison<T, G> {
  readonly tables: readonly T[];
  readonly groups: G;
  readonly naming: Naming;
  /** Set when the dumps differ and port names may be why (see `portNamingGap`). */
  readonly portNamingGap?: PortNamingGap;
}

/** `tables`: every table either dump has, in table order, differences or not. */
export interface DumpDiff extends Comparison<TableDiff, GroupsDiff> {
  readonly equal: boolean;
}

/**
 * One dump names ports that nothing gives a number for, and the other gives ports by number: the
 * flows that use them cannot be paired, and a port map would pair them.
 */
export interface PortNamingGap {
  /** The dump that names them: 0 the first, 1 the second. */
  readonly named: 0 | 1;
  /** The names, in the order first met. */
  readonly names: readonly string[];
}

function mergedPorts(...maps: (PortMap | undefined)[]): PortMap | undefined {
  const present = maps.filter((m): m is PortMap => m !== undefined && m.size > 0);
  if (present.length === 0) return undefined;
  const out = new PortMap();
  for (const m of present) for (const [n, name] of m.entries()) out.set(n, name);
  return out;
}

/** Whether the flows name any table, and any port the naming has no number for: only such names are inferred. */
function namesIn(flows: readonly Flow[], naming: Naming): { tables: boolean; ports: boolean } {
  let tables = false;
  let ports = false;
  // A lazily read flow's outline holds the ports its match holds; flows share outlines, each looked at once.
  const namesPorts = new Map<Match, boolean>();
  let last: Match | undefined;
  // Flows of one table come together, sharing one table object: its kind is asked once.
  let lastTable: TableRef | undefined;
  for (let i = 0; i < flows.length && !(tables && ports); i++) {
    const f = flows[i]!;
    const table = f.table;
    if (table !== lastTable) {
      lastTable = table;
      if (table.kind === 'name') tables = true;
    }
    const m = matchOutline(f);
    if (ports || m === last) continue;
    last = m;
    let v = namesPorts.get(m);
    if (v === undefined) {
      v = m.fields.some((e) => {
        const name = portNameOnly(e);
        return name !== undefined && naming.ports?.number(name) === undefined;
      });
      namesPorts.set(m, v);
    }
    if (v) ports = true;
  }
  return { tables, ports };
}

/**
 * Port and table names both sides may use, resolved as far as the inputs allow. `b` read along
 * `a` names what its flows read otherwise name, and its pairs what their flows of `a` name
 * (tables by number): its flows are made only when there is something to infer.
 */
export function namingFor(a: DumpSide, b: DumpSide, options: CompareOptions, along?: PairedLines): Naming {
  const ports = mergedPorts(options.ports, a.ports, b.ports);
  const base: Naming = ports ? { ports } : {};
  const inA = namesIn(a.flows, base);
  const inB = namesIn(along ? along.unpaired : b.flows, base);
  if (along && inA.ports) inB.ports = true;
  const tables = new Map<string, number>();
  for (const [named, numbered, names] of [
    [a, b, inA],
    [b, a, inB],
  ] as const) {
    if (!names.tables) continue;
    for (const [name, n] of inferTableNumbers(named.flows, numbered.flows, base))
      if (!tables.has(name)) tables.set(name, n);
  }
  for (const [name, n] of options.tables ?? []) tables.set(name, n);
  const withTables = tables.size > 0 ? { ...base, tables } : base;
  // Port names the inputs leave without numbers, from the flows the two dumps have in common.
  const inferred = new PortMap();
  for (const [named, numbered, names] of [
    [a, b, inA],
    [b, a, inB],
  ] as const) {
    if (!names.ports) continue;
    for (const [name, n] of inferPortNumbers(named.flows, numbered.flows, withTables))
      if (inferred.number(name) === undefined && inferred.name(n) === undefined) inferred.set(n, name);
  }
  if (inferred.size === 0) return withTables;
  return { ...withTables, ports: mergedPorts(ports, inferred)! };
}

/** Longest-common-subsequence alignment of two canonical action lists. */
function alignActions(
  before: readonly { key: string; action: Action }[],
  after: readonly { key: string; action: Action }[],
): ActionEdit[] {
  const n = before.length;
  const m = after.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] =
        before[i]!.key === after[j]!.key ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: ActionEdit[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i]!.key === after[j]!.key) {
      out.push({ op: 'same', action: after[j]!.action });
      i++;
      j++;
    } else if (i < n && (j >= m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      out.push({ op: 'removed', action: before[i++]!.action });
    } else {
      out.push({ op: 'added', action: after[j++]!.action });
    }
  }
  return out;
}

/**
 * The line from its first `actions=` keyword on. Two flows of one slot whose lines end the same
 * from there have the same actions (read against the same match and names), which spares the
 * canonical form in the common case of two dumps made the same way.
 */
function actionText(flow: Flow): string | undefined {
  const text = flow.origin.text;
  // The first `action=` or `actions=` at the start or after a space or comma (a search, not a
  // pattern: this runs for every flow of both dumps).
  for (let at = text.indexOf('action'); at >= 0; at = text.indexOf('action', at + 6)) {
    const c = text[at - 1];
    if (c !== undefined && c !== ' ' && c !== ',' && !/\s/.test(c)) continue;
    const eq = text.charCodeAt(at + 6) === 0x73 ? at + 7 : at + 6;
    if (text.charCodeAt(eq) === 0x3d) return text.slice(eq + 1).trimEnd();
  }
  return undefined;
}

export interface FlowCompareOptions {
  readonly cookies?: boolean;
  /** Compare timeouts only when the first flow sets them (an expectation that leaves them out accepts any). */
  readonly timeoutsWhenSet?: boolean;
  /** Both sides were read without port names, so that lines that say the same read the same (see pairWritten). */
  readonly readAlike?: boolean;
  /**
   * The lines of the second dump, left out of those given, that pair flows of the first as
   * pairWritten would pair them (see ReadAlong): the rest are paired alike after them.
   */
  readonly paired?: PairedLines;
}

/** Whether both dumps were read without port names: then the same text reads the same way in both. */
export function readAlike(a: DumpSide, b: DumpSide): boolean {
  return (a.ports?.size ?? 0) === 0 && (b.ports?.size ?? 0) === 0;
}

/**
 * How two flows of one slot differ, or undefined when they do not. Importance counts only when
 * both carry one: dumps before OpenFlow 1.4 cannot show it.
 */
export function compareFlows(
  before: Flow,
  after: Flow,
  naming: Naming,
  options: FlowCompareOptions = {},
): FlowChange | undefined {
  const attributes: FlowAttribute[] = [];
  const ctx = { naming, table: before.table };
  const written = actionText(before);
  const sameActions =
    (written !== undefined && written === actionText(after)) ||
    actionsKey(before.actions, ctx) === actionsKey(after.actions, { naming, table: after.table });
  if (!sameActions) attributes.push('actions');
  if (options.cookies && before.cookie !== after.cookie) attributes.push('cookie');
  const timeout = (x: number, y: number): boolean => x !== y && (!options.timeoutsWhenSet || x !== 0);
  if (timeout(before.idleTimeout, after.idleTimeout)) attributes.push('idle_timeout');
  if (timeout(before.hardTimeout, after.hardTimeout)) attributes.push('hard_timeout');
  if (before.importance !== 0 && after.importance !== 0 && before.importance !== after.importance)
    attributes.push('importance');
  if (attributes.length === 0) return undefined;
  const actions = sameActions
    ? []
    : alignActions(
        canonicalActions(before.actions, ctx),
        canonicalActions(after.actions, { naming, table: after.table }),
      );
  return { before, after, attributes, actions };
}

interface TableAccumulator {
  table: TableRef;
  before: number;
  after: number;
  removed: Flow[];
  added: Flow[];
  changed: FlowChange[];
}

function byPriority<T>(list: T[], flowOf: (x: T) => Flow): T[] {
  return list.sort((x, y) => flowOf(y).priority - flowOf(x).priority);
}

function compareTableRefs(a: TableRef, b: TableRef): number {
  if (a.kind === 'number' && b.kind === 'number') return a.number - b.number;
  if (a.kind === 'number') return -1;
  if (b.kind === 'number') return 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export function diffFlows(
  a: readonly Flow[],
  b: readonly Flow[],
  naming: Naming,
  options: FlowCompareOptions = {},
): TableDiff[] {
  const tables = new Map<string, TableAccumulator>();
  // Dumps share one TableRef object among a table's flows, and list a table's flows together:
  // the id string is made once per object, and the last table is kept at hand.
  const byRef = new Map<TableRef, TableAccumulator>();
  let lastRef: TableRef | undefined;
  let last: TableAccumulator | undefined;
  const tableOf = (ref: TableRef): TableAccumulator => {
    if (ref === lastRef) return last!;
    let t = byRef.get(ref);
    if (!t) {
      const id = tableId(ref, naming);
      t = tables.get(id);
      if (!t)
        tables.set(
          id,
          (t = { table: resolveTable(ref, naming), before: 0, after: 0, removed: [], added: [], changed: [] }),
        );
      byRef.set(ref, t);
    }
    lastRef = ref;
    return (last = t);
  };
  for (let i = 0; i < b.length; i++) tableOf(b[i]!.table).after++;
  // A flow of `a` paired already counts in both dumps, in its table as the pairs tell it (reading
  // a million flows of `a` for their tables is a cache miss each); the rest are to be paired.
  let restA = options.paired?.firstUnpaired() ?? a;
  for (let i = 0; i < restA.length; i++) tableOf(restA[i]!.table).before++;
  const pairs = options.paired?.byTable() ?? [];
  for (let n = 0; n < pairs.length; n++) {
    if (pairs[n] === 0) continue;
    const t = tableOf(tableRefOf(n));
    t.before += pairs[n]!;
    t.after += pairs[n]!;
  }
  let restB = b;
  // Lines that read the same pair first, their matches and actions unread: most flows of two
  // dumps of one switch. The rest pair by slot, in dump order where a dump holds a slot twice.
  if (options.readAlike) {
    const key = lineKeys(options.cookies ?? false);
    const paired = pairWritten(restA, restB, (f) => key(f.table, f.cookie));
    restA = restA.filter((_, i) => paired.a[i] === 0);
    restB = restB.filter((_, i) => paired.b[i] === 0);
  }
  const rest = new SlotIndex(restB, naming);
  for (const f of restA) {
    const other = rest.take(f);
    if (!other) tableOf(f.table).removed.push(f);
    else {
      const change = compareFlows(f, other, naming, options);
      if (change) tableOf(f.table).changed.push(change);
    }
  }
  for (const f of rest.rest()) tableOf(f.table).added.push(f);
  return [...tables.values()]
    .map((t) => ({
      ...t,
      removed: byPriority(t.removed, (f) => f),
      added: byPriority(t.added, (f) => f),
      changed: byPriority(t.changed, (c) => c.before),
    }))
    .sort((x, y) => compareTableRefs(x.table, y.table));
}

function bucketKey(g: Group, b: Bucket, naming: Naming): string {
  const weight = g.type === 'select' ? selectWeight(b) : (b.weight ?? 0);
  const watch = `${b.watchPort ? portKey(b.watchPort, naming) : ''}/${b.watchGroup ?? ''}`;
  return `${b.id}:${weight}:${watch}:${actionsKey(b.actions, { naming })}`;
}

function selectionKey(g: Group): string {
  const fields = (g.fields ?? [])
    .map((f) => `${f.field.name}${f.mask === undefined ? '' : '/' + f.mask.toString(16)}`)
    .join(',');
  return `${g.selectionMethod ?? ''}:${g.selectionMethodParam ?? ''}:${fields}`;
}

export function compareGroups(before: Group, after: Group, naming: Naming): GroupChange | undefined {
  const attributes: GroupAttribute[] = [];
  if (before.type !== after.type) attributes.push('type');
  if (selectionKey(before) !== selectionKey(after)) attributes.push('selection');
  const buckets = (g: Group): string => g.buckets.map((b) => bucketKey(g, b, naming)).join('|');
  if (buckets(before) !== buckets(after)) attributes.push('buckets');
  return attributes.length === 0 ? undefined : { before, after, attributes };
}

/**
 * The groups of `a` that `b` lacks and those it holds changed, in `a`'s order, and the groups of
 * `b` that `a` lacks: what a diff and a verification of groups both report.
 */
export function pairGroups(
  a: readonly Group[],
  b: readonly Group[],
  naming: Naming,
): { removed: Group[]; changed: GroupChange[]; added: Group[] } {
  const rest = new Map(b.map((g) => [g.id, g]));
  const removed: Group[] = [];
  const changed: GroupChange[] = [];
  for (const g of a) {
    const other = rest.get(g.id);
    if (!other) {
      removed.push(g);
      continue;
    }
    rest.delete(g.id);
    const change = compareGroups(g, other, naming);
    if (change) changed.push(change);
  }
  return { removed, changed, added: [...rest.values()] };
}

export function diffGroups(a: readonly Group[], b: readonly Group[], naming: Naming): GroupsDiff {
  const { removed, changed, added } = pairGroups(a, b, naming);
  const byId = (x: Group, y: Group): number => x.id - y.id;
  return {
    before: a.length,
    after: b.length,
    removed: removed.sort(byId),
    added: added.sort(byId),
    changed: changed.sort((x, y) => x.before.id - y.before.id),
  };
}

export function hasChanges(c: Changes<unknown, unknown>): boolean {
  return c.added.length + c.removed.length + c.changed.length > 0;
}

/** The port names of flows and groups that the naming has no number for, and whether they give any port by number. */
function portUse(
  flows: readonly Flow[],
  groups: readonly Group[],
  naming: Naming,
): { readonly names: Set<string>; readonly numbered: boolean } {
  const names = new Set<string>();
  let numbered = false;
  eachPortRef(flows, groups, (ref) => {
    if (ref.kind === 'number') numbered = true;
    else if (ref.kind === 'name' && naming.ports?.number(ref.name) === undefined) names.add(ref.name);
  });
  return { names, numbered };
}

/**
 * Whether one dump names ports the naming cannot number while the other gives ports by number
 * (a `--names` dump against a plain one, without a port map): the flows that use those ports
 * then differ only in how they are spelled.
 */
export function portNamingGap(
  a: DumpSide,
  b: DumpSide,
  naming: Naming,
  along?: PairedLines,
): PortNamingGap | undefined {
  if (along) {
    // The pairs name the same ports in both dumps: unless the flows and groups of one dump that
    // pair none name ports the naming cannot number, neither dump names any the other lacks.
    if (
      portUse(along.firstUnpaired(), a.groups, naming).names.size === 0 &&
      portUse(along.unpaired, b.groups, naming).names.size === 0
    )
      return undefined;
  }
  const x = portUse(a.flows, a.groups, naming);
  // A line of `b` that pairs a flow of `a` (see ReadAlong) names the ports that flow names: when
  // `a` names none, the names of `b` are those of its other flows (whether `b` numbers any port
  // then counts for nothing).
  const others = x.names.size === 0 && along ? along.unpaired : b.flows;
  const y = portUse(others, b.groups, naming);
  if (x.names.size > 0 && y.names.size === 0 && y.numbered) return { named: 0, names: [...x.names] };
  if (y.names.size > 0 && x.names.size === 0 && x.numbered) return { named: 1, names: [...y.names] };
  return undefined;
}

/** Compares dump `a` (before) with dump `b` (after). */
export function diffDumps(a: DumpSide, b: DumpSide, options: CompareOptions = {}): DumpDiff {
  const cookies = options.cookies === true;
  const alike = readAlike(a, b);
  // `b` read along `a`: its pairs are made, and only its flows read otherwise are left to pair.
  const along = alike && b.paired?.first === a.flows && b.paired.cookies === cookies ? b.paired : undefined;
  const naming = namingFor(a, b, options, along);
  const tables = diffFlows(a.flows, along ? along.unpaired : b.flows, naming, {
    ...(cookies ? { cookies } : {}),
    readAlike: alike,
    ...(along ? { paired: along } : {}),
  });
  const groups = diffGroups(a.groups, b.groups, naming);
  const equal = !tables.some(hasChanges) && !hasChanges(groups);
  const gap = equal ? undefined : portNamingGap(a, b, naming, along);
  return gap ? { tables, groups, naming, equal, portNamingGap: gap } : { tables, groups, naming, equal };
}
