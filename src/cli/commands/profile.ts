/**
 * `flowscope profile fit`: how well a profile covers a dump, table by table, for people writing
 * one. The profile is the one of --profile-file when one file is given, else the one --profile
 * names or detection picks, as every command chooses it.
 */
import type { Command } from 'commander';
import { profileFit } from '../../analysis/profile/profile-fit.ts';
import { profileFitJson, profileFitText } from '../../render/profile-fit.ts';
import { headStyle } from '../color.ts';
import type { Io } from '../io.ts';
import { profileCheckJson, profileCheckText } from '../../render/profile-check.ts';
import { readProfileFile } from '../profile-files.ts';
import type { Outcome } from '../outcome.ts';
import { addOutputOptions, type OutputCliOptions, outputForm, writeReport } from '../output.ts';
import { wrapText } from '../../render/wrap.ts';
import { dumpCommand, explainsProfile, loadAnnotated, type ProfileCliOptions } from './profile-options.ts';
import { flowName } from '../../render/flow.ts';

/** Unexplained flows a table shows in text fitted to a terminal; -o wide and a pipe show every one. */
const SHOWN_PER_TABLE = 10;

/** `flowscope profile fit`, as its help tells it (dumpCommand). */
const FIT = {
  name: 'fit',
  description:
    'how well a profile covers a dump: per table, the flows a pattern or the miss explains and those none explains, and the patterns no flow fits; exit 1 when a flow is unexplained',
  names: 'the flows no pattern explains, as table, priority and match',
  explain: true,
};

function registerFit(profile: Command, io: Io, outcome: Outcome): void {
  dumpCommand(profile, FIT).action(async (inputs: string[], opts: ProfileCliOptions) => {
    const form = outputForm(opts);
    // The profile being written is the one given as a file, when one is (the last of the user's profiles).
    const written = opts.profileFile?.length === 1 ? opts.profiles?.at(-1) : undefined;
    const request = opts.profile === undefined && written ? { ...opts, profile: written.id } : opts;
    const read = await loadAnnotated(inputs, request, io);
    const fit = profileFit(read);
    if (fit.misfits > 0) outcome.status = 1;
    await writeReport(io, form, {
      document: () => profileFitJson(fit, read.profile),
      names: () => fit.tables.flatMap((t) => t.misfits.map((m) => flowName(m.flow, read.pipeline.ports))),
      text: (width) => {
        const lines = profileFitText(fit, read.profile, headStyle(io, opts), {
          ...(width === undefined ? {} : { perTable: SHOWN_PER_TABLE }),
          explainProfile: explainsProfile(opts),
        });
        return wrapText(lines.join('\n'), width);
      },
    });
  });
}

function registerCheck(profile: Command, io: Io, outcome: Outcome): void {
  const cmd = profile
    .command('check')
    .description(
      'check profile files: the schema, placeholders that name no field, patterns that are not OVS syntax, tables referred to but not defined, patterns of a table that can never be told apart; exit 1 on errors',
    )
    .argument('<files...>', 'profile files (YAML)');
  addOutputOptions(cmd, 'the files with errors', { colour: false }).action(
    async (files: string[], opts: OutputCliOptions) => {
      const form = outputForm(opts);
      const diagnostics = (await Promise.all(files.map(async (f) => (await readProfileFile(f)).diagnostics))).flat();
      if (diagnostics.some((d) => d.severity === 'error')) outcome.status = 1;
      await writeReport(io, form, {
        document: () => profileCheckJson(diagnostics, files),
        names: () => files.filter((f) => diagnostics.some((d) => d.file === f && d.severity === 'error')),
        text: () => profileCheckText(diagnostics, files).join('\n'),
      });
    },
  );
}

export function registerCommand(program: Command, io: Io, outcome: Outcome): void {
  const profile = program
    .command('profile')
    .description('write and test profiles of your own: check one, fit one to a dump');
  registerCheck(profile, io, outcome);
  registerFit(profile, io, outcome);
}
