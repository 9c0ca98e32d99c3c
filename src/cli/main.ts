/**
 * The command line: commander wiring only. `main` returns the exit code instead of calling
 * process.exit, so pending writes to pipes are not cut off and tests can run it in-process.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ProfileChoiceError } from '../analysis/profile-choice.ts';
import { registerCheck } from './commands/check.ts';
import { registerBundle } from './commands/bundle.ts';
import { registerConj } from './commands/conj.ts';
import { registerDiff } from './commands/diff.ts';
import { registerFmt } from './commands/fmt.ts';
import { registerGraph } from './commands/graph.ts';
import { registerParse } from './commands/parse.ts';
import { registerShow } from './commands/show.ts';
import { registerTables } from './commands/tables.ts';
import { registerTrace } from './commands/trace.ts';
import { registerVerify } from './commands/verify.ts';
import { onceOnly } from './commands/repeatable.ts';
import { type Io, UserError, writeErr } from './io.ts';
import { Outcome } from './outcome.ts';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export function buildProgram(io: Io, outcome: Outcome = new Outcome()): Command {
  const program = new Command('flowscope');
  program
    .description('Read, explain, diff and trace Open vSwitch flow dumps of Kubernetes pipelines, offline')
    .version(version(), '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .exitOverride();
  registerParse(program, io);
  registerBundle(program, io);
  registerFmt(program, io);
  registerShow(program, io);
  registerTables(program, io);
  registerTrace(program, io);
  registerConj(program, io);
  registerDiff(program, io, outcome);
  registerVerify(program, io, outcome);
  registerCheck(program, io, outcome);
  registerGraph(program, io);
  for (const cmd of program.commands) {
    cmd.exitOverride();
    onceOnly(cmd);
  }
  return program;
}

/** Runs the command line; resolves to the exit status. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  const outcome = new Outcome();
  const program = buildProgram(io, outcome);
  // `help <name>` of a command that does not exist would print the general help as if asked for.
  const [first, asked] = argv;
  if (first === 'help' && asked !== undefined && !asked.startsWith('-') && !program.commands.some((c) => c.name() === asked)) {
    writeErr(io, `flowscope: unknown command '${asked}' (commands: ${program.commands.map((c) => c.name()).join(', ')})`);
    return 2;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help asked for and the version are successes; help shown because no command was given
      // (commander's exit code 1) is a usage error like every other: 2, since 1 means "differences".
      const success = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || (err.code === 'commander.help' && err.exitCode === 0);
      return success ? 0 : 2;
    }
    if (err instanceof UserError) {
      writeErr(io, `flowscope: ${err.message}`);
      return err.exitCode;
    }
    // --profile and --release name what the analysis is asked for: a request it refuses is a usage error.
    if (err instanceof ProfileChoiceError) {
      writeErr(io, `flowscope: ${err.message}`);
      return 2;
    }
    writeErr(io, `flowscope: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return 2;
  }
  return outcome.status;
}
