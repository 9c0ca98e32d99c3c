/** `flowscope verify`: does a dump hold the expected flows? Exit 0 yes, 1 no, 2 trouble. */
import type { Command } from 'commander';
import { verifyDump } from '../../analysis/diff/verify.ts';
import { formatVerification, portNamingHint, verificationJson } from '../../render/diff.ts';
import { flowName } from '../../render/flow.ts';
import { type Io, notice, UserError } from '../io.ts';
import { wrapText } from '../../render/wrap.ts';
import { outputForm, writeReport } from '../output.ts';
import type { Outcome } from '../outcome.ts';
import {
  addCompareOptions,
  type CompareCliOptions,
  compareSides,
  diffStyle,
  loadSides,
  splitPositional,
} from './compare-options.ts';
import { profileTableNames } from '../../analysis/detect/profile-choice.ts';

interface VerifyCliOptions extends CompareCliOptions {
  expect: string;
  exact?: boolean;
}

export function registerCommand(program: Command, io: Io, outcome: Outcome): void {
  const cmd = program
    .command('verify')
    .description('check that a dump holds every expected flow with equivalent actions')
    .requiredOption('--expect <file>', 'flows that must be present, in add-flows syntax (or any dump)')
    .argument(
      '[actual...]',
      'dump or support bundle to check, with the files read with it (a show or dump-ports-desc output, a dump-groups output); - for standard input (or --bundle, --pod, --local)',
    )
    .option('--exact', 'also report flows of the dump, in the tables the expectation covers, that were not expected');
  const nodes = {
    most: 1,
    refusal: 'verify checks one dump against --expect: give --node once, for the node to check',
  };
  const names =
    'the expected flows not found as expected, as table, priority and match, after - (missing) or ~ (different); with --exact, + before those not expected';
  addCompareOptions(cmd, 'node of the bundle to check (given as input, or with --bundle)', nodes, names).action(
    async (actual: string[], opts: VerifyCliOptions) => {
      const form = outputForm(opts);
      // --node and the source options choose the dump checked; the expectation is one file. Files
      // after the dump are read with it, as every command reads its inputs; after a dump from the
      // source options, they name its ports.
      const [positional, rest] = splitPositional(actual, opts, 1);
      const [side] = await compareSides(positional, opts, 1, 'verify checks one dump', io);
      const fromFiles = positional.length > 0;
      const checked = fromFiles ? { ...side!, inputs: [...side!.inputs, ...rest] } : side!;
      const expectation = { inputs: [opts.expect], opts: opts.strict === undefined ? {} : { strict: opts.strict } };
      const { dumps, ports, labels, of } = await loadSides([expectation, checked], opts, io, {
        files: fromFiles ? [] : rest,
        what: 'verify checks one dump',
        dumps: 1,
      });
      const [expected, got] = dumps as [(typeof dumps)[0], (typeof dumps)[0]];
      // Nothing expected would pass whatever the dump holds.
      if (expected.flows.length === 0 && expected.groups.length === 0)
        throw new UserError(`${opts.expect}: no flows or groups to expect, so nothing to verify`);
      const verdict = verifyDump(expected, got, {
        ...(opts.cookies ? { cookies: true } : {}),
        ...(opts.exact ? { exact: true } : {}),
        ...(ports ? { ports } : {}),
      });
      const pair = labels as [string, string];
      await writeReport(io, form, {
        document: () => verificationJson(verdict, of),
        names: () =>
          verdict.tables.flatMap((t) => [
            ...t.missing.map((f) => `-${flowName(f, expected.ports)}`),
            ...t.mismatched.map((c) => `~${flowName(c.before, expected.ports)}`),
            ...t.unexpected.map((f) => `+${flowName(f, got.ports)}`),
          ]),
        text: (width) =>
          wrapText(
            formatVerification(verdict, {
              labels: pair,
              of,
              style: diffStyle(io, opts),
              ...(verdict.ok ? {} : { tableName: profileTableNames(got, opts) }),
            }),
            width,
          ),
      });
      if (verdict.portNamingGap) notice(io, portNamingHint(verdict.portNamingGap, pair), 'hint');
      outcome.status = verdict.ok ? 0 : 1;
    },
  );
}
