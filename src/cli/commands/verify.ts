/** `flowscope verify`: does a dump hold the expected flows? Exit 0 yes, 1 no, 2 trouble. */
import type { Command } from 'commander';
import { verifyDump } from '../../analysis/verify.ts';
import { formatVerification, verificationJson } from '../../render/diff.ts';
import { stringifyJson } from '../../render/json.ts';
import { type Io, writeOut } from '../io.ts';
import type { Outcome } from '../outcome.ts';
import { addCompareOptions, type CompareCliOptions, diffStyle, displayVersion, loadInputs } from './compare-options.ts';

interface VerifyCliOptions extends CompareCliOptions {
  expect: string;
  exact?: boolean;
}

export function registerVerify(program: Command, io: Io, outcome: Outcome): void {
  const cmd = program
    .command('verify')
    .description('check that a dump holds every expected flow with equivalent actions')
    .requiredOption('--expect <file>', 'flows that must be present, in add-flows syntax (or any dump)')
    .argument('<actual>', 'dump to check; - for standard input')
    .option('--exact', 'also report flows of the dump, in the tables the expectation covers, that were not expected');
  addCompareOptions(cmd).action(async (actual: string, opts: VerifyCliOptions) => {
    const { dumps, ports } = await loadInputs([opts.expect, actual], opts, io);
    const [expected, got] = dumps as [(typeof dumps)[0], (typeof dumps)[0]];
    const verdict = verifyDump(expected, got, {
      ...(opts.cookies ? { cookies: true } : {}),
      ...(opts.exact ? { exact: true } : {}),
      ...(ports ? { ports } : {}),
    });
    const of = displayVersion(opts, dumps);
    const labels = [opts.expect === '-' ? '<stdin>' : opts.expect, actual === '-' ? '<stdin>' : actual] as const;
    if (opts.json) writeOut(io, stringifyJson(verificationJson(verdict, of)));
    else writeOut(io, formatVerification(verdict, { labels, of, style: diffStyle(io, opts) }));
    outcome.status = verdict.ok ? 0 : 1;
  });
}
