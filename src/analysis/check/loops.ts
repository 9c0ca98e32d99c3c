/**
 * Forwarding loops through resubmits and groups. goto_table only moves forward, so a packet can
 * only go round through a resubmit to the same or an earlier table, or through a group bucket
 * that resubmits. Each flow that does so is followed with a packet it matches (its own match
 * values), from its table, once per bucket of the select groups on the way: the tracer reports
 * a path that goes round until OVS's resubmit limit, and the tables it went round. The traces
 * share one budget of steps: a dump of many looping flows, each traced to the trace's own bounds,
 * would otherwise multiply them; the flows left when it is spent are counted, not followed.
 */
import type { Flow } from '../../model/flow.ts';
import type { TableRef } from '../../model/tables.ts';
import { actionsThroughGroups, type Pipeline, tableKey } from '../../model/pipeline.ts';
import { Packet } from '../trace/packet.ts';
import { Tracer } from '../trace/trace.ts';
import { TraceBudget, type TraceWork } from '../trace/trace-budget.ts';
import type { Finding } from './finding.ts';

/** The packet the flow's match describes: each matched field set to the value under its mask. */
function packetOf(flow: Flow): Packet | undefined {
  const p = new Packet();
  for (const e of flow.match.fields) {
    // A conj_id is no packet field: the flow matches only after its clauses, traced from their flows.
    if (e.field.name === 'conj_id') return undefined;
    p.set(e.field, e.value, e.mask);
  }
  return p;
}

export interface LoopSearch {
  readonly findings: Finding[];
  /** Flows that may go round and were not followed (or not through all their buckets): the budget was spent. */
  readonly untraced: number;
  readonly work: TraceWork;
}

export function findForwardingLoops(pipeline: Pipeline, budget: TraceBudget = new TraceBudget()): LoopSearch {
  let tracer: Tracer | undefined;
  let untraced = 0;
  const found = new Map<string, { flow: Flow; loop: readonly TableRef[]; group?: number; buckets: number[] }>();
  const tracedGroups = new Set<number>();
  for (const t of pipeline.tables.values()) {
    // Indexed, as every loop over each flow: a short run steps it in the interpreter, where an
    // iterator makes a result object per flow. Conjunction actions go nowhere: clause flows are passed by.
    const flows = t.acting;
    for (let i = 0; i < flows.length; i++) {
      const flow = flows[i]!;
      // One pass over the actions, without a list per flow: a million flows reach here.
      let fresh: number[] | undefined;
      let back = false;
      const actions = actionsThroughGroups(pipeline, flow);
      for (let j = 0; j < actions.length; j++) {
        const a = actions[j]!;
        // One flow per group is enough: every flow that uses the group leads into the same buckets.
        if (a.kind === 'group') {
          if (pipeline.groups.has(a.id) && !tracedGroups.has(a.id)) (fresh ??= []).push(a.id);
        } else if (!back && a.kind === 'resubmit' && a.table !== undefined) {
          tracer ??= new Tracer(pipeline);
          back = tracer.ordinal(a.table) <= tracer.ordinal(flow.table);
        }
      }
      if (!back && fresh === undefined) continue;
      const packet = packetOf(flow);
      if (!packet) continue;
      if (budget.exhausted) {
        untraced++;
        continue;
      }
      fresh ??= [];
      for (const g of fresh) tracedGroups.add(g);
      tracer ??= new Tracer(pipeline);
      const group = fresh.map((g) => pipeline.groups.get(g)!).find((g) => g.type === 'select');
      for (const bucket of group ? group.buckets.map((b) => b.id) : [undefined]) {
        if (budget.exhausted) {
          untraced++;
          break;
        }
        const options = { start: flow.table, ...(bucket === undefined ? {} : { bucket }) };
        const result = budget.charge(tracer.trace(packet, options));
        const failed = result.problems.find((p) => p.kind === 'translation-failed');
        if (!failed || failed.kind !== 'translation-failed' || failed.loop.length === 0) continue;
        // The buckets of one group that go round the same tables are one loop.
        const key = `${failed.loop.map(tableKey).join('>')} ${group?.id ?? ''}`;
        const loop = found.get(key) ?? { flow, loop: failed.loop, ...(group ? { group: group.id } : {}), buckets: [] };
        found.set(key, loop);
        if (bucket !== undefined) loop.buckets.push(bucket);
      }
    }
  }
  const findings = [...found.values()].map(({ flow, loop, group, buckets }): Finding => ({
    kind: 'forwarding-loop',
    severity: 'error',
    table: flow.table,
    flows: [flow],
    loop,
    ...(group !== undefined ? { group, buckets } : {}),
  }));
  return { findings, untraced, work: budget.work };
}
