/** `flowscope parse`: the typed model as JSON. */
import type { Command } from 'commander';
import { diagnosticJson, flowJson, groupJson, LazyList, SCHEMA_VERSION } from '../../render/json.ts';
import { flowName } from '../../render/flow.ts';
import type { Io } from '../io.ts';
import { addInputOptions, type InputCliOptions, loadFromOptions } from '../load.ts';
import { addOutputOptions, type OutputCliOptions, outputForm, writeDocument, writeNames } from '../output.ts';

export function registerCommand(program: Command, io: Io): void {
  const cmd = program
    .command('parse')
    .description('parse a dump and print the typed model as JSON (or YAML)')
    .argument(
      '[inputs...]',
      'dump-flows/dump-groups output, add-flows file or support bundle; - (or nothing) for standard input',
    );
  addOutputOptions(cmd, 'the flows, as table, priority and match, and the groups', { colour: false });
  addInputOptions(cmd).action(async (inputs: string[], opts: InputCliOptions & OutputCliOptions) => {
    const form = outputForm(opts);
    const result = await loadFromOptions(inputs, opts, io);
    if (form === 'name') {
      await writeNames(io, [
        ...result.flows.map((f) => flowName(f, result.ports)),
        ...result.groups.map((g) => `group_id=${g.id}`),
      ]);
      return;
    }
    // JSON is this command's text: -o wide is JSON too.
    await writeDocument(io, form === 'yaml' ? 'yaml' : 'json', {
      schemaVersion: SCHEMA_VERSION,
      // Made as written: a million flows' JSON objects would not all fit in memory at once.
      flows: new LazyList(result.flows, flowJson),
      groups: result.groups.map(groupJson),
      diagnostics: result.diagnostics.map(diagnosticJson),
    });
  });
}
