/**
 * Flow lookup as the OVS classifier does it, on the model's flow index (model/flow-index.ts): a
 * table's flows in subtables by the bits of the packet they match, each field's bits where the
 * packet keeps them. A lookup probes subtables in decreasing order of their best priority and
 * stops once no subtable can beat the best match.
 *
 * Conjunctive matches follow `classifier_lookup__` (see ovs-conjunction.md §2): flows whose only
 * actions are `conjunction(...)` are soft matches; once every clause of a conjunction matched at
 * one priority, the table is looked up again with `conj_id` set.
 */
import type { Action, ActionOf } from '../../model/actions.ts';
import type { FieldDef } from '../../model/fields.ts';
import type { Flow, MatchField } from '../../model/flow.ts';
import { type Pipeline, tableKey } from '../../model/pipeline.ts';
import type { TableRef } from '../../model/tables.ts';
import { ones } from '../../model/values.ts';
import { FIELD, fieldParts, type Packet, port16, presenceBit, TUN_METADATA_PRESENT } from './packet.ts';
import type { TracePorts } from './trace-ports.ts';
import { maxOf } from '../../model/append.ts';
import { FlowIndex, newTermId, type Subtable, type Term, type TermPart } from '../../model/flow-index.ts';

/** A soft flow's `conjunction(id, clause/nClauses)` actions (clause is 1-based). */
type Clause = ActionOf<'conjunction'>;

interface Rule {
  readonly flow: Flow;
  readonly priority: number;
  /** Set for soft (conjunction component) flows. */
  readonly clauses?: readonly Clause[];
}

export interface ConjunctionMatch {
  readonly id: number;
  /** The component flows at the completing priority that carry the ID. */
  readonly components: readonly Flow[];
}

export interface LookupResult {
  readonly flow: Flow;
  readonly conjunction?: ConjunctionMatch;
}

/**
 * How one matched field at one mask lands in the packet's storage slots. Flows of a table share a
 * handful of these, so the bit arithmetic is worked out once per (field, mask) rather than once per flow.
 */
interface SlotTerm extends Term {
  readonly parts: readonly (TermPart & {
    readonly fieldShift: bigint;
    readonly slotShift: bigint;
    readonly fixed?: bigint;
  })[];
  /** in_port: the value is a port (16- or 32-bit numbering, or a name to resolve). */
  readonly port: boolean;
}

const terms = new Map<FieldDef, Map<bigint, SlotTerm>>();

function termOf(field: FieldDef, mask: bigint): SlotTerm {
  let byMask = terms.get(field);
  if (!byMask) terms.set(field, (byMask = new Map()));
  let term = byMask.get(mask);
  if (term) return term;
  const port = isInPortField(field);
  const parts: SlotTerm['parts'][number][] = port
    ? [{ slot: FIELD.inPort.storage, mask: 0xffffn, fieldShift: 0n, slotShift: 0n }]
    : fieldParts(field)
        .map((p) => ({
          slot: p.slot,
          mask: ((mask >> BigInt(p.fieldShift)) & ones(p.bits)) << BigInt(p.slotShift),
          fieldShift: BigInt(p.fieldShift),
          slotShift: BigInt(p.slotShift),
        }))
        .filter((p) => p.mask !== 0n);
  // A tunnel metadata option matches only a packet that carries it, whatever the value asked.
  const present = presenceBit(field);
  if (present !== undefined)
    parts.push({ slot: TUN_METADATA_PRESENT, mask: present, fieldShift: 0n, slotShift: 0n, fixed: present });
  term = { id: newTermId(), parts, port };
  byMask.set(mask, term);
  return term;
}

/** One table's index. */
export class TableIndex {
  private readonly index = new FlowIndex<Rule>();
  readonly size: number;
  /** Ports the flows match as in_port by a name the dump gives no number for. */
  readonly unnumberedInPorts = new Set<string>();

  /**
   * `flows` in the order given (a `PipelineTable`'s `given`), the order they lie in memory: read
   * in match order instead, a large table costs a cache miss a flow.
   */
  constructor(flows: readonly Flow[], ports: TracePorts) {
    // Each flow's entries in term id order, in arrays reused from flow to flow.
    const entries: Entries = { terms: [], fields: [], length: 0 };
    for (let place = 0; place < flows.length; place++) {
      const flow = flows[place]!;
      const fields = flow.match.fields;
      entries.length = fields.length;
      for (let i = 0; i < fields.length; i++) {
        const mf = fields[i]!;
        const term = termOf(mf.field, mf.mask);
        // Insertion sort: matches hold a few fields, nearly always in order already.
        let j = i;
        for (; j > 0 && entries.terms[j - 1]!.id > term.id; j--) {
          entries.terms[j] = entries.terms[j - 1]!;
          entries.fields[j] = entries.fields[j - 1]!;
        }
        entries.terms[j] = term;
        entries.fields[j] = mf;
      }
      const sub = this.index.subtable(entries.terms, entries.length);
      const values = slotValues(entries, sub, ports, this.unnumberedInPorts);
      if (!values) {
        this.index.rank(sub, flow.priority, place); // no packet can match it
        continue;
      }
      const clauses = conjunctionClauses(flow);
      this.index.insert(
        sub,
        values,
        clauses ? { flow, priority: flow.priority, clauses } : { flow, priority: flow.priority },
        place,
      );
    }
    this.size = flows.length;
  }

  /** The flow the packet hits in this table, or undefined for a table miss. */
  lookup(packet: Packet): LookupResult | undefined {
    return this.find(packet, true);
  }

  private find(packet: Packet, allowSoft: boolean): LookupResult | undefined {
    let hard: Rule | undefined;
    let hardPri = -1;
    const soft: { bucket: readonly Rule[]; index: number }[] = [];
    const read = (slot: string): bigint => packet.slot(slot);
    for (const sub of this.index.inLookupOrder) {
      if (sub.maxPriority <= hardPri) break;
      const bucket = sub.probe(read);
      const rule = bucket?.[0];
      if (!bucket || !rule || rule.priority <= hardPri) continue;
      if (!rule.clauses) {
        hard = rule;
        hardPri = rule.priority;
      } else if (allowSoft) {
        soft.push({ bucket, index: 0 });
      }
    }
    const ruleOf = (s: { bucket: readonly Rule[]; index: number }): Rule => s.bucket[s.index]!;
    let pending = soft;
    for (;;) {
      pending = pending.filter((s) => ruleOf(s).priority > hardPri);
      if (pending.length === 0) break;
      const top = maxOf(pending.map((s) => ruleOf(s).priority));
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
        p.bits |= 1n << BigInt(c.clause - 1);
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

const isClause = (a: Action): a is Clause => a.kind === 'conjunction';

/** `conjunction` actions of a component flow (only `note` may accompany them), else undefined. */
function conjunctionClauses(flow: Flow): readonly Clause[] | undefined {
  const actions = flow.actions;
  // The flow's own list when it holds nothing else (Antrea's clause flows carry hundreds).
  if (actions.length > 0 && actions.every(isClause)) return actions;
  if (!actions.every((a) => a.kind === 'conjunction' || a.kind === 'note')) return undefined;
  const clauses = actions.filter(isClause);
  return clauses.length > 0 ? clauses : undefined;
}

/** One flow's match entries with their terms, sorted by term id (the first `length` of each array). */
interface Entries {
  readonly terms: SlotTerm[];
  readonly fields: MatchField[];
  length: number;
}

/**
 * A flow's masked values in its subtable's slot order; undefined when no packet can match them.
 * An in_port known only by name takes its stand-in number, and joins `unnumbered`.
 */
function slotValues(
  entries: Entries,
  sub: Subtable<Rule>,
  ports: TracePorts,
  unnumbered: Set<string>,
): bigint[] | undefined {
  const values = new Array<bigint>(sub.slots.length).fill(0n);
  const seen = new Array<bigint>(sub.slots.length).fill(0n);
  for (let k = 0; k < entries.length; k++) {
    const term = entries.terms[k]!;
    const mf = entries.fields[k]!;
    let value = mf.value;
    if (term.port) {
      value = matchedInPort(mf, ports);
      if (mf.port?.kind === 'name' && ports.isStandIn(Number(value))) unnumbered.add(mf.port.name);
    }
    const placement = sub.placement[k]!;
    for (let j = 0; j < term.parts.length; j++) {
      const part = term.parts[j]!;
      const i = placement[j]!;
      const v = part.fixed ?? ((value >> part.fieldShift) << part.slotShift) & part.mask;
      // Two fields constraining the same bits differently (in_port written twice, say).
      if ((values[i]! & part.mask) !== (v & seen[i]!)) return undefined;
      values[i] = values[i]! | v;
      seen[i] = seen[i]! | part.mask;
    }
  }
  return values;
}

/** in_port and its OF1.1+ spelling: the classifier reads their values as ports. */
export function isInPortField(field: FieldDef): boolean {
  return field.format === 'port' && field.storage === FIELD.inPort.storage;
}

/** The input port an in_port entry wants, as the packet holds it: 16 bits, a name by its number or stand-in. */
export function matchedInPort(mf: MatchField, ports: TracePorts): bigint {
  return mf.port?.kind === 'name' ? BigInt(ports.number(mf.port.name)) : port16(mf.value);
}

/** Indexes of every table of a pipeline, built on first use so a trace pays only for tables it visits. */
export class Classifier {
  private readonly pipeline: Pipeline;
  private readonly ports: TracePorts;
  private readonly indexes = new Map<string, TableIndex>();

  constructor(pipeline: Pipeline, ports: TracePorts) {
    this.pipeline = pipeline;
    this.ports = ports;
  }

  /** A table's index, built on first use; undefined for a table the pipeline does not have. */
  index(ref: TableRef): TableIndex | undefined {
    const key = tableKey(ref);
    let index = this.indexes.get(key);
    if (!index) {
      const table = this.pipeline.table(ref);
      if (!table) return undefined;
      this.indexes.set(key, (index = new TableIndex(table.given, this.ports)));
    }
    return index;
  }

  lookup(ref: TableRef, packet: Packet): LookupResult | undefined {
    return this.index(ref)?.lookup(packet);
  }
}
