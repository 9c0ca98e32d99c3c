/**
 * Options and loading shared by the commands that speak the pipeline's words (show, tables,
 * check, graph, trace, conj): the inputs every command reads, a groups file, and the profile and
 * release to read the flows by — given, or detected.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { Annotator } from '../../analysis/annotate.ts';
import { detectProfile, detectRelease } from '../../analysis/detect-profile.ts';
import type { Flow, Group } from '../../model/flow.ts';
import { Pipeline } from '../../model/pipeline.ts';
import type { PortMap } from '../../model/ports.ts';
import { listProfiles, type Profile, profileById } from '../../profiles/index.ts';
import { inVersion, rangeText } from '../../profiles/versions.ts';
import type { ProfileNote } from '../../render/show.ts';
import { type Io, UserError } from '../io.ts';
import { addInputOptions, type InputCliOptions, type LoadedDump, loadDump, loadFromOptions } from '../load.ts';
import { flowsFromStdin } from './source-args.ts';

export interface ProfileChoiceOptions {
  profile?: string;
  release?: string;
}

export interface ProfileCliOptions extends InputCliOptions, ProfileChoiceOptions {
  groups?: string;
  json?: boolean;
  color?: boolean;
}

const RELEASE = /^\d+(?:\.\d+)*$/;

/** A release as `1.2` or as agentinfo prints it, `v1.2.0`. */
function releaseOption(text: string): string {
  const release = text.replace(/^v/i, '');
  if (!RELEASE.test(release)) throw new InvalidArgumentError('expected a version such as 1.0 or v1.2.0');
  return release;
}

/** --profile and --release. */
export function addProfileChoiceOptions(cmd: Command): Command {
  return cmd
    .option('--profile <id>', `pipeline profile to read the flows by (default: detected; ${listProfiles().map((p) => p.id).join(', ')})`)
    .option('--release <version>', 'release of the product the dump comes from, e.g. 1.0 or v1.2.0 (default: detected)', releaseOption);
}

/** A --release the profile does not describe would read the flows by no table layout at all. */
function checkRelease(profile: Profile, release: string | undefined, how: 'given' | 'detected'): void {
  if (release === undefined || inVersion(profile.versions, release)) return;
  const fix = how === 'given' ? '' : '; give --profile for the pipeline of that release';
  throw new UserError(`--release ${release}: the ${how} profile ${profile.id} describes ${rangeText(profile.versions)}${fix} (profiles: ${listProfiles().map((p) => `${p.id}, ${rangeText(p.versions)}`).join('; ')})`);
}

/**
 * The profile options, --groups, --json, --strict, every input option, and --color/--no-color
 * unless the command writes no text to colour (`colour: false`).
 */
export function addProfileOptions(cmd: Command, { colour = true }: { readonly colour?: boolean } = {}): Command {
  addProfileChoiceOptions(cmd)
    .option('--groups <file>', 'dump-groups output to use with the flows')
    .option('--json', 'print JSON (schemaVersion 1)');
  if (colour) cmd.option('--color', 'colour the output even when it is not a terminal').option('--no-color', 'never colour the output');
  cmd.option('--strict', 'exit 2 when any line cannot be read');
  return addInputOptions(cmd);
}

/** The profile --profile names, after checking --release; undefined when it is to be detected. */
export function givenProfile(opts: ProfileChoiceOptions): Profile | undefined {
  if (opts.profile === undefined) return undefined;
  const chosen = profileById(opts.profile);
  if (!chosen) throw new UserError(`unknown profile ${opts.profile} (known: ${listProfiles().map((p) => p.id).join(', ')})`);
  checkRelease(chosen, opts.release, 'given');
  return chosen;
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
  if (opts.groups === '-' && flowsFromStdin(inputs, opts)) throw new UserError('the flows and --groups cannot both come from standard input');
  const dump = await loadFromOptions(inputs, opts, io);
  if (opts.groups === undefined) return { dump, groups: dump.groups };
  const extra = await loadDump(opts.groups, io, { strict: opts.strict ?? false, portMap: dump.ports });
  return { dump, groups: [...dump.groups, ...extra.groups] };
}

export interface ProfileChoice {
  readonly profile: Profile;
  readonly release?: string;
  readonly note: ProfileNote;
}

/**
 * The profile and release to read the flows by: those given, else detected from `flows` (all of
 * the dump, or a sample of it when time matters), with the reasons for each.
 */
export function chooseProfile(flows: readonly Flow[], groups: readonly Group[], ports: PortMap, opts: ProfileChoiceOptions): ProfileChoice {
  const chosen = givenProfile(opts);
  const detected = chosen ? undefined : detectProfile(flows, groups, ports);
  const picked = chosen ?? detected!.profile;
  if (!chosen) checkRelease(picked, opts.release, 'detected');
  const releaseChoice = opts.release === undefined ? (detected ? detected.release : detectRelease(picked, flows, groups, ports)) : undefined;
  const release = opts.release ?? releaseChoice?.release;
  // Detection's reasons include those for its release, which --release replaces.
  const releaseReasons = opts.release !== undefined ? [`--release ${opts.release} was given`] : (releaseChoice?.reasons ?? []);
  const profileReasons = (detected?.reasons ?? []).filter((r) => !(detected?.release?.reasons ?? []).includes(r));
  const note: ProfileNote = {
    id: picked.id,
    title: picked.title,
    ...(release !== undefined ? { release } : {}),
    source: chosen ? 'option' : 'detected',
    reasons: [...profileReasons, ...releaseReasons],
  };
  return { profile: picked, ...(release !== undefined ? { release } : {}), note };
}

export interface LoadedPipeline {
  readonly pipeline: Pipeline;
  readonly annotator: Annotator;
  readonly profile: ProfileNote;
}

/** Reads the inputs (and --groups), picks the profile and release, and builds the annotator. */
export async function loadAnnotated(inputs: string | readonly string[], opts: ProfileCliOptions, io: Io): Promise<LoadedPipeline> {
  const { dump, groups } = await loadFlows(typeof inputs === 'string' ? [inputs] : inputs, opts, io);
  const choice = chooseProfile(dump.flows, groups, dump.ports, opts);
  const pipeline = new Pipeline(dump.flows, groups, dump.ports);
  const annotator = new Annotator(pipeline, { profile: choice.profile, ...(choice.release !== undefined ? { release: choice.release } : {}) });
  return { pipeline, annotator, profile: choice.note };
}
