/**
 * `npm run difftest -- [--packets N] [--seed S] [--per-pipeline N] [--out DIR]`: the randomized
 * differential trace test at any size. Prints agreement per figure as it goes and at the end,
 * and saves each disagreement (pipeline, packet, both traces) as a file in DIR.
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { runDifferential, saveDisagreements, summarize } from './difftest.ts';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} takes a whole number, not ${process.argv[i + 1] ?? 'nothing'}`);
  return n;
}

const packets = option('packets', 1000);
const seed = option('seed', 1);
const perPipeline = option('per-pipeline', 20);
const outIndex = process.argv.indexOf('--out');
const out = resolve(outIndex >= 0 ? (process.argv[outIndex + 1] ?? 'difftest-out') : 'difftest-out');

console.log(`difftest: ${packets} packets, seed ${seed}, ${perPipeline} per pipeline; disagreements to ${out}`);
const report = await runDifferential({
  seed,
  packets,
  perPipeline,
  onPipeline: (done, r) => {
    if (done % 25 === 0) console.log(summarize(r).join('\n'));
  },
});
rmSync(out, { recursive: true, force: true });
saveDisagreements(out, report);
console.log(summarize(report).join('\n'));
console.log(`${report.disagreements.length} disagreements saved to ${out}`);
