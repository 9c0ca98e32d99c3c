/** `flowscope diff`: two dumps compared by meaning; exit 0 equal, 1 different, 2 trouble. */
import { addressLabelText } from '../../render/words/address.ts';
import { type Command, InvalidArgumentError } from 'commander';
import { diffDumps } from '../../analysis/diff/diff.ts';
import { dumpDiffJson, formatDumpDiff, formatPerTable, perTableJson, portNamingHint } from '../../render/diff.ts';
import { flowName } from '../../render/flow.ts';
import { type Io, notice, UserError } from '../io.ts';
import { DEFAULT_MAX_PROBES, diffImpact, type ImpactReport } from '../../analysis/impact/impact.ts';
import { profileTableNames, type ProfileRequest } from '../../analysis/detect/profile-choice.ts';
import type { DumpDiff } from '../../analysis/diff/diff.ts';
import { sideSample } from '../../analysis/diff/side-sample.ts';
import { Pipeline } from '../../model/pipeline.ts';
import type { OfVersion } from '../../model/openflow.ts';
import { formatImpact, impactJson, type ImpactWords } from '../../render/impact.ts';
import { type ProfiledTracer, profiledTracer } from '../../analysis/trace/profiled-tracer.ts';
import { traceWords } from '../../render/trace-words.ts';
import type { LoadedDump } from '../load.ts';
import { wrapText } from '../../render/wrap.ts';
import { outputForm, writeReport } from '../output.ts';
import type { Outcome } from '../outcome.ts';
import {
  addCompareOptions,
  type CompareCliOptions,
  compareSides,
  diffStyle,
  loadSides,
  shortLabels,
  splitPositional,
} from './compare-options.ts';

interface DiffCliOptions extends CompareCliOptions {
  perTable?: boolean;
  impact?: boolean;
  maxProbes?: number;
}

function probeCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError('expected a number of probes, 1 or more');
  return n;
}

export function registerCommand(program: Command, io: Io, outcome: Outcome): void {
  const cmd = program
    .command('diff')
    .description(
      'compare two dumps flow by flow (table, priority and match as the key), ignoring spelling, statistics and flow order',
    )
    .argument('[before]', 'dump, add-flows file or support bundle; - for standard input')
    .argument('[after]', 'dump, add-flows file or support bundle; - for standard input (or --bundle, --pod, --local)')
    .argument('[port-maps...]', 'show or dump-ports-desc output naming the ports of both dumps, as --ports does')
    .option(
      '--per-table',
      'print only counts: the flows of every table and the groups in both dumps, side by side, with those removed, added and changed',
    )
    .option(
      '--impact',
      "what the changes do to traffic: packets that reach each added, removed or changed flow or group, traced through both dumps; those whose path, verdict or output changed, by change, in the pipeline's words",
    )
    .option(
      '--max-probes <n>',
      `with --impact, probes traced through both dumps per change (default ${DEFAULT_MAX_PROBES})`,
      probeCount,
    );
  const nodeHelp =
    'node of the bundle inputs (one for all, or one each in order), or of --bundle: repeat it there to compare two nodes';
  const nodes = { most: 2, refusal: 'diff compares two dumps: give --node at most twice, once for each' };
  const names = 'the flows that differ, as table, priority and match, after - (removed), + (added) or ~ (changed)';
  addCompareOptions(cmd, nodeHelp, nodes, names).action(
    async (before: string | undefined, after: string | undefined, portMaps: string[], opts: DiffCliOptions) => {
      const form = outputForm(opts);
      if (opts.maxProbes !== undefined && !opts.impact) throw new UserError('--max-probes goes with --impact');
      if (opts.impact && opts.perTable) throw new UserError('give --impact or --per-table, not both');
      if (opts.impact && form === 'name')
        throw new UserError('--impact tells traffic, not flows: -o name does not apply');
      // What follows the dumps names the ports of both.
      const [positional, portFiles] = splitPositional(
        [before, after, ...portMaps].filter((p): p is string => p !== undefined),
        opts,
        2,
      );
      const sides = await compareSides(positional, opts, 2, 'diff compares two dumps', io);
      const cookies = opts.cookies === true;
      const { dumps, ports, labels, of } = await loadSides(
        sides,
        opts,
        io,
        { files: portFiles, what: 'diff compares two dumps', dumps: 2 },
        { cookies },
      );
      const [a, b] = dumps as [(typeof dumps)[0], (typeof dumps)[0]];
      const diff = diffDumps(a, b, {
        ...(cookies ? { cookies } : {}),
        ...(ports ? { ports } : {}),
      });
      const pair = labels as [string, string];
      const style = diffStyle(io, opts);
      const names = (): string[] =>
        diff.tables.flatMap((t) => [
          ...t.removed.map((f) => `-${flowName(f, a.ports)}`),
          ...t.added.map((f) => `+${flowName(f, b.ports)}`),
          ...t.changed.map((c) => `~${flowName(c.after, b.ports)}`),
        ]);
      if (opts.impact) {
        const { report, words } = traceImpact(diff, a, b, of, opts.maxProbes ?? DEFAULT_MAX_PROBES, opts);
        await writeReport(io, form, {
          document: () => impactJson(report, words),
          text: (width) => wrapText(formatImpact(report, words), width),
        });
      } else if (opts.perTable)
        await writeReport(io, form, {
          document: () => perTableJson(diff),
          names,
          text: (width) =>
            wrapText(
              formatPerTable(diff, {
                labels: shortLabels(pair),
                style,
                tableName: profileTableNames(sampled(b), opts),
                ...(width === undefined ? {} : { width }),
              }),
              width,
            ),
        });
      else
        await writeReport(io, form, {
          document: () => dumpDiffJson(diff, of),
          names,
          // Equal dumps print nothing, and need no profile to name their tables.
          text: (width) =>
            diff.equal
              ? ''
              : wrapText(
                  formatDumpDiff(diff, { labels: pair, of, style, tableName: profileTableNames(sampled(b), opts) }),
                  width,
                ),
        });
      if (diff.portNamingGap) notice(io, portNamingHint(diff.portNamingGap, pair), 'hint');
      outcome.status = diff.equal ? 0 : 1;
    },
  );
}

/** The dump with the flows its profile is detected from (see sideSample): those of a dump read along the other are made only there. */
function sampled(dump: LoadedDump): Parameters<typeof profileTableNames>[0] {
  return { flows: sideSample(dump), groups: dump.groups, ports: dump.ports };
}

/** Each dump traced in its pipeline's words (profile detected), the changes' probes through both. */
function traceImpact(
  diff: DumpDiff,
  a: LoadedDump,
  b: LoadedDump,
  of: OfVersion,
  maxProbes: number,
  request: ProfileRequest,
): { readonly report: ImpactReport; readonly words: ImpactWords } {
  const [before, after] = [a, b].map((d) => profiledTracer(new Pipeline(d.flows, d.groups, d.ports), request)) as [
    ProfiledTracer,
    ProfiledTracer,
  ];
  // Who an address belongs to, in the words of the profile detected for the tracer: detected once.
  const { annotator } = before;
  const report = diffImpact(diff, before.tracer, after.tracer, {
    maxProbes,
    annotators: { before: before.annotator, after: after.annotator },
  });
  return {
    report,
    words: {
      of,
      before: traceWords(before.tracer, before.annotator, of),
      after: traceWords(after.tracer, after.annotator, of),
      address: (field, value, mask) => {
        const label = annotator.addresses.label(field, value, mask);
        return label && addressLabelText(label);
      },
    },
  };
}
