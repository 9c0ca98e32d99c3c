/**
 * `npm run fuzz`: the fuzz campaign, for millions of inputs. Seeded and resumable: the state file
 * records the seed and the next case, so a run stopped anywhere goes on where it stopped. Each
 * failing case is saved (its command line and input) to the failures directory.
 *
 *   npm run fuzz -- [--count N] [--seed S] [--every N] [--jobs J] [--state FILE] [--failures DIR] [--restart]
 *
 * With --jobs J the cases are shared among J processes (case i to process i mod J), each with
 * its own state file (FILE.k).
 *
 * Every case goes through the reader and printers (the library entry points of parse and fmt);
 * every Nth of a process (--every, default 64; 1 for all) also through its whole command, in-process: a
 * command costs a hundred times what the reader does.
 *
 * Beyond what the suite's fuzz test checks, a case fails here when it runs past TIME_BOUND_MS or
 * the process holds more than MEMORY_BOUND_BYTES after it.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fuzzCase, readerFailure, runCase, seedLines } from './fuzz.ts';

export const TIME_BOUND_MS = 10_000;
export const MEMORY_BOUND_BYTES = 2 * 1024 ** 3;

interface State {
  seed: number;
  next: number;
  failures: number;
  /** Cases also run through their whole command. */
  commands: number;
  /** Cases run. */
  done: number;
}

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '20261126' },
    state: { type: 'string', default: 'fuzz-state.json' },
    failures: { type: 'string', default: 'fuzz-failures' },
    restart: { type: 'boolean', default: false },
    every: { type: 'string', default: '64' },
    jobs: { type: 'string', default: '1' },
    shard: { type: 'string' },
  },
});

const jobs = Math.max(1, Number(values.jobs));
if (jobs > 1 && values.shard === undefined) {
  // The parent: one worker per job, then the sum of what they did.
  const args = [
    `--count=${values.count}`,
    `--seed=${values.seed}`,
    `--every=${values.every}`,
    `--state=${values.state}`,
    `--failures=${values.failures}`,
    ...(values.restart ? ['--restart'] : []),
  ];
  const workers = Array.from({ length: jobs }, (_, k) =>
    fork(process.argv[1]!, [...args, `--jobs=${jobs}`, `--shard=${k}`]),
  );
  const codes = await Promise.all(workers.map(async (w) => ((await once(w, 'exit')) as [number | null])[0]));
  const states = Array.from(
    { length: jobs },
    (_, k) => JSON.parse(readFileSync(`${values.state}.${k}`, 'utf8')) as State,
  );
  const total = states.reduce((n, st) => n + st.done, 0);
  const failures = states.reduce((n, st) => n + st.failures, 0);
  const commands = states.reduce((n, st) => n + st.commands, 0);
  console.log(
    `fuzz: ${total} cases run with seed ${values.seed} in ${jobs} processes (${commands} through a whole command): ${failures} failures`,
  );
  process.exitCode = failures === 0 && codes.every((c) => c === 0) ? 0 : 1;
} else {
  await campaign(values.shard === undefined ? 0 : Number(values.shard));
}

async function campaign(shard: number): Promise<void> {
  const seed = Number(values.seed);
  const stateFile = jobs > 1 ? `${values.state}.${shard}` : values.state;
  let state: State = { seed, next: shard, failures: 0, commands: 0, done: 0 };
  if (!values.restart && existsSync(stateFile)) {
    const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as State;
    if (saved.seed === seed) state = saved;
  }
  const count = Number(values.count);
  const every = Math.max(1, Number(values.every));
  const seeds = seedLines();
  const started = Date.now();
  const from = state.next;
  const name = jobs > 1 ? `fuzz[${shard}]` : 'fuzz';
  console.log(
    `${name}: seed ${seed}, cases ${from} to ${count - 1}${jobs > 1 ? ` (every ${jobs}th)` : ''} (state in ${stateFile}, failures to ${values.failures}/)`,
  );

  const save = (): void => writeFileSync(stateFile, JSON.stringify(state) + '\n');
  const fail = (index: number, args: readonly string[], stdin: string, why: string): void => {
    state.failures++;
    mkdirSync(values.failures, { recursive: true });
    const base = join(values.failures, `case-${seed}-${index}`);
    writeFileSync(`${base}.input`, stdin);
    writeFileSync(`${base}.txt`, `flowscope ${args.join(' ')} < ${base}.input\n\n${why}\n`);
    console.log(`${name}: case ${index} FAILED (${base}.txt): ${why.split('\n')[0]}`);
  };

  for (let i = from; i < count; i += jobs) {
    const c = fuzzCase(seed, i, seeds);
    const t0 = performance.now();
    let failure: string | undefined;
    const whole = state.done % every === 0;
    if (whole) {
      failure = (await runCase(c)).failure;
      state.commands++;
    } else {
      failure = readerFailure(c.stdin);
    }
    const ms = performance.now() - t0;
    if (failure !== undefined) fail(i, whole ? c.args : ['parse'], c.stdin, failure);
    else if (ms > TIME_BOUND_MS) fail(i, c.args, c.stdin, `ran ${Math.round(ms)} ms, over ${TIME_BOUND_MS}`);
    else if (state.done % 256 === 0 && process.memoryUsage().rss > MEMORY_BOUND_BYTES)
      fail(i, c.args, c.stdin, `${process.memoryUsage().rss} bytes resident, over ${MEMORY_BOUND_BYTES}`);
    state.next = i + jobs;
    state.done++;
    if (state.done % 10000 === 0) {
      save();
      const rate = (state.next - from) / jobs / ((Date.now() - started) / 1000);
      console.log(
        `${name}: ${state.done} cases (${state.commands} through a whole command), ${state.failures} failures, ${Math.round(rate)} cases/s`,
      );
    }
  }
  save();
  console.log(
    `${name}: ${state.done} cases run with seed ${seed} (${state.commands} through a whole command): ${state.failures} failures`,
  );
  process.exitCode = state.failures === 0 ? 0 : 1;
}
