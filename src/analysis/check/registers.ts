/**
 * Flows that need a register (or the metadata field) to hold bits no action ever sets. Registers
 * and metadata start at zero for every packet, so a bit that no flow, group bucket or learned
 * flow can write as 1 is always 0, and a flow matching it as 1 never matches.
 *
 * The writes are gathered over the whole dump, not per path: a finding is certain, but a flow
 * whose bits are set only on paths that never reach it is not reported.
 */
import type { Action, Subfield } from '../../model/actions.ts';
import { assertNever } from '../../model/actions.ts';
import { fieldByName, type FieldDef } from '../../model/fields.ts';
import { type Flow, type Match, matchOutline } from '../../model/flow.ts';
import type { Pipeline } from '../../model/pipeline.ts';
import { ones } from '../../model/values.ts';
import { fieldParts } from '../trace/packet.ts';
import type { Finding } from './finding.ts';
import { findPerFlow } from './flow-walk.ts';

const METADATA = fieldByName('metadata');

/** Slots that start every packet at zero and only actions change. */
function isZeroedSlot(slot: string): boolean {
  return slot === 'metadata' || /^reg\d+$/.test(slot);
}

interface ZeroedPart {
  readonly slot: string;
  readonly fieldShift: bigint;
  readonly slotShift: bigint;
  readonly bits: bigint;
}

const zeroedCache = new Map<FieldDef, readonly ZeroedPart[]>();

/** The parts of a field that live in zeroed slots, with their shifts as bigints, worked out once per field. */
function zeroedParts(field: FieldDef): readonly ZeroedPart[] {
  let parts = zeroedCache.get(field);
  if (!parts) {
    parts = fieldParts(field)
      .filter((p) => isZeroedSlot(p.slot))
      .map((p) => ({
        slot: p.slot,
        fieldShift: BigInt(p.fieldShift),
        slotShift: BigInt(p.slotShift),
        bits: ones(p.bits),
      }));
    zeroedCache.set(field, parts);
  }
  return parts;
}

/**
 * Bits that may be 1 in each slot, from everything that writes it. Of the bits no flow's match
 * reads, some may be left out (see pipelineWrites).
 */
export class SlotWrites {
  readonly mayBeOne = new Map<string, bigint>();
  /** Each write may put any value under its mask: the bits a flow of a shape may set, whatever its numbers. */
  private readonly anyValue: boolean;

  constructor(anyValue = false) {
    this.anyValue = anyValue;
  }

  /** A write of `value` under `mask`, both in the field's own bit positions. */
  add(field: FieldDef, value: bigint, mask: bigint): void {
    const written = this.anyValue ? mask : value & mask;
    for (const p of zeroedParts(field)) {
      const bits = ((written >> p.fieldShift) & p.bits) << p.slotShift;
      if (bits !== 0n) this.mayBeOne.set(p.slot, (this.mayBeOne.get(p.slot) ?? 0n) | bits);
    }
  }

  /** A write of values not known offline (a copy, a hash, a popped value). */
  addUnknown(sf: Subfield): void {
    const mask = ones(sf.bits) << BigInt(sf.start);
    this.add(sf.field, mask, mask);
  }

  /** Whether some bit of `bits` (in the same slots) may be 1 in `needed` and is not here yet. */
  adds(bits: SlotWrites, needed: SlotWrites): boolean {
    for (const [slot, b] of bits.mayBeOne)
      if ((b & (needed.mayBeOne.get(slot) ?? 0n) & ~(this.mayBeOne.get(slot) ?? 0n)) !== 0n) return true;
    return false;
  }

  addActions(actions: readonly Action[]): void {
    for (const a of actions) {
      switch (a.kind) {
        // First: the only kind of most actions of a large NetworkPolicy dump.
        case 'conjunction':
          break;
        case 'set_field':
          this.add(a.field, a.value, a.mask);
          break;
        case 'write_metadata':
          if (METADATA) this.add(METADATA, a.value, a.mask);
          break;
        case 'move':
        case 'stack_pop':
        case 'multipath':
        case 'check_pkt_larger':
          this.addUnknown(a.dst);
          break;
        case 'bundle':
          if (a.dst) this.addUnknown(a.dst);
          break;
        case 'learn':
          if (a.resultDst) this.addUnknown(a.resultDst);
          // The learned flow's own writes happen when it matches.
          for (const s of a.specs) {
            if (s.kind === 'load_value')
              this.add(s.dst.field, s.value << BigInt(s.dst.start), ones(s.dst.bits) << BigInt(s.dst.start));
            else if (s.kind === 'load_field') this.addUnknown(s.dst);
          }
          break;
        case 'ct':
        case 'clone':
        case 'write_actions':
          this.addActions(a.actions);
          break;
        // Kinds that write no register or metadata bit (set_field covers every field write).
        case 'output':
        case 'output_field':
        case 'controller':
        case 'enqueue':
        case 'group':
        case 'set_vlan_vid':
        case 'set_vlan_pcp':
        case 'strip_vlan':
        case 'push_vlan':
        case 'push_mpls':
        case 'pop_mpls':
        case 'set_mpls_ttl':
        case 'dec_mpls_ttl':
        case 'set_ip_ttl':
        case 'dec_ttl':
        case 'encap':
        case 'decap':
        case 'dec_nsh_ttl':
        case 'set_queue':
        case 'pop_queue':
        case 'delete_field':
        case 'fin_timeout':
        case 'stack_push':
        case 'resubmit':
        case 'goto_table':
        case 'nat':
        case 'ct_clear':
        case 'note':
        case 'exit':
        case 'sample':
        case 'meter':
        case 'clear_actions':
        case 'unroll_xlate':
        case 'debug_recirc':
        case 'debug_slow':
        case 'unknown':
          break;
        default:
          assertNever(a);
      }
    }
  }
}

/** The register and metadata bits some flow's match reads (as 1 or as 0), from the flows' outlines. */
function matchedBits(pipeline: Pipeline): SlotWrites {
  const matched = new SlotWrites(true);
  const seen = new Set<Match>();
  // Flows of one outline match mostly come one after another: the last is compared first.
  let last: Match | undefined;
  // Indexed, as in findPerFlow.
  const { flows } = pipeline;
  for (let i = 0; i < flows.length; i++) {
    const match = matchOutline(flows[i]!);
    if (match === last) continue;
    last = match;
    if (seen.has(match)) continue;
    seen.add(match);
    for (const e of match.fields) matched.add(e.field, e.mask, e.mask);
  }
  return matched;
}

/** What the flows of one shape may set, and the storages whose values they write otherwise than the shape's line that count. */
interface ShapeWrites {
  /** The bits a flow of the shape may set, whatever its numbers. */
  readonly bits: SlotWrites;
  /** Those of the storages the shape's flows write other values to that hold bits some match reads. */
  readonly storages: ReadonlySet<string>;
}

function shapeWrites(
  varying: ReadonlySet<string> | undefined,
  actions: readonly Action[],
  matched: SlotWrites,
): ShapeWrites {
  const bits = new SlotWrites(true);
  bits.addActions(actions);
  const storages = new Set<string>();
  for (const s of varying ?? []) {
    // Every storage is a field's name; one that were not is kept, which only tells apart flows that need not be.
    const field = fieldByName(s);
    if (
      field === undefined ||
      zeroedParts(field).some((p) => ((matched.mayBeOne.get(p.slot) ?? 0n) & (p.bits << p.slotShift)) !== 0n)
    )
      storages.add(s);
  }
  return { bits, storages };
}

/**
 * Every register and metadata bit some flow, group bucket or learned flow of the pipeline may
 * set, among the bits some flow's match reads. A flow read by its shape (see FlowOutline) is read
 * whole only when the bits a flow of its shape may set hold one of those not found set yet, and
 * the numbers its line writes to the registers and metadata that matches read are not those of a
 * flow of its shape read before (or of the shape's line): on a large dump, the bits a shape writes
 * are soon all set by others, and a shape's flows mostly write such registers alike (a Service's
 * flows each load the same bits, and their own group id to a register no flow matches), so that
 * its flows are never made.
 */
export function pipelineWrites(pipeline: Pipeline): SlotWrites {
  const writes = new SlotWrites();
  const shaped: Flow[] = [];
  // Lazily read flows of one outline share their list of actions, whose writes add nothing a second time.
  let last: readonly Action[] | undefined;
  // Bits are gathered in any order. Conjunction actions write nothing: clause flows are passed by.
  for (const t of pipeline.tables.values()) {
    // Indexed, as in findPerFlow.
    const flows = t.acting;
    for (let i = 0; i < flows.length; i++) {
      const f = flows[i]!;
      // A lazily read flow of a shape (see Flow.outlineVarying), told without making its outline.
      if (f.outlineVarying !== undefined) shaped.push(f);
      else {
        const actions = f.actions;
        if (actions !== last) writes.addActions((last = actions));
      }
    }
  }
  for (const g of pipeline.groups.values()) for (const b of g.buckets) writes.addActions(b.actions);
  if (shaped.length === 0) return writes;
  const matched = matchedBits(pipeline);
  // Per outline's action list, which its flows share.
  const shapes = new Map<readonly Action[], ShapeWrites>();
  // The written numbers (see Flow.writtenNumbers) of the flows read, and the outlines whose own values were added.
  const read = new Set<string | readonly Action[]>();
  // A shape's flows mostly come one after another: the last flow's shape is kept, and whether the
  // writes hold its bits already, which then stays so (they only grow).
  let lastActions: readonly Action[] | undefined;
  let shape: ShapeWrites | undefined;
  let held = false;
  for (const f of shaped) {
    // The outline's parts, told without making it (see Flow.outlineActions).
    const actions = f.outlineActions as readonly Action[];
    if (actions !== lastActions) {
      lastActions = actions;
      shape = shapes.get(actions);
      if (!shape) shapes.set(actions, (shape = shapeWrites(f.outlineVarying, actions, matched)));
      held = false;
    }
    if (held || (held = !writes.adds(shape!.bits, matched))) continue;
    const numbers = f.writtenNumbers?.(shape!.storages);
    if (numbers !== undefined) {
      const key = numbers === '' ? actions : numbers;
      if (read.has(key)) continue;
      read.add(key);
    }
    // Written as the shape's line writes: its actions tell, without making the flow's.
    writes.addActions(numbers === '' ? actions : f.actions);
  }
  return writes;
}

export function findUnsetRegisters(pipeline: Pipeline, writes: SlotWrites = pipelineWrites(pipeline)): Finding[] {
  // The outline's masks are the flow's: most flows are cleared without making their match.
  return findPerFlow(pipeline, (flow) => check(flow, writes), { mayFind: (match) => mayNeedUnset(match, writes) });
}

/** Whether a match with these fields and masks may need a bit never set (its values need no more than its masks). */
function mayNeedUnset(match: Match, writes: SlotWrites): boolean {
  for (const e of match.fields)
    for (const p of zeroedParts(e.field)) {
      const bits = ((e.mask >> p.fieldShift) & p.bits) << p.slotShift;
      if ((bits & ~(writes.mayBeOne.get(p.slot) ?? 0n)) !== 0n) return true;
    }
  return false;
}

/** The unset bit the flow's match needs, if any. */
function check(flow: Flow, writes: SlotWrites): Finding | undefined {
  for (const e of flow.match.fields) {
    for (const p of zeroedParts(e.field)) {
      const need = ((e.value >> p.fieldShift) & p.bits) << p.slotShift;
      const never = need & ~(writes.mayBeOne.get(p.slot) ?? 0n);
      if (never !== 0n)
        return {
          kind: 'unset-register',
          severity: 'error',
          table: flow.table,
          flows: [flow],
          entry: e,
          slot: p.slot,
          bits: never,
        };
    }
  }
  return undefined;
}
