/**
 * One bound on the trace work of a whole report. A report that traces many packets (diff
 * --impact's probes, check's loop search, trace --batch) keeps each trace within the trace's own
 * bounds (MAX_TRACE_STEPS), but a pipeline that loops or recirculates to those bounds on every
 * trace would multiply them by the report's changes, flows or packets. The report asks its
 * budget before each trace and stops tracing once it is spent, saying how much it left untraced;
 * the trace that spends it runs to its own end, so that no result is cut by the report's bound.
 */
import type { TraceResult } from './trace.ts';

/**
 * Trace steps (table lookups, actions and group buckets) one report may take: a thousand times
 * what a trace of an everyday pipeline takes (tens to hundreds), so that the reports of real
 * dumps are whole, and 24 traces run to the trace's own bound of 32,768 steps, which the
 * tracer runs through in well under a second.
 */
export const REPORT_TRACE_STEPS = 131_072;

/** A report's trace work: its bound, and the steps its traces took. */
export interface TraceWork {
  readonly limit: number;
  readonly spent: number;
}

export class TraceBudget {
  /** Steps the report may take. */
  readonly limit: number;
  private taken = 0;

  constructor(limit: number = REPORT_TRACE_STEPS) {
    this.limit = limit;
  }

  /** Steps taken by the traces charged so far (past the limit by at most the trace that spent it). */
  get spent(): number {
    return this.taken;
  }

  /** Whether the report must stop tracing. */
  get exhausted(): boolean {
    return this.taken >= this.limit;
  }

  /** The work so far, as a report gives it. */
  get work(): TraceWork {
    return { limit: this.limit, spent: this.taken };
  }

  /** Charges a trace's steps to the budget, and gives the trace back. */
  charge(result: TraceResult): TraceResult {
    this.taken += result.work;
    return result;
  }
}
