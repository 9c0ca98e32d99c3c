/** Options and loading shared by `show` and `tables`: the dump, its port names, and the profile to read it with. */
import type { Command } from 'commander';
import { Annotator } from '../../analysis/annotate.ts';
import { detectProfile, detectRelease } from '../../analysis/detect-profile.ts';
import { Pipeline } from '../../model/pipeline.ts';
import { PortMap } from '../../model/ports.ts';
import { listProfiles, profileById } from '../../profiles/index.ts';
import type { ProfileNote } from '../../render/show.ts';
import { type Io, UserError } from '../io.ts';
import { loadDump } from '../load.ts';

export interface ProfileCliOptions {
  profile?: string;
  release?: string;
  ports?: string;
  groups?: string;
  json?: boolean;
  color?: boolean;
  strict?: boolean;
}

export function addProfileOptions(cmd: Command): Command {
  return cmd
    .option('--profile <id>', `pipeline profile to explain the flows by (default: detected; ${listProfiles().map((p) => p.id).join(', ')})`)
    .option('--release <version>', 'release of the product the dump comes from, e.g. 1.0 (default: detected)')
    .option('--ports <file>', '`ovs-ofctl show` or `dump-ports-desc` output: port numbers and names')
    .option('--groups <file>', 'dump-groups output to use with the flows')
    .option('--json', 'print JSON (schemaVersion 1)')
    .option('--color', 'colour the output even when it is not a terminal')
    .option('--no-color', 'never colour the output')
    .option('--strict', 'exit 2 when any line cannot be read');
}

export interface LoadedPipeline {
  readonly pipeline: Pipeline;
  readonly annotator: Annotator;
  readonly profile: ProfileNote;
}

/** Reads the dump (and port and group files), picks the profile and release, and builds the annotator. */
export async function loadAnnotated(file: string, opts: ProfileCliOptions, io: Io): Promise<LoadedPipeline> {
  const strict = { strict: opts.strict ?? false };
  const chosen = opts.profile === undefined ? undefined : profileById(opts.profile);
  if (opts.profile !== undefined && !chosen) {
    throw new UserError(`unknown profile ${opts.profile} (known: ${listProfiles().map((p) => p.id).join(', ')})`);
  }
  if (opts.release !== undefined && !/^\d+(?:\.\d+)*$/.test(opts.release)) throw new UserError(`--release: expected a version such as 1.0, not ${opts.release}`);
  const ports = new PortMap();
  if (opts.ports !== undefined) {
    const extra = (await loadDump(opts.ports, io, strict)).ports;
    if (extra.size === 0) throw new UserError(`${opts.ports}: no ports found (expected ovs-ofctl show or dump-ports-desc output)`);
    for (const [n, name] of extra.entries()) ports.set(n, name);
  }
  const dump = await loadDump(file, io, strict);
  for (const [n, name] of dump.ports.entries()) ports.set(n, name);
  const groups = [...dump.groups, ...(opts.groups === undefined ? [] : (await loadDump(opts.groups, io, strict)).groups)];

  let release: string | undefined = opts.release;
  const detected = chosen ? undefined : detectProfile(dump.flows, groups, ports);
  const picked = chosen ?? detected!.profile;
  const releaseChoice = release === undefined ? (detected ? detected.release : detectRelease(picked, dump.flows, groups, ports)) : undefined;
  release ??= releaseChoice?.release;
  // Detection's reasons include those for its release, which --release replaces.
  const releaseReasons = opts.release !== undefined ? [`--release ${opts.release} was given`] : (releaseChoice?.reasons ?? []);
  const profileReasons = (detected?.reasons ?? []).filter((r) => !(detected?.release?.reasons ?? []).includes(r));
  const reasons = [...profileReasons, ...releaseReasons];
  const profile: ProfileNote = { id: picked.id, title: picked.title, ...(release !== undefined ? { release } : {}), source: chosen ? 'option' : 'detected', reasons };
  const pipeline = new Pipeline(dump.flows, groups, ports);
  const annotator = new Annotator(pipeline, { profile: picked, ...(release !== undefined ? { release } : {}) });
  return { pipeline, annotator, profile };
}
