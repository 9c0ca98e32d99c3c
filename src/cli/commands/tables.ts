/** `flowscope tables`: one row per table, with the tables the profile expects and the dump lacks. */
import type { Command } from 'commander';
import { summarizeTables } from '../../analysis/annotate/tables-summary.ts';
import { formatTables, tablesJson } from '../../render/tables.ts';
import { headStyle } from '../color.ts';
import type { Io } from '../io.ts';
import { wrapText } from '../../render/wrap.ts';
import { outputForm, writeReport } from '../output.ts';
import { dumpCommand, explainsProfile, loadAnnotated, type ProfileCliOptions } from './profile-options.ts';

/** `flowscope tables`, as its help tells it (dumpCommand). */
const TABLES = {
  name: 'tables',
  description:
    'one row per table: name, flows, packets, bytes, next tables, miss behaviour; tables the profile expects but the dump lacks',
  names: 'the tables of the dump, by name where they have one',
  explain: true,
};

export function registerCommand(program: Command, io: Io): void {
  dumpCommand(program, TABLES).action(async (inputs: string[], opts: ProfileCliOptions) => {
    const form = outputForm(opts);
    const { pipeline, annotator, profile } = await loadAnnotated(inputs, opts, io);
    const summary = summarizeTables(pipeline, annotator);
    await writeReport(io, form, {
      document: () => tablesJson(summary, profile),
      names: () =>
        [...pipeline.tables.values()].map((t) => {
          const info = annotator.tableInfo(t.ref);
          return info.name ?? String(info.number);
        }),
      // The table fits the width itself; the lines around it (the profile's) are wrapped.
      text: (width) =>
        wrapText(
          formatTables(summary, profile, headStyle(io, opts), {
            ...(width === undefined ? {} : { width }),
            explainProfile: explainsProfile(opts),
          }),
          width,
        ),
    });
  });
}
