/** `flowscope conj`: conjunctive matches rebuilt into the rules they implement. */
import type { Command } from 'commander';
import { conjunctionIds, findConjunctions } from '../../analysis/conjunctions/conjunctions.ts';
import { Pipeline } from '../../model/pipeline.ts';
import { conjunctionsForPacket, type PacketConjunctions } from '../../analysis/conjunctions/conjunction-scope.ts';
import type { Packet } from '../../analysis/trace/packet.ts';
import { annotatePipeline, givenProfile, type ProfileRequest } from '../../analysis/detect/profile-choice.ts';
import { Tracer } from '../../analysis/trace/trace.ts';
import {
  conjunctionsJson,
  conjunctionsText,
  packetConjunctionsJson,
  packetConjunctionsText,
} from '../../render/conjunction-words.ts';
import {
  addExplainProfileOptions,
  addProfileChoiceOptions,
  explainsProfile,
  type ExplainProfileOptions,
} from './profile-options.ts';
import { stdoutChalk } from '../color.ts';
import { type Io, UserError } from '../io.ts';
import { wrapText } from '../../render/wrap.ts';
import { addOutputOptions, type OutputCliOptions, outputForm, writeReport } from '../output.ts';
import { addInputOptions, type InputCliOptions, loadFromOptions, requireFlows } from '../load.ts';
import { flowsFromOption } from './source-args.ts';
import { packetArgument } from './trace.ts';
import { policyMatching } from './policies.ts';

/** Ids as runs (`1–6, 9, 12–14`), the first dozen runs of them. */
function idRuns(ids: readonly number[]): string {
  const runs: string[] = [];
  for (let i = 0; i < ids.length;) {
    let j = i;
    while (j + 1 < ids.length && ids[j + 1] === ids[j]! + 1) j++;
    runs.push(j === i ? String(ids[i]) : `${ids[i]}–${ids[j]}`);
    i = j + 1;
  }
  return runs.length <= 12 ? runs.join(', ') : `${runs.slice(0, 12).join(', ')}, … (${ids.length} ids)`;
}

/** Ids asked for that the dump does not have: said after the report of the others, exit 2. */
function missingIds(asked: readonly number[], found: ReadonlySet<number>, all: () => number[]): UserError | undefined {
  const missing = [...new Set(asked)].filter((id) => !found.has(id));
  if (missing.length === 0) return undefined;
  const known = all();
  const has = known.length === 0 ? 'it has no conjunctions' : `its conjunction ids: ${idRuns(known)}`;
  return new UserError(`no conjunction${missing.length === 1 ? '' : 's'} ${missing.join(', ')} in the dump (${has})`);
}

/** Whether a positional argument is written as a conjunction id (or a number too large for one). */
function isConjIdText(value: string): boolean {
  return /^(?:\d+|0x[0-9a-f]+)$/i.test(value);
}

function conjId(value: string): number {
  if (!isConjIdText(value) || Number(value) > 0xffffffff)
    throw new UserError(`${value}: expected a conjunction id (0 to 4294967295)`);
  return Number(value);
}

interface ConjOptions extends InputCliOptions, ProfileRequest, OutputCliOptions, ExplainProfileOptions {
  packet?: string;
}

export function registerCommand(program: Command, io: Io): void {
  const cmd = program
    .command('conj')
    .description(
      'explain conjunctive matches (NetworkPolicy rules): dimensions and their members, action flows, hits, problems',
    )
    .argument(
      '[file]',
      'dump-flows output, add-flows file or support bundle; - for standard input (with --bundle, --pod or --local: the first id)',
    )
    .argument(
      '[ids...]',
      'only these conjunction ids; files among them (a show or dump-ports-desc output, a dump-groups output) are read with the dump',
    )
    .option(
      '--packet <flow>',
      "trace a packet and check, in the tables it reaches, which dimensions it satisfies, e.g. 'in_port=3,tcp,nw_src=10.0.0.1,nw_dst=10.0.0.2,tp_dst=80'; the trace's verdict ends the report",
    );
  addExplainProfileOptions(addProfileChoiceOptions(cmd));
  addOutputOptions(cmd, 'the conjunction ids');
  addInputOptions(cmd).action(async (file: string | undefined, rest: string[], opts: ConjOptions) => {
    const form = outputForm(opts);
    // A wrong --profile or --release is refused before a large dump is read.
    givenProfile(opts);
    // The first positional is the dump unless an option names where the flows come from; after
    // it, what is no id is a file read with it (a port map, groups), as other commands read theirs.
    const positional = file === undefined ? rest : [file, ...rest];
    const [inputs, idTexts] = flowsFromOption(opts)
      ? [[], positional]
      : [
          [...positional.slice(0, 1), ...positional.slice(1).filter((p) => !isConjIdText(p))],
          positional.slice(1).filter(isConjIdText),
        ];
    const ids = idTexts.map(conjId);
    const result = await loadFromOptions(inputs, opts, io);
    requireFlows(result);
    // Table names, register values and action flows in the words of the pipeline's profile.
    const read = annotatePipeline(new Pipeline(result.flows, result.groups, result.ports), opts);
    const { pipeline } = read;
    let probe: { readonly tracer: Tracer; readonly packet: Packet } | undefined;
    if (opts.packet !== undefined) {
      // ofproto/trace syntax; port names resolve through the dump's port map, or the names its flows use.
      const tracer = new Tracer(pipeline);
      probe = { tracer, packet: packetArgument(tracer, opts.packet, '--packet') };
    }
    const report = findConjunctions(pipeline, ids.length > 0 ? { ids } : {});
    const missing = missingIds(ids, new Set(report.conjunctions.map((c) => c.id)), () => conjunctionIds(result.flows));
    const heading = stdoutChalk(io, opts.color).bold;
    const explainProfile = explainsProfile(opts);
    // -o name lists the conjunctions found, without matching the packet or the policies.
    const names = (): string[] => report.conjunctions.map((c) => String(c.id));
    if (probe) {
      const { tracer, packet } = probe;
      const against = (): PacketConjunctions => conjunctionsForPacket(tracer, report, packet, {}, read.annotator);
      await writeReport(io, form, {
        document: () => packetConjunctionsJson(against(), read),
        names,
        text: (width) => wrapText(packetConjunctionsText(against(), read, { heading, explainProfile }), width),
      });
    } else {
      // Every conjunction is matched, so that each rule goes to the conjunction that fits it best.
      const policies = (): ReturnType<typeof policyMatching> =>
        policyMatching(result, io, () => ({
          read,
          conjunctions: ids.length > 0 ? findConjunctions(pipeline).conjunctions : report.conjunctions,
        }));
      await writeReport(io, form, {
        document: () => conjunctionsJson(report, read, policies()),
        names,
        text: (width) => {
          const matched = policies();
          return wrapText(
            conjunctionsText(report, read, { heading, explainProfile, ...(matched ? { policies: matched } : {}) }),
            width,
          );
        },
      });
    }
    if (missing) throw missing;
  });
}
