/**
 * The pipeline as a graph: tables (with their flow counts and hits) and groups as nodes, the
 * ways packets move between them as edges weighted by the number of flows (or buckets) that take
 * them, and sinks for packets that leave by a port, go to the controller or are dropped.
 * Optionally one trace is laid over it: the tables, groups, edges and sinks that packet used.
 */
import { packetTotal } from '../../model/flow.ts';
import { type Pipeline, tableKey } from '../../model/pipeline.ts';
import type { TableRef } from '../../model/tables.ts';
import {
  actionExits,
  bucketExits,
  type Exit,
  flowExits,
  isClauseFlow,
  type JumpKind,
  type SinkKind,
} from '../../model/flow-exits.ts';
import type { TraceNode, TraceResult } from '../trace/trace.ts';

export type NodeId = string;

/** A table's number and name, as reports give them (`Annotator.tableInfo`); either may be unknown. */
export interface TableTitle {
  readonly number?: number;
  readonly name?: string;
}

/** Without a profile a table is what the dump calls it: a number, or a `--names` name. */
export function dumpTableTitle(ref: TableRef): TableTitle {
  return ref.kind === 'number' ? { number: ref.number } : { name: ref.name };
}

export type GraphNode =
  | {
      readonly kind: 'table';
      readonly id: NodeId;
      readonly table: TableRef;
      /** The table's number, from the dump or the profile: absent when neither gives one. */
      readonly number?: number;
      /** The dump's name for the table, else the profile's: absent when neither gives one. */
      readonly name?: string;
      readonly flows: number;
      /** Packets counted on the table's flows; null when some count is unknown, absent without statistics. */
      readonly hits?: bigint | null;
      /** Jumped to but holds no flow. */
      readonly missing: boolean;
      onPath: boolean;
    }
  | {
      readonly kind: 'group';
      readonly id: NodeId;
      readonly group: number;
      readonly type: string;
      readonly buckets: number;
      onPath: boolean;
    }
  | { readonly kind: 'sink'; readonly id: NodeId; readonly sink: SinkKind; onPath: boolean };

export type EdgeKind = JumpKind | 'group' | 'bucket' | 'sink';

export interface GraphEdge {
  readonly from: NodeId;
  readonly to: NodeId;
  readonly kind: EdgeKind;
  /** Flows (for edges out of a group: buckets) that take the edge. */
  count: number;
  onPath: boolean;
}

export interface PipelineGraph {
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
  /** Set when a trace was laid over the graph. */
  readonly traced: boolean;
}

export function tableNodeId(ref: TableRef): NodeId {
  return `table:${tableKey(ref)}`;
}

export function groupNodeId(id: number): NodeId {
  return `group:${id}`;
}

export function sinkNodeId(sink: SinkKind): NodeId {
  return `sink:${sink}`;
}

class GraphBuilder {
  readonly nodes = new Map<NodeId, GraphNode>();
  readonly edges = new Map<string, GraphEdge>();

  private readonly pipeline: Pipeline;
  private readonly title: (ref: TableRef) => TableTitle;

  constructor(pipeline: Pipeline, title: (ref: TableRef) => TableTitle) {
    this.pipeline = pipeline;
    this.title = title;
    for (const t of pipeline.tables.values()) {
      const hits = packetTotal(t.flows);
      this.nodes.set(tableNodeId(t.ref), {
        kind: 'table',
        id: tableNodeId(t.ref),
        table: t.ref,
        ...this.titleOf(t.ref),
        flows: t.flows.length,
        ...(hits !== undefined ? { hits } : {}),
        missing: false,
        onPath: false,
      });
    }
  }

  tableNode(ref: TableRef): NodeId {
    const id = tableNodeId(ref);
    if (!this.nodes.has(id))
      this.nodes.set(id, {
        kind: 'table',
        id,
        table: ref,
        ...this.titleOf(ref),
        flows: 0,
        missing: true,
        onPath: false,
      });
    return id;
  }

  /** Only the number and name of the title, each only when known. */
  private titleOf(ref: TableRef): TableTitle {
    const { number, name } = this.title(ref);
    return { ...(number !== undefined ? { number } : {}), ...(name !== undefined ? { name } : {}) };
  }

  groupNode(group: number): NodeId {
    const id = groupNodeId(group);
    if (!this.nodes.has(id)) {
      const g = this.pipeline.groups.get(group);
      this.nodes.set(id, {
        kind: 'group',
        id,
        group,
        type: g?.type ?? 'missing',
        buckets: g?.buckets.length ?? 0,
        onPath: false,
      });
    }
    return id;
  }

  sinkNode(sink: SinkKind): NodeId {
    const id = sinkNodeId(sink);
    if (!this.nodes.has(id)) this.nodes.set(id, { kind: 'sink', id, sink, onPath: false });
    return id;
  }

  edge(from: NodeId, to: NodeId, kind: EdgeKind, count = 1): GraphEdge {
    const key = `${from} ${to} ${kind}`;
    let e = this.edges.get(key);
    if (!e) this.edges.set(key, (e = { from, to, kind, count: 0, onPath: false }));
    e.count += count;
    return e;
  }

  /** The edges one flow (or bucket) takes, each counted once however often the exit repeats. */
  exits(from: NodeId, exits: readonly Exit[], outKind: (x: Exit) => EdgeKind): void {
    const seen = new Set<string>();
    for (const x of exits) {
      const to =
        x.kind === 'jump'
          ? this.tableNode(x.table)
          : x.kind === 'group'
            ? this.groupNode(x.group)
            : this.sinkNode(x.sink);
      const kind = outKind(x);
      if (seen.has(`${to} ${kind}`)) continue;
      seen.add(`${to} ${kind}`);
      this.edge(from, to, kind);
    }
  }
}

/** `title` gives each table its number and name; by default what the dump itself says. */
export function buildGraph(pipeline: Pipeline, title: (ref: TableRef) => TableTitle = dumpTableTitle): PipelineGraph {
  const b = new GraphBuilder(pipeline, title);
  const flowEdgeKind = (x: Exit): EdgeKind => (x.kind === 'jump' ? x.via : x.kind === 'group' ? 'group' : 'sink');
  for (const t of pipeline.tables.values()) {
    const from = tableNodeId(t.ref);
    for (const flow of t.flows) {
      if (isClauseFlow(flow)) continue;
      const exits = flowExits(flow);
      if (exits.length === 0) b.edge(from, b.sinkNode('drop'), 'sink');
      else b.exits(from, exits, flowEdgeKind);
    }
  }
  // Only groups some flow uses; each bucket is one way out of the group.
  for (const node of [...b.nodes.values()]) {
    if (node.kind !== 'group') continue;
    for (const bucket of pipeline.groups.get(node.group)?.buckets ?? []) {
      const exits = bucketExits(bucket);
      if (exits.length === 0) b.edge(node.id, b.sinkNode('drop'), 'sink');
      else b.exits(node.id, exits, (x) => (x.kind === 'sink' ? 'sink' : 'bucket'));
    }
  }
  return { nodes: [...b.nodes.values()], edges: [...b.edges.values()], traced: false };
}

/**
 * Marks what one trace used: every table it looked a packet up in, every group, the edge from
 * each table to the table, group or sink its matched flow sent the packet to, and the drop sink
 * for a lookup that matched nothing or a flow that does nothing.
 */
export function overlayTrace(graph: PipelineGraph, trace: TraceResult): PipelineGraph {
  const nodes = new Map(graph.nodes.map((n) => [n.id, { ...n }]));
  const edges = new Map(graph.edges.map((e) => [`${e.from} ${e.to} ${e.kind}`, { ...e }]));
  const mark = (from: NodeId, to: NodeId, kind: EdgeKind): void => {
    const n = nodes.get(to);
    if (n) n.onPath = true;
    const key = `${from} ${to} ${kind}`;
    const e = edges.get(key);
    if (e) e.onPath = true;
    else edges.set(key, { from, to, kind, count: 0, onPath: true });
    if (!n && to.startsWith('sink:'))
      nodes.set(to, { kind: 'sink', id: to, sink: to.slice(5) as SinkKind, onPath: true });
  };
  const walk = (list: readonly TraceNode[], from: NodeId | undefined, inGroup: boolean): void => {
    for (const node of list) {
      if (node.kind === 'table') {
        const id = tableNodeId(node.table);
        if (from) mark(from, id, inGroup ? 'bucket' : node.via === 'goto' ? 'goto' : 'resubmit');
        else {
          const n = nodes.get(id);
          if (n) n.onPath = true;
        }
        if (!node.flow || flowExits(node.flow).length === 0) mark(id, sinkNodeId('drop'), 'sink');
        walk(node.nodes, id, false);
      } else if (node.kind === 'action') {
        const sink = actionExits([node.action]).find((x) => x.kind === 'sink');
        if (sink && from) mark(from, sinkNodeId(sink.sink), 'sink');
        if (node.action.kind === 'group' && from) {
          const g = groupNodeId(node.action.id);
          mark(from, g, 'group');
          walk(node.nodes, g, true);
        } else walk(node.nodes, from, inGroup);
      } else if (node.kind === 'bucket') {
        walk(node.nodes, from, inGroup);
      }
    }
  };
  for (const pass of trace.passes) {
    if (pass.resume) {
      // The pass resumes where a ct(table=…) of an earlier pass sent the packet.
      const to = tableNodeId(pass.resume.table);
      for (const e of edges.values()) if (e.kind === 'ct' && e.to === to && nodes.get(e.from)?.onPath) e.onPath = true;
    }
    walk(pass.nodes, undefined, false);
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()], traced: true };
}
