/** `flowscope check`: pipeline defects for people and CI; exit 1 when any finding reaches --fail-on. */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { checkAnnotated, type FindingKind, type Severity } from '../../analysis/check/check.ts';
import { selectFindings } from '../../analysis/check/check-view.ts';
import { SEVERITY_RANK } from '../../analysis/check/finding.ts';
import { checkJson, checkLines, type CheckStyle } from '../../render/check.ts';
import { stdoutChalk } from '../color.ts';
import { readInput } from '../input.ts';
import { flowName } from '../../render/flow.ts';
import { tableLabel } from '../../model/tables.ts';
import { type Io, lines, UserError } from '../io.ts';
import { wrapLines } from '../../render/wrap.ts';
import { outputForm, writeReport } from '../output.ts';
import type { Outcome } from '../outcome.ts';
import { dumpCommand, loadFlows, type ProfileCliOptions } from './profile-options.ts';
import { policyMatching } from './policies.ts';
import { annotatePipeline } from '../../analysis/detect/profile-choice.ts';
import { type ConjunctionReport, findConjunctions } from '../../analysis/conjunctions/conjunctions.ts';
import { Pipeline } from '../../model/pipeline.ts';
import { repeatable } from './repeatable.ts';
import { LARGE_CHECK_FLOWS, Progress } from '../progress.ts';

interface CheckCliOptions extends ProfileCliOptions {
  failOn: Severity;
  all?: boolean;
  kind?: string[][];
  table?: string[];
  baseline?: string;
}

const KINDS: readonly FindingKind[] = [
  'shadowed',
  'unset-register',
  'conjunction',
  'conjunction-table',
  'empty-target',
  'unreachable-table',
  'no-table-miss',
  'dead-actions',
  'duplicate',
  'missing-expected',
  'bucket-no-endpoint',
  'forwarding-loop',
  'unknown-tunnel-destination',
  'no-route',
  'no-spoof-guard',
  'policy-unexplained',
  'policy-unimplemented',
];

/** The text report calls the least severity a note, the JSON info: either name is taken. */
function severityOption(value: string): Severity {
  if (value === 'note') return 'info';
  if (value !== 'error' && value !== 'warning' && value !== 'info')
    throw new InvalidArgumentError('expected error, warning or note');
  return value;
}

function kindList(value: string): string[] {
  const kinds = value.split(',').map((k) => k.trim());
  for (const k of kinds)
    if (!(KINDS as readonly string[]).includes(k))
      throw new InvalidArgumentError(`expected one of ${KINDS.join(', ')}`);
  return kinds;
}

/** The finding keys of a saved `check --json` report. */
async function baselineKeys(file: string, io: Io): Promise<Set<string>> {
  const { text } = await readInput(file, io);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UserError(`${file}: not a check --json report (not JSON)`);
  }
  const findings = (parsed as { findings?: unknown }).findings;
  if (!Array.isArray(findings) || !findings.every((f) => typeof (f as { key?: unknown }).key === 'string')) {
    throw new UserError(`${file}: not a check --json report (expected findings, each with a key)`);
  }
  return new Set(findings.map((f) => (f as { key: string }).key));
}

export function registerCommand(program: Command, io: Io, outcome: Outcome): void {
  dumpCommand(program, {
    name: 'check',
    description:
      'report pipeline defects: dead flows, conjunction problems, missing tables and miss flows, unreachable tables and actions, duplicates, missing documented flows, Service endpoints without flows, forwarding loops',
    names: 'each finding as KIND/FLOW, the flow as table, priority and match, or KIND/table=TABLE',
  })
    .addOption(
      new Option(
        '--fail-on <severity>',
        'exit 1 when a finding of this severity or worse is reported: error, warning or note',
      )
        .argParser(severityOption)
        .default('error'),
    )
    .option('--all', 'also report the findings the profile documents as by design')
    .option(
      '--kind <kind>',
      `only findings of this kind (repeatable, or comma-separated): ${KINDS.join(', ')}`,
      repeatable(kindList),
    )
    .option(
      '--table <table>',
      'only findings in this table, by number or name (repeatable)',
      repeatable((t) => t),
    )
    .option(
      '--baseline <file>',
      'a saved check --json report of the same node: report, and fail on, only findings it does not hold',
    )
    .action(async (inputs: string[], opts: CheckCliOptions) => {
      const form = outputForm(opts);
      const baseline = opts.baseline === undefined ? undefined : await baselineKeys(opts.baseline, io);
      const { dump, groups } = await loadFlows(inputs, opts, io);
      const read = annotatePipeline(new Pipeline(dump.flows, groups, dump.ports), opts);
      const { annotator, profile } = read;
      // Found once: to match them to the policy objects, then checked.
      let conjunctions: ConjunctionReport | undefined;
      const policies = policyMatching(dump, io, () => ({
        read,
        conjunctions: (conjunctions = findConjunctions(read.pipeline)).conjunctions,
      }));
      const progress = new Progress(io, read.pipeline.flowCount >= LARGE_CHECK_FLOWS);
      const report = progress.around('checking', (onProgress) =>
        checkAnnotated(read, policies, {
          ...(onProgress ? { onProgress } : {}),
          ...(conjunctions ? { conjunctions } : {}),
        }),
      );
      const view = selectFindings(report, {
        ...(opts.all ? { all: true } : {}),
        ...(opts.kind ? { kinds: opts.kind.flat() } : {}),
        ...(opts.table ? { tables: opts.table } : {}),
        ...(baseline ? { baseline } : {}),
      });
      const wording = annotator.wording;
      const subject = (f: (typeof report.findings)[number]): string => {
        const flow = f.flows[0];
        if (flow !== undefined) return flowName(flow, read.pipeline.ports);
        return f.table === undefined ? '' : `table=${tableLabel(f.table)}`;
      };
      await writeReport(io, form, {
        document: () => checkJson(report, wording, profile, view),
        names: () => view.findings.map((f) => `${f.kind}/${subject(f)}`),
        text: (width) => {
          const chalk = stdoutChalk(io, opts.color);
          const colour = { error: chalk.red.bold, warning: chalk.yellow, info: chalk.cyan };
          const style: CheckStyle = { severity: (s, text) => colour[s](text), dim: chalk.dim };
          return lines(wrapLines(checkLines(report, wording, profile, style, view), width));
        },
      });
      if (view.findings.some((f) => SEVERITY_RANK[f.severity] <= SEVERITY_RANK[opts.failOn])) outcome.status = 1;
    });
}
