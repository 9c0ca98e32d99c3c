/**
 * Traces of one pipeline read two ways — a support bundle's `--names` flows with numbered groups,
 * and the plain numbered dump — put side by side, step by step, with table names turned into
 * the numbers the tracer resolved them to.
 */
import type { TraceResult, Tracer } from '../../src/analysis/trace/trace.ts';
import type { TableRef } from '../../src/model/tables.ts';

/** A table as its number: given, or the one the tracer's pipeline knows for its name. */
function tableNumberOf(tracer: Tracer, ref: TableRef): string {
  if (ref.kind === 'number') return String(ref.number);
  const n = tracer.pipeline.numbering.numberOf(ref.name);
  return n === undefined ? `?${ref.name}` : String(n);
}

/** Per pass, `table:priority` of each lookup (`miss` where no flow matched), then the verdict and outputs. */
export function traceOutline(tracer: Tracer, result: TraceResult): string[] {
  return [
    ...result.passes.map((p) =>
      p.steps.map((s) => `${tableNumberOf(tracer, s.table)}:${s.flow?.priority ?? 'miss'}`).join(' '),
    ),
    `${result.verdict} ${result.outputs.join(',')}`,
  ];
}
