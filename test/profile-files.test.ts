/**
 * Profiles as YAML files. The built-in profiles are read from their files and must be the
 * profiles the TypeScript objects were before they became files (resolved to JSON in the golden
 * file, bigints as strings, at the commit it names), and every profile-driven output on the corpus
 * must be what the same build prints when it reads those recorded profiles instead.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compileBuiltins, profilesJson, readBuiltins } from '../src/profiles/builtin.ts';
import { profileById } from '../src/profiles/index.ts';
import { main } from '../src/cli/main.ts';
import { buildWithRecordedProfiles, corpusDumps, profileCommands, runOnDump } from './support/profile-outputs.ts';
import { repoRoot } from './support/paths.ts';

const golden = (name: string): unknown => JSON.parse(readFileSync(join(repoRoot, 'test', 'golden', name), 'utf8'));

test('profile files: each built-in profile read from its YAML file is the profile it was as TypeScript', () => {
  const before = golden('profiles-resolved.json') as { commit: string; profiles: { id: string }[] };
  const { profiles, problems } = compileBuiltins();
  assert.deepEqual(problems, []);
  const now = new Map((JSON.parse(profilesJson(profiles)) as { id: string }[]).map((p) => [p.id, p]));
  for (const p of before.profiles)
    assert.deepStrictEqual(now.get(p.id), p, `${p.id} differs from the profile at commit ${before.commit}`);
  // What commands read, the compiled file, is the same again, bigints included.
  assert.deepStrictEqual(readBuiltins(), profiles);
  assert.equal(typeof profileById('antrea-v1')!.bitFields[0]!.values![0]!.value, 'bigint');
});

test('profile files: every profile-driven output on the corpus is the output of the profiles before they became files', async () => {
  const before = await buildWithRecordedProfiles();
  try {
    const differing: string[] = [];
    let compared = 0;
    for (const dump of corpusDumps()) {
      for (const args of profileCommands()) {
        const [a, b] = [await runOnDump(main, dump, args), await runOnDump(before.main, dump, args)];
        if (JSON.stringify(a) !== JSON.stringify(b)) differing.push(`${args.join(' ')} on ${dump}`);
        compared++;
      }
    }
    assert.ok(compared >= 400, `${compared} outputs compared`);
    assert.deepEqual(differing, []);
  } finally {
    before.dispose();
  }
});
