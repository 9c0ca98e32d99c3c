/**
 * Flow lookup as the OVS classifier does it (lib/classifier.c): per table, flows are grouped into
 * subtables by the set of bits they match on, each subtable a hash map from masked values to the
 * flows with that exact match, highest priority first. A lookup probes subtables in decreasing
 * order of their best priority and stops once no subtable can beat the best match, so its cost
 * depends on the number of distinct masks, not on the number of flows.
 *
 * Conjunctive matches follow `classifier_lookup__` (see ovs-conjunction.md §2): flows whose only
 * actions are `conjunction(...)` are soft matches; once every clause of a conjunction matched at
 * one priority, the table is looked up again with `conj_id` set.
 */
import type { Flow } from '../model/flow.ts';
import { type Pipeline, tableKey } from '../model/pipeline.ts';
import type { PortMap } from '../model/ports.ts';
import type { TableRef } from '../model/tables.ts';
import { FIELD, fieldParts, type Packet, port16 } from './packet.ts';

interface Clause {
  readonly id: number;
  /** 0-based dimension. */
  readonly clause: number;
  readonly nClauses: number;
}

interface Rule {
  readonly flow: Flow;
  readonly priority: number;
  /** Set for soft (conjunction component) flows. */
  readonly clauses?: readonly Clause[];
}

interface Subtable {
  readonly slots: readonly string[];
  readonly masks: readonly bigint[];
  maxPriority: number;
  /** Masked values → flows with that match, highest priority first (dump order among equals). */
  readonly buckets: Map<string, Rule[]>;
}

/** A flow that could never match: its port name is unknown, so no packet can carry it. */
const UNMATCHABLE = -1n;

export interface ConjunctionMatch {
  readonly id: number;
  /** The component flows at the completing priority that carry the ID. */
  readonly components: readonly Flow[];
}

export interface LookupResult {
  readonly flow: Flow;
  readonly conjunction?: ConjunctionMatch;
}

/** One table's index. */
export class TableIndex {
  private readonly subtables: Subtable[] = [];
  readonly size: number;

  constructor(flows: readonly Flow[], ports: PortMap) {
    const bySignature = new Map<string, Subtable>();
    for (const flow of flows) {
      const constraint = slotConstraint(flow, ports);
      const slots = [...constraint.keys()].sort();
      const masks = slots.map((s) => constraint.get(s)!.mask);
      const signature = slots.map((s, i) => `${s}/${masks[i]!.toString(16)}`).join(',');
      let sub = bySignature.get(signature);
      if (!sub) {
        sub = { slots, masks, maxPriority: flow.priority, buckets: new Map() };
        bySignature.set(signature, sub);
        this.subtables.push(sub);
      }
      sub.maxPriority = Math.max(sub.maxPriority, flow.priority);
      const key = valuesKey(slots.map((s) => constraint.get(s)!.value));
      const clauses = conjunctionClauses(flow);
      const rule: Rule = clauses ? { flow, priority: flow.priority, clauses } : { flow, priority: flow.priority };
      const bucket = sub.buckets.get(key);
      if (bucket) insertByPriority(bucket, rule);
      else sub.buckets.set(key, [rule]);
    }
    this.subtables.sort((a, b) => b.maxPriority - a.maxPriority);
    this.size = flows.length;
  }

  /** The flow the packet hits in this table, or undefined for a table miss. */
  lookup(packet: Packet): LookupResult | undefined {
    return this.find(packet, true);
  }

  private probe(sub: Subtable, packet: Packet): Rule[] | undefined {
    const values: bigint[] = [];
    for (let i = 0; i < sub.slots.length; i++) values.push(packet.slot(sub.slots[i]!) & sub.masks[i]!);
    return sub.buckets.get(valuesKey(values));
  }

  private find(packet: Packet, allowSoft: boolean): LookupResult | undefined {
    let hard: Rule | undefined;
    let hardPri = -1;
    const soft: { bucket: Rule[]; index: number }[] = [];
    for (const sub of this.subtables) {
      if (sub.maxPriority <= hardPri) break;
      const bucket = this.probe(sub, packet);
      const rule = bucket?.[0];
      if (!bucket || !rule || rule.priority <= hardPri) continue;
      if (!rule.clauses) {
        hard = rule;
        hardPri = rule.priority;
      } else if (allowSoft) {
        soft.push({ bucket, index: 0 });
      }
    }
    const ruleOf = (s: { bucket: Rule[]; index: number }): Rule => s.bucket[s.index]!;
    let pending = soft;
    for (;;) {
      pending = pending.filter((s) => ruleOf(s).priority > hardPri);
      if (pending.length === 0) break;
      const top = Math.max(...pending.map((s) => ruleOf(s).priority));
      const atTop = pending.filter((s) => ruleOf(s).priority === top);
      const result = this.complete(packet, atTop.map(ruleOf));
      if (result) return result;
      // No conjunction completed at this priority: each soft match gives way to the next flow
      // with an identical match (lib/classifier.c walks the same rule chain).
      const next: typeof pending = pending.filter((s) => ruleOf(s).priority !== top);
      for (const s of atTop) {
        const lower = s.bucket[s.index + 1];
        if (!lower) continue;
        if (lower.clauses) next.push({ bucket: s.bucket, index: s.index + 1 });
        else if (lower.priority > hardPri) {
          hard = lower;
          hardPri = lower.priority;
        }
      }
      pending = next;
    }
    return hard ? { flow: hard.flow } : undefined;
  }

  /** Conjunctions completed by the soft matches of one priority, tried in completion order. */
  private complete(packet: Packet, atTop: readonly Rule[]): LookupResult | undefined {
    const progress = new Map<number, { nClauses: number; bits: bigint; components: Flow[] }>();
    for (const rule of atTop) {
      for (const c of rule.clauses ?? []) {
        if (c.nClauses > atTop.length) continue;
        let p = progress.get(c.id);
        if (!p) progress.set(c.id, (p = { nClauses: c.nClauses, bits: 0n, components: [] }));
        if (p.nClauses !== c.nClauses) continue;
        const all = (1n << BigInt(p.nClauses)) - 1n;
        const wasComplete = p.bits === all;
        p.bits |= 1n << BigInt(c.clause);
        if (!p.components.includes(rule.flow)) p.components.push(rule.flow);
        if (wasComplete || p.bits !== all) continue;
        const before = packet.slot(FIELD.conjId.storage);
        packet.setSlot(FIELD.conjId.storage, BigInt(c.id));
        const hit = this.find(packet, false);
        packet.setSlot(FIELD.conjId.storage, before);
        if (hit) return { flow: hit.flow, conjunction: { id: c.id, components: p.components } };
      }
    }
    return undefined;
  }
}

function valuesKey(values: readonly bigint[]): string {
  let key = '';
  for (const v of values) key += v.toString(16) + '/';
  return key;
}

function insertByPriority(bucket: Rule[], rule: Rule): void {
  let i = bucket.length;
  while (i > 0 && bucket[i - 1]!.priority < rule.priority) i--;
  bucket.splice(i, 0, rule);
}

/** `conjunction` actions of a component flow (only `note` may accompany them), else undefined. */
function conjunctionClauses(flow: Flow): Clause[] | undefined {
  const clauses: Clause[] = [];
  for (const a of flow.actions) {
    if (a.kind === 'conjunction') clauses.push({ id: a.id, clause: a.clause - 1, nClauses: a.nClauses });
    else if (a.kind !== 'note') return undefined;
  }
  return clauses.length > 0 ? clauses : undefined;
}

/** The flow's match as (storage slot → value, mask), all fields sharing a slot merged. */
function slotConstraint(flow: Flow, ports: PortMap): Map<string, { value: bigint; mask: bigint }> {
  const out = new Map<string, { value: bigint; mask: bigint }>();
  for (const mf of flow.match.fields) {
    let value = mf.value;
    let mask = mf.mask;
    if (mf.field.format === 'port' && mf.field.storage === FIELD.inPort.storage) {
      const named = mf.port?.kind === 'name' ? ports.number(mf.port.name) : undefined;
      value = mf.port?.kind === 'name' ? (named === undefined ? UNMATCHABLE : BigInt(named)) : port16(value);
      mask = 0xffffn;
      const prev = out.get(FIELD.inPort.storage);
      out.set(FIELD.inPort.storage, { value: prev && prev.value !== value ? UNMATCHABLE : value, mask });
      continue;
    }
    for (const p of fieldParts(mf.field)) {
      const m = ((mask >> BigInt(p.fieldShift)) & ((1n << BigInt(p.bits)) - 1n)) << BigInt(p.slotShift);
      if (m === 0n) continue;
      const v = ((value >> BigInt(p.fieldShift)) << BigInt(p.slotShift)) & m;
      const prev = out.get(p.slot);
      if (!prev) out.set(p.slot, { value: v, mask: m });
      else if (prev.value === UNMATCHABLE) continue;
      else if ((prev.value & m) !== (v & prev.mask)) out.set(p.slot, { value: UNMATCHABLE, mask: prev.mask | m });
      else out.set(p.slot, { value: prev.value | v, mask: prev.mask | m });
    }
  }
  return out;
}

/** Indexes of every table of a pipeline, built on first use so a trace pays only for tables it visits. */
export class Classifier {
  private readonly pipeline: Pipeline;
  private readonly indexes = new Map<string, TableIndex>();

  constructor(pipeline: Pipeline) {
    this.pipeline = pipeline;
  }

  hasTable(ref: TableRef): boolean {
    return this.pipeline.table(ref) !== undefined;
  }

  lookup(ref: TableRef, packet: Packet): LookupResult | undefined {
    const key = tableKey(ref);
    let index = this.indexes.get(key);
    if (!index) {
      const table = this.pipeline.table(ref);
      if (!table) return undefined;
      this.indexes.set(key, (index = new TableIndex(table.flows, this.pipeline.ports)));
    }
    return index.lookup(packet);
  }

  /** Builds every table's index now (for a long-lived pipeline serving many traces). */
  buildAll(): void {
    for (const t of this.pipeline.tables.values()) if (!this.indexes.has(tableKey(t.ref))) this.indexes.set(tableKey(t.ref), new TableIndex(t.flows, this.pipeline.ports));
  }
}
