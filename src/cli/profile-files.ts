/**
 * The user's own profiles: every YAML file of the directory FLOWSCOPE_PROFILES names (a team's
 * shared profiles), then each --profile-file, read and checked before a command reads any input.
 * A profile with errors stops the command with every error at its place in the file.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Profile } from '../profiles/types.ts';
import type { ProfileDiagnostic } from '../render/profile-check.ts';
import { type Io, UserError } from './io.ts';

export const PROFILES_VARIABLE = 'FLOWSCOPE_PROFILES';

const PROFILE_FILE = /\.ya?ml$/i;

/**
 * The profile files of the shared directory, by name. Profile files are small and read with
 * node:fs's synchronous calls, as the inputs are (sources/input.ts): every command that reads a
 * profile imports this module, and node:fs/promises would cost each the loading of its module.
 */
function sharedFiles(io: Io): string[] {
  const dir = io.env[PROFILES_VARIABLE];
  if (dir === undefined || dir === '') return [];
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UserError(`${PROFILES_VARIABLE} names ${dir}, which is not a directory of profile files`);
  return readdirSync(dir)
    .filter((f) => PROFILE_FILE.test(f))
    .sort()
    .map((f) => join(dir, f));
}

/** A profile file's text; one that cannot be read is the user's to fix. */
export async function profileText(file: string): Promise<string> {
  try {
    return readFileSync(file, 'utf8');
  } catch (caught) {
    const err = caught as NodeJS.ErrnoException;
    throw new UserError(
      `cannot read profile ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'it is a directory' : err.message}`,
    );
  }
}

/** A profile file's profile and every problem of it, each at its place. */
export async function readProfileFile(
  file: string,
): Promise<{ readonly profile?: Profile; readonly diagnostics: readonly ProfileDiagnostic[] }> {
  const text = await profileText(file);
  const [{ checkProfileFile }, { profileDiagnostics }] = await Promise.all([
    import('../analysis/profile/profile-check.ts'),
    import('../render/profile-check.ts'),
  ]);
  const check = checkProfileFile(text, file);
  return { ...(check.profile ? { profile: check.profile } : {}), diagnostics: profileDiagnostics(check) };
}

async function readProfile(file: string): Promise<Profile> {
  const { profile, diagnostics } = await readProfileFile(file);
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length === 0 && profile) return profile;
  const { formatDiagnostic } = await import('../render/diagnostics.ts');
  const shown = errors.map(formatDiagnostic).join('\n');
  throw new UserError(
    `profile ${file} has ${errors.length === 1 ? 'an error' : `${errors.length} errors`} (flowscope profile check ${file} says more):\n${shown}`,
  );
}

/** The user's profiles, in the order given (shared ones first); two of one id are refused. */
export async function userProfiles(files: readonly string[], io: Io): Promise<Profile[]> {
  const all = [...sharedFiles(io), ...files];
  const profiles: Profile[] = [];
  const from = new Map<string, string>();
  for (const file of all) {
    const profile = await readProfile(file);
    const before = from.get(profile.id);
    if (before !== undefined)
      throw new UserError(
        `${file}: profile id ${profile.id} is also the id of ${before}; give each profile its own id`,
      );
    from.set(profile.id, file);
    profiles.push(profile);
  }
  return profiles;
}
