/**
 * `flowscope trace A --compare B`: the second dump read as every input is (a file, a bundle and
 * its node, standard input), traced with the profile of the first, and the two traces compared.
 */
import type { Packet } from '../../analysis/trace/packet.ts';
import { namingFor } from '../../analysis/diff/diff.ts';
import { compareTraces, type TraceComparison } from '../../analysis/trace/trace-compare.ts';
import type { TraceOptions, Tracer } from '../../analysis/trace/trace.ts';
import { Pipeline } from '../../model/pipeline.ts';
import { type ComparedSide, formatTraceComparison, traceComparisonJson } from '../../render/trace-compare.ts';
import type { TraceRenderOptions } from '../../render/trace.ts';
import { traceWithWords } from '../../render/trace-words.ts';
import { inputLabel } from '../input.ts';
import { type Io, UserError } from '../io.ts';
import type { LoadedDump } from '../load.ts';
import type { OutputForm } from '../output.ts';
import { loadFlows, type ProfileCliOptions } from './profile-options.ts';

export interface CompareSourceOptions {
  compare?: string;
  compareNode?: string;
  brief?: boolean;
  expect?: string;
}

/** A pipeline traced, with how its traces are rendered and what it was read from. */
interface TracedDump {
  readonly tracer: Tracer;
  readonly render: TraceRenderOptions;
  readonly dump: LoadedDump;
}

export interface Compared {
  readonly right: TracedDump;
  /** The packet, parsed once for each side's port names, through both pipelines. */
  compare(left: Packet, right: Packet, options: TraceOptions): TraceComparison;
  json(c: TraceComparison): Record<string, unknown>;
  text(c: TraceComparison): string;
}

/** --compare-node without --compare; what --compare cannot go with, each naming a single trace's form. */
export function checkCompareOptions(opts: CompareSourceOptions, form: OutputForm): void {
  if (opts.compare === undefined) {
    if (opts.compareNode !== undefined) throw new UserError('--compare-node goes with --compare');
    return;
  }
  if (opts.brief) throw new UserError('--compare prints both traces side by side, one line per lookup: --brief does not apply');
  if (opts.expect !== undefined) throw new UserError('--compare exits 1 when the two traces differ: --expect does not apply');
  if (form === 'name') throw new UserError('--compare prints both traces side by side: -o name does not apply');
}

function label(dump: LoadedDump): string {
  return dump.sources.map(inputLabel).join(', ');
}

/** Reads the --compare dump (with --compare-node) and readies both sides for comparing. */
export async function loadCompared(opts: ProfileCliOptions & CompareSourceOptions, left: TracedDump, io: Io): Promise<Compared> {
  const rightOpts: ProfileCliOptions = {
    ...(opts.compareNode === undefined ? {} : { node: opts.compareNode }),
    ...(opts.strict === undefined ? {} : { strict: opts.strict }),
    ...(opts.maxErrors === undefined ? {} : { maxErrors: opts.maxErrors }),
    ...(opts.profile === undefined ? {} : { profile: opts.profile }),
    ...(opts.release === undefined ? {} : { release: opts.release }),
  };
  const { dump, groups } = await loadFlows([opts.compare!], rightOpts, io);
  const right: TracedDump = { ...traceWithWords(new Pipeline(dump.flows, groups, dump.ports), dump.protocols[0] ?? 10, rightOpts), dump };
  const naming = namingFor(left.dump, dump, {});
  const sides: [ComparedSide, ComparedSide] = [
    { label: label(left.dump), render: left.render },
    { label: label(dump), render: right.render },
  ];
  return {
    right,
    compare: (l, r, options) => compareTraces({ tracer: left.tracer, result: left.tracer.trace(l, options) }, { tracer: right.tracer, result: right.tracer.trace(r, options) }, naming),
    json: (c) => traceComparisonJson(c, ...sides),
    text: (c) => formatTraceComparison(c, ...sides),
  };
}
