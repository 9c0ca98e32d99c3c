/**
 * `npm run difftest -- [--packets N] [--seed S] [--per-pipeline N] [--shard I/N] [--out DIR]`: the
 * randomized differential trace test at any size (a shard traces pipelines I, I+N, … of the run,
 * so N shards run side by side trace exactly the run's packets). Prints agreement per figure as it goes and at the end,
 * and saves each disagreement (pipeline, packet, both traces) as a file in DIR.
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { runDifferential, saveDisagreements, summarize } from './difftest.ts';

/** A usage error: said in one line, exit status 2, as flowscope's own commands do. */
function usage(message: string): never {
  console.error(`difftest: ${message}`);
  process.exit(2);
}

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 0) usage(`--${name} takes a whole number, not ${process.argv[i + 1] ?? 'nothing'}`);
  return n;
}

const packets = option('packets', 1000);
const seed = option('seed', 1);
const perPipeline = option('per-pipeline', 20);
const shardIndex = process.argv.indexOf('--shard');
const shardText = shardIndex >= 0 ? (process.argv[shardIndex + 1] ?? '') : undefined;
const shardMatch = shardText === undefined ? undefined : /^(\d+)\/(\d+)$/.exec(shardText);
if (shardText !== undefined && (!shardMatch || Number(shardMatch[1]) >= Number(shardMatch[2])))
  usage(`--shard takes I/N with I < N (I counts from 0), not ${shardText}`);
const shard = shardMatch ? { index: Number(shardMatch[1]), count: Number(shardMatch[2]) } : undefined;
const outIndex = process.argv.indexOf('--out');
const out = resolve(outIndex >= 0 ? (process.argv[outIndex + 1] ?? 'difftest-out') : 'difftest-out');

console.log(
  `difftest: ${packets} packets, seed ${seed}, ${perPipeline} per pipeline${shard ? `, shard ${shard.index}/${shard.count}` : ''}; disagreements to ${out}`,
);
rmSync(out, { recursive: true, force: true });
const report = await runDifferential({
  seed,
  packets,
  perPipeline,
  ...(shard ? { shard } : {}),
  onPipeline: (done, r) => {
    // Saved as it goes, so a long run can be studied before it ends.
    if (done % 25 === 0) {
      console.log(summarize(r).join('\n'));
      saveDisagreements(out, r);
    }
  },
});
saveDisagreements(out, report);
console.log(summarize(report).join('\n'));
console.log(`${report.disagreements.length} disagreements saved to ${out}`);
