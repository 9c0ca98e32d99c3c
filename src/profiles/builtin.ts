/**
 * The built-in profiles: one YAML file each in the package's profiles/ directory. `npm run build`
 * compiles them into one JSON file beside this module, so that a command reads them with one
 * JSON.parse instead of parsing thousands of lines of YAML; without it they are read from YAML.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadProfileFile, type ProfileProblem } from './load.ts';
import type { Profile } from './types.ts';

/** Built-in profile ids, in the order detection reports ties; the generic fallback comes last. */
export const BUILTIN_IDS = [
  'antrea',
  'antrea-proxy',
  'antrea-v1',
  'antrea-cnp',
  'antrea-policy-only',
  'openshift-sdn',
  'ovn-kubernetes-gateway',
  'generic',
] as const;

// Paths from any directory of dist/src/, so that they hold in the command line's bundle (dist/src/cli/) too.
export const BUILTIN_DIR = fileURLToPath(new URL('../../../profiles/', import.meta.url));
export const COMPILED_FILE = fileURLToPath(new URL('../profiles/builtin.json', import.meta.url));

/** Reads every built-in profile from its YAML file, resolving `extends:` among them. */
export function compileBuiltins(): {
  readonly profiles: readonly Profile[];
  readonly problems: readonly ProfileProblem[];
} {
  const done = new Map<string, Profile | undefined>();
  const problems: ProfileProblem[] = [];
  const load = (id: string): Profile | undefined => {
    if (done.has(id)) return done.get(id);
    done.set(id, undefined); // a profile that extends itself, directly or not, finds no base
    const r = loadProfileFile(`${BUILTIN_DIR}${id}.yaml`, { base: load });
    problems.push(...r.problems);
    done.set(id, r.profile);
    return r.profile;
  };
  const profiles = BUILTIN_IDS.map(load).filter((p): p is Profile => p !== undefined);
  return { profiles, problems };
}

/** Profiles as JSON text, bigints as decimal strings. */
export function profilesJson(profiles: readonly Profile[]): string {
  return JSON.stringify(profiles, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/** The named values of bit fields and cookie spans hold bigints, which JSON writes as strings. */
function revive(profiles: Profile[]): Profile[] {
  for (const p of profiles) {
    for (const span of [...p.bitFields, ...(p.cookie ?? [])]) {
      for (const v of span.values ?? []) (v as { value: bigint }).value = BigInt(v.value);
    }
  }
  return profiles;
}

/** The built-in profiles, from the compiled file when the build made one. */
export function readBuiltins(): readonly Profile[] {
  if (existsSync(COMPILED_FILE)) return revive(JSON.parse(readFileSync(COMPILED_FILE, 'utf8')) as Profile[]);
  const { profiles, problems } = compileBuiltins();
  if (problems.length > 0) {
    const p = problems[0]!;
    throw new Error(`built-in profile ${p.file}:${p.line}:${p.col}: ${p.message}`);
  }
  return profiles;
}
