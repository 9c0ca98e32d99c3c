/**
 * A generated Antrea 2.x node (AntreaProxy, Services, NetworkPolicy tiers, Egress): the bench
 * generator's dump, whose flows a real switch loads and dumps back as generated (see
 * bench-generate.test.ts), small enough for a test.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDump } from '../../bench/generate.ts';

export function generatedAntrea2Node(): string {
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-node-'));
  try {
    writeDump(join(dir, 'node.txt'), { flows: 4000, seed: 7 });
    return readFileSync(join(dir, 'node.txt'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
