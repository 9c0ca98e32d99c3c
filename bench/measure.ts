/**
 * One measurement in a process of its own: `node --expose-gc dist/bench/measure.js NAME CONTEXT`,
 * CONTEXT being a BenchContext as JSON. Prints one JSON line (MeasurementSample). Peak RSS covers
 * the whole process, module loading included, which is what a user of the command line sees.
 */
import { performance } from 'node:perf_hooks';
import type { BenchContext } from './measurement.ts';
import { measurementByName } from './measurements.ts';

export interface MeasurementSample {
  readonly name: string;
  readonly flows: number;
  readonly wallMs: number;
  /** User + system CPU of the timed part (includes garbage-collector threads). */
  readonly cpuMs: number;
  /** Peak resident set size of the process, KiB. */
  readonly maxRssKiB: number;
  /** V8 heap in use after a full collection, with the result still alive, bytes. */
  readonly retainedHeapBytes?: number;
  /** Operations the timed work repeated, when the figure that matters is per operation. */
  readonly operations?: number;
  readonly note?: string;
  readonly failure?: string;
}

const collect = (): void => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) gc();
};

async function main(): Promise<void> {
  const [name, contextJson] = process.argv.slice(2);
  const measurement = name === undefined ? undefined : measurementByName(name);
  if (name === undefined || measurement === undefined || contextJson === undefined)
    throw new Error('usage: measure.js NAME CONTEXT');
  const context = JSON.parse(contextJson) as BenchContext;
  const work = await measurement.load(context);
  collect();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = work.run();
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const maxRssKiB = process.resourceUsage().maxRSS;
  const tally = work.count(result);
  collect();
  const retainedHeapBytes = process.memoryUsage().heapUsed;
  const sample: MeasurementSample = {
    name,
    flows: tally.flows,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    maxRssKiB,
    retainedHeapBytes,
    ...(tally.operations === undefined ? {} : { operations: tally.operations }),
    ...(tally.note === undefined ? {} : { note: tally.note }),
    ...(tally.failure === undefined ? {} : { failure: tally.failure }),
  };
  // Keep the result reachable until the heap has been measured.
  if (result === null) console.error('no result');
  process.stdout.write(`${JSON.stringify(sample)}\n`);
}

await main();
