/** `flowscope show`: the dump grouped by table, every flow explained in the words of its pipeline. */
import { type Command, InvalidArgumentError } from 'commander';
import {
  type Cookie,
  type FlowFilter,
  filterProblemIsError,
  filterProblems,
  flowTest,
  type IpAddress,
  outputRegisters,
  tableSelected,
} from '../../analysis/show/flow-filter.ts';
import { parseIpv4, parseIpv6, parseUnsigned } from '../../model/values.ts';
import { flowName } from '../../render/flow.ts';
import { filterProblemText } from '../../render/words/filter.ts';
import { showJson, showReport, showText, type ShowStyle } from '../../render/show.ts';
import { stdoutChalk } from '../color.ts';
import { type Io, notice, UserError } from '../io.ts';
import { wrapText } from '../../render/wrap.ts';
import { outputForm, writeReport } from '../output.ts';
import {
  addProfileOptions,
  explainsProfile,
  INPUTS_HELP,
  loadFlows,
  type ProfileCliOptions,
} from './profile-options.ts';
import { findConjunctions } from '../../analysis/conjunctions/conjunctions.ts';
import { annotatePipeline } from '../../analysis/detect/profile-choice.ts';
import { Pipeline } from '../../model/pipeline.ts';
import { flowPolicyRules, policyMatching } from './policies.ts';
import { repeatable } from './repeatable.ts';

interface ShowCliOptions extends ProfileCliOptions {
  table?: string[];
  cookie?: Cookie[];
  port?: string[];
  ip?: IpAddress[];
  conjId?: number[];
  hits?: boolean;
  raw?: boolean;
}

function cookieOption(text: string): Cookie {
  const [v, m] = text.split('/');
  const value = parseUnsigned(v ?? '');
  const mask = m === undefined ? 0xffffffffffffffffn : parseUnsigned(m);
  if (value === undefined || mask === undefined || value > 0xffffffffffffffffn || mask > 0xffffffffffffffffn) {
    throw new InvalidArgumentError('expected a cookie such as 0x1000000000000 or 0x10000000000/0xff0000000000');
  }
  return { value, mask };
}

/** An address, or a network as `address/prefix-length`. */
function ipOption(text: string): IpAddress {
  const [address = '', prefix, extra] = text.split('/');
  const v4 = parseIpv4(address);
  const family = v4 !== undefined ? 4 : 6;
  const value = v4 ?? parseIpv6(address);
  const width = family === 4 ? 32 : 128;
  const length = prefix === undefined ? width : /^\d+$/.test(prefix) ? Number(prefix) : NaN;
  if (value === undefined || extra !== undefined || !(length >= 0 && length <= width)) {
    throw new InvalidArgumentError(
      'expected an IPv4 or IPv6 address, or a network such as 10.10.0.0/16 or fd00:10::/64',
    );
  }
  const all = (1n << BigInt(width)) - 1n;
  const mask = all ^ ((1n << BigInt(width - length)) - 1n);
  return { family, value: value & mask, mask };
}

function conjIdOption(text: string): number {
  const n = parseUnsigned(text);
  if (n === undefined || n > 0xffffffffn) throw new InvalidArgumentError('expected a conjunction id (0 to 4294967295)');
  return Number(n);
}

export function registerCommand(program: Command, io: Io): void {
  const cmd = program
    .command('show')
    .description(
      'explain every flow in the words of its pipeline: table names, a plain sentence, decoded registers, address roles, port names',
    )
    .argument('[inputs...]', INPUTS_HELP)
    .option(
      '-T, --table <table>',
      'only this table, by number or name (repeatable)',
      repeatable((v) => v),
    )
    .option('--cookie <value[/mask]>', 'only flows with this cookie (repeatable)', repeatable(cookieOption))
    .option(
      '--port <port>',
      'only flows that match this input port or send to it, by number or name: output to it, or set or match the register the pipeline outputs by (repeatable)',
      repeatable((v) => v),
    )
    .option(
      '--ip <address>',
      'only flows with an address field that admits this address, or some address of this network (10.10.0.0/16) (repeatable)',
      repeatable(ipOption),
    )
    .option(
      '--conj-id <id>',
      'only flows of this conjunction: conj_id= or conjunction(id,…) (repeatable)',
      repeatable(conjIdOption),
    )
    .option('--hits', 'only flows that matched packets (n_packets > 0)')
    .option('--raw', 'print the original line under each explanation');
  addProfileOptions(cmd, 'the flows shown, as table, priority and match', { explain: true }).action(
    async (inputs: string[], opts: ShowCliOptions) => {
      const form = outputForm(opts);
      const { dump, groups } = await loadFlows(inputs, opts, io);
      const read = annotatePipeline(new Pipeline(dump.flows, groups, dump.ports), opts);
      const { pipeline, annotator } = read;
      const policyRules = flowPolicyRules(
        policyMatching(dump, io, () => ({ read, conjunctions: findConjunctions(pipeline).conjunctions })),
      );
      const filter: FlowFilter = {
        ...(opts.table ? { tables: opts.table } : {}),
        ...(opts.cookie ? { cookies: opts.cookie } : {}),
        ...(opts.port ? { ports: opts.port, portFields: outputRegisters(pipeline.flows) } : {}),
        ...(opts.ip ? { ips: opts.ip } : {}),
        ...(opts.conjId ? { conjIds: opts.conjId } : {}),
        ...(opts.hits ? { hits: true } : {}),
      };
      const dumpTables = [...pipeline.tables.values()].map((t) => annotator.tableInfo(t.ref));
      const problems = filterProblems(
        filter,
        dumpTables,
        annotator.profile?.tables ?? [],
        pipeline.flows,
        pipeline.ports,
      );
      const errors = problems.filter(filterProblemIsError);
      if (errors.length > 0) throw new UserError(errors.map(filterProblemText).join('\n'));
      for (const p of problems) notice(io, filterProblemText(p), 'warning');
      const flow = flowTest(filter, annotator.ports);
      const report = showReport(
        read,
        { table: (t) => tableSelected(t, filter), ...(flow ? { flow } : {}) },
        policyRules,
      );
      await writeReport(io, form, {
        document: () => showJson(report),
        names: () => report.tables.flatMap((t) => t.flows.map((f) => flowName(f, pipeline.ports))),
        text: (width) => {
          const c = stdoutChalk(io, opts.color);
          const style: ShowStyle = {
            table: (s) => c.bold.cyan(s),
            meaning: (s) => c.green(s),
            unknown: (s) => c.yellow(s),
            dim: (s) => c.dim(s),
          };
          const pieces = showText(report, { raw: opts.raw ?? false, explainProfile: explainsProfile(opts), style });
          return width === undefined ? joined(pieces) : fitted(pieces, width);
        },
      });
    },
  );
}

/** How many characters of the text are written at once, at least (but for its end). */
const RUN = 1 << 16;

/**
 * The pieces (a line, or a flow's lines) joined into runs of RUN characters or more: the text of
 * thousands of flows is then handed on, encoded and written a run at a time, not a flow at a time.
 */
function* joined(pieces: Iterable<string>): Generator<string> {
  let run = '';
  for (const piece of pieces) {
    run += piece;
    if (run.length >= RUN) {
      yield run;
      run = '';
    }
  }
  if (run !== '') yield run;
}

/** Each piece (a line, or a flow's lines) wrapped to the terminal, as it is written. */
function* fitted(pieces: Iterable<string>, width: number): Generator<string> {
  for (const piece of pieces) yield wrapText(piece, width);
}
