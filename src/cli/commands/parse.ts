/** `flowscope parse`: the typed model as JSON. */
import type { Command } from 'commander';
import { diagnosticJson, flowJson, groupJson, SCHEMA_VERSION, stringifyJson } from '../../render/json.ts';
import { type Io, writeOut } from '../io.ts';
import { loadDump } from '../load.ts';

export function registerParse(program: Command, io: Io): void {
  program
    .command('parse')
    .description('parse a dump and print the typed model as JSON')
    .argument('<file>', 'dump-flows/dump-groups output or add-flows file; - for standard input')
    .option('--json', 'print JSON (the default and only form of this command)')
    .option('--strict', 'exit 2 when any line cannot be read')
    .action(async (file: string, opts: { strict?: boolean }) => {
      const result = await loadDump(file, io, { strict: opts.strict ?? false });
      writeOut(
        io,
        stringifyJson({
          schemaVersion: SCHEMA_VERSION,
          flows: result.flows.map(flowJson),
          groups: result.groups.map(groupJson),
          diagnostics: result.diagnostics.map(diagnosticJson),
        }),
      );
    });
}
