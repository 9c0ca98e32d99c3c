/**
 * Options and loading shared by the commands that speak the pipeline's words (show, tables,
 * check, graph, trace, conj): the inputs every command reads, a groups file, and the profile and
 * release to read the flows by — given, or detected.
 */
import { type Command, InvalidArgumentError } from 'commander';
import {
  type AnnotatedPipeline,
  annotatePipeline,
  givenProfile,
  type ProfileRequest,
} from '../../analysis/detect/profile-choice.ts';
import type { Group } from '../../model/flow.ts';
import { Pipeline } from '../../model/pipeline.ts';
import { BUILTIN_IDS } from '../../profiles/index.ts';
import { type Io, UserError } from '../io.ts';
import { addInputOptions, type InputCliOptions, type LoadedDump, loadFromOptions, requireFlows } from '../load.ts';
import { addOutputOptions, type OutputCliOptions } from '../output.ts';
import { PROFILES_VARIABLE } from '../profile-files.ts';
import { repeatable } from './repeatable.ts';
import { flowsFromStdin } from './source-args.ts';

/**
 * --profile, --release and --profile-file as commander hands them over: the request for a
 * profile, with the user's profiles read from their files before the command runs (main's hook).
 */
export interface ProfileChoiceOptions extends ProfileRequest {
  profileFile?: string[];
}

export interface ProfileCliOptions
  extends InputCliOptions, ProfileChoiceOptions, OutputCliOptions, ExplainProfileOptions {
  groups?: string;
}

/** What the inputs of a command that reads one dump are. */
export const INPUTS_HELP = 'dump-flows output, add-flows file or support bundle; - (or nothing) for standard input';

const RELEASE = /^\d+(?:\.\d+)*$/;

/** A release as `1.2` or as agentinfo prints it, `v1.2.0`. */
function releaseOption(text: string): string {
  const release = text.replace(/^v/i, '');
  if (!RELEASE.test(release)) throw new InvalidArgumentError('expected a version such as 1.0 or v1.2.0');
  return release;
}

/** --profile, --release and --profile-file. */
export function addProfileChoiceOptions(cmd: Command): Command {
  return cmd
    .option(
      '--profile <id>',
      `pipeline profile to read the flows by (default: detected; ${BUILTIN_IDS.join(', ')}, or one of --profile-file)`,
    )
    .option(
      '--release <version>',
      'release of the product the dump comes from, e.g. 1.0 or v1.2.0 (default: detected)',
      releaseOption,
    )
    .option(
      '--profile-file <file>',
      `a profile of your own (YAML), detected like the built-in ones (repeatable; also every file of the directory ${PROFILES_VARIABLE} names)`,
      repeatable((f) => f),
    );
}

/** --explain-profile and -v, for the commands that print the profile line. */
export interface ExplainProfileOptions {
  explainProfile?: boolean;
  verbose?: boolean;
}

/** --explain-profile, and -v for it: every reason for the profile, under the profile line. */
export function addExplainProfileOptions(cmd: Command): Command {
  return cmd
    .option('--explain-profile', 'say every reason the profile was chosen for, under its line')
    .option('-v, --verbose', 'the same as --explain-profile');
}

export function explainsProfile(opts: ExplainProfileOptions): boolean {
  return opts.explainProfile === true || opts.verbose === true;
}

/**
 * The profile options, --groups, the output options (`names`: what -o name lists), every input
 * option, and --color/--no-color unless the command writes no text to colour (`colour: false`);
 * first --explain-profile and -v for a command that prints the profile line (`explain`).
 */
export function addProfileOptions(
  cmd: Command,
  names: string,
  { colour = true, explain = false }: { readonly colour?: boolean; readonly explain?: boolean } = {},
): Command {
  if (explain) addExplainProfileOptions(cmd);
  addProfileChoiceOptions(cmd).option('--groups <file>', 'dump-groups output to use with the flows');
  addOutputOptions(cmd, names, { colour });
  return addInputOptions(cmd);
}

/** A command that reads a dump by its profile, as its help tells it. */
export interface DumpCommandHelp {
  readonly name: string;
  /** What it does: its line in the help. */
  readonly description: string;
  /** What -o name lists. */
  readonly names: string;
  /** Whether it writes text to colour (the default), and prints the profile line (--explain-profile). */
  readonly colour?: boolean;
  readonly explain?: boolean;
}

/** The command `help` describes: `[inputs...]` and the options of addProfileOptions. */
export function dumpCommand(parent: Command, help: DumpCommandHelp): Command {
  const cmd = parent.command(help.name).description(help.description).argument('[inputs...]', INPUTS_HELP);
  return addProfileOptions(cmd, help.names, help);
}

export interface LoadedFlows {
  readonly dump: LoadedDump;
  /** The dump's groups and those of --groups. */
  readonly groups: readonly Group[];
}

/** Reads the inputs as every command does, and the --groups file with the inputs' port names. */
export async function loadFlows(inputs: readonly string[], opts: ProfileCliOptions, io: Io): Promise<LoadedFlows> {
  // A wrong --profile or --release is refused before a large dump is read.
  givenProfile(opts);
  if (opts.groups === '-' && flowsFromStdin(inputs, opts))
    throw new UserError('the flows and --groups cannot both come from standard input');
  const dump = await loadFromOptions(inputs, opts, io, opts.groups === undefined ? {} : { groups: opts.groups });
  requireFlows(dump);
  return { dump, groups: dump.groups };
}

/** Reads the inputs (and --groups), picks the profile and release, and builds the annotator. */
export async function loadAnnotated(
  inputs: string | readonly string[],
  opts: ProfileCliOptions,
  io: Io,
): Promise<AnnotatedPipeline> {
  const { dump, groups } = await loadFlows(typeof inputs === 'string' ? [inputs] : inputs, opts, io);
  return annotatePipeline(new Pipeline(dump.flows, groups, dump.ports), opts);
}
