/** `flowscope bundle`: what a support bundle or sosreport holds, node by node. */
import type { Command } from 'commander';
import { bundleJson, formatBundle } from '../../render/bundle.ts';
import { openSource } from '../../sources/open.ts';
import { summarizeNode } from '../../analysis/bundle/node-summary.ts';
import { stdoutChalk } from '../color.ts';
import { type Io, UserError } from '../io.ts';
import { addOutputOptions, type OutputCliOptions, outputForm, writeReport } from '../output.ts';
import { wrapText } from '../../render/wrap.ts';
import { inputReader } from '../input.ts';
import { inputLabel } from '../../sources/input.ts';
import { addProfileChoiceOptions, type ProfileChoiceOptions } from './profile-options.ts';

export function registerCommand(program: Command, io: Io): void {
  const cmd = program
    .command('bundle')
    .description(
      'list the nodes of an Antrea support bundle or sosreport: flow, group and port counts, pipeline profile, problems',
    )
    .argument(
      '<path>',
      'bundle directory, agent_<node>.tar.gz, a tarball of a bundle, or a sosreport directory; - for a tarball on standard input',
    )
    .option('--node <name>', 'only this node');
  addOutputOptions(addProfileChoiceOptions(cmd), 'the nodes').action(
    async (path: string, opts: OutputCliOptions & ProfileChoiceOptions & { node?: string }) => {
      const form = outputForm(opts);
      const opened = await openSource(
        { kind: 'bundle', path, everyNode: true, ...(opts.node === undefined ? {} : { node: opts.node }) },
        { reader: inputReader(io) },
      );
      const problems: string[] = [];
      for (const p of opened.problems) {
        if (p.kind === 'refused') throw new UserError(p.message);
        if (p.kind === 'damaged') problems.push(p.message);
      }
      const view = {
        path: inputLabel(path),
        nodes: opened.dumps.map((d) => summarizeNode(d.node!, opts)),
        problems,
      };
      await writeReport(io, form, {
        document: () => bundleJson(view),
        names: () => view.nodes.map((n) => n.name),
        text: (width) => wrapText(formatBundle(view, stdoutChalk(io, opts.color).yellow, width), width),
      });
    },
  );
}
