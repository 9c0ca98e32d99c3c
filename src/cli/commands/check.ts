/** `flowscope check`: pipeline defects for people and CI; exit 1 when any finding reaches --fail-on. */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { checkAnnotated, type Severity } from '../../analysis/check.ts';
import { SEVERITY_RANK } from '../../analysis/checks/finding.ts';
import { checkJson, type CheckStyle, formatCheck } from '../../render/check.ts';
import { stdoutChalk } from '../color.ts';
import { type Io, writeOut, writeJson } from '../io.ts';
import type { Outcome } from '../outcome.ts';
import { addProfileOptions, loadAnnotated, type ProfileCliOptions } from './profile-options.ts';

interface CheckCliOptions extends ProfileCliOptions {
  failOn: Severity;
}

/** The text report calls the least severity a note, the JSON info: either name is taken. */
function severityOption(value: string): Severity {
  if (value === 'note') return 'info';
  if (value !== 'error' && value !== 'warning' && value !== 'info') throw new InvalidArgumentError('expected error, warning or note');
  return value;
}

export function registerCheck(program: Command, io: Io, outcome: Outcome): void {
  const cmd = program
    .command('check')
    .description('report pipeline defects: dead flows, conjunction problems, missing tables and miss flows, unreachable tables and actions, duplicates, missing documented flows')
    .argument('[inputs...]', 'dump-flows output, add-flows file or support bundle; - (or nothing) for standard input');
  addProfileOptions(cmd)
    .addOption(new Option('--fail-on <severity>', 'exit 1 when a finding of this severity or worse is reported: error, warning or note').argParser(severityOption).default('error'))
    .action(async (inputs: string[], opts: CheckCliOptions) => {
      const read = await loadAnnotated(inputs, opts, io);
      const { annotator, profile } = read;
      const report = checkAnnotated(read);
      const wording = annotator.wording;
      if (opts.json) await writeJson(io, checkJson(report, wording, profile));
      else {
        const chalk = stdoutChalk(io, opts.color);
        const colour = { error: chalk.red.bold, warning: chalk.yellow, info: chalk.cyan };
        const style: CheckStyle = { severity: (s, text) => colour[s](text), dim: chalk.dim };
        writeOut(io, formatCheck(report, wording, profile, style));
      }
      if (report.findings.some((f) => SEVERITY_RANK[f.severity] <= SEVERITY_RANK[opts.failOn])) outcome.status = 1;
    });
}
