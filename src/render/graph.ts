/**
 * The pipeline graph as Graphviz DOT and as a Mermaid flowchart (`cli/graphviz.ts` lays DOT out
 * as SVG).
 *
 * Tables are boxes (dashed and red when jumped to but empty), groups hexagons, sinks ovals.
 * Edge styles tell the kinds apart: goto solid, resubmit dashed, conntrack recirculation bold
 * blue, group and bucket dotted. With a trace laid over, its path is red and the rest grey.
 */
import type { EdgeKind, GraphEdge, GraphNode, PipelineGraph } from '../analysis/graph/graph.ts';
import { tableLabel } from '../model/tables.ts';
import { SCHEMA_VERSION } from './json.ts';
import { plural } from './plural.ts';

/** The graph itself, as `flowscope graph --json` prints it. */
export function graphJson(graph: PipelineGraph): Record<string, unknown> {
  return { schemaVersion: SCHEMA_VERSION, ...graph };
}

const EDGE_WORDS: Readonly<Record<EdgeKind, string>> = {
  goto: 'goto',
  resubmit: 'resubmit',
  ct: 'ct',
  // The dotted line to a hexagon already says "group"; the unit says "bucket".
  group: '',
  bucket: '',
  sink: '',
};

/**
 * A table as the drawing calls it: `31 ConntrackStateTable`, so that it can be found in a dump
 * printed either way; the name alone when no number is known, `table 50` when no name is.
 */
function tableTitle(node: Extract<GraphNode, { kind: 'table' }>): string {
  if (node.number !== undefined)
    return node.name !== undefined ? `${node.number} ${node.name}` : `table ${node.number}`;
  return node.name ?? tableLabel(node.table);
}

/** The lines of a node's label. */
export function nodeLines(node: GraphNode): string[] {
  switch (node.kind) {
    case 'table': {
      const head = [tableTitle(node)];
      if (node.missing) return [...head, 'no flows'];
      const hits =
        node.hits === undefined ? '' : node.hits === null ? ', ? packets' : `, ${plural(Number(node.hits), 'packet')}`;
      return [...head, `${plural(node.flows, 'flow')}${hits}`];
    }
    case 'group':
      return node.type === 'missing'
        ? [`group ${node.group}`, 'not in the dump']
        : [`group ${node.group}`, `${node.type}, ${plural(node.buckets, 'bucket')}`];
    case 'sink':
      return [node.sink];
  }
}

/** An edge's label: how many flows (or buckets) take it, and how. */
export function edgeLabel(e: GraphEdge, from: GraphNode | undefined): string {
  const unit = from?.kind === 'group' ? 'bucket' : 'flow';
  const count = e.count === 0 ? '' : plural(e.count, unit);
  const how = EDGE_WORDS[e.kind];
  return [count, how].filter((s) => s !== '').join(' ');
}

function dotString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function dotLabel(lines: readonly string[]): string {
  return dotString(lines.join('\n')).replace(/\n/g, '\\n');
}

const PATH_COLOUR = '#d62728';
const DIM_COLOUR = '#9a9a9a';

function dotNodeAttrs(node: GraphNode, traced: boolean): string[] {
  const attrs: string[] = [];
  switch (node.kind) {
    case 'table':
      if (node.missing) attrs.push('style="rounded,dashed"', 'color="#c0392b"', 'fontcolor="#c0392b"');
      break;
    case 'group':
      attrs.push('shape=hexagon', 'style=""');
      break;
    case 'sink':
      attrs.push(
        'shape=oval',
        'style=filled',
        `fillcolor=${node.sink === 'drop' ? '"#f4cccc"' : node.sink === 'output' ? '"#d9ead3"' : '"#fff2cc"'}`,
      );
      break;
  }
  if (traced)
    attrs.push(
      node.onPath ? `color="${PATH_COLOUR}", penwidth=2.5` : `color="${DIM_COLOUR}", fontcolor="${DIM_COLOUR}"`,
    );
  return attrs;
}

function dotEdgeAttrs(e: GraphEdge, traced: boolean): string[] {
  const attrs: string[] = [];
  if (e.kind === 'resubmit') attrs.push('style=dashed');
  if (e.kind === 'ct') attrs.push('style=bold', 'color="#1f77b4"');
  if (e.kind === 'group' || e.kind === 'bucket') attrs.push('style=dotted');
  if (traced)
    attrs.push(e.onPath ? `color="${PATH_COLOUR}", penwidth=2.5` : `color="${DIM_COLOUR}", fontcolor="${DIM_COLOUR}"`);
  return attrs;
}

export function formatDot(graph: PipelineGraph): string {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const lines = [
    'digraph pipeline {',
    '  rankdir=LR;',
    '  node [shape=box, style=rounded, fontname="Helvetica", fontsize=11];',
    '  edge [fontname="Helvetica", fontsize=9];',
  ];
  for (const n of graph.nodes)
    lines.push(
      `  ${dotString(n.id)} [${[`label=${dotLabel(nodeLines(n))}`, ...dotNodeAttrs(n, graph.traced)].join(', ')}];`,
    );
  for (const e of graph.edges) {
    const label = edgeLabel(e, byId.get(e.from));
    const attrs = [...(label ? [`label=${dotString(label)}`] : []), ...dotEdgeAttrs(e, graph.traced)];
    lines.push(`  ${dotString(e.from)} -> ${dotString(e.to)}${attrs.length > 0 ? ` [${attrs.join(', ')}]` : ''};`);
  }
  lines.push('}');
  return lines.join('\n');
}

/** Mermaid text in quoted labels: quotes and angle brackets as entities. */
function mermaidText(s: string): string {
  return s.replace(/"/g, '#quot;').replace(/</g, '#lt;').replace(/>/g, '#gt;');
}

const MERMAID_ARROWS: Readonly<Record<EdgeKind, string>> = {
  goto: '-->',
  resubmit: '-.->',
  ct: '==>',
  group: '-.->',
  bucket: '-.->',
  sink: '-->',
};

export function formatMermaid(graph: PipelineGraph): string {
  const ids = new Map(graph.nodes.map((n, i) => [n.id, `n${i}`]));
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const lines = ['flowchart LR'];
  for (const n of graph.nodes) {
    const text = `"${nodeLines(n).map(mermaidText).join('<br/>')}"`;
    const shape = n.kind === 'group' ? `{{${text}}}` : n.kind === 'sink' ? `([${text}])` : `[${text}]`;
    lines.push(`  ${ids.get(n.id)!}${shape}`);
  }
  const pathLinks: number[] = [];
  graph.edges.forEach((e, i) => {
    const label = edgeLabel(e, byId.get(e.from));
    lines.push(
      `  ${ids.get(e.from)!} ${MERMAID_ARROWS[e.kind]}${label ? `|"${mermaidText(label)}"|` : ''} ${ids.get(e.to)!}`,
    );
    if (e.onPath) pathLinks.push(i);
  });
  const missing = graph.nodes.filter((n) => n.kind === 'table' && n.missing).map((n) => ids.get(n.id)!);
  if (missing.length > 0)
    lines.push(
      '  classDef missing stroke:#c0392b,stroke-dasharray:4 3,color:#c0392b;',
      `  class ${missing.join(',')} missing;`,
    );
  if (graph.traced) {
    const onPath = graph.nodes.filter((n) => n.onPath).map((n) => ids.get(n.id)!);
    if (onPath.length > 0)
      lines.push(`  classDef path stroke:${PATH_COLOUR},stroke-width:3px;`, `  class ${onPath.join(',')} path;`);
    if (pathLinks.length > 0) lines.push(`  linkStyle ${pathLinks.join(',')} stroke:${PATH_COLOUR},stroke-width:3px;`);
  }
  return lines.join('\n');
}
