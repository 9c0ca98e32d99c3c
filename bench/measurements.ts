/**
 * What the benchmark measures. Each measurement runs alone in a fresh process (bench/measure.ts), so
 * its peak RSS is its own; `load` (untimed) imports the code under test, `run` is the timed work and
 * returns whatever must stay alive, `count` (untimed) reads the flow count and notes from it.
 */
import { readFileSync } from 'node:fs';

export interface Tally {
  readonly flows: number;
  /** Diagnostics or other remarks worth showing beside the numbers. */
  readonly note?: string;
}

export interface Measurement {
  readonly name: string;
  readonly label: string;
  load(): Promise<MeasuredWork>;
}

export interface MeasuredWork {
  run(path: string): unknown;
  count(result: unknown): Tally;
}

/** The floor: what any reader must at least do — read the file and cut it into lines. */
const floor: Measurement = {
  name: 'floor',
  label: 'read + split lines (floor)',
  load: () =>
    Promise.resolve({
      run: (path: string): string[] => readFileSync(path, 'utf8').split('\n'),
      count: (result: unknown): Tally => {
        const lines = result as string[];
        let flows = 0;
        for (const line of lines) if (line.startsWith(' cookie=')) flows++;
        return { flows };
      },
    }),
};

/** flowscope's full typed parse of the dump into flows, groups, ports and diagnostics. */
const parse: Measurement = {
  name: 'parse',
  label: 'parseDump (typed model)',
  load: async () => {
    const { parseDump } = await import('../src/syntax/reader.ts');
    return {
      run: (path: string) => parseDump(readFileSync(path, 'utf8'), { file: path }),
      count: (result: unknown): Tally => {
        const parsed = result as ReturnType<typeof parseDump>;
        const errors = parsed.diagnostics.filter((d) => d.severity === 'error').length;
        const warnings = parsed.diagnostics.length - errors;
        const note = errors + warnings + parsed.badLines === 0 ? undefined : `${errors} errors, ${warnings} warnings, ${parsed.badLines} unreadable lines`;
        return note === undefined ? { flows: parsed.flows.length } : { flows: parsed.flows.length, note };
      },
    };
  },
};

export const MEASUREMENTS: readonly Measurement[] = [floor, parse];

export function measurementByName(name: string): Measurement | undefined {
  return MEASUREMENTS.find((m) => m.name === name);
}
