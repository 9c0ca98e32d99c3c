/**
 * The modules of the commands, each loaded when a command line needs it. Apart from main.ts, so
 * that the build can make a script of the command line with one command's module alone in place
 * of this one (scripts/bundle-cli.js): the script of every command holds every module of
 * `./commands/` the import's pattern can name.
 */
import type { Command } from 'commander';
import type { Io } from './io.ts';
import type { Outcome } from './outcome.ts';

/** What every module of `./commands/` that names a command exports. */
export interface CommandModule {
  registerCommand: (program: Command, io: Io, outcome: Outcome) => void;
}

/** How the command `name` is registered, from `./commands/<name>.ts`. */
export async function loadCommand(name: string): Promise<CommandModule['registerCommand']> {
  return ((await import(`./commands/${name}.ts`)) as CommandModule).registerCommand;
}
