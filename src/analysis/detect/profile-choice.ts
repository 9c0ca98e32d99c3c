/**
 * The profile and release a dump is read by: given by name, or detected from the dump, with the
 * reasons for each; and the pipeline annotated by that choice. Shared by the commands that speak
 * the pipeline's words and by the library.
 */
import type { Flow, Group } from '../../model/flow.ts';
import { Pipeline } from '../../model/pipeline.ts';
import type { PortMap } from '../../model/ports.ts';
import type { TableRef } from '../../model/tables.ts';
import { listProfiles, type Profile } from '../../profiles/index.ts';
import { inVersion } from '../../profiles/versions.ts';
import type { Versioned } from '../../profiles/types.ts';
import { Annotator } from '../annotate/annotate.ts';
import { type DetectionReason, detectProfile, detectRelease, type ReleaseChoice } from './detect-profile.ts';
import { sampleFlows } from './flow-sample.ts';
import { ProblemError } from '../../model/problems.ts';

/**
 * What is asked for: a profile by id and a release (`1.2`); what is left out is detected.
 * `profiles` are the user's own, chosen among and detected like the built-in ones; one with a
 * built-in profile's id stands in for it.
 */
export interface ProfileRequest {
  readonly profile?: string;
  readonly release?: string;
  readonly profiles?: readonly Profile[];
}

/** The profiles a request chooses among: the user's first, then the built-in ones they do not replace. */
export function candidateProfiles(request: ProfileRequest): readonly Profile[] {
  const own = request.profiles ?? [];
  if (own.length === 0) return listProfiles();
  const ids = new Set(own.map((p) => p.id));
  return [...own, ...listProfiles().filter((p) => !ids.has(p.id))];
}

/** The release a dump is read in, and what the evidence leaves open. */
export interface ReleaseNote {
  readonly release?: string;
  /** The releases the evidence cannot tell apart, of which `release` is the one read in (detected releases only). */
  readonly releases?: Versioned;
  /** The dump predates the profile: its first release, the nearest the profile describes. */
  readonly olderThan?: string;
}

/** What detection found of the release, as a note says it. */
export function releaseNote(choice: ReleaseChoice | undefined): ReleaseNote {
  if (!choice) return {};
  return {
    release: choice.release,
    releases: choice.range,
    ...(choice.olderThan !== undefined ? { olderThan: choice.olderThan } : {}),
  };
}

/** Which profile explained the dump, and why. */
export interface ProfileNote extends ReleaseNote {
  readonly id: string;
  readonly title: string;
  /** `option` when given with --profile, else `detected`. */
  readonly source: 'option' | 'file' | 'detected';
  readonly reasons: readonly DetectionReason[];
}

export interface ProfileChoice {
  readonly profile: Profile;
  readonly release?: string;
  readonly note: ProfileNote;
}

/** Why a request cannot be met (render/words/profile.ts says it). */
export type ProfileChoiceProblem =
  /** No profile has the id asked for; `known` are the ids there are. */
  | { readonly kind: 'unknown-profile'; readonly profile: string; readonly known: readonly string[] }
  /** The profile given or detected does not describe the release asked for; `among` are the profiles there are. */
  | {
      readonly kind: 'release-not-described';
      readonly release: string;
      readonly how: 'given' | 'detected';
      readonly profile: ProfileReleases;
      readonly among: readonly ProfileReleases[];
    };

/** A profile's id and the releases it describes. */
export interface ProfileReleases {
  readonly id: string;
  readonly versions: Versioned;
}

/** An unknown profile, or a release the profile does not describe: `problem` says which, its message only as data. */
export class ProfileChoiceError extends ProblemError<ProfileChoiceProblem> {
  override readonly name = 'ProfileChoiceError';
}

const releasesOf = (p: Profile): ProfileReleases => ({ id: p.id, versions: p.versions });

/** A release the profile does not describe would read the flows by no table layout at all. */
function checkRelease(
  profile: Profile,
  release: string | undefined,
  how: 'given' | 'detected',
  among: readonly Profile[],
): void {
  if (release === undefined || inVersion(profile.versions, release)) return;
  throw new ProfileChoiceError({
    kind: 'release-not-described',
    release,
    how,
    profile: releasesOf(profile),
    among: among.map(releasesOf),
  });
}

/** The profile the request names, after checking its release; undefined when it is to be detected. */
export function givenProfile(request: ProfileRequest): Profile | undefined {
  if (request.profile === undefined) return undefined;
  const among = candidateProfiles(request);
  const chosen = among.find((p) => p.id === request.profile);
  if (!chosen)
    throw new ProfileChoiceError({ kind: 'unknown-profile', profile: request.profile, known: among.map((p) => p.id) });
  checkRelease(chosen, request.release, 'given', among);
  return chosen;
}

/**
 * The profile and release to read the flows by: those given, else detected from `flows` (all of
 * the dump, or a sample of it when time matters), with the reasons for each. Throws
 * ProfileChoiceError when the request cannot be met.
 */
export function chooseProfile(
  flows: readonly Flow[],
  groups: readonly Group[],
  ports: PortMap,
  request: ProfileRequest = {},
): ProfileChoice {
  const chosen = givenProfile(request);
  const among = candidateProfiles(request);
  const detected = chosen ? undefined : detectProfile(flows, groups, ports, { profiles: among });
  const picked = chosen ?? detected!.profile;
  if (!chosen) checkRelease(picked, request.release, 'detected', among);
  const releaseChoice =
    request.release === undefined
      ? detected
        ? detected.release
        : detectRelease(picked, flows, groups, ports)
      : undefined;
  const release = request.release ?? releaseChoice?.release;
  // Detection's reasons include those for its release, which a given release replaces.
  const releaseReasons =
    request.release !== undefined
      ? [{ kind: 'release-given' as const, release: request.release }]
      : (releaseChoice?.reasons ?? []);
  const detectedForRelease: readonly DetectionReason[] = detected?.release?.reasons ?? [];
  const profileReasons = (detected?.reasons ?? []).filter((r) => !detectedForRelease.includes(r));
  const note: ProfileNote = {
    id: picked.id,
    title: picked.title,
    ...(request.release !== undefined ? { release: request.release } : releaseNote(releaseChoice)),
    source: !chosen ? 'detected' : request.profiles?.includes(chosen) ? 'file' : 'option',
    reasons: [...profileReasons, ...releaseReasons],
  };
  return { profile: picked, ...(release !== undefined ? { release } : {}), note };
}

/** A pipeline with the annotator of its profile, and the note of which profile that is and why. */
export interface AnnotatedPipeline {
  readonly pipeline: Pipeline;
  readonly annotator: Annotator;
  readonly profile: ProfileNote;
}

/**
 * The pipeline read by the profile and release requested, or detected from all of its flows; the
 * pipeline returned knows the numbers of the tables it names (see Annotator.tableNumbering).
 */
export function annotatePipeline(pipeline: Pipeline, request: ProfileRequest = {}): AnnotatedPipeline {
  const choice = chooseProfile(pipeline.flows, [...pipeline.groups.values()], pipeline.ports, request);
  const annotator = new Annotator(pipeline, choice);
  const numbering = annotator.tableNumbering();
  return {
    pipeline: numbering.size > 0 ? pipeline.withNumbering(numbering) : pipeline,
    annotator,
    profile: choice.note,
  };
}

/**
 * The detected profile's names for the tables of a dump that gives them by number, for the
 * headings of a report (diff, verify); detected from a sample of each table, so that a large
 * dump costs little.
 */
export function profileTableNames(
  dump: {
    readonly flows: readonly Flow[];
    readonly groups: readonly Group[];
    readonly ports: PortMap;
  },
  request: ProfileRequest = {},
): (ref: TableRef) => string | undefined {
  const { annotator } = annotatePipeline(new Pipeline(sampleFlows(dump.flows), dump.groups, dump.ports), request);
  return (ref) => (ref.kind === 'number' ? annotator.tableInfo(ref).name : undefined);
}
