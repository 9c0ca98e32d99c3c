/** `flowscope trace`: ofproto/trace from a dump, for one packet or a batch of them, in the pipeline's words. */
import { existsSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { CT_STATE } from '../../model/ct-state.ts';
import { type Packet, PacketSpecError } from '../../analysis/trace/packet.ts';
import type { TraceOptions, Tracer, TraceResult } from '../../analysis/trace/trace.ts';
import { Pipeline } from '../../model/pipeline.ts';
import { jsonReplacer } from '../../render/json.ts';
import { formatTrace, formatTraceBrief, omittedNames, traceJson, traceTableNames } from '../../render/trace.ts';
import { profiledTracer } from '../../analysis/trace/profiled-tracer.ts';
import { explainTrace } from '../../analysis/trace/trace-verdict.ts';
import { traceWords } from '../../render/trace-words.ts';
import { packetSpecProblemText } from '../../render/words/packet-spec.ts';
import { readInput } from '../input.ts';
import { emptyInputReason, isBlankOrComment } from '../../sources/input.ts';
import { stdoutChalk } from '../color.ts';
import { type Io, notice, UserError, writeOut } from '../io.ts';
import { wrapText } from '../../render/wrap.ts';
import { addOutputOptions, outputForm, writeReport } from '../output.ts';
import type { Outcome } from '../outcome.ts';
import { addInputOptions } from '../load.ts';
import { addProfileChoiceOptions, loadFlows, type ProfileCliOptions } from './profile-options.ts';
import { flowsFromOption, flowsFromStdin } from './source-args.ts';
import { repeatable } from './repeatable.ts';
import {
  type CompareSourceOptions,
  checkCompareOptions,
  comparing,
  firstSideOptions,
  loadCompared,
} from './trace-compare.ts';
import { withPolicyRules } from './policies.ts';
import { ownEntry } from '../../model/own-key.ts';

const CT_FLAGS = Object.keys(CT_STATE).join(', ');

/**
 * The packet a command-line text describes, its ports named as the tracer's pipeline names them;
 * a text that is no packet is the user's error, its message led by `what`.
 */
export function packetArgument(tracer: Tracer, text: string, what: string): Packet {
  try {
    return tracer.parsePacket(text);
  } catch (err) {
    throw err instanceof PacketSpecError ? new UserError(`${what}: ${packetSpecProblemText(err.problem)}`) : err;
  }
}

/**
 * `trk,est`, `est|trk`, `+trk+est`: the ct_state a conntrack recirculation resumes with. Blanks
 * around the separators are allowed, as a list is often written `trk, est`.
 */
export function parseCtNext(text: string): bigint {
  const words = text
    .split(/[,|+]/)
    .map((w) => w.trim())
    .filter((w) => w !== '');
  // No flag at all would be a ct_state of 0, which no recirculation resumes with (it sets trk).
  if (words.length === 0)
    throw new InvalidArgumentError(
      `expected one or more ct_state flags, as trk,est or est|trk or +trk+est (flags: ${CT_FLAGS})`,
    );
  let value = 0n;
  for (const word of words) {
    const bit = ownEntry<bigint>(CT_STATE, word);
    if (bit === undefined) throw new InvalidArgumentError(`${word}: unknown ct_state flag (${CT_FLAGS})`);
    value |= bit;
  }
  return value;
}

/** Repeated --ct-next options; no default, so that help does not show an empty list as one. */
export const collectCtNext = repeatable(parseCtNext);

/** bucket_id is 32 bits wide (OpenFlow 1.5). */
const MAX_BUCKET_ID = 0xffffffff;
const BUCKET_ID_RANGE = `a bucket id (0 to ${MAX_BUCKET_ID})`;

function isBucketId(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= MAX_BUCKET_ID;
}

/** A `--bucket`: for every select group (`group` absent), or for one (`GROUP:ID`). */
interface BucketArgument {
  readonly group?: number;
  readonly bucket: number;
}

/** group_id is 32 bits wide too. */
function isGroupId(n: number): boolean {
  return isBucketId(n);
}

function bucketArgument(value: string): BucketArgument {
  const m = /^\s*(?:(\d+)\s*:\s*)?(\d+)\s*$/.exec(value);
  const group = m?.[1] === undefined ? undefined : Number(m[1]);
  const bucket = Number(m?.[2]);
  if (!m || !isBucketId(bucket) || (group !== undefined && !isGroupId(group))) {
    throw new InvalidArgumentError(
      `expected ${BUCKET_ID_RANGE}, for every select group, or GROUP:ID for group GROUP alone`,
    );
  }
  return group === undefined ? { bucket } : { group, bucket };
}

/** Repeated --bucket options: GROUP:ID as often as there are groups, a plain id once. */
const collectBuckets = repeatable(bucketArgument);

/** The buckets the --bucket options ask for, as the tracer takes them. */
function bucketsOf(args: readonly BucketArgument[]): Pick<TraceOptions, 'bucket' | 'groupBuckets'> {
  const plain = args.filter((a) => a.group === undefined);
  if (plain.length > 1)
    throw new UserError(
      `--bucket without a group is the bucket of every select group, and ${plain.map((a) => a.bucket).join(' and ')} were given: give one, or GROUP:ID for each group`,
    );
  const groupBuckets = new Map<number, number>();
  for (const a of args) {
    if (a.group === undefined) continue;
    const given = groupBuckets.get(a.group);
    if (given !== undefined)
      throw new UserError(
        `--bucket names group ${a.group} twice: ${a.group}:${given}, ${a.group}:${a.bucket}; give each group once`,
      );
    groupBuckets.set(a.group, a.bucket);
  }
  return { ...(plain[0] ? { bucket: plain[0].bucket } : {}), ...(groupBuckets.size > 0 ? { groupBuckets } : {}) };
}

/** A batch line's "bucket": a bucket id for every select group, or an object of group id → bucket id. */
function batchBuckets(value: unknown): Pick<TraceOptions, 'bucket' | 'groupBuckets'> {
  const shape = `"bucket" must be ${BUCKET_ID_RANGE}, or an object of group ids to bucket ids ({"7": 1})`;
  if (typeof value === 'number') {
    if (!isBucketId(value)) throw new Error(shape);
    return { bucket: value };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(shape);
  const groupBuckets = new Map<number, number>();
  for (const [key, bucket] of Object.entries(value)) {
    if (!/^\d+$/.test(key) || !isGroupId(Number(key)) || typeof bucket !== 'number' || !isBucketId(bucket))
      throw new Error(shape);
    groupBuckets.set(Number(key), bucket);
  }
  return { groupBuckets };
}

interface TraceCommandOptions extends ProfileCliOptions, CompareSourceOptions {
  readonly ctNext?: bigint[];
  readonly bucket?: BucketArgument[];
  readonly batch?: string;
  readonly brief?: boolean;
  readonly expect?: string;
}

interface BatchLine {
  readonly packet: string;
  readonly ctNext?: readonly string[];
  readonly bucket?: Pick<TraceOptions, 'bucket' | 'groupBuckets'>;
  readonly expect?: string;
}

const VERDICT_WORDS = ['output', 'drop', 'controller', 'normal'];

/** An expected ending: a verdict word, or a port the packet must leave by (number or name). */
function expectOption(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError(`expected ${VERDICT_WORDS.join(', ')} or a port`);
  return value.trim();
}

/** Whether the trace ended as expected: with that verdict, or output to that port among others. */
function meetsExpectation(result: TraceResult, expected: string, tracer: Tracer): boolean {
  if (VERDICT_WORDS.includes(expected)) return result.verdict === expected;
  const number = /^\d+$/.test(expected) ? Number(expected) : tracer.ports.names.number(expected);
  return result.outputs.some((p) => (typeof p === 'number' ? p === number : p === expected));
}

/** `expected drop, but the verdict is: output to port 1 (antrea-tun0) …`. */
function expectationMessage(expected: string, verdict: string): string {
  return `expected ${VERDICT_WORDS.includes(expected) ? expected : `output to port ${expected}`}, but the verdict is: ${verdict.replace(/^Verdict: /, '')}`;
}

function parseBatchLine(line: string): BatchLine {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    throw new Error('not a JSON object');
  }
  if (typeof v !== 'object' || v === null) throw new Error('not a JSON object');
  const o = v as Record<string, unknown>;
  if (typeof o.packet !== 'string') throw new Error('"packet" must be a string');
  if (o.ctNext !== undefined && (!Array.isArray(o.ctNext) || !o.ctNext.every((s) => typeof s === 'string')))
    throw new Error('"ctNext" must be an array of strings');
  if (o.expect !== undefined && (typeof o.expect !== 'string' || o.expect.trim() === ''))
    throw new Error(`"expect" must be ${VERDICT_WORDS.join(', ')} or a port`);
  return {
    packet: o.packet,
    ...(o.ctNext !== undefined ? { ctNext: o.ctNext as string[] } : {}),
    ...(o.bucket !== undefined ? { bucket: batchBuckets(o.bucket) } : {}),
    ...(o.expect !== undefined ? { expect: (o.expect as string).trim() } : {}),
  };
}

/** An argument that names no file and is written like a flow: a packet, not an input. */
function isPacketLike(arg: string): boolean {
  return arg !== '-' && /[=,]/.test(arg) && !existsSync(arg);
}

/**
 * The flow inputs and the packet among the positional arguments: the packet comes last. A lone
 * argument that names no file is the packet, and the flows come from standard input.
 */
function splitArguments(args: readonly string[], opts: TraceCommandOptions): { inputs: string[]; packet?: string } {
  const fromOption = flowsFromOption(opts);
  if (opts.batch !== undefined) {
    const packet = fromOption ? args[0] : args.find(isPacketLike);
    if (packet !== undefined) throw new UserError('give either a packet or --batch, not both');
    return { inputs: [...args] };
  }
  if (args.length === 0) throw new UserError('trace needs a packet (or --batch FILE)');
  if (fromOption && args.length > 1)
    throw new UserError('give only the packet: the flows come from --bundle, --pod or --local');
  const packet = args[args.length - 1]!;
  if (args.length === 1 && !fromOption && (packet === '-' || existsSync(packet))) {
    throw new UserError(
      'trace needs a packet: give it after the flows (flowscope trace FLOWS PACKET), or pipe the flows in (… | flowscope trace PACKET)',
    );
  }
  return { inputs: args.slice(0, -1), packet };
}

export function registerCommand(program: Command, io: Io, outcome: Outcome): void {
  const cmd = program
    .command('trace')
    .usage('[options] [flows...] <packet>   (or: [options] --batch FILE [flows...])')
    .description(
      "follow a packet through the flows of a dump, like ovs-appctl ofproto/trace on a live switch, and say in the pipeline's words where it ends",
    )
    .argument(
      '[inputs...]',
      'dump-flows output (may include dump-groups and show output) or support bundle, - or none for standard input; then the packet in ofproto/trace flow syntax, e.g. in_port=3,tcp,nw_src=10.0.0.1,nw_dst=10.0.0.2,tp_dst=80',
    )
    .option('--groups <file>', 'dump-groups output to use with the flows')
    .option(
      '--ct-next <flags>',
      'ct_state after the next conntrack recirculation (repeatable; default trk|new)',
      collectCtNext,
    )
    .option(
      '--bucket <id>',
      'bucket_id every select group uses, or GROUP:ID for one group (repeatable, one per group; default: the one the switch picks for selection_method=hash, else the live bucket of highest weight)',
      collectBuckets,
    )
    .option('--brief', 'one line per table lookup: table, priority, what the flow did; then the verdict')
    .option(
      '--expect <verdict>',
      'exit 1 unless the packet ends so: output, drop, controller, normal, or a port it must leave by (number or name)',
      expectOption,
    )
    .option(
      '--batch <file>',
      'JSON Lines of {"packet", "ctNext", "bucket", "expect"}; one JSON result per line, with its line number (- for standard input)',
    )
    .option(
      '--compare <input>',
      'also trace the packet through this dump (file, support bundle, or - for standard input) and put both traces side by side: where the paths part and both verdicts; exit 1 when they differ',
    )
    .option('--compare-node <name>', 'the node of the --compare bundle')
    .option(
      '--compare-pod <pod>',
      'compare with the switch dumped live from this Pod, as --pod dumps it (with -n, --container, --kubeconfig, --context, --bridge, --timeout)',
    )
    .option(
      '--compare-local',
      'compare with the switch of this host, dumped live with ovs-ofctl (with --bridge, --timeout)',
    )
    .option('--compare-groups <file>', 'dump-groups output to use with the dump compared with');
  addOutputOptions(addProfileChoiceOptions(cmd), 'the tables the packet is looked up in, in order');
  addInputOptions(cmd).action(async (args: string[], opts: TraceCommandOptions) => {
    const form = outputForm(opts);
    if (opts.batch !== undefined && form !== 'json' && form !== 'text')
      throw new UserError(`--batch prints JSON Lines, one result per packet: -o ${form} does not apply`);
    if (opts.batch !== undefined && opts.brief)
      throw new UserError('--batch prints JSON Lines, one result per packet: --brief does not apply');
    if (opts.brief && form !== 'text' && form !== 'wide')
      throw new UserError(`--brief is a text form: give it or -o ${form}, not both`);
    checkCompareOptions(opts, form);
    const { inputs, packet: packetText } = splitArguments(args, opts);
    const buckets = bucketsOf(opts.bucket ?? []);
    if (opts.batch === '-' && flowsFromStdin(inputs, opts))
      throw new UserError('the flows and --batch cannot both come from standard input');
    if (opts.compare === '-' && (opts.batch === '-' || flowsFromStdin(inputs, opts)))
      throw new UserError(
        `--compare and ${opts.batch === '-' ? '--batch' : 'the flows'} cannot both come from standard input`,
      );
    const stdinUsers = [
      opts.compare === '-',
      opts.compareGroups === '-',
      opts.groups === '-',
      opts.batch === '-',
      flowsFromStdin(inputs, opts),
    ].filter(Boolean).length;
    if (opts.compareGroups === '-' && stdinUsers > 1)
      throw new UserError('--compare-groups and another input cannot both come from standard input');
    const { dump, groups } = await loadFlows(inputs, firstSideOptions(opts), io);
    const { tracer, annotator } = profiledTracer(new Pipeline(dump.flows, groups, dump.ports), opts);
    const render = withPolicyRules(traceWords(tracer, annotator, dump.protocols[0] ?? 10), dump, groups, opts, io);

    const compared = comparing(opts) ? await loadCompared(opts, { tracer, annotator, render, dump }, io) : undefined;

    if (packetText !== undefined && compared) {
      const c = compared.compare(
        packetArgument(tracer, packetText, 'bad packet'),
        packetArgument(compared.right.tracer, packetText, 'bad packet'),
        traceOptions(opts.ctNext ?? [], buckets),
      );
      await writeReport(io, form, {
        document: () => compared.json(c),
        text: (width) => wrapText(compared.text(c), width),
      });
      outcome.status = c.divergence === undefined && c.sameVerdict ? 0 : 1;
      return;
    }
    if (packetText !== undefined) {
      const packet = packetArgument(tracer, packetText, 'bad packet');
      const result = explainTrace(tracer.trace(packet, traceOptions(opts.ctNext ?? [], buckets)), annotator, tracer);
      const met = opts.expect === undefined || meetsExpectation(result, opts.expect, tracer);
      await writeReport(io, form, {
        document: () => ({
          ...traceJson(result, render),
          ...(opts.expect === undefined ? {} : { expect: { expected: opts.expect, met } }),
        }),
        names: () => {
          const { names, omitted } = traceTableNames(result, render);
          if (omitted > 0) notice(io, omittedNames(omitted, render));
          return names;
        },
        text: (width) => {
          const c = stdoutChalk(io, opts.color);
          const colour =
            result.verdict === 'drop' ? c.red.bold : result.verdict === 'output' ? c.green.bold : c.yellow.bold;
          const text = (opts.brief ? formatTraceBrief : formatTrace)(result, render);
          return wrapText(
            text.replace(/^Verdict: .*$/m, (line) => colour(line)),
            width,
          );
        },
      });
      if (!met) {
        const verdict = /^Verdict: .*$/m.exec(formatTraceBrief(result, render))?.[0] ?? result.verdict;
        notice(io, expectationMessage(opts.expect!, verdict));
        outcome.status = 1;
      }
      return;
    }

    const input = await readInput(opts.batch!, io);
    // Nothing traced is no success: the batch was most likely the wrong file, or came out empty.
    const empty = emptyInputReason(input.name, input.text);
    if (empty !== undefined) throw new UserError(`${empty}: no packets to trace (--batch)`);
    let failures = 0;
    let traced = 0;
    let unmet = 0;
    // One line's packet traced, as the JSON line to print and whether it ended as expected (or alike on both sides).
    const traceLine = (
      entry: BatchLine,
      options: TraceOptions,
    ): { readonly doc: Record<string, unknown>; readonly met: boolean } => {
      if (compared) {
        if (entry.expect !== undefined)
          throw new Error('"expect" does not apply with --compare, which says whether the two traces differ');
        const c = compared.compare(
          packetArgument(tracer, entry.packet, 'bad packet'),
          packetArgument(compared.right.tracer, entry.packet, 'bad packet'),
          options,
        );
        return { doc: compared.json(c), met: c.divergence === undefined && c.sameVerdict };
      }
      const result = explainTrace(
        tracer.trace(packetArgument(tracer, entry.packet, 'bad packet'), options),
        annotator,
        tracer,
      );
      const expected = entry.expect ?? opts.expect;
      const met = expected === undefined || meetsExpectation(result, expected, tracer);
      const expectation = expected === undefined ? {} : { expect: { expected, met } };
      return { doc: { ...traceJson(result, render), ...expectation }, met };
    };
    const lines = input.text.split('\n');
    for (const [i, raw] of lines.entries()) {
      if (isBlankOrComment(raw)) continue;
      const line = i + 1;
      try {
        const entry = parseBatchLine(raw);
        // A line's own ctNext, bucket and expect win; the command line's stand for lines without them.
        const ctNext = entry.ctNext ? entry.ctNext.map(parseCtNext) : (opts.ctNext ?? []);
        const { doc, met } = traceLine(entry, traceOptions(ctNext, entry.bucket ?? buckets));
        traced++;
        if (!met) unmet++;
        // On one line; the replacer writes the flows' bigints as decimal strings, as --json does.
        writeOut(io, JSON.stringify({ line, ...doc }, jsonReplacer));
      } catch (err) {
        failures++;
        writeOut(
          io,
          JSON.stringify({ line, error: `line ${line}: ${err instanceof Error ? err.message : String(err)}` }),
        );
      }
    }
    const summary = [`${traced} packet${traced === 1 ? '' : 's'} traced`];
    if (unmet > 0)
      summary.push(
        compared ? `${unmet} differ${unmet === 1 ? 's' : ''} between the two dumps` : `${unmet} not as expected`,
      );
    if (failures > 0) summary.push(`${failures} line${failures === 1 ? '' : 's'} could not be traced`);
    if (failures > 0)
      throw new UserError(
        `${failures} batch line${failures === 1 ? '' : 's'} could not be traced (${summary.join(', ')})`,
      );
    if (unmet > 0) {
      notice(io, summary.join(', '));
      outcome.status = 1;
    }
  });
}

/** Packets are kept for the nearest flow of a drop by a table's miss. */
function traceOptions(ctNext: readonly bigint[], buckets: Pick<TraceOptions, 'bucket' | 'groupBuckets'>): TraceOptions {
  return { ctNext, keepPackets: true, ...buckets };
}
