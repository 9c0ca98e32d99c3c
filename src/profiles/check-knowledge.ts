/**
 * What `flowscope check` needs to know of a pipeline beyond its tables: the profile's `check:` data
 * (flows a stock agent installs for a feature that may be off, findings its design produces on
 * purpose), or nothing for a profile that gives none.
 */
import type { CheckKnowledge, Profile } from './types.ts';

export type { CheckKnowledge, DormantMark, KnownPattern } from './types.ts';

const NONE: CheckKnowledge = { dormant: [], known: [] };

export function checkKnowledge(profile: Profile): CheckKnowledge {
  return profile.check ?? NONE;
}
