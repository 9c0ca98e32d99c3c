/**
 * Where a packet meets the conjunctions: the tables a trace of it reaches, each with the packet
 * as the trace has it there (registers, conntrack state and rewrites made by earlier tables), so
 * that a dimension on a register or on ct_state is judged on what the table really sees.
 */
import { tableKey } from '../../model/pipeline.ts';
import type { TableRef } from '../../model/tables.ts';
import type { PortMap } from '../../model/ports.ts';
import { type ConjunctionReport, explainPacket, type PacketConjunction, type StorageReader } from './conjunctions.ts';
import { lookupsBefore, type NearestFlow, nearestFlow } from '../trace/nearest-flow.ts';
import { type Packet, storageReader } from '../trace/packet.ts';
import type { TraceOptions, Tracer } from '../trace/trace.ts';
import { type ExplainedTrace, explainTrace } from '../trace/trace-verdict.ts';
import type { Annotator } from '../annotate/annotate.ts';

export interface ConjunctionScope {
  /**
   * Whether the trace reached a table with conjunctions. When it did not (a packet without the
   * in_port or registers the first tables need stops early), every table is checked, with the
   * packet as given.
   */
  readonly traced: boolean;
  /** Tables with conjunctions that are checked: in the order the trace reached them, else in table order. */
  readonly tables: readonly TableRef[];
  /** The table of the trace's last lookup. */
  readonly last?: TableRef;
  /**
   * Set when the trace reaches no table with conjunctions because the packet is dropped before:
   * the flow of the last table the packet came nearest to matching, and what it lacks for it,
   * unless no flow there would take a packet of its port and protocol further.
   */
  readonly dropped?: { readonly nearest?: NearestFlow };
  /** The packet as `table` sees it; undefined for a table the trace does not reach. */
  readerFor(table: TableRef): StorageReader | undefined;
  /** The packet's trace, whose verdict ends the report (with its reason, given the profile's annotator). */
  readonly trace: ExplainedTrace;
}

/**
 * Traces `packet` and scopes the conjunction check to the tables it reaches. A table met several
 * times (resubmits, passes after conntrack) is judged on its last lookup, the one after the
 * connection state is known.
 */
export function conjunctionScope(
  tracer: Tracer,
  report: ConjunctionReport,
  packet: Packet,
  options: TraceOptions = {},
): ConjunctionScope {
  const withConjunctions = new Map<string, TableRef>();
  for (const c of report.conjunctions) withConjunctions.set(tableKey(c.table), c.table);
  const trace = tracer.trace(packet, { ...options, keepPackets: true });
  const reached = new Map<string, { readonly table: TableRef; read: StorageReader }>();
  for (const pass of trace.passes) {
    for (const step of pass.steps) {
      const key = tableKey(step.table);
      if (!step.packet || !withConjunctions.has(key)) continue;
      const read = storageReader(step.packet);
      const known = reached.get(key);
      if (known) known.read = read;
      else reached.set(key, { table: step.table, read });
    }
  }
  const last = trace.last?.table;
  const ending = last ? { last } : {};
  if (reached.size > 0) {
    return {
      traced: true,
      tables: [...reached.values()].map((r) => r.table),
      ...ending,
      readerFor: (t) => reached.get(tableKey(t))?.read,
      trace,
    };
  }
  const asGiven = storageReader(packet);
  let dropped: ConjunctionScope['dropped'];
  if (trace.verdict === 'drop') {
    const nearest = trace.last && nearestFlow(tracer, trace.last, lookupsBefore(trace));
    dropped = nearest ? { nearest } : {};
  }
  return {
    traced: false,
    tables: [...withConjunctions.values()],
    ...ending,
    ...(dropped ? { dropped } : {}),
    readerFor: () => asGiven,
    trace,
  };
}

/** A packet against the conjunctions: the tables its trace reaches, and what each conjunction there makes of it. */
export interface PacketConjunctions {
  readonly packet: Packet;
  /** The port names the packet is printed with: the pipeline's, and those its flows use. */
  readonly portNames: PortMap;
  readonly scope: ConjunctionScope;
  readonly conjunctions: readonly PacketConjunction[];
}

/**
 * Which dimensions of the conjunctions in `report` the packet satisfies, in the tables its trace
 * reaches; the trace's verdict explained in the profile of `annotator` when given.
 */
export function conjunctionsForPacket(
  tracer: Tracer,
  report: ConjunctionReport,
  packet: Packet,
  options: TraceOptions = {},
  annotator?: Annotator,
): PacketConjunctions {
  const traced = conjunctionScope(tracer, report, packet, options);
  const scope = annotator ? { ...traced, trace: explainTrace(traced.trace, annotator) } : traced;
  const conjunctions = explainPacket(tracer.pipeline, report, (table) => scope.readerFor(table));
  return { packet, portNames: tracer.ports.names, scope, conjunctions };
}
