/**
 * Where a dropped packet came nearest to going on: of the flows of the table it was dropped in
 * that rank above the flow it hit (every flow, on a miss) and would have taken it further, the
 * one it misses on fewest fields — so that a user can tell what the packet lacks, rather than
 * guess. What the packet says of where it comes from and what it is (in_port, Ethernet type, IP
 * protocol) it keeps: flows for other ports or protocols are not near.
 */
import { flattenActions } from '../../model/actions.ts';
import type { Flow, MatchField } from '../../model/flow.ts';
import { fullMask } from '../../syntax/field-value.ts';
import { isInPortField, matchedInPort } from './classifier.ts';
import { FIELD, type Packet, storageReader } from './packet.ts';
import type { StorageReader } from '../conjunctions/conjunctions.ts';
import { type TableRef } from '../../model/tables.ts';
import { tableKey } from '../../model/pipeline.ts';
import type { Tracer, TraceResult, TraceStep } from './trace.ts';

/** A field the flow matches and the packet does not satisfy. */
export interface FieldMiss {
  readonly wanted: MatchField;
  /** The packet's value of the field, whole; undefined when it has none (0). */
  readonly has?: MatchField;
  /** For a field the pipeline sets (a register): the flow that would have set what is wanted, and why it did not. */
  readonly setBy?: Setter;
}

/** A flow of another table that writes what a nearest flow wants of a field the pipeline sets. */
export interface Setter {
  readonly flow: Flow;
  /**
   * What the packet met in the setter's table: the flow it took there instead (none: the table
   * had no flow for it), and what it lacked for the setter. Absent when it never reached that table.
   */
  readonly reached?: { readonly took?: Flow; readonly misses: readonly FieldMiss[] };
}

export interface NearestFlow {
  readonly flow: Flow;
  readonly misses: readonly FieldMiss[];
}

/** Fields that a packet giving them keeps. */
const KEPT = new Set([FIELD.inPort.storage, FIELD.ethType.storage, FIELD.nwProto.storage]);

/** A flow that ends a packet's path, or only serves a conjunction, takes nobody further. */
function leadsOn(flow: Flow): boolean {
  return (
    flow.actions.some((a) => a.kind !== 'conjunction' && a.kind !== 'note') &&
    !flow.match.fields.some((e) => e.field.name === 'conj_id')
  );
}

/** The packet as every flow of a table is held against it. */
interface Held {
  readonly packet: Packet;
  readonly read: StorageReader;
  readonly port: number;
}

/** The fields by which `flow` misses the packet, read as the classifier reads them. */
function misses(flow: Flow, { packet, read, port }: Held, tracer: Tracer): FieldMiss[] {
  const out: FieldMiss[] = [];
  for (const wanted of flow.match.fields) {
    const inPort = isInPortField(wanted.field);
    const fits = inPort
      ? BigInt(port) === matchedInPort(wanted, tracer.ports)
      : (read(wanted.field.storage) & wanted.mask) === wanted.value;
    if (fits) continue;
    const value = packet.get(wanted.field);
    // A port known only by name has a stand-in number, which means nothing to the user.
    const name = inPort && tracer.ports.isStandIn(port) ? tracer.ports.names.name(port) : undefined;
    out.push(
      value === 0n
        ? { wanted }
        : {
            wanted,
            has: {
              field: wanted.field,
              value,
              mask: fullMask(wanted.field),
              ...(name ? { port: { kind: 'name', name } } : {}),
            },
          },
    );
  }
  return out;
}

/** What a packet carries in of its own is not set by the pipeline: registers, metadata and the marks are. */
const PIPELINE_SET = /^(?:x{0,2}reg\d+|metadata|ct_mark|ct_label|pkt_mark)$/;

/** Whether `flow` writes what `wanted` asks of the bits it writes, and writes some of them. */
function writes(flow: Flow, wanted: MatchField): boolean {
  return flattenActions(flow.actions).some((a) => {
    if (a.kind !== 'set_field' || a.field.storage !== wanted.field.storage || a.field.bits !== wanted.field.bits)
      return false;
    const both = a.mask & wanted.mask;
    return both !== 0n && (a.value & both) === (wanted.value & both);
  });
}

function heldOf(packet: Packet): Held {
  return { packet, read: storageReader(packet), port: Number(packet.get(FIELD.inPort)) };
}

/**
 * The flow that would have set what `wanted` asks, and why it did not: of the tables the packet
 * went through before, the last with such a flow, and of those flows there the one it missed on
 * fewest fields (with what it lacked for it); else one of a table the packet never reached.
 */
function setterOf(
  tracer: Tracer,
  wanted: MatchField,
  earlier: readonly TraceStep[],
  dropTable: string,
): Setter | undefined {
  for (let i = earlier.length - 1; i >= 0; i--) {
    const step = earlier[i]!;
    const table = tracer.pipeline.table(step.table);
    if (!table || !step.packet) continue;
    const held = heldOf(step.packet);
    let best: { readonly flow: Flow; readonly misses: FieldMiss[] } | undefined;
    for (const flow of table.flows) {
      if (flow === step.flow || !writes(flow, wanted)) continue;
      const m = misses(flow, held, tracer);
      if (!best || m.length < best.misses.length) best = { flow, misses: m };
    }
    if (best) return { flow: best.flow, reached: { ...(step.flow ? { took: step.flow } : {}), misses: best.misses } };
  }
  const visited = new Set(earlier.map((s) => tableKey(s.table)));
  for (const [key, table] of tracer.pipeline.tables) {
    if (key === dropTable || visited.has(key)) continue;
    const flow = table.flows.find((f) => writes(f, wanted));
    if (flow) return { flow };
  }
  return undefined;
}

/**
 * The flow `step`'s packet came nearest to matching in `step`'s table; undefined when no flow
 * would have taken it further. `earlier`: the lookups before it, where a register the flow wants
 * could have been set.
 */
export function nearestFlow(
  tracer: Tracer,
  step: TraceStep,
  earlier: readonly TraceStep[] = [],
): NearestFlow | undefined {
  const packet = step.packet;
  const table = tracer.pipeline.table(step.table);
  if (!packet || !table) return undefined;
  const above = step.flow?.priority ?? -1;
  const held = heldOf(packet);
  let best: NearestFlow | undefined;
  for (const flow of table.flows) {
    if (flow.priority <= above) break;
    if (!leadsOn(flow)) continue;
    const m = misses(flow, held, tracer);
    if (m.length === 0 || m.some((x) => x.has !== undefined && KEPT.has(x.wanted.field.storage))) continue;
    if (!best || m.length < best.misses.length) best = { flow, misses: m };
  }
  if (!best) return undefined;
  const dropTable = tableKey(step.table);
  const explained = best.misses.map((m) => {
    if (!PIPELINE_SET.test(m.wanted.field.storage)) return m;
    const setBy = setterOf(tracer, m.wanted, earlier, dropTable);
    return setBy ? { ...m, setBy } : m;
  });
  return { flow: best.flow, misses: explained };
}

/** Every lookup of the trace before its last. */
export function lookupsBefore(result: TraceResult): TraceStep[] {
  const steps = result.passes.flatMap((p) => p.steps);
  return result.last ? steps.filter((s) => s !== result.last) : steps;
}

/** A packet dropped by a table's miss, and the flow of that table it came nearest to matching. */
export interface MissDrop {
  readonly table: TableRef;
  /** Absent when no flow there would take a packet of its input port and protocol further. */
  readonly nearest?: NearestFlow;
}

/** A flow that matches every packet and takes none further: a table's miss flow that drops. */
function dropsEverything(flow: Flow): boolean {
  return flow.match.fields.length === 0 && !leadsOn(flow);
}

/**
 * Set when `result`'s packet was dropped by the miss of the table it ended in: no flow there
 * matched, or only one that drops every packet. A drop by a flow that picks out packets like this
 * one (a policy's deny), or one a problem explains (a missing group), is no miss. Needs a trace
 * made with `keepPackets`.
 */
export function missDrop(tracer: Tracer, result: TraceResult): MissDrop | undefined {
  const last = result.last;
  if (result.verdict !== 'drop' || result.cause || !last?.packet) return undefined;
  if (last.flow && !dropsEverything(last.flow)) return undefined;
  const nearest = nearestFlow(tracer, last, lookupsBefore(result));
  return { table: last.table, ...(nearest ? { nearest } : {}) };
}
