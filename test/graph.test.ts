import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildGraph, type GraphEdge, overlayTrace, tableNodeId } from '../src/analysis/graph/graph.ts';
import { parsePacketSpec } from '../src/analysis/trace/packet.ts';
import { Tracer } from '../src/analysis/trace/trace.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import { tableNumber } from '../src/model/tables.ts';
import { formatDot, formatMermaid } from '../src/render/graph.ts';
import { GraphvizMissingError, renderSvg } from '../src/cli/graphviz.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { runCli } from './support/cli.ts';
import { repoRoot } from './support/paths.ts';

const ANTREA = join(repoRoot, 'examples', 'antrea', 'dump-flows.of13.txt');
const ANTREA_NAMES = join(repoRoot, 'examples', 'antrea', 'dump-flows.of13.names.txt');
const PROXY = join(repoRoot, 'examples', 'antrea-proxy', 'dump-flows.of13.txt');
const PROXY_GROUPS = join(repoRoot, 'examples', 'antrea-proxy', 'dump-groups.of13.txt');

function load(...files: string[]): Pipeline {
  const r = parseDump(files.map((f) => readFileSync(f, 'utf8')).join('\n'), { file: 'test' });
  return new Pipeline(r.flows, r.groups, r.ports);
}

async function graphvizInstalled(): Promise<boolean> {
  try {
    await renderSvg('digraph { a }');
    return true;
  } catch {
    return false;
  }
}

/** goto_table edges and their flow counts, read from the dump text with a regular expression. */
function gotoEdgesFromText(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const from = /\btable=(\d+),/.exec(line)?.[1];
    const to = /goto_table:(\d+)/.exec(line)?.[1];
    if (from === undefined || to === undefined) continue;
    const key = `${from}->${to}`;
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

test('Antrea example: one node per table with its flow count, goto edges weighted as the dump says', () => {
  const text = readFileSync(ANTREA, 'utf8');
  const graph = buildGraph(load(ANTREA));
  const tables = graph.nodes.filter((n) => n.kind === 'table');
  assert.equal(tables.length, 19);
  for (const n of tables) {
    if (n.kind !== 'table' || n.table.kind !== 'number') continue;
    const number = n.table.number;
    const inText = text.split('\n').filter((l) => l.includes(` table=${number}, `)).length;
    assert.equal(n.flows, inText, `table ${number}`);
    assert.equal(n.hits, 0n);
  }
  const gotos = new Map(
    graph.edges
      .filter((e) => e.kind === 'goto')
      .map((e): [string, number] => [`${e.from.slice(7)}->${e.to.slice(7)}`, e.count]),
  );
  assert.deepEqual(gotos, gotoEdgesFromText(text));
  // Conntrack recirculation: table 30 sends IP through ct(table=31).
  assert.ok(
    graph.edges.some(
      (e) => e.kind === 'ct' && e.from === tableNodeId(tableNumber(30)) && e.to === tableNodeId(tableNumber(31)),
    ),
  );
  assert.ok(graph.edges.some((e) => e.to === 'sink:drop') && graph.edges.some((e) => e.to === 'sink:output'));
});

test('AntreaProxy example: Service groups and their buckets; tables jumped to but absent', () => {
  const graph = buildGraph(load(PROXY, PROXY_GROUPS));
  const groups = graph.nodes.filter((n) => n.kind === 'group');
  assert.deepEqual(
    groups.map((g) => (g.kind === 'group' ? [g.group, g.type, g.buckets] : [])),
    [
      [5, 'select', 3],
      [9, 'select', 3],
      [10, 'select', 1],
    ],
  );
  const buckets = (g: number): GraphEdge[] => graph.edges.filter((e) => e.from === `group:${g}`);
  assert.deepEqual(
    buckets(9).map((e) => [e.to, e.kind, e.count]),
    [['table:#42', 'bucket', 3]],
  );
  const missing = graph.nodes.filter((n) => n.kind === 'table' && n.missing).map((n) => n.id);
  assert.ok(missing.includes('table:#50'), 'EgressRuleTable (50) is jumped to but not in the example');
  // Without the group dump, the groups show as not in the dump.
  const alone = buildGraph(load(PROXY)).nodes.filter((n) => n.kind === 'group');
  assert.ok(alone.every((g) => g.kind === 'group' && g.type === 'missing'));
});

test('--packet: the traced tables, edges and the drop sink are on the path, nothing else', () => {
  const pipeline = load(ANTREA);
  // A Pod-to-Pod packet that table 100 (IngressDefaultTable) drops: the destination Pod is isolated.
  const packet = parsePacketSpec(
    'in_port=3,tcp,dl_src=12:9e:a6:47:d0:70,dl_dst=ba:a8:13:ca:ed:cf,nw_src=10.10.0.2,nw_dst=10.10.0.3,tp_dst=80',
  );
  assert.ok(packet.ok);
  const trace = new Tracer(pipeline).trace(packet.packet);
  const graph = overlayTrace(buildGraph(pipeline), trace);
  const visited = new Set(trace.passes.flatMap((p) => p.steps.map((s) => tableNodeId(s.table))));
  assert.deepEqual(new Set(graph.nodes.filter((n) => n.onPath && n.kind === 'table').map((n) => n.id)), visited);
  assert.ok(visited.has('table:#100'));
  const onPath = graph.edges.filter((e) => e.onPath).map((e) => `${e.from}>${e.to}`);
  assert.ok(onPath.includes('table:#0>table:#10'));
  assert.ok(onPath.includes('table:#30>table:#31'), 'the ct recirculation edge');
  assert.ok(onPath.includes('table:#100>sink:drop'));
  assert.ok(!onPath.some((e) => e.endsWith('sink:output')));
  assert.ok(graph.nodes.some((n) => n.kind === 'table' && !n.onPath));
});

test('DOT lays out with Graphviz; Mermaid has one line per node and edge', async (t) => {
  const graph = buildGraph(load(PROXY, PROXY_GROUPS));
  const dot = formatDot(graph);
  assert.match(dot, /^digraph pipeline \{/);
  assert.match(dot, /"table:#50" \[label="table 50\\nno flows", style="rounded,dashed"/);
  if (!(await graphvizInstalled())) {
    t.skip('Graphviz not installed');
    return;
  }
  const svg = await renderSvg(dot);
  assert.match(svg, /<svg /);
  // Every table and group made it into the picture as a node.
  for (const n of graph.nodes)
    assert.ok(
      svg.includes(`<title>${n.id.replace(/#/g, '&#35;')}</title>`) || svg.includes(`<title>${n.id}</title>`),
      n.id,
    );
  const mermaid = formatMermaid(graph).split('\n');
  assert.equal(mermaid[0], 'flowchart LR');
  assert.equal(mermaid.filter((l) => /^ {2}n\d+[[({]/.test(l)).length, graph.nodes.length);
  assert.equal(mermaid.filter((l) => /^ {2}n\d+ [-.=]+>/.test(l)).length, graph.edges.length);
});

interface JsonNode {
  kind: string;
  id: string;
  table?: { kind: string; name?: string; number?: number };
  number?: number;
  name?: string;
  flows?: number;
  hits?: string;
  missing?: boolean;
}

interface JsonEdge {
  from: string;
  to: string;
  kind: string;
  count: number;
}

/** The graph of `graph --json`, its table nodes named by number (every table of the example has one). */
async function graphByNumber(
  file: string,
): Promise<{ nodes: JsonNode[]; edges: string[]; byNumber: Map<number, JsonNode> }> {
  const r = await runCli(['graph', file, '--profile', 'antrea-v1', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const graph = JSON.parse(r.stdout) as { nodes: JsonNode[]; edges: JsonEdge[] };
  const key = new Map(graph.nodes.map((n) => [n.id, n.kind === 'table' ? `#${n.number ?? '?'}` : n.id]));
  const byNumber = new Map(graph.nodes.filter((n) => n.kind === 'table').map((n) => [n.number!, n]));
  return {
    nodes: graph.nodes,
    edges: graph.edges.map((e) => `${key.get(e.from)} ${key.get(e.to)} ${e.kind} ${e.count}`),
    byNumber,
  };
}

/** The node lines of DOT text: id and label. */
function dotLabels(dot: string): Map<string, string> {
  return new Map([...dot.matchAll(/^ {2}"([^"]+)" \[label="([^"]*)"/gm)].map((m): [string, string] => [m[1]!, m[2]!]));
}

test("--names dump: the same nodes and edges as the numbered dump, tables labelled by number and the dump's name", async (t) => {
  const numbered = await graphByNumber(ANTREA);
  const named = await graphByNumber(ANTREA_NAMES);
  // Every table node carries its number, from the dump or, for the --names dump, from the profile.
  for (const form of [numbered, named])
    for (const n of form.nodes) if (n.kind === 'table') assert.equal(typeof n.number, 'number', n.id);
  assert.deepEqual(
    [...named.byNumber.keys()].sort((a, b) => a - b),
    [...numbered.byNumber.keys()].sort((a, b) => a - b),
  );
  for (const [number, n] of named.byNumber) {
    const m = numbered.byNumber.get(number)!;
    assert.deepEqual([n.flows, n.hits, n.missing], [m.flows, m.hits, m.missing], `table ${number}`);
    // The names form keeps the dump's name; the numbered form has the profile's.
    assert.equal(n.name, n.table?.name);
    assert.equal(m.table?.number, number);
    assert.equal(typeof m.name, 'string');
  }
  assert.deepEqual(named.edges, numbered.edges);
  assert.ok(named.byNumber.get(0)?.name === 'Classification' && numbered.byNumber.get(0)?.name === 'ClassifierTable');

  // The drawings: "NUMBER NAME" on each table, the rest of the label alike in both forms.
  const dots = await Promise.all([ANTREA, ANTREA_NAMES].map((f) => runCli(['graph', f, '--profile', 'antrea-v1'])));
  const [numberedDot, namedDot] = dots.map((r) => dotLabels(r.stdout));
  for (const [form, labels] of [
    [numbered, numberedDot!],
    [named, namedDot!],
  ] as const) {
    for (const n of form.nodes) {
      if (n.kind !== 'table') continue;
      const label = labels.get(n.id);
      assert.ok(label?.startsWith(`${n.number} ${n.name}\\n`), `${n.id}: ${label}`);
    }
  }
  for (const [number, n] of named.byNumber) {
    const m = numbered.byNumber.get(number)!;
    const rest = (l: string | undefined): string | undefined => l?.slice(l.indexOf('\\n'));
    assert.equal(rest(namedDot!.get(n.id)), rest(numberedDot!.get(m.id)), `table ${number}`);
  }
  const mermaid = await runCli(['graph', ANTREA_NAMES, '--profile', 'antrea-v1', '--format', 'mermaid']);
  assert.match(mermaid.stdout, /\["0 Classification<br\/>5 flows, 0 packets"\]/);
  if (!(await graphvizInstalled())) {
    t.skip('Graphviz not installed');
    return;
  }
  const svg = await runCli(['graph', ANTREA_NAMES, '--profile', 'antrea-v1', '--format', 'svg']);
  assert.equal(svg.status, 0, svg.stderr);
  assert.match(svg.stdout, />0 Classification</);
});

test('a table no one numbers is labelled by its name alone', () => {
  const pipeline = load(ANTREA_NAMES);
  const graph = buildGraph(pipeline);
  const node = graph.nodes.find((n) => n.id === 'table:Classification');
  assert.ok(node?.kind === 'table' && node.number === undefined && node.name === 'Classification');
  assert.match(formatDot(graph), /"table:Classification" \[label="Classification\\n5 flows, 0 packets"\]/);
  // A numbered table without a name keeps the word "table".
  assert.match(formatDot(buildGraph(load(ANTREA))), /"table:#0" \[label="table 0\\n5 flows, 0 packets"\]/);
});

test('SVG without Graphviz says how to install it', async () => {
  await assert.rejects(
    renderSvg('digraph { a }', '/nonexistent/dot'),
    (err: unknown) => err instanceof GraphvizMissingError && /apt-get install graphviz/.test(err.message),
  );
});

test('CLI: formats, profile names, --packet', async () => {
  const dot = await runCli(['graph', ANTREA, '--profile', 'antrea-v1']);
  assert.equal(dot.status, 0);
  assert.match(dot.stdout, /"table:#31" \[label="31 ConntrackStateTable\\n4 flows, 0 packets"\]/);
  const mermaid = await runCli([
    'graph',
    ANTREA,
    '--format',
    'mermaid',
    '--packet',
    'in_port=3,ip,dl_src=12:9e:a6:47:d0:70,nw_src=10.10.0.2,nw_dst=10.10.0.3',
  ]);
  assert.equal(mermaid.status, 0);
  assert.match(mermaid.stdout, /classDef path/);
  assert.match(mermaid.stdout, /linkStyle \d+(,\d+)* stroke:/);
  const bad = await runCli(['graph', ANTREA, '--format', 'png']);
  assert.equal(bad.status, 2);
  const badPacket = await runCli(['graph', ANTREA, '--packet', 'nw_src=300.1.1.1']);
  assert.equal(badPacket.status, 2);
  assert.match(badPacket.stderr, /--packet/);
  // A conntrack state with no packet to trace would be silently dropped: refused instead.
  const stray = await runCli(['graph', ANTREA, '--ct-next', 'trk,est']);
  assert.equal(stray.status, 2);
  assert.match(stray.stderr, /--ct-next needs --packet/);
  const both = await runCli(['graph', ANTREA, '--json', '--format', 'mermaid']);
  assert.equal(both.status, 2);
  assert.match(both.stderr, /give --json or --format, not both/);
  assert.equal(stray.stdout, '');
});

test('CLI: --color and --no-color are refused, not ignored: every form of the graph is for another program', async () => {
  for (const flag of ['--color', '--no-color']) {
    for (const form of [[], ['--format', 'mermaid'], ['--json']]) {
      const r = await runCli(['graph', ANTREA, flag, ...form], { env: { FORCE_COLOR: '1' } });
      assert.equal(r.status, 2, `${flag} ${form.join(' ')}`);
      assert.equal(r.stdout, '');
      assert.equal(
        r.stderr,
        `flowscope: error: ${flag} does not apply to graph: it writes DOT, Mermaid, SVG or JSON for other programs to read, not text for a terminal; the drawing's own colours (such as the --packet path in red) are always in it\n`,
      );
    }
  }
  // Nor are they offered; the drawing needs no terminal to be coloured, nor escapes to be plain.
  assert.doesNotMatch((await runCli(['graph', '--help'])).stdout, /color/);
  const forced = await runCli(['graph', ANTREA, '--format', 'mermaid'], { env: { FORCE_COLOR: '3' } });
  assert.equal(forced.status, 0, forced.stderr);
  assert.doesNotMatch(forced.stdout, /\x1b\[/);
});
