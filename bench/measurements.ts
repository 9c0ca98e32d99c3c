/** The in-process measurements the benchmark gives as context, in the order it reports them; the floor comes first. */
import { readFileSync } from 'node:fs';
import { parseNote, traceSteadyState } from './analysis-measurements.ts';
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

/**
 * A second yardstick: the floor's work plus, for every flow line, the objects the typed model keeps
 * for a NetworkPolicy clause flow (`ip,nw_src=A actions=conjunction(…)`, most of the dump) — the flow,
 * its origin, its statistics and their duration text, its match, the match's entry list, the address
 * entry and its bigint — filled with constants instead of parsed values. No reader that builds an
 * object per flow can be faster, so it shows how much of a parse target object allocation alone
 * takes.
 */
const modelFloor: Measurement = {
  name: 'model-floor',
  label: 'floor + model objects, no parse',
  covers: 'the floor, then per flow line the objects parseDump keeps for a clause flow, with constant values',
  load: ({ dump }) =>
    Promise.resolve({
      run: (): unknown[] => {
        const lines = readFileSync(dump, 'utf8').split('\n');
        const ethType = { field: 'eth_type', value: 0x800n, mask: 0xffffn };
        const actions: readonly unknown[] = [];
        const flows: unknown[] = [];
        for (let i = 0; i < lines.length; i++) {
          const text = lines[i]!;
          if (!text.startsWith(' cookie=')) continue;
          const address = { field: 'nw_src', value: BigInt(i), mask: 0xffffffffn };
          const match = { fields: [ethType, address] };
          const stats = { duration: text.slice(30, 40), packets: 0n, bytes: 0n };
          const origin = { file: dump, line: i + 1, text, statsEnd: 80 };
          flows.push({
            table: 0,
            priority: 200,
            cookie: 0n,
            match,
            actions,
            idleTimeout: 0,
            hardTimeout: 0,
            importance: 0,
            flags: actions,
            stats,
            origin,
          });
        }
        return flows;
      },
      count: (result: unknown): Tally => ({ flows: (result as unknown[]).length }),
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

export const MEASUREMENTS: readonly Measurement[] = [floor, modelFloor, parse, traceSteadyState];

export function measurementByName(name: string): Measurement | undefined {
  return MEASUREMENTS.find((m) => m.name === name);
}
