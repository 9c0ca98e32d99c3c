import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (tests run from dist/test/…). */
export const repoRoot = ((): string => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
})();

/** The shared data directory beside the repository. */
export const sharedDir = resolve(repoRoot, '..', 'shared');
export const corpusDir = join(sharedDir, 'corpus');
export const specDir = join(sharedDir, 'spec');
