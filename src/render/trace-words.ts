/**
 * A trace in a pipeline's words: table names from the annotator of its profile
 * (analysis/trace/profiled-tracer gives it), actions spelt in the dump's OpenFlow version, and the
 * trace's bound. Why a trace ended where it did comes with the trace (analysis/trace/trace-verdict).
 */
import type { Tracer } from '../analysis/trace/trace.ts';
import type { Annotator } from '../analysis/annotate/annotate.ts';
import type { OfVersion } from '../model/openflow.ts';
import type { PortMap } from '../model/ports.ts';
import { type TraceRenderOptions, traceOutputBound } from './trace.ts';

/** How `flowscope trace` renders the traces of `tracer`, in `annotator`'s words, with actions spelt as in OpenFlow `of`. */
export function traceWords(tracer: Tracer, annotator: Annotator, of: OfVersion): TraceRenderOptions {
  return {
    ...annotatorTraceWords(annotator, of, tracer.ports.names),
    maxBytes: traceOutputBound(tracer.pipeline),
  };
}

/** Table names as `annotator` gives them. */
export function annotatorTraceWords(annotator: Annotator, of: OfVersion, portNames: PortMap): TraceRenderOptions {
  return {
    of,
    portNames,
    describeTable: (ref) => {
      const info = annotator.tableInfo(ref);
      if (ref.kind === 'name') return info.number === undefined ? undefined : `table ${info.number}`;
      return info.name;
    },
  };
}
