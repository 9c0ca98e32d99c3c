/** `flowscope parse`: the typed model as JSON. */
import type { Command } from 'commander';
import { diagnosticJson, flowJson, groupJson, LazyList, SCHEMA_VERSION } from '../../render/json.ts';
import { type Io, writeJson } from '../io.ts';
import { addInputOptions, type InputCliOptions, loadFromOptions } from '../load.ts';

export function registerParse(program: Command, io: Io): void {
  const cmd = program
    .command('parse')
    .description('parse a dump and print the typed model as JSON')
    .argument('[inputs...]', 'dump-flows/dump-groups output, add-flows file or support bundle; - (or nothing) for standard input')
    .option('--json', 'print JSON (the default and only form of this command)');
  addInputOptions(cmd).action(async (inputs: string[], opts: InputCliOptions) => {
    const result = await loadFromOptions(inputs, opts, io);
    await writeJson(io, {
      schemaVersion: SCHEMA_VERSION,
      // Made as written: a million flows' JSON objects would not all fit in memory at once.
      flows: new LazyList(result.flows, flowJson),
      groups: result.groups.map(groupJson),
      diagnostics: result.diagnostics.map(diagnosticJson),
    });
  });
}
