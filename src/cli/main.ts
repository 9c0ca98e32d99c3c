/**
 * The command line: commander wiring only. `main` returns the exit code instead of calling
 * process.exit, so pending writes to pipes are not cut off and tests can run it in-process.
 */
import type { Command } from 'commander';
import { loadCommand } from './command-modules.ts';
import { ERROR_PREFIX, type Io, PROGRAM_PREFIX, UserError, writeErr, writeOut } from './io.ts';
import { Outcome } from './outcome.ts';
import { version, versionOnly } from './version.ts';

export { processTiering } from './tiering.ts';

/**
 * Every command, in the order help lists them; each is registered by `./commands/<name>.ts`. A run
 * loads only the module of the command it runs (see command-modules.ts): most of the start-up time
 * of a command is loading modules.
 */
const COMMANDS = [
  'parse',
  'bundle',
  'fmt',
  'show',
  'tables',
  'trace',
  'conj',
  'diff',
  'verify',
  'check',
  'graph',
  'profile',
  'completion',
] as const;

/**
 * The commands a command line needs registered: the one it names, none to print the version,
 * and every one for anything else (help, a mistyped command, which commander then suggests).
 */
function commandsFor(argv: readonly string[]): readonly string[] {
  const [first] = argv;
  if (first === '-V' || first === '--version') return [];
  // Completion lists every command.
  if (first === 'completion') return COMMANDS;
  if (first !== undefined && COMMANDS.some((name) => name === first)) return [first];
  return COMMANDS;
}

/** The program with the commands named (all of them by default) registered. */
export async function buildProgram(
  io: Io,
  outcome: Outcome = new Outcome(),
  commands: readonly string[] = COMMANDS,
): Promise<Command> {
  const [{ Command }, { inputGroupLast }, { onceOnly }] = await Promise.all([
    import('commander'),
    import('./help-groups.ts'),
    import('./commands/repeatable.ts'),
  ]);
  const program = new Command('flowscope');
  program
    .description('Read, explain, diff and trace Open vSwitch flow dumps of Kubernetes pipelines, offline')
    .version(version(), '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // commander's own messages ("error: unknown option …") get the prefix every error has.
      outputError: (s, write) => write(`${PROGRAM_PREFIX}${s}`),
    })
    .configureHelp({ groupItems: inputGroupLast })
    .exitOverride();
  const registers = await Promise.all(COMMANDS.filter((name) => commands.includes(name)).map(loadCommand));
  for (const register of registers) register(program, io, outcome);
  for (const cmd of program.commands) {
    for (const each of [cmd, ...cmd.commands]) {
      each.exitOverride();
      onceOnly(each);
    }
  }
  // The user's profiles are read, and refused with their problems, before a command reads any input.
  program.hook('preAction', async (_program, command) => {
    if (!command.options.some((o) => o.long === '--profile-file')) return;
    const { userProfiles } = await import('./profile-files.ts');
    command.setOptionValue(
      'profiles',
      await userProfiles((command.opts() as { profileFile?: string[] }).profileFile ?? [], io),
    );
  });
  return program;
}

/** Runs the command line; resolves to the exit status. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  // Asked by scripts and package managers, often: answered in the time node takes to start.
  if (versionOnly(argv)) {
    writeOut(io, `${version()}\n`);
    return 0;
  }
  const outcome = new Outcome();
  const program = await buildProgram(io, outcome, commandsFor(argv));
  // `help <name>` of a command that does not exist would print the general help as if asked for.
  const [first, asked] = argv;
  if (
    first === 'help' &&
    asked !== undefined &&
    !asked.startsWith('-') &&
    !program.commands.some((c) => c.name() === asked)
  ) {
    writeErr(
      io,
      `${ERROR_PREFIX}unknown command '${asked}' (commands: ${program.commands.map((c) => c.name()).join(', ')})`,
    );
    return 2;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (err) {
    const { CommanderError } = await import('commander');
    if (err instanceof CommanderError) {
      // Help asked for and the version are successes; help shown because no command was given
      // (commander's exit code 1) is a usage error like every other: 2, since 1 means "differences".
      const success =
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        (err.code === 'commander.help' && err.exitCode === 0);
      return success ? 0 : 2;
    }
    if (err instanceof UserError) {
      writeErr(io, `${ERROR_PREFIX}${err.message}`);
      return err.exitCode;
    }
    // --profile and --release name what the analysis is asked for: a request it refuses is a usage
    // error. Only the commands that read a profile load its module, so it is loaded here once needed.
    const { ProfileChoiceError } = await import('../analysis/detect/profile-choice.ts');
    if (err instanceof ProfileChoiceError) {
      const { profileChoiceProblemText } = await import('../render/words/profile.ts');
      writeErr(io, `${ERROR_PREFIX}${profileChoiceProblemText(err.problem)}`);
      return 2;
    }
    writeErr(io, `${ERROR_PREFIX}internal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return 2;
  }
  return outcome.status;
}
