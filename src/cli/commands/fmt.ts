/** `flowscope fmt`: flows and groups in the canonical text of `ovs-ofctl parse-flow`. */
import { type Command, InvalidArgumentError } from 'commander';
import type { Flow, Group } from '../../model/flow.ts';
import type { OfVersion } from '../../model/openflow.ts';
import { formatFlowCanonical } from '../../render/flow.ts';
import { formatGroup } from '../../render/group.ts';
import { type Io, writeText } from '../io.ts';
import { addInputOptions, type InputCliOptions, loadFromOptions } from '../load.ts';

function ofOption(value: string): OfVersion {
  const n = Number(value.replace(/^(?:openflow|of)/i, '').replace('1.', '1'));
  if (![10, 11, 12, 13, 14, 15].includes(n)) throw new InvalidArgumentError('expected 10, 11, 12, 13, 14 or 15');
  return n as OfVersion;
}

export function registerFmt(program: Command, io: Io): void {
  const cmd = program
    .command('fmt')
    .description('print each flow as `ovs-ofctl -O <version> parse-flow` prints it, and each group as dump-groups does')
    .argument('[inputs...]', 'dump, add-flows file or support bundle; - (or nothing) for standard input')
    .option('--of <version>', 'OpenFlow version whose spelling to use: 10, 11, 12, 13, 14 or 15', ofOption, 10 as OfVersion);
  addInputOptions(cmd).action(async (inputs: string[], opts: InputCliOptions & { of: OfVersion }) => {
    const result = await loadFromOptions(inputs, opts, io);
    await writeText(io, canonicalLines(result.flows, result.groups, opts.of));
  });
}

/** Line by line: a large dump's canonical text is longer than a string can hold. */
function* canonicalLines(flows: readonly Flow[], groups: readonly Group[], of: OfVersion): Generator<string> {
  for (const f of flows) yield formatFlowCanonical(f, of) + '\n';
  for (const g of groups) yield formatGroup(g, of) + '\n';
}
