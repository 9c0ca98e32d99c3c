/** `flowscope conj`: conjunctive matches rebuilt into the rules they implement. */
import type { Command } from 'commander';
import { explainPacket, findConjunctions } from '../../analysis/conjunctions.ts';
import { Pipeline } from '../../model/pipeline.ts';
import { ProblemSink } from '../../model/problems.ts';
import {
  conjunctionReportJson,
  formatConjunctionReport,
  formatPacketReport,
  packetReportJson,
} from '../../render/conjunctions.ts';
import { buildMatch } from '../../syntax/match.ts';
import { scanKeyValues } from '../../syntax/tokens.ts';
import { type Io, UserError, writeOut, writeJson } from '../io.ts';
import { addInputOptions, type InputCliOptions, loadFromOptions } from '../load.ts';
import { flowsFromOption } from './source-args.ts';

function conjId(value: string): number {
  if (!/^(?:\d+|0x[0-9a-f]+)$/i.test(value) || Number(value) > 0xffffffff) throw new UserError(`${value}: expected a conjunction id (0 to 4294967295)`);
  return Number(value);
}

interface ConjOptions extends InputCliOptions {
  json?: boolean;
  packet?: string;
}

export function registerConj(program: Command, io: Io): void {
  const cmd = program
    .command('conj')
    .description('explain conjunctive matches (NetworkPolicy rules): dimensions and their members, action flows, hits, problems')
    .argument('[file]', 'dump-flows output, add-flows file or support bundle; - for standard input (with --bundle, --pod or --local: the first id)')
    .argument('[ids...]', 'only these conjunction ids')
    .option('--packet <flow>', "check which dimensions a packet satisfies, e.g. 'tcp,nw_src=10.0.0.1,nw_dst=10.0.0.2,tp_dst=80'")
    .option('--json', 'print JSON')
    .option('--strict', 'exit 2 when any line cannot be read');
  addInputOptions(cmd).action(async (file: string | undefined, rest: string[], opts: ConjOptions) => {
    // The first positional is the dump unless an option names where the flows come from.
    const positional = file === undefined ? rest : [file, ...rest];
    const [inputs, idTexts] = flowsFromOption(opts) ? [[], positional] : [positional.slice(0, 1), positional.slice(1)];
    const ids = idTexts.map(conjId);
    const result = await loadFromOptions(inputs, opts, io);
    let packet;
    if (opts.packet !== undefined) {
      // Port names in the packet resolve through the dump's own port map.
      const sink = new ProblemSink();
      packet = buildMatch(scanKeyValues(opts.packet, 0, opts.packet.length), { sink, ...(result.ports.size > 0 ? { portMap: result.ports } : {}) });
      const err = sink.problems.find((p) => p.severity === 'error');
      if (err) throw new UserError(`--packet: ${err.message}`);
    }
    const pipeline = new Pipeline(result.flows, result.groups, result.ports);
    const report = findConjunctions(pipeline, ids.length > 0 ? { ids } : {});
    if (packet) {
      const verdicts = explainPacket(pipeline, report, packet);
      if (opts.json) await writeJson(io, packetReportJson(packet, verdicts));
      else writeOut(io, formatPacketReport(packet, verdicts));
      return;
    }
    if (opts.json) await writeJson(io, conjunctionReportJson(report));
    else writeOut(io, formatConjunctionReport(report));
  });
}
