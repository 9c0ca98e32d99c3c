/**
 * What a measurement is. Each runs alone in a fresh process (bench/measure.ts), so its peak RSS is
 * its own: `load` (untimed) imports the code under test and prepares the input, `run` is the timed
 * work and returns whatever must stay alive, `count` (untimed) reads figures and notes from it.
 */
import type { DumpParameters } from './generate.ts';

/** The inputs of one benchmark run, handed to every measurement process. */
export interface BenchContext {
  readonly params: DumpParameters;
  /** The synthetic dump. */
  readonly dump: string;
}

export interface Tally {
  /** Flows in the dump (or dumps) the work read. */
  readonly flows: number;
  /** Operations the timed work repeated (traces), when the figure that matters is per operation. */
  readonly operations?: number;
  /** Remarks worth showing beside the numbers (diagnostics, result sizes). */
  readonly note?: string;
  /** Why the work could not finish what it is judged on, though it ran (the time is then up to that point). */
  readonly failure?: string;
}

export interface MeasuredWork {
  run(): unknown;
  count(result: unknown): Tally;
}

export interface Measurement {
  readonly name: string;
  readonly label: string;
  /** What the timed part covers, for the legend. */
  readonly covers: string;
  load(context: BenchContext): Promise<MeasuredWork>;
}
