/**
 * A trace in a pipeline's words: table names and the verdict's reason from the profile given or
 * detected, and the nearest flow of a drop by a table's miss.
 */
import { sampleFlows } from '../analysis/flow-sample.ts';
import { missDrop } from '../analysis/nearest-flow.ts';
import { annotatePipeline, type ProfileRequest } from '../analysis/profile-choice.ts';
import type { Tracer } from '../analysis/trace.ts';
import { explainVerdict } from '../analysis/trace-verdict.ts';
import type { OfVersion } from '../model/openflow.ts';
import { Pipeline } from '../model/pipeline.ts';
import type { TraceRenderOptions } from './trace.ts';

/**
 * How `flowscope trace` renders the traces of `tracer`, with actions spelt as in OpenFlow `of`.
 * Detection and the annotator's address roles read a per-table sample, so a dump of a million
 * flows starts as fast as without them; a table small enough is read whole.
 */
export function traceRenderOptions(tracer: Tracer, of: OfVersion, request: ProfileRequest = {}): TraceRenderOptions {
  const { pipeline } = tracer;
  const flows = sampleFlows([...pipeline.tables.values()].flatMap((t) => t.flows));
  const { annotator } = annotatePipeline(new Pipeline(flows, [...pipeline.groups.values()], pipeline.ports), request);
  return {
    of,
    portNames: tracer.ports.names,
    describeTable: (ref) => {
      const info = annotator.tableInfo(ref);
      if (ref.kind === 'name') return info.number === undefined ? undefined : `table ${info.number}`;
      return info.name;
    },
    explain: (result) => explainVerdict(result, annotator),
    missDrop: (result) => missDrop(tracer, result),
  };
}
