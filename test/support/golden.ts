import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.ts';

/**
 * Compares text with a reviewed golden file in test/golden/. With FLOWSCOPE_UPDATE_GOLDEN=1 the
 * file is rewritten instead; a rewritten golden must be read line by line against the source
 * document before it is committed.
 */
export function assertGolden(name: string, actual: string): void {
  const path = join(repoRoot, 'test', 'golden', name);
  if (process.env.FLOWSCOPE_UPDATE_GOLDEN === '1' || !existsSync(path)) {
    writeFileSync(path, actual);
    if (process.env.FLOWSCOPE_UPDATE_GOLDEN !== '1')
      assert.fail(`${name}: golden file was missing and has been written; review it`);
    return;
  }
  assert.equal(actual, readFileSync(path, 'utf8'));
}
