/** Every measurement the benchmark knows, in the order it reports them; the floor comes first. */
import { readFileSync } from 'node:fs';
import { check, conjunctions, conjunctionsText, diff, parseNote, traceColdStart, traceSteadyState } from './analysis-measurements.ts';
import { cliFmt } from './cli-measurement.ts';
import type { Measurement, Tally } from './measurement.ts';

/** The floor: what any reader must at least do — read the file and cut it into lines. */
const floor: Measurement = {
  name: 'floor',
  label: 'read + split lines (floor)',
  covers: 'readFileSync + split on newlines: the least any reader does',
  load: ({ dump }) =>
    Promise.resolve({
      run: (): string[] => readFileSync(dump, 'utf8').split('\n'),
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
  covers: 'read + parseDump into flows, groups, ports and diagnostics',
  load: async ({ dump }) => {
    const { parseDump } = await import('../src/syntax/reader.ts');
    return {
      run: () => parseDump(readFileSync(dump, 'utf8'), { file: dump }),
      count: (result: unknown): Tally => {
        const parsed = result as ReturnType<typeof parseDump>;
        const note = parseNote(parsed);
        return note === undefined ? { flows: parsed.flows.length } : { flows: parsed.flows.length, note };
      },
    };
  },
};

export const MEASUREMENTS: readonly Measurement[] = [floor, parse, conjunctionsText, conjunctions, diff, traceColdStart, traceSteadyState, check, cliFmt];

export function measurementByName(name: string): Measurement | undefined {
  return MEASUREMENTS.find((m) => m.name === name);
}
