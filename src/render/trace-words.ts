/**
 * A trace in a pipeline's words: table names and the verdict's reason from the profile given or
 * detected, and the nearest flow of a drop by a table's miss.
 */
import { samplePipeline } from '../analysis/detect/flow-sample.ts';
import { missDrop } from '../analysis/trace/nearest-flow.ts';
import { annotatePipeline, type ProfileRequest } from '../analysis/detect/profile-choice.ts';
import { Tracer } from '../analysis/trace/trace.ts';
import type { Annotator } from '../analysis/annotate/annotate.ts';
import { explainVerdict } from '../analysis/trace/trace-verdict.ts';
import type { OfVersion } from '../model/openflow.ts';
import type { PortMap } from '../model/ports.ts';
import { Pipeline } from '../model/pipeline.ts';
import { type TraceRenderOptions, traceOutputBudget } from './trace.ts';

/**
 * A tracer for the pipeline and how `flowscope trace` renders its traces, with actions spelt as
 * in OpenFlow `of`. The profile (given or detected) numbers the tables the dump names, so that a
 * `--names` dump's groups that resubmit by number reach the named tables. Detection and the
 * annotator's address roles read a per-table sample, so a dump of a million flows starts as fast
 * as without them; a table small enough is read whole.
 */
export function traceWithWords(
  pipeline: Pipeline,
  of: OfVersion,
  request: ProfileRequest = {},
): { readonly tracer: Tracer; readonly render: TraceRenderOptions } {
  const annotator = sampleAnnotator(pipeline, request);
  const numbering = annotator.tableNumbering();
  const tracer = new Tracer(numbering.size > 0 ? pipeline.withNumbering(numbering) : pipeline);
  return { tracer, render: renderOptions(tracer, annotator, of) };
}

/** How `flowscope trace` renders the traces of `tracer` (see traceWithWords, which also numbers named tables). */
export function traceRenderOptions(tracer: Tracer, of: OfVersion, request: ProfileRequest = {}): TraceRenderOptions {
  return renderOptions(tracer, sampleAnnotator(tracer.pipeline, request), of);
}

function sampleAnnotator(pipeline: Pipeline, request: ProfileRequest): Annotator {
  const flows = samplePipeline(pipeline);
  return annotatePipeline(new Pipeline(flows, [...pipeline.groups.values()], pipeline.ports), request).annotator;
}

function renderOptions(tracer: Tracer, annotator: Annotator, of: OfVersion): TraceRenderOptions {
  return {
    ...annotatorTraceWords(annotator, of, tracer.ports.names),
    missDrop: (result) => missDrop(tracer, result),
    maxBytes: traceOutputBudget(tracer.pipeline),
  };
}

/** Table names and the verdict's reason as `annotator` gives them. */
export function annotatorTraceWords(annotator: Annotator, of: OfVersion, portNames: PortMap): TraceRenderOptions {
  return {
    of,
    portNames,
    describeTable: (ref) => {
      const info = annotator.tableInfo(ref);
      if (ref.kind === 'name') return info.number === undefined ? undefined : `table ${info.number}`;
      return info.name;
    },
    explain: (result) => explainVerdict(result, annotator),
  };
}
