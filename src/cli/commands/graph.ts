/** `flowscope graph`: the pipeline's tables and how packets move between them, as DOT, Mermaid or SVG. */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { buildGraph, overlayTrace, type PipelineGraph } from '../../analysis/graph/graph.ts';
import { Tracer } from '../../analysis/trace/trace.ts';
import { tableLabel } from '../../model/tables.ts';
import { formatDot, formatMermaid, graphJson } from '../../render/graph.ts';
import { GraphvizMissingError, renderSvg } from '../graphviz.ts';
import { type Io, UserError } from '../io.ts';
import { outputForm, writeReport } from '../output.ts';
import { addProfileOptions, loadAnnotated, type ProfileCliOptions } from './profile-options.ts';
import { collectCtNext, packetArgument } from './trace.ts';

type GraphFormat = 'dot' | 'mermaid' | 'svg';

interface GraphCliOptions extends ProfileCliOptions {
  format: GraphFormat;
  packet?: string;
  ctNext?: bigint[];
}

function formatOption(value: string): GraphFormat {
  if (value !== 'dot' && value !== 'mermaid' && value !== 'svg')
    throw new InvalidArgumentError('expected dot, mermaid or svg');
  return value;
}

async function render(graph: PipelineGraph, format: GraphFormat): Promise<string> {
  if (format === 'mermaid') return formatMermaid(graph);
  const dot = formatDot(graph);
  if (format === 'dot') return dot;
  try {
    return await renderSvg(dot);
  } catch (err) {
    if (err instanceof GraphvizMissingError) throw new UserError(err.message);
    throw err;
  }
}

export function registerCommand(program: Command, io: Io): void {
  const cmd = program
    .command('graph')
    .description(
      'draw the pipeline: tables with flow counts and hits, goto/resubmit/ct/group edges weighted by flows, drop and output sinks',
    )
    .argument(
      '[inputs...]',
      'dump-flows output (may include dump-groups output) or support bundle; - (or nothing) for standard input',
    );
  addProfileOptions(cmd, 'the tables graph', { colour: false })
    // Declared, out of the help, only to say why they do not apply (see the action).
    .addOption(new Option('--color').hideHelp())
    .addOption(new Option('--no-color').hideHelp())
    .addOption(
      new Option('--format <format>', 'dot, mermaid or svg (svg runs Graphviz dot)')
        .argParser(formatOption)
        .default('dot'),
    )
    .option(
      '--packet <flow>',
      'highlight the path of this packet, traced as by flowscope trace (e.g. in_port=3,tcp,nw_dst=10.96.0.10,tp_dst=53)',
    )
    .option(
      '--ct-next <flags>',
      'with --packet: ct_state after each conntrack recirculation (repeatable; default trk|new)',
      collectCtNext,
    )
    .action(async (inputs: string[], opts: GraphCliOptions) => {
      // Every form is read by another program, where terminal colour codes would do harm; the
      // drawing's colours are part of the form.
      if (cmd.getOptionValueSource('color') === 'cli') {
        throw new UserError(
          `${opts.color ? '--color' : '--no-color'} does not apply to graph: it writes DOT, Mermaid, SVG or JSON for other programs to read, not text for a terminal; the drawing's own colours (such as the --packet path in red) are always in it`,
        );
      }
      if (opts.ctNext !== undefined && opts.packet === undefined)
        throw new UserError('--ct-next needs --packet: it sets the conntrack state of the traced packet');
      const form = outputForm(opts);
      if (form !== 'text' && form !== 'wide' && cmd.getOptionValueSource('format') === 'cli') {
        const given = opts.json ? '--json' : `-o ${form}`;
        throw new UserError(`give ${given} or --format, not both: ${given} prints the graph itself, not a drawing`);
      }
      const { pipeline, annotator } = await loadAnnotated(inputs, opts, io);
      let graph = buildGraph(pipeline, (ref) => annotator.tableInfo(ref));
      if (opts.packet !== undefined) {
        const tracer = new Tracer(pipeline);
        graph = overlayTrace(
          graph,
          tracer.trace(packetArgument(tracer, opts.packet, '--packet'), { ctNext: opts.ctNext ?? [] }),
        );
      }
      await writeReport(io, form, {
        document: () => graphJson(graph),
        names: () =>
          graph.nodes.flatMap((n) => (n.kind === 'table' ? [n.name ?? String(n.number ?? tableLabel(n.table))] : [])),
        text: () => render(graph, opts.format),
      });
    });
}
