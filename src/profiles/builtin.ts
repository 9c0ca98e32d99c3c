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

/** A value as JSON text, bigints as decimal strings. */
function json(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/** Profiles as JSON text, bigints as decimal strings. */
export function profilesJson(profiles: readonly Profile[]): string {
  return json(profiles);
}

/**
 * Members of a profile that detection does not read: it reads every built-in profile's `detect`
 * and `bitFields`, and these of few; the profile a dump is read by, and the commands that show
 * profiles, read them. The compiled file holds each as a JSON text of its own, parsed when first
 * read: parsing all of them was most of a command's reading of the profiles (the 240 KB file).
 */
const LATER_MEMBERS = ['tables', 'layouts', 'cookie', 'ctZones', 'addresses', 'ports', 'groups', 'check'] as const;

/**
 * The compiled file's text: a line of the profiles, in which each of LATER_MEMBERS is the number
 * of the line that holds it, then those lines. (A file of one line, the profiles whole, reads too.)
 */
export function compiledProfilesText(profiles: readonly Profile[]): string {
  const lines: string[] = [];
  const heads = profiles.map((p) => {
    const head: Record<string, unknown> = { ...p };
    for (const key of LATER_MEMBERS) {
      if (head[key] === undefined) continue;
      head[key] = lines.length + 1;
      lines.push(json(p[key]));
    }
    return head;
  });
  return [json(heads), ...lines].join('\n');
}

/** The named values of bit fields and cookie spans hold bigints, which JSON writes as strings. */
function reviveValues(spans: readonly { readonly values?: readonly { readonly value: bigint }[] }[]): void {
  for (const span of spans) {
    for (const v of span.values ?? []) (v as { value: bigint }).value = BigInt(v.value);
  }
}

/** Makes `target[key]` when first read, a data property from then on. */
function later(target: object, key: string, make: () => unknown): void {
  Object.defineProperty(target, key, {
    configurable: true,
    enumerable: true,
    get: () => {
      const value = make();
      Object.defineProperty(target, key, { value, configurable: true, enumerable: true, writable: true });
      return value;
    },
  });
}

/** The profiles of the compiled file's text (see compiledProfilesText). */
function readCompiled(text: string): Profile[] {
  const [head = '', ...lines] = text.split('\n');
  const profiles = JSON.parse(head) as Profile[];
  for (const p of profiles) {
    reviveValues(p.bitFields);
    if (p.cookie !== undefined && typeof p.cookie !== 'number') reviveValues(p.cookie);
    const members = p as unknown as Record<string, unknown>;
    for (const key of LATER_MEMBERS) {
      const at = members[key];
      if (typeof at === 'number') later(p, key, () => laterMember(key, lines[at - 1]!));
    }
  }
  return profiles;
}

/** A member of LATER_MEMBERS from its line. */
function laterMember(key: (typeof LATER_MEMBERS)[number], line: string): unknown {
  const value = JSON.parse(line) as unknown;
  if (key === 'cookie') reviveValues(value as NonNullable<Profile['cookie']>);
  return value;
}

/** The built-in profiles, from the compiled file when the build made one. */
export function readBuiltins(): readonly Profile[] {
  if (existsSync(COMPILED_FILE)) return readCompiled(readFileSync(COMPILED_FILE, 'utf8'));
  const { profiles, problems } = compileBuiltins();
  if (problems.length > 0) {
    const p = problems[0]!;
    throw new Error(`built-in profile ${p.file}:${p.line}:${p.col}: ${p.message}`);
  }
  return profiles;
}
