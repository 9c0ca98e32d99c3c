/**
 * `npm run difftest -- [--packets N] [--seed S] [--per-pipeline N] [--shard I/N] [--out DIR]`: the
 * randomized differential trace test at any size (a shard traces pipelines I, I+N, … of the run,
 * so N shards run side by side trace exactly the run's packets). Prints agreement per figure as it goes and at the end,
 * and saves each disagreement (pipeline, packet, both traces) as a file in DIR.
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runDifferential, saveDisagreements, summarize } from './difftest.ts';

const USAGE = 'usage: difftest [--packets N] [--seed S] [--per-pipeline N] [--shard I/N] [--out DIR]';

/** A usage error: said in one line, exit status 2, as flowscope's own commands do. */
function usage(message: string): never {
  console.error(`difftest: ${message}\n${USAGE}`);
  process.exit(2);
}

function parsed(): ReturnType<typeof parseOptions> {
  try {
    return parseOptions();
  } catch (err) {
    // An option it does not know, or one without its value: a run would silently do something else.
    return usage(err instanceof Error ? err.message : String(err));
  }
}

function parseOptions() {
  return parseArgs({
    options: {
      packets: { type: 'string' },
      seed: { type: 'string' },
      'per-pipeline': { type: 'string' },
      shard: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values;
}

const values = parsed();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

function option(name: 'packets' | 'seed' | 'per-pipeline', fallback: number): number {
  const text = values[name];
  if (text === undefined) return fallback;
  const n = Number(text);
  if (text.trim() === '' || !Number.isInteger(n) || n < 0) usage(`--${name} takes a whole number, not ${text}`);
  return n;
}

const packets = option('packets', 1000);
const seed = option('seed', 1);
const perPipeline = option('per-pipeline', 20);
const shardText = values.shard;
const shardMatch = shardText === undefined ? undefined : /^(\d+)\/(\d+)$/.exec(shardText);
if (shardText !== undefined && (!shardMatch || Number(shardMatch[1]) >= Number(shardMatch[2])))
  usage(`--shard takes I/N with I < N (I counts from 0), not ${shardText}`);
const shard = shardMatch ? { index: Number(shardMatch[1]), count: Number(shardMatch[2]) } : undefined;
const out = resolve(values.out ?? 'difftest-out');

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
