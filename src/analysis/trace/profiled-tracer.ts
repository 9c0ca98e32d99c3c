/**
 * A tracer for a pipeline read by its profile (given or detected): the profile numbers the
 * tables a dump names, so that a `--names` dump's groups that resubmit by number reach the named
 * tables, and its annotator gives the words a trace is told in. Detection and the annotator's
 * address roles read a per-table sample, so a dump of a million flows starts as fast as without
 * them; a table small enough is read whole.
 */
import type { Annotator } from '../annotate/annotate.ts';
import { samplePipeline } from '../detect/flow-sample.ts';
import { annotatePipeline, type ProfileRequest } from '../detect/profile-choice.ts';
import { Pipeline } from '../../model/pipeline.ts';
import { Tracer } from './trace.ts';

export interface ProfiledTracer {
  readonly tracer: Tracer;
  /** The pipeline's profile, as a trace is told in its words. */
  readonly annotator: Annotator;
}

export function profiledTracer(pipeline: Pipeline, request: ProfileRequest = {}): ProfiledTracer {
  const annotator = sampleAnnotator(pipeline, request);
  const numbering = annotator.tableNumbering();
  const tracer = new Tracer(numbering.size > 0 ? pipeline.withNumbering(numbering) : pipeline);
  return { tracer, annotator };
}

/** The annotator of the pipeline's profile (given or detected), read from a per-table sample. */
export function sampleAnnotator(pipeline: Pipeline, request: ProfileRequest = {}): Annotator {
  const flows = samplePipeline(pipeline);
  return annotatePipeline(new Pipeline(flows, [...pipeline.groups.values()], pipeline.ports), request).annotator;
}
