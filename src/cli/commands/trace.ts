/** `flowscope trace`: ofproto/trace from a dump, for one packet or a batch of them, in the pipeline's words. */
import { existsSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { CT_STATE, type Packet, PacketSpecError } from '../../analysis/packet.ts';
import type { TraceOptions, Tracer } from '../../analysis/trace.ts';
import { Pipeline } from '../../model/pipeline.ts';
import { jsonReplacer } from '../../render/json.ts';
import { formatTrace, traceJson } from '../../render/trace.ts';
import { traceWithWords } from '../../render/trace-words.ts';
import { emptyInputReason, isBlankOrComment, readInput } from '../input.ts';
import { type Io, UserError, writeOut, writeJson } from '../io.ts';
import { addInputOptions } from '../load.ts';
import { addProfileChoiceOptions, loadFlows, type ProfileCliOptions } from './profile-options.ts';
import { flowsFromOption, flowsFromStdin } from './source-args.ts';
import { repeatable } from './repeatable.ts';

const CT_FLAGS = Object.keys(CT_STATE).join(', ');

/**
 * The packet a command-line text describes, its ports named as the tracer's pipeline names them;
 * a text that is no packet is the user's error, its message led by `what`.
 */
export function packetArgument(tracer: Tracer, text: string, what: string): Packet {
  try {
    return tracer.parsePacket(text);
  } catch (err) {
    throw err instanceof PacketSpecError ? new UserError(`${what}: ${err.message}`) : err;
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
  if (words.length === 0) throw new InvalidArgumentError(`expected one or more ct_state flags, as trk,est or est|trk or +trk+est (flags: ${CT_FLAGS})`);
  let value = 0n;
  for (const word of words) {
    const bit = (CT_STATE as Readonly<Record<string, bigint>>)[word];
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
    throw new InvalidArgumentError(`expected ${BUCKET_ID_RANGE}, for every select group, or GROUP:ID for group GROUP alone`);
  }
  return group === undefined ? { bucket } : { group, bucket };
}

/** Repeated --bucket options: GROUP:ID as often as there are groups, a plain id once. */
const collectBuckets = repeatable(bucketArgument);

/** The buckets the --bucket options ask for, as the tracer takes them. */
function bucketsOf(args: readonly BucketArgument[]): Pick<TraceOptions, 'bucket' | 'groupBuckets'> {
  const plain = args.filter((a) => a.group === undefined);
  if (plain.length > 1) throw new UserError(`--bucket without a group is the bucket of every select group, and ${plain.map((a) => a.bucket).join(' and ')} were given: give one, or GROUP:ID for each group`);
  const groupBuckets = new Map<number, number>();
  for (const a of args) {
    if (a.group === undefined) continue;
    const given = groupBuckets.get(a.group);
    if (given !== undefined) throw new UserError(`--bucket names group ${a.group} twice: ${a.group}:${given}, ${a.group}:${a.bucket}; give each group once`);
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
    if (!/^\d+$/.test(key) || !isGroupId(Number(key)) || typeof bucket !== 'number' || !isBucketId(bucket)) throw new Error(shape);
    groupBuckets.set(Number(key), bucket);
  }
  return { groupBuckets };
}

interface TraceCommandOptions extends ProfileCliOptions {
  readonly ctNext?: bigint[];
  readonly bucket?: BucketArgument[];
  readonly batch?: string;
}

interface BatchLine {
  readonly packet: string;
  readonly ctNext?: readonly string[];
  readonly bucket?: Pick<TraceOptions, 'bucket' | 'groupBuckets'>;
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
  if (o.ctNext !== undefined && (!Array.isArray(o.ctNext) || !o.ctNext.every((s) => typeof s === 'string'))) throw new Error('"ctNext" must be an array of strings');
  return { packet: o.packet, ...(o.ctNext !== undefined ? { ctNext: o.ctNext as string[] } : {}), ...(o.bucket !== undefined ? { bucket: batchBuckets(o.bucket) } : {}) };
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
  if (fromOption && args.length > 1) throw new UserError('give only the packet: the flows come from --bundle, --pod or --local');
  const packet = args[args.length - 1]!;
  if (args.length === 1 && !fromOption && (packet === '-' || existsSync(packet))) {
    throw new UserError('trace needs a packet: give it after the flows (flowscope trace FLOWS PACKET), or pipe the flows in (… | flowscope trace PACKET)');
  }
  return { inputs: args.slice(0, -1), packet };
}

export function registerTrace(program: Command, io: Io): void {
  const cmd = program
    .command('trace')
    .usage('[options] [flows...] <packet>   (or: [options] --batch FILE [flows...])')
    .description('follow a packet through the flows of a dump, like ovs-appctl ofproto/trace on a live switch, and say in the pipeline\'s words where it ends')
    .argument('[inputs...]', 'dump-flows output (may include dump-groups and show output) or support bundle, - or none for standard input; then the packet in ofproto/trace flow syntax, e.g. in_port=3,tcp,nw_src=10.0.0.1,nw_dst=10.0.0.2,tp_dst=80')
    .option('--groups <file>', 'dump-groups output to use with the flows')
    .option('--ct-next <flags>', 'ct_state after the next conntrack recirculation (repeatable; default trk|new)', collectCtNext)
    .option('--bucket <id>', 'bucket_id every select group uses, or GROUP:ID for one group (repeatable, one per group; default: the one the switch picks for selection_method=hash, else the live bucket of highest weight)', collectBuckets)
    .option('--json', 'print JSON')
    .option('--batch <file>', 'JSON Lines of {"packet", "ctNext", "bucket"}; one JSON result per line (- for standard input)');
  addInputOptions(addProfileChoiceOptions(cmd)).action(async (args: string[], opts: TraceCommandOptions) => {
    const { inputs, packet: packetText } = splitArguments(args, opts);
    const buckets = bucketsOf(opts.bucket ?? []);
    if (opts.batch === '-' && flowsFromStdin(inputs, opts)) throw new UserError('the flows and --batch cannot both come from standard input');
    const { dump, groups } = await loadFlows(inputs, opts, io);
    const { tracer, render } = traceWithWords(new Pipeline(dump.flows, groups, dump.ports), dump.protocols[0] ?? 10, opts);

    if (packetText !== undefined) {
      const packet = packetArgument(tracer, packetText, 'bad packet');
      const result = tracer.trace(packet, traceOptions(opts.ctNext ?? [], buckets));
      if (opts.json) await writeJson(io, traceJson(result, render));
      else writeOut(io, formatTrace(result, render));
      return;
    }

    const input = await readInput(opts.batch!, io);
    // Nothing traced is no success: the batch was most likely the wrong file, or came out empty.
    const empty = emptyInputReason(input.name, input.text);
    if (empty !== undefined) throw new UserError(`${empty}: no packets to trace (--batch)`);
    let failures = 0;
    const lines = input.text.split('\n');
    for (const [i, raw] of lines.entries()) {
      if (isBlankOrComment(raw)) continue;
      try {
        const line = parseBatchLine(raw);
        const packet = packetArgument(tracer, line.packet, 'bad packet');
        // A line's own ctNext and bucket win; the command line's stand for lines without them.
        const ctNext = line.ctNext ? line.ctNext.map(parseCtNext) : (opts.ctNext ?? []);
        const result = tracer.trace(packet, traceOptions(ctNext, line.bucket ?? buckets));
        // On one line; the replacer writes the flows' bigints as decimal strings, as --json does.
        writeOut(io, JSON.stringify(traceJson(result, render), jsonReplacer));
      } catch (err) {
        failures++;
        writeOut(io, JSON.stringify({ error: `line ${i + 1}: ${err instanceof Error ? err.message : String(err)}` }));
      }
    }
    if (failures > 0) throw new UserError(`${failures} batch line${failures === 1 ? '' : 's'} could not be traced`);
  });
}

/** Packets are kept for the nearest flow of a drop by a table's miss. */
function traceOptions(ctNext: readonly bigint[], buckets: Pick<TraceOptions, 'bucket' | 'groupBuckets'>): TraceOptions {
  return { ctNext, keepPackets: true, ...buckets };
}
