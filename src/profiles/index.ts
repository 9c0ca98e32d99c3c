/** The registry of built-in pipeline profiles. */
import { antrea } from './antrea.ts';
import { antreaCnp } from './antrea-cnp.ts';
import { antreaPolicyOnly } from './antrea-policy-only.ts';
import { antreaProxy } from './antrea-proxy.ts';
import { antreaV1 } from './antrea-v1.ts';
import { generic } from './generic.ts';
import { openshiftSdn } from './openshift-sdn.ts';
import type { Profile } from './types.ts';

export type * from './types.ts';

/** Every built-in profile, in the order detection reports ties; the generic fallback comes last. */
export const PROFILES: readonly Profile[] = [antrea, antreaProxy, antreaV1, antreaCnp, antreaPolicyOnly, openshiftSdn, generic];

const byId = new Map(PROFILES.map((p) => [p.id, p]));

export function listProfiles(): readonly Profile[] {
  return PROFILES;
}

export function profileById(id: string): Profile | undefined {
  return byId.get(id);
}

export { compareVersions, inVersion, versionsOverlap } from './versions.ts';
export { loadProfileFile, parseProfileText, type LoadOptions, type ProfileLoad, type ProfileProblem } from './load.ts';
