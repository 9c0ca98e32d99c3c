/**
 * Measurements of the analyses, each as a command would run it on the synthetic dump. Code under
 * test is imported inside `load`, never at the top, so that a measurement process loads only the
 * modules its own work needs (peak RSS counts them).
 */
import { readFileSync } from 'node:fs';
import type { ConjunctionReport } from '../src/analysis/conjunctions.ts';
import type { ConjunctionWords } from '../src/render/conjunctions.ts';
import type { TraceResult } from '../src/analysis/trace.ts';
import type { ParseResult } from '../src/syntax/reader.ts';
import type { Measurement, Tally } from './measurement.ts';
import { tracePackets } from './packets.ts';
import { Phases } from './phases.ts';

/** Diagnostics worth a note; undefined when the dump read cleanly. */
export function parseNote(parsed: ParseResult): string | undefined {
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = parsed.diagnostics.length - errors;
  return errors + warnings + parsed.badLines === 0 ? undefined : `${errors} errors, ${warnings} warnings, ${parsed.badLines} unreadable lines`;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const MiB = (chars: number): string => `${(chars / 1024 ** 2).toFixed(1)} MiB`;

/** Characters of JSON the command writes, made piece by piece as it writes them. */
async function jsonWriter(): Promise<(value: unknown) => number> {
  const { jsonPieces } = await import('../src/render/json-stream.ts');
  return (value) => {
    let chars = 0;
    for (const piece of jsonPieces(value)) chars += piece.length;
    return chars;
  };
}

async function parser(): Promise<(path: string) => ParseResult> {
  const { parseDump } = await import('../src/syntax/reader.ts');
  return (path) => parseDump(readFileSync(path, 'utf8'), { file: path });
}

/**
 * `flowscope conj`, on a dump parsed beforehand: every conjunction rebuilt, the profile detected
 * for its words, then rendered by `renderer`'s function, which returns how many characters it made.
 */
function conjMeasurement(name: string, label: string, covers: string, renderer: () => Promise<(report: ConjunctionReport, words: ConjunctionWords) => number>): Measurement {
  return {
    name,
    label,
    covers,
    target: { limitMs: 5_000, per: 'run' },
    load: async ({ dump }) => {
      const parse = await parser();
      const { Pipeline } = await import('../src/model/pipeline.ts');
      const { findConjunctions } = await import('../src/analysis/conjunctions.ts');
      const { chooseProfile } = await import('../src/analysis/profile-choice.ts');
      const { Annotator } = await import('../src/analysis/annotate.ts');
      const { pipelineWords } = await import('../src/render/conjunction-words.ts');
      const render = await renderer();
      const t0 = performance.now();
      const parsed = parse(dump);
      const parseMs = performance.now() - t0;
      const phases = new Phases();
      return {
        run: () => {
          const pipeline = phases.time('pipeline', () => new Pipeline(parsed.flows, parsed.groups, parsed.ports));
          const report = phases.time('findConjunctions', () => findConjunctions(pipeline));
          const words = phases.time('profile', () => {
            // As the command does: detected, with the release that fits.
            const { profile, release } = chooseProfile(parsed.flows, parsed.groups, parsed.ports, {});
            return pipelineWords(new Annotator(pipeline, { profile, ...(release !== undefined ? { release } : {}) }));
          });
          const chars = phases.time('render', () => render(report, words));
          return { report, chars };
        },
        count: (result: unknown): Tally => {
          const { report, chars } = result as { report: ConjunctionReport; chars: number };
          const all = report.conjunctions;
          const problems = all.reduce((n, c) => n + c.problems.length, 0);
          const summary = `${all.length.toLocaleString('en-US')} conjunctions, ${problems.toLocaleString('en-US')} problems; parse before it took ${seconds(parseMs)}`;
          const tally = { flows: parsed.flows.length, phases: phases.record };
          return { ...tally, note: `${summary}, ${MiB(chars)} of output` };
        },
      };
    },
  };
}

/** `flowscope conj`: the text report. */
export const conjunctionsText = conjMeasurement('conj-text', 'conjunctions → text', 'Pipeline + findConjunctions + profile + the text report of every conjunction (the parse before it is not timed)', async () => {
  const { formatConjunctionReport } = await import('../src/render/conjunctions.ts');
  return (report, words) => formatConjunctionReport(report, words).length;
});

/** `flowscope conj --json`: the JSON report, which lists every clause flow of every dimension. */
export const conjunctions = conjMeasurement('conj', 'conjunctions → JSON', 'Pipeline + findConjunctions + profile + JSON text of every conjunction (the parse before it is not timed)', async () => {
  const { conjunctionReportJson } = await import('../src/render/conjunctions.ts');
  const toJson = await jsonWriter();
  return (report, words) => toJson(conjunctionReportJson(report, words));
});

/** `flowscope diff --json` on the dump and its later version: both parses, the comparison and the JSON. */
export const diff: Measurement = {
  name: 'diff',
  label: 'diff of two dumps → JSON',
  covers: 'read + parse both dumps + diffDumps + JSON text of the differences',
  target: { limitMs: 10_000, per: 'run' },
  needsChanged: true,
  load: async ({ dump, changed, params }) => {
    if (changed === undefined) throw new Error('diff needs the changed dump');
    const parse = await parser();
    const { diffDumps } = await import('../src/analysis/diff.ts');
    const { dumpDiffJson } = await import('../src/render/diff.ts');
    const toJson = await jsonWriter();
    const phases = new Phases();
    return {
      run: () => {
        const before = phases.time('parse before', () => parse(dump));
        const after = phases.time('parse after', () => parse(changed));
        const result = phases.time('diffDumps', () => diffDumps(before, after));
        const json = phases.time('JSON', () => toJson(dumpDiffJson(result, 13)));
        return { before, after, result, json };
      },
      count: (r: unknown): Tally => {
        const { before, after, result } = r as { before: ParseResult; after: ParseResult; result: ReturnType<typeof diffDumps> };
        const total = (k: 'added' | 'removed' | 'changed'): number => result.tables.reduce((n, t) => n + t[k].length, 0);
        const found = `${total('added')} added, ${total('removed')} removed, ${total('changed')} changed`;
        const expected = params.changes === undefined ? '' : ` (generated: ${params.changes} of each)`;
        return { flows: before.flows.length + after.flows.length, phases: phases.record, note: `${found}${expected}` };
      },
    };
  },
};

/** Packets traced in the steady-state measurement, after the first. */
const STEADY_TRACES = 1000;

async function tracing() {
  const { Pipeline } = await import('../src/model/pipeline.ts');
  const { Tracer } = await import('../src/analysis/trace.ts');
  const { parsePacketSpec } = await import('../src/analysis/packet.ts');
  const packet = (spec: string) => {
    const parsed = parsePacketSpec(spec);
    if (!parsed.ok) throw new Error(`bad packet ${spec}: ${parsed.error}`);
    return parsed.packet;
  };
  return { Pipeline, Tracer, packet };
}

/** Verdicts, and how many traces met a conjunction (the policy tables at work). */
function traceNote(results: readonly TraceResult[]): string {
  const verdicts = new Map<string, number>();
  let conjunctive = 0;
  for (const r of results) {
    verdicts.set(r.verdict, (verdicts.get(r.verdict) ?? 0) + 1);
    if (r.passes.some((p) => p.steps.some((s) => s.conjunction !== undefined))) conjunctive++;
  }
  return `${[...verdicts].map(([v, n]) => `${n} ${v}`).join(', ')}; ${conjunctive} matched a conjunction`;
}

/** `flowscope trace FILE PACKET` without printing: from the file to the first result. */
export const traceColdStart: Measurement = {
  name: 'trace-cold',
  label: 'trace: cold start',
  covers: 'read + parse + Pipeline + Tracer + the first trace',
  target: { limitMs: 5_000, per: 'run' },
  load: async ({ dump, params }) => {
    const parse = await parser();
    const { Pipeline, Tracer, packet } = await tracing();
    const [spec] = tracePackets(params, 1);
    const phases = new Phases();
    return {
      run: () => {
        const parsed = phases.time('parse', () => parse(dump));
        const tracer = phases.time('Pipeline + Tracer', () => new Tracer(new Pipeline(parsed.flows, parsed.groups, parsed.ports)));
        const result = phases.time('first trace', () => tracer.trace(packet(spec!)));
        return { parsed, result };
      },
      count: (r: unknown): Tally => {
        const { parsed, result } = r as { parsed: ParseResult; result: TraceResult };
        return { flows: parsed.flows.length, phases: phases.record, note: traceNote([result]) };
      },
    };
  },
};

/** Many varied packets through a tracer that has already traced one. */
export const traceSteadyState: Measurement = {
  name: 'trace',
  label: `trace: ${STEADY_TRACES} packets`,
  covers: `${STEADY_TRACES} traces of varied packets (spec parsing included) after a first one; the target is per trace`,
  target: { limitMs: 2, per: 'operation' },
  load: async ({ dump, params }) => {
    const parse = await parser();
    const { Pipeline, Tracer, packet } = await tracing();
    const [first, ...specs] = tracePackets(params, STEADY_TRACES + 1);
    const parsed = parse(dump);
    const tracer = new Tracer(new Pipeline(parsed.flows, parsed.groups, parsed.ports));
    tracer.trace(packet(first!));
    return {
      run: () => specs.map((spec) => tracer.trace(packet(spec))),
      count: (r: unknown): Tally => {
        const results = r as TraceResult[];
        return { flows: parsed.flows.length, operations: results.length, note: traceNote(results) };
      },
    };
  },
};

/** `flowscope check --json`: profile detected as the command does, every check, the JSON report. */
export const check: Measurement = {
  name: 'check',
  label: 'check → JSON',
  covers: 'read + parse + profile detection + checkPipeline + JSON report',
  target: { limitMs: 30_000, per: 'run' },
  load: async ({ dump }) => {
    const parse = await parser();
    const { Pipeline } = await import('../src/model/pipeline.ts');
    const { Annotator } = await import('../src/analysis/annotate.ts');
    const { checkPipeline } = await import('../src/analysis/check.ts');
    const { chooseProfile } = await import('../src/analysis/profile-choice.ts');
    const { checkJson } = await import('../src/render/check.ts');
    const toJson = await jsonWriter();
    const phases = new Phases();
    return {
      run: () => {
        const parsed = phases.time('parse', () => parse(dump));
        const choice = phases.time('detect profile', () => chooseProfile(parsed.flows, parsed.groups, parsed.ports, {}));
        const options = { profile: choice.profile, ...(choice.release === undefined ? {} : { release: choice.release }) };
        const pipeline = phases.time('Pipeline', () => new Pipeline(parsed.flows, parsed.groups, parsed.ports));
        const annotator = new Annotator(pipeline, options);
        const report = phases.time('checkPipeline', () => checkPipeline(pipeline, options));
        const json = phases.time('JSON', () => toJson(checkJson(report, annotator.wording, choice.note)));
        return { parsed, report, json, profile: choice.note };
      },
      count: (r: unknown): Tally => {
        const { parsed, report, profile } = r as { parsed: ParseResult; report: ReturnType<typeof checkPipeline>; profile: { id: string; release?: string } };
        const c = report.counts;
        return { flows: parsed.flows.length, phases: phases.record, note: `${profile.id} ${profile.release ?? ''}: ${c.error} errors, ${c.warning} warnings, ${c.info} infos` };
      },
    };
  },
};
