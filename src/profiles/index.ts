/** The registry of built-in pipeline profiles, read from their files on first use. */
import { readBuiltins } from './builtin.ts';
import type { Profile } from './types.ts';

export type * from './types.ts';
export { BUILTIN_IDS } from './builtin.ts';

let loaded: { readonly list: readonly Profile[]; readonly byId: ReadonlyMap<string, Profile> } | undefined;

function builtins(): NonNullable<typeof loaded> {
  if (loaded === undefined) {
    const list = readBuiltins();
    loaded = { list, byId: new Map(list.map((p) => [p.id, p])) };
  }
  return loaded;
}

/** Every built-in profile, in the order detection reports ties; the generic fallback comes last. */
export function listProfiles(): readonly Profile[] {
  return builtins().list;
}

export function profileById(id: string): Profile | undefined {
  return builtins().byId.get(id);
}

/**
 * The same list as `listProfiles()`, as a value: it reads the profile files when first used,
 * so that a command that needs no profile (`--version`, `fmt`) never reads them.
 */
export const PROFILES: readonly Profile[] = new Proxy([] as Profile[], {
  get: (_t, key) => Reflect.get(builtins().list, key),
  has: (_t, key) => Reflect.has(builtins().list, key),
  ownKeys: () => Reflect.ownKeys(builtins().list),
  getOwnPropertyDescriptor: (_t, key) => {
    const d = Reflect.getOwnPropertyDescriptor(builtins().list, key);
    return d && key === 'length' ? d : d && { ...d, configurable: true };
  },
});

export { compareVersions, inVersion, versionsOverlap } from './versions.ts';
export { loadProfileFile, parseProfileText, type LoadOptions, type ProfileLoad, type ProfileProblem } from './load.ts';
