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
import type { Flow, Match, MatchField } from '../../model/flow.ts';
import { type Pipeline, tableKey } from '../../model/pipeline.ts';
import type { TableRef } from '../../model/tables.ts';
import { ones } from '../../model/values.ts';
import { FIELD, fieldParts, type Packet, port16, presenceBit, TUN_METADATA_PRESENT } from './packet.ts';
import type { TracePorts } from './trace-ports.ts';
import { maxOf } from '../../model/append.ts';
import { FlowIndex, newTermId, type Subtable, type Term, type TermPart } from '../../model/flow-index.ts';

/** A soft flow's `conjunction(id, clause/nClauses)` actions (clause is 1-based). */
type Clause = ActionOf<'conjunction'>;

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
  readonly size: number;
  /** Ports the flows match as in_port by a name the dump gives no number for. */
  readonly unnumberedInPorts = new Set<string>();
  /**
   * `flows` in the order given (a `PipelineTable`'s `given`), the order they lie in memory: read
   * in match order instead, a large table costs a cache miss a flow.
   */
  private readonly flows: readonly Flow[];
  private readonly ports: TracePorts;
  /**
   * The flows the first packet looked up may hit, every flow ranking its subtable: a one-packet
   * trace through a policy table of hundreds of thousands of flows files a handful of them.
   */
  private narrowed: { readonly index: FlowIndex<Flow>; readonly keys: PacketKeys } | undefined;
  /** Every flow, once a packet asked what the narrowed index cannot answer. */
  private whole: FlowIndex<Flow> | undefined;

  constructor(flows: readonly Flow[], ports: TracePorts) {
    this.flows = flows;
    this.ports = ports;
    this.size = flows.length;
  }

  /** The flow the packet hits in this table, or undefined for a table miss. */
  lookup(packet: Packet): LookupResult | undefined {
    return this.find(this.indexFor(packet), packet, true);
  }

  /** An index that finds what the whole table would for `packet`. */
  private indexFor(packet: Packet): FlowIndex<Flow> {
    if (this.whole) return this.whole;
    const narrowed = this.narrowed;
    if (!narrowed) {
      // A copy: the tracer's packet changes as the trace goes on.
      const keys = new PacketKeys(packet.clone());
      this.narrowed = { index: this.build(keys), keys };
      return this.narrowed.index;
    }
    if (narrowed.keys.sameFor(narrowed.index, packet)) return narrowed.index;
    this.narrowed = undefined;
    return (this.whole = this.build(undefined));
  }

  /** The flows in subtables, every one of them ranking its subtable, those `keys` admits (all without) filed. */
  private build(keys: PacketKeys | undefined): FlowIndex<Flow> {
    const { flows, ports, unnumberedInPorts } = this;
    const index = new FlowIndex<Flow>();
    // Each flow's entries in term id order, in arrays reused from flow to flow.
    const entries: Entries = { terms: [], fields: [], length: 0 };
    // A lazily read flow is placed from its outline, its match unmade: a policy table holds
    // hundreds of thousands of flows of a few outlines.
    const outlines = new Map<Match, OutlinePlacing>();
    const shapes = keys && new Map<Match, ShapeFilter>();
    for (let place = 0; place < flows.length; place++) {
      const flow = flows[place]!;
      const outline = flow.outlineMatch;
      const varying = outline && flow.outlineVarying;
      if (outline && !varying) {
        let placing = outlines.get(outline);
        if (!placing) outlines.set(outline, (placing = new OutlinePlacing(outline, index, ports, keys)));
        if (placing.file(flow, flow.outlineEntry!, place, unnumberedInPorts)) continue;
      } else if (outline && shapes) {
        // A line of a shape is read again for its match: not when its fixed values already miss the packet.
        let shape = shapes.get(outline);
        if (!shape) shapes.set(outline, (shape = new ShapeFilter(outline, varying!, index, ports, keys!)));
        if (shape.sub) {
          index.rank(shape.sub, flow.priority, place);
          continue;
        }
      }
      const sub = index.subtable(sortedEntries(flow.match.fields, entries), entries.length);
      const values = slotValues(entries, sub, ports, unnumberedInPorts);
      if (values && (!keys || keys.admits(sub, values))) index.insert(sub, values, flow, place);
      else index.rank(sub, flow.priority, place);
    }
    return index;
  }

  private find(index: FlowIndex<Flow>, packet: Packet, allowSoft: boolean): LookupResult | undefined {
    let hard: Flow | undefined;
    let hardPri = -1;
    const soft: { bucket: readonly Flow[]; index: number }[] = [];
    const read = (slot: string): bigint => packet.slot(slot);
    for (const sub of index.inLookupOrder) {
      if (sub.maxPriority <= hardPri) break;
      const bucket = sub.probe(read);
      const rule = bucket?.[0];
      if (!bucket || !rule || rule.priority <= hardPri) continue;
      if (!isSoft(rule)) {
        hard = rule;
        hardPri = rule.priority;
      } else if (allowSoft) {
        soft.push({ bucket, index: 0 });
      }
    }
    const ruleOf = (s: { bucket: readonly Flow[]; index: number }): Flow => s.bucket[s.index]!;
    let pending = soft;
    for (;;) {
      pending = pending.filter((s) => ruleOf(s).priority > hardPri);
      if (pending.length === 0) break;
      const top = maxOf(pending.map((s) => ruleOf(s).priority));
      const atTop = pending.filter((s) => ruleOf(s).priority === top);
      const result = this.complete(index, packet, atTop.map(ruleOf));
      if (result) return result;
      // No conjunction completed at this priority: each soft match gives way to the next flow
      // with an identical match (lib/classifier.c walks the same rule chain).
      const next: typeof pending = pending.filter((s) => ruleOf(s).priority !== top);
      for (const s of atTop) {
        const lower = s.bucket[s.index + 1];
        if (!lower) continue;
        if (isSoft(lower)) next.push({ bucket: s.bucket, index: s.index + 1 });
        else if (lower.priority > hardPri) {
          hard = lower;
          hardPri = lower.priority;
        }
      }
      pending = next;
    }
    return hard ? { flow: hard } : undefined;
  }

  /** Conjunctions completed by the soft matches of one priority, tried in completion order. */
  private complete(index: FlowIndex<Flow>, packet: Packet, atTop: readonly Flow[]): LookupResult | undefined {
    const progress = new Map<number, { nClauses: number; bits: bigint; components: Flow[] }>();
    for (const rule of atTop) {
      // A soft flow's clauses, read when a packet first meets it (see isSoft).
      for (const c of conjunctionClauses(rule.actions) ?? []) {
        if (c.nClauses > atTop.length) continue;
        let p = progress.get(c.id);
        if (!p) progress.set(c.id, (p = { nClauses: c.nClauses, bits: 0n, components: [] }));
        if (p.nClauses !== c.nClauses) continue;
        const all = (1n << BigInt(p.nClauses)) - 1n;
        const wasComplete = p.bits === all;
        p.bits |= 1n << BigInt(c.clause - 1);
        if (!p.components.includes(rule)) p.components.push(rule);
        if (wasComplete || p.bits !== all) continue;
        const before = packet.slot(CONJ_ID);
        packet.setSlot(CONJ_ID, BigInt(c.id));
        const hit = this.find(index, packet, false);
        packet.setSlot(CONJ_ID, before);
        if (hit) return { flow: hit.flow, conjunction: { id: c.id, components: p.components } };
      }
    }
    return undefined;
  }
}

/** Set by a conjunction's second lookup (see TableIndex.complete): a narrowed index files flows of any conj_id. */
const CONJ_ID = FIELD.conjId.storage;

/**
 * What one packet's lookup asks of a table's subtables: its bits under each one's masks, the
 * values a flow there must have to be found, conj_id aside.
 */
class PacketKeys {
  private readonly packet: Packet;
  private readonly keys = new Map<Subtable<Flow>, readonly bigint[]>();

  /** `packet` is kept: it must not change. */
  constructor(packet: Packet) {
    this.packet = packet;
  }

  /** The packet's values in the subtable's slots. */
  of(sub: Subtable<Flow>): readonly bigint[] {
    let keys = this.keys.get(sub);
    if (!keys) this.keys.set(sub, (keys = sub.slots.map((slot, i) => this.packet.slot(slot) & sub.masks[i]!)));
    return keys;
  }

  /** Whether the packet, whatever its conj_id, finds a flow of these values in `sub` (its slot `except` aside). */
  admits(sub: Subtable<Flow>, values: readonly bigint[], except = -1): boolean {
    const keys = this.of(sub);
    for (let i = 0; i < keys.length; i++)
      if (i !== except && values[i] !== keys[i] && sub.slots[i] !== CONJ_ID) return false;
    return true;
  }

  /** Whether `packet` asks the same of every subtable of `index` (conj_id aside), and so finds the same flows. */
  sameFor(index: FlowIndex<Flow>, packet: Packet): boolean {
    for (const sub of index.subtables) {
      const keys = this.of(sub);
      for (let i = 0; i < keys.length; i++) {
        const slot = sub.slots[i]!;
        if (slot !== CONJ_ID && (packet.slot(slot) & sub.masks[i]!) !== keys[i]) return false;
      }
    }
    return true;
  }
}

/**
 * A shape's lines (see FlowOutline.shaped) that a packet cannot find without reading them: their
 * subtable when the values they all share miss the packet's, else undefined (read each line).
 */
class ShapeFilter {
  readonly sub: Subtable<Flow> | undefined;

  constructor(match: Match, varying: ReadonlySet<string>, index: FlowIndex<Flow>, ports: TracePorts, keys: PacketKeys) {
    // A port by name may be one the dump gives no number for, which a flow's own reading records.
    if (match.fields.some((mf) => mf.port?.kind === 'name')) return;
    const entries: Entries = { terms: [], fields: [], length: 0 };
    const sub = index.subtable(sortedEntries(match.fields, entries), entries.length);
    const values = slotValues(entries, sub, ports, new Set());
    if (!values) return;
    const vary = new Set<string>();
    for (let k = 0; k < entries.length; k++)
      if (varying.has(entries.fields[k]!.field.storage)) for (const p of entries.terms[k]!.parts) vary.add(p.slot);
    const wanted = keys.of(sub);
    for (let i = 0; i < values.length; i++) {
      const slot = sub.slots[i]!;
      if (!vary.has(slot) && slot !== CONJ_ID && values[i] !== wanted[i]) {
        this.sub = sub;
        return;
      }
    }
  }
}

const isClause = (a: Action): a is Clause => a.kind === 'conjunction';

/** `conjunction` actions of a component flow (only `note` may accompany them), else undefined. */
function conjunctionClauses(actions: readonly Action[]): readonly Clause[] | undefined {
  // The flow's own list when it holds nothing else (Antrea's clause flows carry hundreds).
  if (actions.length > 0 && actions.every(isClause)) return actions;
  if (!actions.every((a) => a.kind === 'conjunction' || a.kind === 'note')) return undefined;
  const clauses = actions.filter(isClause);
  return clauses.length > 0 ? clauses : undefined;
}

/** Whether a flow is a conjunction component, told from a lazily read flow's outline without making its actions. */
function isSoft(flow: Flow): boolean {
  const actions = flow.outlineActions ?? flow.actions;
  return actions === 'conjunctions' || conjunctionClauses(actions) !== undefined;
}

/** The match's entries in term id order, into `out`; their terms. */
function sortedEntries(fields: readonly MatchField[], out: Entries): SlotTerm[] {
  out.length = fields.length;
  for (let i = 0; i < fields.length; i++) {
    const mf = fields[i]!;
    const term = termOf(mf.field, mf.mask);
    // Insertion sort: matches hold a few fields, nearly always in order already.
    let j = i;
    for (; j > 0 && out.terms[j - 1]!.id > term.id; j--) {
      out.terms[j] = out.terms[j - 1]!;
      out.fields[j] = out.fields[j - 1]!;
    }
    out.terms[j] = term;
    out.fields[j] = mf;
  }
  return out.terms;
}

/**
 * Where the flows of one outline go: its subtable, and the slot values of its match worked out
 * once; a flow whose match holds another address in one entry (see FlowOutline) differs in the
 * bits of that entry's one slot alone. Narrowed to a packet's keys, a flow is told from its
 * address by number.
 */
class OutlinePlacing {
  private readonly shape: Match;
  private readonly index: FlowIndex<Flow>;
  private readonly ports: TracePorts;
  private readonly keys: PacketKeys | undefined;
  private sub: Subtable<Flow> | undefined;
  /** The values of the shape's match; undefined when no packet can match it, or the keys admit none. */
  private own: bigint[] | undefined;
  /** Per varying entry: the values without it, and where its bits go; null when it cannot be placed so. */
  private readonly variants = new Map<number, Variant | null>();

  constructor(shape: Match, index: FlowIndex<Flow>, ports: TracePorts, keys: PacketKeys | undefined) {
    this.shape = shape;
    this.index = index;
    this.ports = ports;
    this.keys = keys;
  }

  /**
   * Files the flow given at `place`, whose outline this is, with another address in entry `entry`
   * (see FlowOutline); false to place it from its match instead.
   */
  file(flow: Flow, entry: number, place: number, unnumbered: Set<string>): boolean {
    if (!this.sub) {
      const entries: Entries = { terms: [], fields: [], length: 0 };
      this.sub = this.index.subtable(sortedEntries(this.shape.fields, entries), entries.length);
      const own = slotValues(entries, this.sub, this.ports, unnumbered);
      this.own = own && (!this.keys || this.keys.admits(this.sub, own)) ? own : undefined;
    }
    const { sub, index } = this;
    if (entry < 0) {
      if (this.own) index.insert(sub, this.own, flow, place);
      else index.rank(sub, flow.priority, place);
      return true;
    }
    let variant = this.variants.get(entry);
    if (variant === undefined) this.variants.set(entry, (variant = this.variant(entry)));
    if (!variant) return false;
    const { slot, part, values, found } = variant;
    if (found) {
      if (found.address >= 0 && (flow.outlineAddress! & found.bits) >>> 0 === found.address)
        index.insert(sub, found.values, flow, place);
      else index.rank(sub, flow.priority, place);
      return true;
    }
    // Subtable.insert reads the values and keeps none of them: one array serves every flow.
    values[slot] = ((BigInt(flow.outlineAddress!) >> part.fieldShift) << part.slotShift) & part.mask;
    index.insert(sub, values, flow, place);
    return true;
  }

  /** The shape's values without entry `at`, when that entry alone fills its one slot. */
  private variant(at: number): Variant | null {
    const e = this.shape.fields[at]!;
    const term = termOf(e.field, e.mask);
    const part = term.parts[0];
    if (term.port || term.parts.length !== 1 || part!.fixed !== undefined) return null;
    // The address bits the entry keeps: an IPv4 address's, within 32 bits.
    const bits = (part!.mask >> part!.slotShift) << part!.fieldShift;
    if (bits > 0xffffffffn) return null;
    const fields = this.shape.fields.map((f, i) => (i === at ? { field: f.field, value: 0n, mask: f.mask } : f));
    const entries: Entries = { terms: [], fields: [], length: 0 };
    sortedEntries(fields, entries);
    const sub = this.sub!;
    const slot = sub.slots.indexOf(part!.slot);
    const shared = entries.terms.some(
      (t, k) => k < entries.length && t !== term && t.parts.some((p) => p.slot === part!.slot),
    );
    const base = slotValues(entries, sub, this.ports, new Set());
    if (shared || slot < 0 || !base) return null;
    const values = base.slice();
    if (!this.keys) return { slot, part: part!, values };
    // The one address of the entry the packet finds, when it finds the rest of the shape; -1 when not.
    const key = this.keys.of(sub)[slot]!;
    values[slot] = key;
    const address = this.keys.admits(sub, base, slot) ? Number((key >> part!.slotShift) << part!.fieldShift) : -1;
    return { slot, part: part!, values, found: { bits: Number(bits), address, values } };
  }
}

interface Variant {
  /** The entry's slot in the subtable, and its part of the entry's bits. */
  readonly slot: number;
  readonly part: SlotTerm['parts'][number];
  /** The shape's values, the entry's slot filled for each flow. */
  readonly values: bigint[];
  /**
   * Narrowed to a packet's keys: the address bits the entry keeps, the address of them the packet
   * finds (-1 for none), and the values of the flows that hold it.
   */
  readonly found?: { readonly bits: number; readonly address: number; readonly values: readonly bigint[] };
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
  sub: Subtable<Flow>,
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
