/** `flowscope fmt`: flows and groups in the canonical text of `ovs-ofctl parse-flow`. */
import { type Command, InvalidArgumentError } from 'commander';
import type { Flow, Group } from '../../model/flow.ts';
import type { OfVersion } from '../../model/openflow.ts';
import { flowName, formatFlowCanonical } from '../../render/flow.ts';
import { formatGroup } from '../../render/group.ts';
import type { Io } from '../io.ts';
import { addInputOptions, type InputCliOptions, loadFromOptions } from '../load.ts';
import { addOutputOptions, type OutputCliOptions, outputForm, writeReport } from '../output.ts';

function ofOption(value: string): OfVersion {
  const n = Number(value.replace(/^(?:openflow|of)/i, '').replace('1.', '1'));
  if (![10, 11, 12, 13, 14, 15].includes(n)) throw new InvalidArgumentError('expected 10, 11, 12, 13, 14 or 15');
  return n as OfVersion;
}

export function registerCommand(program: Command, io: Io): void {
  const cmd = program
    .command('fmt')
    .description(
      'print each flow as `ovs-ofctl -O <version> parse-flow` prints it, and each group as dump-groups does, in the OpenFlow version of the dump',
    )
    .argument('[inputs...]', 'dump, add-flows file or support bundle; - (or nothing) for standard input')
    .option(
      '--of <version>',
      "OpenFlow version whose spelling to use: 10, 11, 12, 13, 14 or 15 (default: the version the dump's reply header names, else 10)",
      ofOption,
    );
  addOutputOptions(cmd, 'the flows, as table, priority and match, and the groups', { colour: false });
  addInputOptions(cmd).action(
    async (inputs: string[], opts: InputCliOptions & OutputCliOptions & { of?: OfVersion }) => {
      const form = outputForm(opts);
      const result = await loadFromOptions(inputs, opts, io);
      // As ovs-ofctl, which prints a dump in the version it was dumped with: the version is part of the spelling.
      const of = opts.of ?? result.protocols[0] ?? 10;
      await writeReport(io, form, {
        document: () => ({
          of,
          flows: result.flows.map((f) => formatFlowCanonical(f, of)),
          groups: result.groups.map((g) => formatGroup(g, of)),
        }),
        names: () => [
          ...result.flows.map((f) => flowName(f, result.ports)),
          ...result.groups.map((g) => `group_id=${g.id}`),
        ],
        text: () => canonicalLines(result.flows, result.groups, of),
      });
    },
  );
}

/** Line by line: a large dump's canonical text is longer than a string can hold. */
function* canonicalLines(flows: readonly Flow[], groups: readonly Group[], of: OfVersion): Generator<string> {
  for (const f of flows) yield formatFlowCanonical(f, of) + '\n';
  for (const g of groups) yield formatGroup(g, of) + '\n';
}
