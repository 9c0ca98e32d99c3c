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
  /** The same dump a while later (DumpParameters.changes), for the measurements that compare two. */
  readonly changed?: string;
}

export interface Tally {
  /** Flows in the dump (or dumps) the work read. */
  readonly flows: number;
  /** Operations the timed work repeated (traces), when the figure that matters is per operation. */
  readonly operations?: number;
  /** Wall time of the parts of the work, ms, in order. */
  readonly phases?: Readonly<Record<string, number>>;
  /** Remarks worth showing beside the numbers (diagnostics, result sizes). */
  readonly note?: string;
  /** Why the work could not finish what it is judged on, though it ran (the time is then up to that point). */
  readonly failure?: string;
  /** CPU and peak RSS of a child process that did the work, instead of this process's own. */
  readonly child?: { readonly cpuMs: number; readonly maxRssKiB: number };
}

export interface MeasuredWork {
  run(): unknown;
  count(result: unknown): Tally;
}

/** A time limit the product promises, for a dump of TARGET_FLOWS flows. */
export interface TimeTarget {
  readonly limitMs: number;
  /** Whether the limit applies to the whole timed work or to each operation of it. */
  readonly per: 'run' | 'operation';
}

export interface Measurement {
  readonly name: string;
  readonly label: string;
  /** What the timed part covers, for the legend. */
  readonly covers: string;
  readonly target?: TimeTarget;
  /** Needs BenchContext.changed. */
  readonly needsChanged?: boolean;
  load(context: BenchContext): Promise<MeasuredWork>;
}

/** The dump size the targets are stated for. */
export const TARGET_FLOWS = 1_000_000;
