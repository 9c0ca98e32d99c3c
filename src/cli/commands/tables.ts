/** `flowscope tables`: one row per table, with the tables the profile expects and the dump lacks. */
import type { Command } from 'commander';
import { summarizeTables } from '../../analysis/annotate/tables-summary.ts';
import { formatTables, tablesJson } from '../../render/tables.ts';
import { stdoutChalk } from '../color.ts';
import { type Io, writeOut } from '../io.ts';
import { wrapText } from '../../render/wrap.ts';
import { isDocumentForm, outputForm, textWidth, writeDocument, writeNames } from '../output.ts';
import {
  addExplainProfileOptions,
  addProfileOptions,
  explainsProfile,
  type ExplainProfileOptions,
  loadAnnotated,
  type ProfileCliOptions,
} from './profile-options.ts';

export function registerTables(program: Command, io: Io): void {
  const cmd = program
    .command('tables')
    .description(
      'one row per table: name, flows, packets, bytes, next tables, miss behaviour; tables the profile expects but the dump lacks',
    )
    .argument('[inputs...]', 'dump-flows output, add-flows file or support bundle; - (or nothing) for standard input');
  addProfileOptions(addExplainProfileOptions(cmd), 'the tables of the dump, by name where they have one').action(
    async (inputs: string[], opts: ProfileCliOptions & ExplainProfileOptions) => {
      const form = outputForm(opts);
      const { pipeline, annotator, profile } = await loadAnnotated(inputs, opts, io);
      const summary = summarizeTables(pipeline, annotator);
      if (isDocumentForm(form)) {
        await writeDocument(io, form, tablesJson(summary, profile));
        return;
      }
      if (form === 'name') {
        await writeNames(
          io,
          [...pipeline.tables.values()].map((t) => {
            const info = annotator.tableInfo(t.ref);
            return info.name ?? String(info.number);
          }),
        );
        return;
      }
      const c = stdoutChalk(io, opts.color);
      const width = textWidth(io, form);
      const style = { head: (s: string) => c.bold(s), warn: (s: string) => c.yellow(s), dim: (s: string) => c.dim(s) };
      // The table fits the width itself; the lines around it (the profile's) are wrapped.
      writeOut(
        io,
        wrapText(
          formatTables(summary, profile, style, {
            ...(width === undefined ? {} : { width }),
            explainProfile: explainsProfile(opts),
          }),
          width,
        ),
      );
    },
  );
}
