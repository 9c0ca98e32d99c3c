/**
 * A pipeline: the flows of a dump arranged as the switch holds them — tables in order, each
 * with its flows in match order (priority, highest first) — plus groups and ports.
 */
import type { Action } from './actions.ts';
import { actionsOutline, type Flow, type Group, onlyConjunctions } from './flow.ts';
import { PortMap } from './ports.ts';
import { type TableRef, TableNumbering } from './tables.ts';

export interface PipelineTable {
  readonly ref: TableRef;
  /** Flows by descending priority; equal priorities keep dump order. */
  readonly flows: readonly Flow[];
  /** The same flows in the order given, the order they lie in memory (see Pipeline.flows). */
  readonly given: readonly Flow[];
  /**
   * The flows in match order but those whose actions are conjunction actions alone (clause flows,
   * see onlyConjunctions), which jump nowhere, write nothing and name no port or group: most of a
   * NetworkPolicy dump's flows, which walkers of jumps, writes and exits need not each ask.
   */
  readonly acting: readonly Flow[];
}

/** Key under which a table is filed: its number, or its name when the dump printed names. */
export function tableKey(ref: TableRef): string {
  return ref.kind === 'number' ? `#${ref.number}` : ref.name;
}

/** A table's flows, put in match order when first asked for: a trace of a large dump reads a few tables alone, in the order given. */
class TableFlows implements PipelineTable {
  readonly ref: TableRef;
  readonly given: readonly Flow[];
  private ordered: readonly Flow[] | undefined;
  private actingFlows: readonly Flow[] | undefined;

  constructor(ref: TableRef, given: readonly Flow[]) {
    this.ref = ref;
    this.given = given;
  }

  get flows(): readonly Flow[] {
    return (this.ordered ??= inMatchOrder(this.given));
  }

  get acting(): readonly Flow[] {
    if (this.actingFlows === undefined) {
      const acting: Flow[] = [];
      // Indexed, as in inMatchOrder. A lazily read clause flow's outline tells at once.
      const flows = this.flows;
      for (let i = 0; i < flows.length; i++) {
        const f = flows[i]!;
        if (f.outlineActions !== 'conjunctions' && !onlyConjunctions(f)) acting.push(f);
      }
      this.actingFlows = acting;
    }
    return this.actingFlows;
  }
}

export class Pipeline {
  /**
   * Every flow in the order given (a dump's order). Walking a million flows in the order they
   * were read is several times faster than walking them table by table: they lie in memory in
   * that order.
   */
  readonly flows: readonly Flow[];
  readonly tables: ReadonlyMap<string, PipelineTable>;
  readonly groups: ReadonlyMap<number, Group>;
  readonly ports: PortMap;
  /**
   * Numbers of the named tables: a table written by number where the pipeline holds it by name
   * (a bucket's `resubmit(,11)` in a `--names` dump), or the other way round, is the same table.
   */
  readonly numbering: TableNumbering;

  constructor(
    flows: readonly Flow[],
    groups: readonly Group[] = [],
    ports: PortMap = new PortMap(),
    numbering = new TableNumbering(),
  ) {
    this.flows = flows;
    this.numbering = numbering;
    const ordered = [...flowsByTable(flows)].sort(compareTables);
    this.tables = new Map(ordered.map((t) => [tableKey(t.ref), new TableFlows(t.ref, t.flows)]));
    this.groups = new Map(groups.map((g) => [g.id, g]));
    this.ports = ports;
  }

  /** The table `ref` names, written as the pipeline holds it or the other way (see numbering). */
  table(ref: TableRef): PipelineTable | undefined {
    const own = this.tables.get(tableKey(ref));
    if (own || this.numbering.size === 0) return own;
    const other = this.numbering.counterpart(ref);
    return other && this.tables.get(tableKey(other));
  }

  /** `ref` as the pipeline holds the table (by name in a `--names` dump), or as given when it holds no such table. */
  resolve(ref: TableRef): TableRef {
    return this.table(ref)?.ref ?? ref;
  }

  /** The same flows, groups and ports with the numbers of the named tables known; nothing is rebuilt. */
  withNumbering(numbering: TableNumbering): Pipeline {
    const copy = Object.create(Pipeline.prototype) as { -readonly [K in keyof Pipeline]: Pipeline[K] };
    Object.assign(copy, this);
    copy.numbering = numbering;
    return copy as Pipeline;
  }

  get flowCount(): number {
    return this.flows.length;
  }
}

/** A table's flows in the order given. */
export interface GivenTable {
  readonly ref: TableRef;
  readonly flows: readonly Flow[];
}

/** flowsByTable's answer for an array of flows, and the array's length then. */
const dealt = new WeakMap<readonly Flow[], { readonly length: number; readonly tables: readonly GivenTable[] }>();

/**
 * The flows dealt into their tables, each table's in the order given, the tables in the order
 * they first appear. Dealt once for an array of flows: a pipeline and the detection of its
 * profile both ask (a million flows: about 40 ms each time).
 */
export function flowsByTable(flows: readonly Flow[]): readonly GivenTable[] {
  const known = dealt.get(flows);
  if (known?.length === flows.length) return known.tables;
  const byTable = new Map<string, { ref: TableRef; flows: Flow[] }>();
  // A dump lists each table's flows together: the table of the previous flow is kept at hand.
  let lastRef: TableRef | undefined;
  let last: { ref: TableRef; flows: Flow[] } | undefined;
  // Indexed loops here and in inMatchOrder: this runs once, mostly before the loop is optimised,
  // and an iterator would allocate a result object for each of a million flows.
  for (let i = 0; i < flows.length; i++) {
    const f = flows[i]!;
    if (f.table !== lastRef || !last) {
      const key = tableKey(f.table);
      last = byTable.get(key);
      if (!last) byTable.set(key, (last = { ref: f.table, flows: [] }));
      lastRef = f.table;
    }
    last.flows.push(f);
  }
  const tables = [...byTable.values()];
  dealt.set(flows, { length: flows.length, tables });
  return tables;
}

/**
 * Flows in match order: by descending priority, equal priorities in their given order. Sorted
 * by counting (priorities are 0–65535, see Flow): one pass counts each priority, one places each
 * flow; a policy table of a large dump has thousands of priorities and a million flows.
 */
export function inMatchOrder(flows: readonly Flow[]): Flow[] {
  const n = flows.length;
  // Read once: a lazily read flow unpacks its priority each time it is asked.
  const priorities = new Uint16Array(n);
  let low = 0xffff;
  let high = 0;
  for (let i = 0; i < n; i++) {
    const p = flows[i]!.priority;
    priorities[i] = p;
    if (p < low) low = p;
    if (p > high) high = p;
  }
  if (low >= high) return flows.slice();
  // Where the flows of each priority start in the result, highest priority first, found for the
  // priorities present alone (in `present` as met, then in order): a policy table's few thousand
  // flows spread over 0–65000, and outside optimised code, as a short run reads, each step of a
  // loop over the whole range cost more than a step over a flow.
  const starts = new Int32Array(high - low + 1);
  const present: number[] = [];
  for (let i = 0; i < n; i++) {
    const k = high - priorities[i]!;
    if (starts[k]!++ === 0) present.push(k);
  }
  const order = Int32Array.from(present).sort();
  for (let j = 0, at = 0; j < order.length; j++) {
    const k = order[j]!;
    const count = starts[k]!;
    starts[k] = at;
    at += count;
  }
  // A copy overwritten, not a new Array(n): that would hold holes until filled, and every later read checks for them.
  const out = flows.slice();
  for (let i = 0; i < n; i++) out[starts[high - priorities[i]!]!++] = flows[i]!;
  return out;
}

/** Numbered tables first in numeric order, then named tables in order of first appearance. */
function compareTables(a: { ref: TableRef }, b: { ref: TableRef }): number {
  if (a.ref.kind === 'number' && b.ref.kind === 'number') return a.ref.number - b.ref.number;
  if (a.ref.kind === 'number') return -1;
  if (b.ref.kind === 'number') return 1;
  return 0;
}

/**
 * A flow's actions as a walk that follows groups reads them: the outline's (see actionsOutline),
 * unless the flow uses a group and the pipeline has groups to follow: an outline's group ids may
 * not be the flow's, so the flow's own actions are made then.
 */
export function actionsThroughGroups(pipeline: Pipeline, flow: Flow): readonly Action[] {
  const outline = actionsOutline(flow);
  return pipeline.groups.size > 0 && outline.some((a) => a.kind === 'group') ? flow.actions : outline;
}
