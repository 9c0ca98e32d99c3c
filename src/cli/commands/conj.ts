/** `flowscope conj`: conjunctive matches rebuilt into the rules they implement. */
import { type Command, InvalidArgumentError } from 'commander';
import { explainPacket, findConjunctions } from '../../analysis/conjunctions.ts';
import { Pipeline } from '../../model/pipeline.ts';
import { ProblemSink } from '../../model/problems.ts';
import {
  conjunctionReportJson,
  formatConjunctionReport,
  formatPacketReport,
  packetReportJson,
} from '../../render/conjunctions.ts';
import { stringifyJson } from '../../render/json.ts';
import { buildMatch } from '../../syntax/match.ts';
import { scanKeyValues } from '../../syntax/tokens.ts';
import { type Io, UserError, writeOut } from '../io.ts';
import { loadDump } from '../load.ts';

function conjId(value: string): number {
  if (!/^(?:\d+|0x[0-9a-f]+)$/i.test(value) || Number(value) > 0xffffffff) throw new InvalidArgumentError('expected a conjunction id (0 to 4294967295)');
  return Number(value);
}

interface ConjOptions {
  json?: boolean;
  packet?: string;
  strict?: boolean;
}

export function registerConj(program: Command, io: Io): void {
  program
    .command('conj')
    .description('explain conjunctive matches (NetworkPolicy rules): dimensions and their members, action flows, hits, problems')
    .argument('<file>', 'dump-flows output or add-flows file; - for standard input')
    .argument('[ids...]', 'only these conjunction ids', (v: string, prev: number[] = []) => [...prev, conjId(v)])
    .option('--packet <flow>', "check which dimensions a packet satisfies, e.g. 'tcp,nw_src=10.0.0.1,nw_dst=10.0.0.2,tp_dst=80'")
    .option('--json', 'print JSON')
    .option('--strict', 'exit 2 when any line cannot be read')
    .action(async (file: string, ids: number[] | undefined, opts: ConjOptions) => {
      const result = await loadDump(file, io, { strict: opts.strict ?? false });
      let packet;
      if (opts.packet !== undefined) {
        // Port names in the packet resolve through the dump's own port map.
        const sink = new ProblemSink();
        packet = buildMatch(scanKeyValues(opts.packet, 0, opts.packet.length), { sink, ...(result.ports.size > 0 ? { portMap: result.ports } : {}) });
        const err = sink.problems.find((p) => p.severity === 'error');
        if (err) throw new UserError(`--packet: ${err.message}`);
      }
      const pipeline = new Pipeline(result.flows, result.groups, result.ports);
      const report = findConjunctions(pipeline, ids && ids.length > 0 ? { ids } : {});
      if (packet) {
        const verdicts = explainPacket(pipeline, report, packet);
        writeOut(io, opts.json ? stringifyJson(packetReportJson(packet, verdicts)) : formatPacketReport(packet, verdicts));
        return;
      }
      writeOut(io, opts.json ? stringifyJson(conjunctionReportJson(report)) : formatConjunctionReport(report));
    });
}
