/**
 * Profiles as YAML files. The built-in profiles are read from their files and must be the
 * profiles the TypeScript objects were before they became files (resolved to JSON in the golden
 * file, bigints as strings), and every profile-driven output on the corpus must be the output of
 * that commit (named in the golden file).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compileBuiltins, profilesJson, readBuiltins } from '../src/profiles/builtin.ts';
import { profileById } from '../src/profiles/index.ts';
import type { Profile } from '../src/profiles/types.ts';
import { commandKey, corpusDumps, outputDigest, profileCommands } from './support/profile-outputs.ts';
import { repoRoot } from './support/paths.ts';

/** Built-in profiles written only as YAML files. */
const FILE_BORN = ['ovn-kubernetes-gateway'];

const golden = (name: string): unknown => JSON.parse(readFileSync(join(repoRoot, 'test', 'golden', name), 'utf8'));

test('profile files: each built-in profile read from its YAML file is the profile it was as TypeScript', () => {
  const before = golden('profiles-resolved.json') as { commit: string; profiles: unknown[] };
  const { profiles: all, problems } = compileBuiltins();
  assert.deepEqual(problems, []);
  // The profiles first written as files (OVN-Kubernetes' gateway bridge) had no TypeScript form.
  const profiles = all.filter((p) => !FILE_BORN.includes(p.id));
  assert.deepEqual(all.map((p) => p.id).filter((id) => FILE_BORN.includes(id)), FILE_BORN);
  assert.deepEqual(
    profiles.map((p) => p.id),
    before.profiles.map((p) => (p as Profile).id),
  );
  const now = JSON.parse(profilesJson(profiles)) as unknown[];
  for (let i = 0; i < now.length; i++) assert.deepStrictEqual(now[i], before.profiles[i], `${profiles[i]!.id} differs from commit ${before.commit}`);
  // What commands read, the compiled file, is the same again, bigints included.
  assert.deepStrictEqual(readBuiltins(), all);
  assert.equal(typeof profileById('antrea-v1')!.bitFields[0]!.values![0]!.value, 'bigint');
});

test('profile files: every profile-driven output on the corpus is the output before profiles became files', async () => {
  const before = golden('profile-outputs.json') as { commit: string; outputs: Record<string, Record<string, string>> };
  const dumps = corpusDumps();
  assert.deepEqual(dumps, Object.keys(before.outputs).sort(), 'the corpus dumps are those the digests were taken of');
  const differing: string[] = [];
  for (const dump of dumps) {
    for (const args of profileCommands()) {
      const key = commandKey(args);
      const want = before.outputs[dump]![key];
      assert.ok(want !== undefined, `no digest of ${key} on ${dump}`);
      if ((await outputDigest(dump, args)) !== want) differing.push(`${key} ${dump}`);
    }
  }
  assert.deepEqual(differing, [], `outputs that differ from commit ${before.commit}`);
});
