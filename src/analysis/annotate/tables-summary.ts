/**
 * One row per table of a dump — number, name, flow count, counters, the tables it continues
 * in and what its miss flow does — plus the tables the profile expects in the release but the
 * dump lacks, and the dump's tables the profile does not know.
 */
import type { Action } from '../../model/actions.ts';
import { type Flow, onlyConjunctions } from '../../model/flow.ts';
import { actionsThroughGroups, type Pipeline, type PipelineTable } from '../../model/pipeline.ts';
import { matchCovers } from '../../model/match.ts';
import { type TableRef, tableLabel, tableNumber } from '../../model/tables.ts';
import type { TableMiss, TableSpec, Versioned } from '../../profiles/types.ts';
import { inVersion } from '../../profiles/versions.ts';
import type { Annotator } from './annotate.ts';
import type { Wording } from './wording.ts';
import { hintHolds, isTableMiss, parsePattern } from '../fit/pattern-fit.ts';
import { jumpTargets } from '../../model/flow-exits.ts';

export interface TableRow {
  readonly number?: number;
  /** The dump's name for the table when it prints names, else the profile's. */
  readonly name?: string;
  /** The profile's name for the table, where the dump calls it otherwise. */
  readonly profileName?: string;
  readonly purpose?: string;
  /** The profile knows the table (in the release). */
  readonly known: boolean;
  /** For a table the profile has only in other releases: those releases. */
  readonly otherReleases?: Versioned;
  readonly flows: number;
  /** Sums of the flows' counters; absent when no flow of the table has them. */
  readonly packets?: bigint;
  readonly bytes?: bigint;
  /** Tables the flows continue in (goto_table, resubmit, ct(table=…), through groups too), as reports name them. */
  readonly next: readonly TableRef[];
  /** What the dump's miss flow (priority 0, empty match) does. */
  readonly miss: MissFlow;
  /** What the profile says the miss does. */
  readonly expectedMiss?: TableMiss;
  /** Names of tables and of what actions refer to, for the miss in words. */
  readonly wording: Wording;
  /** The dump's miss flow does something else than the profile's fixed miss behaviour (drop, goto, NORMAL, controller). */
  readonly missDiffers: boolean;
}

/**
 * A table's miss flow in brief: none, a drop, jumps to tables (as reports name them), an output to a reserved
 * port (`NORMAL`), or other actions.
 */
export type MissFlow =
  | { readonly kind: 'none' }
  | { readonly kind: 'drop' }
  | { readonly kind: 'goto'; readonly tables: readonly TableRef[] }
  | { readonly kind: 'reserved'; readonly port: string }
  | { readonly kind: 'actions'; readonly actions: readonly Action[] };

export interface MissingTable {
  readonly number?: number;
  readonly name: string;
}

/** A table of the dump the release read in lacks but other releases of the profile have. */
export interface OtherReleaseTable {
  /** As the dump names it. */
  readonly name: string;
  /** Those releases. */
  readonly releases: Versioned;
}

export interface TablesSummary {
  readonly rows: readonly TableRow[];
  /** Tables of the profile (in the release) with no flow in the dump, under no name nor number. */
  readonly missing: readonly MissingTable[];
  /** Tables of the dump the profile does not know in any release, as the dump names them. */
  readonly unknown: readonly string[];
  /** Tables of the dump the profile knows only in other releases than the one read in. */
  readonly otherReleases: readonly OtherReleaseTable[];
}

/** Counters up to this are added as numbers, exactly: a million bigint additions cost more than the rest of a row. */
const EXACT = 2n ** 52n;

/** A sum of counters, exact; undefined until a counter is added. */
class CounterSum {
  private big: bigint | undefined;
  private small = 0;

  /** A counter that is 0: the sum is known now, its value unchanged. */
  addZero(): void {
    this.big ??= 0n;
  }

  add(v: bigint | null | undefined): void {
    if (v === undefined || v === null) return;
    this.big ??= 0n;
    if (v > EXACT) this.big += v;
    else if ((this.small += Number(v)) > Number(EXACT)) {
      this.big += BigInt(this.small);
      this.small = 0;
    }
  }

  get total(): bigint | undefined {
    return this.big === undefined ? undefined : this.big + BigInt(this.small);
  }
}

/** What a table's row says of its flows. */
interface TableWalk {
  /** The tables the flows continue in (through groups too), in match order, first met first. */
  readonly next: readonly TableRef[];
  /** The first table-miss flow in match order. */
  readonly missFlow: Flow | undefined;
  readonly packets: bigint | undefined;
  readonly bytes: bigint | undefined;
}

/**
 * The table's flows walked once, in the order they lie in memory (see Pipeline.flows); what is
 * told in match order (highest priority first, dump order among equals) is put in it afterwards.
 */
function walkTable(t: PipelineTable, pipeline: Pipeline): TableWalk {
  // Each table jumped to, with the priority and place of the flow that first jumps there in match order.
  const first = new Map<TableRef, { priority: number; seq: number }>();
  let seq = 0;
  let priority = 0;
  const jump = (ref: TableRef): void => {
    const known = first.get(ref);
    if (!known || known.priority < priority) first.set(ref, { priority, seq });
    seq++;
  };
  const follow = pipeline.groups.size > 0;
  const packets = new CounterSum();
  const bytes = new CounterSum();
  // Whether a flow's counters were both 0 (most flows of a large dump).
  let zeros = false;
  const flows = t.given;
  // Indexed, as flowsByTable's loop is: an iterator allocates a result for each flow.
  for (let i = 0; i < flows.length; i++) {
    const f = flows[i]!;
    // Conjunction actions (most flows of a large dump) go nowhere: a lazily read flow's are not
    // made, nor its priority unpacked, and its outline tells so without a call of onlyConjunctions
    // (each a call outside optimised code, as a short run reads).
    if (f.outlineActions !== 'conjunctions' && !onlyConjunctions(f)) {
      priority = f.priority;
      const actions = actionsThroughGroups(pipeline, f);
      for (const ref of jumpTargets(actions)) jump(ref);
      // A dump of flows alone has no buckets to follow.
      for (const a of follow ? actions : []) {
        if (a.kind !== 'group') continue;
        for (const b of pipeline.groups.get(a.id)?.buckets ?? []) for (const ref of jumpTargets(b.actions)) jump(ref);
      }
    }
    if (f.zeroCounters === true) zeros = true;
    else {
      packets.add(f.stats?.packets);
      bytes.add(f.stats?.bytes);
    }
  }
  // Told once, not for each flow: the sums are known, their values unchanged.
  if (zeros) {
    packets.addZero();
    bytes.addZero();
  }
  const next = [...first].sort(([, a], [, b]) => b.priority - a.priority || a.seq - b.seq).map(([ref]) => ref);
  return { next, missFlow: missFlowIn(t), packets: packets.total, bytes: bytes.total };
}

/**
 * The first table-miss flow of the table in match order, found among its flows of priority 0, the
 * last in that order, rather than by asking each flow (a call or two each outside optimised code).
 */
function missFlowIn(t: PipelineTable): Flow | undefined {
  const flows = t.flows;
  let missFlow: Flow | undefined;
  for (let i = flows.length - 1; i >= 0 && flows[i]!.priority === 0; i--)
    if (isTableMiss(flows[i]!)) missFlow = flows[i];
  return missFlow;
}

export function summarizeTables(pipeline: Pipeline, annotator: Annotator): TablesSummary {
  const name = (ref: TableRef): TableRef => annotator.tableName(ref);
  const rows: TableRow[] = [];
  const seen = new Set<string>();
  // Numbers of the dump's tables, given or known from their names: a table held under another name is not missing.
  const numbers = new Set<number>();
  const unknown: string[] = [];
  const otherReleases: OtherReleaseTable[] = [];
  for (const t of pipeline.tables.values()) {
    const info = annotator.tableInfo(t.ref);
    if (info.number !== undefined) numbers.add(info.number);
    if (info.spec) seen.add(info.spec.name);
    else if (info.otherRelease) otherReleases.push({ name: tableLabel(t.ref), releases: info.otherRelease });
    else unknown.push(tableLabel(t.ref));
    const { next, missFlow, packets, bytes } = walkTable(t, pipeline);
    rows.push({
      ...(info.number !== undefined ? { number: info.number } : {}),
      ...(info.name !== undefined ? { name: info.name } : {}),
      ...(info.profileName !== undefined ? { profileName: info.profileName } : {}),
      ...(info.purpose !== undefined ? { purpose: info.purpose } : {}),
      known: info.spec !== undefined,
      ...(info.otherRelease ? { otherReleases: info.otherRelease } : {}),
      flows: t.given.length,
      ...(packets !== undefined ? { packets } : {}),
      ...(bytes !== undefined ? { bytes } : {}),
      next: annotator.tableNames(next),
      miss: missFlow ? missFlowOf(missFlow, name) : { kind: 'none' },
      ...(info.spec ? { expectedMiss: info.spec.miss } : {}),
      wording: annotator.wording,
      missDiffers: info.spec !== undefined && annotator.missDiffers(info.spec.miss, missFlow),
    });
  }
  const profile = annotator.profile;
  const missing: MissingTable[] = (profile?.tables ?? [])
    // A numbered reading knows only the tables its layout numbers. A table that exists only with a
    // feature (IPv6, Multicast, TrafficControl, …) is absent whenever the feature is off: it is
    // expected only where the flows show the feature on (expectedWith).
    .filter(
      (s) =>
        (s.requires === undefined || s.expectedWith !== undefined) &&
        inVersion(s, annotator.release) &&
        !seen.has(s.name) &&
        (s.number === undefined || !numbers.has(s.number)) &&
        (profile?.numbering === undefined || s.number !== undefined),
    )
    .filter((s) => s.expectedWith === undefined || featureShows(pipeline, annotator, s.expectedWith))
    .map((s) => ({
      ...(s.number !== undefined ? { number: s.number } : {}),
      name: annotator.wording.profileTable(s.name),
    }));
  return { rows, missing, unknown: profile && profile.tables.length > 0 ? unknown : [], otherReleases };
}

/** Whether some flow of the dump (in the given table, or anywhere) is of the kind that shows a feature. */
function featureShows(pipeline: Pipeline, annotator: Annotator, kind: NonNullable<TableSpec['expectedWith']>): boolean {
  const profile = annotator.profile!;
  const pattern = parsePattern(kind.match).match;
  const flows = kind.table === undefined ? pipeline.flows : (pipeline.table(tableNumber(kind.table))?.flows ?? []);
  return flows.some(
    (f) =>
      matchCovers(pattern, f.match) &&
      (kind.actions ?? []).every((h) => hintHolds(profile, h, f.actions, annotator.release)),
  );
}

/** A drop, jumps to tables, an output to a reserved port, or other actions. */
function missFlowOf(flow: Flow, name: (ref: TableRef) => TableRef): MissFlow {
  if (flow.actions.length === 0) return { kind: 'drop' };
  const jumps = flow.actions.every((a) => a.kind === 'goto_table' || (a.kind === 'resubmit' && a.table && !a.port));
  if (jumps) return { kind: 'goto', tables: jumpTargets(flow.actions).map(name) };
  const only = flow.actions.length === 1 ? flow.actions[0] : undefined;
  if (only?.kind === 'output' && only.port.kind === 'reserved') return { kind: 'reserved', port: only.port.name };
  return { kind: 'actions', actions: flow.actions };
}
