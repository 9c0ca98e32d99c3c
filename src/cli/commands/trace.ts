/** `flowscope trace`: ofproto/trace from a dump, for one packet or a batch of them. */
import { type Command, InvalidArgumentError } from 'commander';
import { Annotator } from '../../analysis/annotate.ts';
import { Pipeline } from '../../model/pipeline.ts';
import { listProfiles, profileById } from '../../profiles/index.ts';
import type { Group } from '../../model/flow.ts';
import { CT_STATE, parsePacketSpec } from '../../analysis/packet.ts';
import { type TraceOptions, Tracer } from '../../analysis/trace.ts';
import { formatTrace, type TraceRenderOptions, traceJson } from '../../render/trace.ts';
import { stringifyJson } from '../../render/json.ts';
import { readInput } from '../input.ts';
import { type Io, UserError, writeOut } from '../io.ts';
import { loadDump } from '../load.ts';

/** `trk,est`, `est|trk`, `+trk+est`: the ct_state a conntrack recirculation resumes with. */
export function parseCtNext(text: string): bigint {
  let value = 0n;
  for (const word of text.split(/[,|+]/).filter((w) => w !== '')) {
    const bit = (CT_STATE as Readonly<Record<string, bigint>>)[word];
    if (bit === undefined) throw new InvalidArgumentError(`${word}: unknown ct_state flag (new, est, rel, rpl, inv, trk, snat, dnat)`);
    value |= bit;
  }
  return value;
}

function collectCtNext(value: string, previous: bigint[]): bigint[] {
  return [...previous, parseCtNext(value)];
}

function bucketOption(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a bucket id (a number)');
  return Number(value);
}

interface TraceCommandOptions {
  readonly groups?: string;
  readonly ports?: string;
  readonly ctNext: bigint[];
  readonly bucket?: number;
  readonly json?: boolean;
  readonly batch?: string;
  readonly profile?: string;
  readonly release?: string;
}

interface BatchLine {
  readonly packet: string;
  readonly ctNext?: readonly string[];
  readonly bucket?: number;
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
  if (o.bucket !== undefined && (typeof o.bucket !== 'number' || !Number.isInteger(o.bucket) || o.bucket < 0)) throw new Error('"bucket" must be a bucket id');
  return o as unknown as BatchLine;
}

export function registerTrace(program: Command, io: Io): void {
  program
    .command('trace')
    .description('follow a packet through the flows of a dump, like ovs-appctl ofproto/trace on a live switch')
    .argument('<flows>', 'dump-flows output (may include dump-groups and show output); - for standard input')
    .argument('[packet]', 'the packet in ofproto/trace flow syntax, e.g. in_port=3,tcp,nw_src=10.0.0.1,nw_dst=10.0.0.2,tp_dst=80')
    .option('--groups <file>', 'dump-groups output to use with the flows')
    .option('--ports <file>', 'ovs-ofctl show or dump-ports-desc output: port numbers and names')
    .option('--ct-next <flags>', 'ct_state after the next conntrack recirculation (repeatable; default trk|new)', collectCtNext, [] as bigint[])
    .option('--bucket <id>', 'bucket_id a select group uses (default: the live bucket of highest weight)', bucketOption)
    .option('--profile <id>', `name tables by a pipeline profile (${listProfiles().map((p) => p.id).join(', ')})`)
    .option('--release <version>', 'release of the product the dump comes from, for --profile (default: the latest)')
    .option('--json', 'print JSON')
    .option('--batch <file>', 'JSON Lines of {"packet", "ctNext", "bucket"}; one JSON result per line (- for standard input)')
    .action(async (flowsFile: string, packetText: string | undefined, opts: TraceCommandOptions) => {
      if (opts.batch === undefined && packetText === undefined) throw new UserError('trace needs a packet (or --batch FILE)');
      if (opts.batch !== undefined && packetText !== undefined) throw new UserError('give either a packet or --batch, not both');
      if (opts.batch === '-' && flowsFile === '-') throw new UserError('the flows and --batch cannot both come from standard input');
      const dump = await loadDump(flowsFile, io);
      const groups: Group[] = [...dump.groups];
      for (const extra of [opts.groups, opts.ports]) {
        if (extra === undefined) continue;
        const more = await loadDump(extra, io);
        groups.push(...more.groups);
        for (const [n, name] of more.ports.entries()) dump.ports.set(n, name);
      }
      const pipeline = new Pipeline(dump.flows, groups, dump.ports);
      const tracer = new Tracer(pipeline);
      const render: TraceRenderOptions = { of: dump.protocols[0] ?? 10, portNames: dump.ports, ...tableNamer(pipeline, opts) };

      if (opts.batch === undefined) {
        const parsed = parsePacketSpec(packetText!, dump.ports);
        if (!parsed.ok) throw new UserError(`bad packet: ${parsed.error}`);
        const result = tracer.trace(parsed.packet, traceOptions(opts.ctNext, opts.bucket));
        writeOut(io, opts.json ? stringifyJson(traceJson(result, render)) : formatTrace(result, render));
        return;
      }

      const input = await readInput(opts.batch, io);
      let failures = 0;
      const lines = input.text.split('\n');
      for (const [i, raw] of lines.entries()) {
        if (raw.trim() === '') continue;
        try {
          const line = parseBatchLine(raw);
          const parsed = parsePacketSpec(line.packet, dump.ports);
          if (!parsed.ok) throw new Error(`bad packet: ${parsed.error}`);
          const ctNext = (line.ctNext ?? []).map(parseCtNext);
          const result = tracer.trace(parsed.packet, traceOptions(ctNext, line.bucket ?? opts.bucket));
          writeOut(io, JSON.stringify(traceJson(result, render)));
        } catch (err) {
          failures++;
          writeOut(io, JSON.stringify({ error: `line ${i + 1}: ${err instanceof Error ? err.message : String(err)}` }));
        }
      }
      if (failures > 0) throw new UserError(`${failures} batch line${failures === 1 ? '' : 's'} could not be traced`);
    });
}

/** Table names from an explicitly chosen profile (detection is left out: it would cost a large dump's cold start). */
function tableNamer(pipeline: Pipeline, opts: TraceCommandOptions): Pick<TraceRenderOptions, 'describeTable'> {
  if (opts.profile === undefined) return {};
  const profile = profileById(opts.profile);
  if (!profile) throw new UserError(`unknown profile ${opts.profile} (known: ${listProfiles().map((p) => p.id).join(', ')})`);
  const annotator = new Annotator(pipeline, { profile, ...(opts.release === undefined ? {} : { release: opts.release }) });
  return {
    describeTable: (ref) => {
      const info = annotator.tableInfo(ref);
      if (ref.kind === 'name') return info.number === undefined ? undefined : `table ${info.number}`;
      return info.name;
    },
  };
}

function traceOptions(ctNext: readonly bigint[], bucket: number | undefined): TraceOptions {
  return { ctNext, ...(bucket === undefined ? {} : { bucket }) };
}
