/**
 * In-process measurements of the analyses on the synthetic dump, as context for the commands' rows.
 * Code under test is imported inside `load`, never at the top, so that a measurement process loads
 * only the modules its own work needs (peak RSS counts them).
 */
import { readFileSync } from 'node:fs';
import type { TraceResult } from '../src/analysis/trace/trace.ts';
import type { ParseResult } from '../src/syntax/reader.ts';
import type { Measurement, Tally } from './measurement.ts';
import { tracePackets } from './packets.ts';

/** Diagnostics worth a note; undefined when the dump read cleanly. */
export function parseNote(parsed: ParseResult): string | undefined {
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = parsed.diagnostics.length - errors;
  return errors + warnings + parsed.badLines === 0
    ? undefined
    : `${errors} errors, ${warnings} warnings, ${parsed.badLines} unreadable lines`;
}

async function parser(): Promise<(path: string) => ParseResult> {
  const { parseDump } = await import('../src/syntax/reader.ts');
  return (path) => parseDump(readFileSync(path, 'utf8'), { file: path });
}

/** Packets traced in the steady-state measurement, after the first. */
const STEADY_TRACES = 1000;

async function tracing() {
  const { Pipeline } = await import('../src/model/pipeline.ts');
  const { Tracer } = await import('../src/analysis/trace/trace.ts');
  const { PacketSpecError, parsePacketSpec } = await import('../src/analysis/trace/packet.ts');
  const packet = (spec: string) => {
    const parsed = parsePacketSpec(spec);
    if (!parsed.ok) throw new PacketSpecError(parsed.problem);
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

/** Many varied packets through a tracer that has already traced one. */
export const traceSteadyState: Measurement = {
  name: 'traces',
  label: `trace: ${STEADY_TRACES} packets`,
  covers: `${STEADY_TRACES} traces of varied packets (spec parsing included) after a first one`,
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
