/**
 * `flowscope trace A --compare B`: the second dump read as every input is (a file, a bundle and
 * its node, standard input, or a live switch with --compare-pod or --compare-local, its groups
 * with --compare-groups), traced with the profile of the first, and the two traces compared.
 */
import type { Packet } from '../../analysis/trace/packet.ts';
import { namingFor } from '../../analysis/diff/diff.ts';
import { compareTraces, type TraceComparison } from '../../analysis/trace/trace-compare.ts';
import type { TraceOptions, Tracer } from '../../analysis/trace/trace.ts';
import { Pipeline } from '../../model/pipeline.ts';
import { type ComparedSide, formatTraceComparison, traceComparisonJson } from '../../render/trace-compare.ts';
import type { TraceRenderOptions } from '../../render/trace.ts';
import { profiledTracer } from '../../analysis/trace/profiled-tracer.ts';
import { explainTrace } from '../../analysis/trace/trace-verdict.ts';
import type { Annotator } from '../../analysis/annotate/annotate.ts';
import { traceWords } from '../../render/trace-words.ts';
import { inputLabel } from '../../sources/input.ts';
import { type Io, UserError } from '../io.ts';
import type { LoadedDump } from '../load.ts';
import type { OutputForm } from '../output.ts';
import { loadFlows, type ProfileCliOptions } from './profile-options.ts';
import { withPolicyRules } from './policies.ts';

export interface CompareSourceOptions {
  compare?: string;
  compareNode?: string;
  comparePod?: string;
  compareLocal?: boolean;
  compareGroups?: string;
  brief?: boolean;
  expect?: string;
}

/** The options that go with a live switch, for whichever side is live. */
const LIVE_KEYS = ['namespace', 'container', 'kubeconfig', 'context', 'bridge', 'timeout'] as const;

/** Whether a second dump is asked for: a file or bundle (--compare), or a live switch (--compare-pod, --compare-local). */
export function comparing(opts: CompareSourceOptions): boolean {
  return opts.compare !== undefined || opts.comparePod !== undefined || opts.compareLocal === true;
}

function liveOf(opts: ProfileCliOptions): ProfileCliOptions {
  const out: Record<string, unknown> = {};
  for (const k of LIVE_KEYS) if (opts[k] !== undefined) out[k] = opts[k];
  return out as ProfileCliOptions;
}

/**
 * The options the first dump is read with: all of them, but for a live --compare side the live
 * options (--namespace, --bridge, …) go to the first dump only when it is live too.
 */
export function firstSideOptions<T extends ProfileCliOptions & CompareSourceOptions>(opts: T): T {
  const liveCompare = opts.comparePod !== undefined || opts.compareLocal === true;
  if (!liveCompare || opts.pod !== undefined || opts.local === true) return opts;
  const live = new Set<string>(LIVE_KEYS);
  return Object.fromEntries(Object.entries(opts).filter(([k]) => !live.has(k))) as T;
}

/** A pipeline traced, with how its traces are rendered and what it was read from. */
interface TracedDump {
  readonly tracer: Tracer;
  /** The profile the dump is read by, whose words explain its traces. */
  readonly annotator: Annotator;
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
  const sources = [
    opts.compare !== undefined ? '--compare' : '',
    opts.comparePod !== undefined ? '--compare-pod' : '',
    opts.compareLocal ? '--compare-local' : '',
  ].filter(Boolean);
  if (sources.length > 1) throw new UserError(`give one dump to compare with, not ${sources.join(' and ')}`);
  if (opts.compareNode !== undefined && opts.compare === undefined)
    throw new UserError('--compare-node goes with --compare');
  if (!comparing(opts)) {
    if (opts.compareGroups !== undefined)
      throw new UserError('--compare-groups goes with --compare, --compare-pod or --compare-local');
    return;
  }
  if (opts.brief)
    throw new UserError('--compare prints both traces side by side, one line per lookup: --brief does not apply');
  if (opts.expect !== undefined)
    throw new UserError('--compare exits 1 when the two traces differ: --expect does not apply');
  if (form === 'name') throw new UserError('--compare prints both traces side by side: -o name does not apply');
}

function label(dump: LoadedDump): string {
  return dump.sources.map(inputLabel).join(', ');
}

/** Reads the --compare dump (with --compare-node) and readies both sides for comparing. */
export async function loadCompared(
  opts: ProfileCliOptions & CompareSourceOptions,
  left: TracedDump,
  io: Io,
): Promise<Compared> {
  const live =
    opts.comparePod !== undefined
      ? { pod: opts.comparePod, ...liveOf(opts) }
      : opts.compareLocal
        ? { local: true, ...liveOf(opts) }
        : {};
  const rightOpts: ProfileCliOptions = {
    ...(opts.compareNode === undefined ? {} : { node: opts.compareNode }),
    ...(opts.compareGroups === undefined ? {} : { groups: opts.compareGroups }),
    ...live,
    ...(opts.strict === undefined ? {} : { strict: opts.strict }),
    ...(opts.maxErrors === undefined ? {} : { maxErrors: opts.maxErrors }),
    ...(opts.profile === undefined ? {} : { profile: opts.profile }),
    ...(opts.release === undefined ? {} : { release: opts.release }),
  };
  const { dump, groups } = await loadFlows(opts.compare === undefined ? [] : [opts.compare], rightOpts, io);
  const { tracer, annotator } = profiledTracer(new Pipeline(dump.flows, groups, dump.ports), rightOpts);
  // A compared bundle node names its conjunctions' rules by its own policy objects.
  const right: TracedDump = {
    tracer,
    annotator,
    render: withPolicyRules(traceWords(tracer, annotator, dump.protocols[0] ?? 10), dump, groups, rightOpts, io),
    dump,
  };
  const naming = namingFor(left.dump, dump, {});
  const sides: [ComparedSide, ComparedSide] = [
    { label: label(left.dump), render: left.render },
    { label: label(dump), render: right.render },
  ];
  return {
    right,
    compare: (l, r, options) =>
      compareTraces(
        { tracer: left.tracer, result: explainTrace(left.tracer.trace(l, options), left.annotator, left.tracer) },
        { tracer: right.tracer, result: explainTrace(right.tracer.trace(r, options), annotator, tracer) },
        naming,
      ),
    json: (c) => traceComparisonJson(c, ...sides),
    text: (c) => formatTraceComparison(c, ...sides),
  };
}
