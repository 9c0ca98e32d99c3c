/**
 * `npm run bench`: the commands as users run them, on an everyday dump (about 24k flows, from a
 * real switch when one is installed) and on a big synthetic one (about 1M flows), each as CPU time
 * and as a ratio to a floor measured in the same run, with PASS or MISS per target. Beside them, as
 * context without targets, the typed parse and the model's objects alone, in-process.
 *
 *   node --expose-gc dist/bench/run.js [--flows N] [--everyday N] [--seed S] [--changes N] [--runs N] [--only NAME,…] [--json]
 */
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  COMMANDS,
  type CommandDumps,
  type CommandMeasurement,
  FLOORS,
  type FloorName,
  type ProcessSample,
  timeCommand,
  timeNode,
} from './commands.ts';
import { DEFAULT_PARAMETERS, ensureDump, positiveInt, type DumpParameters } from './generate.ts';
import type { MeasurementSample } from './measure.ts';
import type { BenchContext } from './measurement.ts';
import { MEASUREMENTS } from './measurements.ts';
import { ensureOvsDump } from './ovs-dump.ts';

interface Options {
  readonly big: DumpParameters;
  readonly everyday: DumpParameters;
  /** Flows added, removed and changed in the second big dump. */
  readonly changes: number;
  readonly runs: number;
  readonly only?: readonly string[];
  readonly json: boolean;
}

const DEFAULT_CHANGES = 300;
const DEFAULT_EVERYDAY = 24_000;

const NAMES = [...COMMANDS.map((c) => c.name), ...MEASUREMENTS.map((m) => m.name)];

const USAGE = `usage: npm run bench -- [--flows N] [--everyday N] [--seed S] [--changes N] [--runs N] [--only NAME,…] [--json]
  --flows N     flows in the big dump (default ${DEFAULT_PARAMETERS.flows.toLocaleString('en-US')})
  --everyday N  flows in the everyday dump (default ${DEFAULT_EVERYDAY.toLocaleString('en-US')})
  --seed S      seed of the generator (default ${DEFAULT_PARAMETERS.seed})
  --changes N   flows added, removed and changed in the second big dump (default ${DEFAULT_CHANGES})
  --runs N      runs of each measurement, each in a fresh process; the median CPU time is shown (default 1)
  --only NAMES  these measurements only (their floors always run): ${NAMES.join(', ')}
  --json        print the results as JSON`;

function parseArgs(argv: readonly string[]): Options | 'help' {
  let flows = DEFAULT_PARAMETERS.flows;
  let everyday = DEFAULT_EVERYDAY;
  let seed = DEFAULT_PARAMETERS.seed;
  let changes = DEFAULT_CHANGES;
  let runs = 1;
  let only: string[] | undefined;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = argv[i + 1];
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '--json') {
      json = true;
      continue;
    }
    if (value === undefined) throw new Error(`${arg} needs a value`);
    if (arg === '--flows') flows = positiveInt(arg, value);
    else if (arg === '--everyday') everyday = positiveInt(arg, value);
    else if (arg === '--seed') seed = positiveInt(arg, value);
    else if (arg === '--changes') changes = positiveInt(arg, value);
    else if (arg === '--runs') runs = positiveInt(arg, value);
    else if (arg === '--only') only = value.split(',');
    else throw new Error(`unknown option: ${arg}`);
    i++;
  }
  const unknown = only?.filter((n) => !NAMES.includes(n)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown measurement ${unknown.join(', ')} (known: ${NAMES.join(', ')})`);
  return {
    big: { flows, seed },
    everyday: { flows: everyday, seed },
    changes,
    runs,
    json,
    ...(only === undefined ? {} : { only }),
  };
}

const measureScript = fileURLToPath(new URL('./measure.js', import.meta.url));

/** A measurement still running after this long has missed any target by far; stop it. */
const CHILD_TIMEOUT_MS = 10 * 60_000;

/** One in-process measurement in a fresh process; a string is the reason it failed. */
function sample(name: string, context: BenchContext): MeasurementSample | string {
  const child = spawnSync(process.execPath, ['--expose-gc', measureScript, name, JSON.stringify(context)], {
    encoding: 'utf8',
    maxBuffer: 16 << 20,
    timeout: CHILD_TIMEOUT_MS,
  });
  if (child.error && (child.error as NodeJS.ErrnoException).code === 'ETIMEDOUT')
    return `stopped after ${CHILD_TIMEOUT_MS / 60_000} minutes`;
  const last = child.stdout.trim().split('\n').pop() ?? '';
  if (child.status === 0 && last.startsWith('{')) return JSON.parse(last) as MeasurementSample;
  const error =
    child.stderr.split('\n').find((l) => /^\w*Error\b|^Error \[|heap out of memory/.test(l)) ??
    child.stderr.trim().split('\n').pop();
  return `exit ${child.status ?? child.signal}: ${error ?? 'no output'}`;
}

/**
 * Runs of a start-up row and its floor, at the least: each takes about a twentieth of a second, so
 * one run's ratio is mostly the machine's noise.
 */
const START_UP_RUNS = 9;
/**
 * Runs of every other floor and of the everyday rows, at the least: a floor is the yardstick of its
 * rows (one run of the big dump's read 1.4 s on a machine just started and 0.5 s an hour later),
 * and an everyday row takes a few tenths of a second.
 */
const FLOOR_RUNS = 5;

/** The run with the median CPU time of `runs`, or the first failure. */
function median<T extends { readonly cpuMs: number }>(runs: number, once: () => T | string): T | string {
  const samples: T[] = [];
  for (let i = 0; i < runs; i++) {
    const s = once();
    if (typeof s === 'string') return s;
    samples.push(s);
  }
  return samples.sort((a, b) => a.cpuMs - b.cpuMs)[Math.floor(samples.length / 2)]!;
}

interface CommandRow {
  readonly measurement: CommandMeasurement;
  readonly sample: ProcessSample | string;
  readonly ratio?: number;
}

interface Verdict {
  readonly target: string;
  readonly actual: string;
  readonly status: 'PASS' | 'MISS';
}

const fmtInt = (n: number): string => Math.round(n).toLocaleString('en-US');
const fmtMiB = (bytes: number): string => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
const fmtS = (ms: number): string => (ms / 1000).toFixed(3);

function verdictsOf(row: CommandRow, dumps: string): Verdict[] {
  const m = row.measurement;
  const what = `${m.label} (${dumps})`;
  if (typeof row.sample === 'string') return [{ target: what, actual: `failed: ${row.sample}`, status: 'MISS' }];
  const out: Verdict[] = [];
  const t = m.target;
  if ('ratio' in t) {
    const ratio = row.ratio ?? Infinity;
    out.push({
      target: `${what} ≤ ${t.ratio}× ${m.floor === 'start-up' ? 'node -e 0' : 'the floor'}`,
      actual: `${ratio.toFixed(2)}×`,
      status: ratio <= t.ratio ? 'PASS' : 'MISS',
    });
  } else {
    out.push({
      target: `${what} < ${t.cpuMs / 1000} s of CPU`,
      actual: `${fmtS(row.sample.cpuMs)} s`,
      status: row.sample.cpuMs < t.cpuMs ? 'PASS' : 'MISS',
    });
  }
  if (m.maxRssBytes !== undefined) {
    const rss = row.sample.maxRssKiB * 1024;
    out.push({
      target: `${what} peak RSS ≤ ${fmtMiB(m.maxRssBytes)}`,
      actual: fmtMiB(rss),
      status: rss <= m.maxRssBytes ? 'PASS' : 'MISS',
    });
  }
  return out;
}

function table(headers: readonly string[], body: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

function readOptions(): Options | undefined {
  try {
    const parsed = parseArgs(process.argv.slice(2));
    if (parsed !== 'help') return parsed;
    console.log(USAGE);
    return undefined;
  } catch (err) {
    // Reading the arguments fails only on a mistake in them: said in one line, with the usage.
    if (!(err instanceof Error)) throw err;
    console.error(`bench: ${err.message}\n${USAGE}`);
    process.exitCode = 2;
    return undefined;
  }
}

function floorSource(name: FloorName): 'everyday' | 'big' | undefined {
  return name === 'everyday' ? 'everyday' : name === 'start-up' ? undefined : 'big';
}

async function main(): Promise<void> {
  const options = readOptions();
  if (options === undefined) return;
  const wanted = (name: string): boolean => options.only === undefined || options.only.includes(name);
  const commands = COMMANDS.filter((c) => wanted(c.name));
  // The in-process floor is the yardstick of the model floor and the parse.
  const context = MEASUREMENTS.filter(
    (m) => wanted(m.name) || (m.name === 'floor' && MEASUREMENTS.some((x) => x.name !== 'floor' && wanted(x.name))),
  );
  const needsBig = context.length > 0 || commands.some((c) => floorSource(c.floor) === 'big');

  const everyday = await ensureOvsDump(options.everyday);
  const bigParams = { ...options.big, changes: options.changes };
  const big = needsBig ? ensureDump(options.big) : undefined;
  const changed = commands.some((c) => c.floor === 'big, both dumps') ? ensureDump(bigParams) : undefined;
  const dumps: CommandDumps = {
    everyday: { path: everyday.path, params: options.everyday },
    big: { path: big?.path ?? '', changed: changed?.path ?? '', params: options.big },
  };
  const loadBefore = loadavg();

  const floorsNeeded = FLOORS.filter((f) => commands.some((c) => c.floor === f.name));
  const runsOn = (floor: FloorName): number =>
    Math.max(options.runs, floor === 'start-up' ? START_UP_RUNS : floor === 'everyday' ? FLOOR_RUNS : 1);
  const floors = new Map(
    floorsNeeded.map((f) => [f.name, median(Math.max(runsOn(f.name), FLOOR_RUNS), () => timeNode(f.args(dumps)))]),
  );
  const rows: CommandRow[] = commands.map((m) => {
    const s = median(runsOn(m.floor), () => timeCommand(m, dumps));
    const floor = floors.get(m.floor);
    return typeof s === 'string' || floor === undefined || typeof floor === 'string'
      ? { measurement: m, sample: s }
      : { measurement: m, sample: s, ratio: s.cpuMs / floor.cpuMs };
  });
  const benchContext: BenchContext = { params: options.big, dump: big?.path ?? '' };
  const contextRows = context.map((m) => ({ m, s: median(options.runs, () => sample(m.name, benchContext)) }));
  const contextFloor = contextRows.find((r) => r.m.name === 'floor')?.s;
  const loadAfter = loadavg();

  const dumpsOf = (m: CommandMeasurement): string =>
    m.floor === 'start-up'
      ? 'start-up'
      : floorSource(m.floor) === 'everyday'
        ? `${fmtInt(options.everyday.flows)} flows`
        : `${fmtInt(options.big.flows)} flows`;
  const verdicts = rows.flatMap((r) => verdictsOf(r, dumpsOf(r.measurement)));

  if (options.json) {
    const machine = {
      cpus: availableParallelism(),
      cpu: cpus()[0]?.model ?? 'unknown',
      node: process.version,
      loadAverage: { before: loadBefore, after: loadAfter },
    };
    const out = {
      params: { big: options.big, everyday: options.everyday, changes: options.changes },
      runs: options.runs,
      dumps: {
        everyday: { ...everyday, bytes: statSync(everyday.path).size },
        ...(big ? { big: { ...big, bytes: statSync(big.path).size } } : {}),
        ...(changed ? { changed } : {}),
      },
      machine,
      floors: Object.fromEntries(floors),
      commands: rows.map((r) => ({
        name: r.measurement.name,
        label: r.measurement.label,
        floor: r.measurement.floor,
        sample: r.sample,
        ...(r.ratio === undefined ? {} : { ratio: r.ratio }),
      })),
      context: contextRows.map((r) => ({ name: r.m.name, label: r.m.label, sample: r.s })),
      targets: verdicts,
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return;
  }
  const origin = (d: { reused: boolean }): string => (d.reused ? 'reused' : 'generated');
  console.log(
    `everyday dump: ${everyday.path} (${(statSync(everyday.path).size / 1024 ** 2).toFixed(1)} MiB, ${everyday.fromOvs ? 'dumped from a real Open vSwitch' : 'synthetic: Open vSwitch is not installed'}, ${origin(everyday)})`,
  );
  if (big)
    console.log(`big dump: ${big.path} (${(statSync(big.path).size / 1024 ** 2).toFixed(1)} MiB, ${origin(big)})`);
  if (changed)
    console.log(
      `changed big dump (${options.changes} flows added, removed and changed): ${changed.path} (${origin(changed)})`,
    );
  console.log(
    `machine: ${availableParallelism()} CPUs, node ${process.version}; ${options.runs} run(s) per measurement (start-up and its floor: at least ${START_UP_RUNS}; other floors and the everyday rows: at least ${FLOOR_RUNS}), the median CPU time shown`,
  );
  const fmtLoad = (l: number[]): string => l.map((x) => x.toFixed(2)).join(' ');
  console.log(`load average (1, 5, 15 min): ${fmtLoad(loadBefore)} before, ${fmtLoad(loadAfter)} after`);
  if (Math.max(loadBefore[0] ?? 0, loadAfter[0] ?? 0) > availableParallelism())
    console.log(
      'warning: the load average exceeds the CPU count; CPU times are inflated too (shared caches and cores), ratios less so',
    );
  console.log('');
  const floorRows = [...floors].map(([name, s]) => [
    `floor: ${FLOORS.find((f) => f.name === name)!.label}`,
    typeof s === 'string' ? 'failed' : fmtS(s.cpuMs),
    typeof s === 'string' ? '' : fmtS(s.wallMs),
    typeof s === 'string' ? '' : fmtMiB(s.maxRssKiB * 1024),
    '',
  ]);
  const commandRows = rows.map((r) => {
    const s = r.sample;
    const label = `${r.measurement.label} (${dumpsOf(r.measurement)})`;
    if (typeof s === 'string') return [label, 'failed', '', '', ''];
    return [
      label,
      fmtS(s.cpuMs),
      fmtS(s.wallMs),
      fmtMiB(s.maxRssKiB * 1024),
      r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}×`,
    ];
  });
  console.log(
    table(['command (start-up included)', 'cpu s', 'wall s', 'peak RSS', '× floor'], [...floorRows, ...commandRows]),
  );
  for (const r of rows) if (typeof r.sample === 'string') console.log(`${r.measurement.label}: FAILED (${r.sample})`);
  if (verdicts.length > 0)
    console.log(
      [
        '',
        table(
          ['target', 'actual', 'status'],
          verdicts.map((v) => [v.target, v.actual, v.status]),
        ),
      ].join('\n'),
    );
  if (contextRows.length > 0) {
    const floorCpu = contextFloor === undefined || typeof contextFloor === 'string' ? undefined : contextFloor.cpuMs;
    console.log(
      ['', `context, in-process on the big dump, without targets (× the in-process read + split):`].join('\n'),
    );
    console.log(
      table(
        ['measurement', 'flows', 'cpu s', 'peak RSS', 'heap kept', '× floor'],
        contextRows.map(({ m, s }) =>
          typeof s === 'string'
            ? [m.label, '', `failed: ${s}`, '', '', '']
            : [
                m.label,
                fmtInt(s.flows),
                fmtS(s.cpuMs),
                fmtMiB(s.maxRssKiB * 1024),
                s.retainedHeapBytes === undefined ? '' : fmtMiB(s.retainedHeapBytes),
                floorCpu === undefined ? '' : `${(s.cpuMs / floorCpu).toFixed(2)}×`,
              ],
        ),
      ),
    );
    for (const { m, s } of contextRows)
      if (typeof s !== 'string' && s.note !== undefined) console.log(`  ${m.name}: ${s.note}`);
  }
  console.log(
    [
      '',
      'Each row is a fresh node process. CPU time is user + system, GC threads included; the floors are run',
      'the same way in the same bench run, so a ratio compares like with like even on a busy machine.',
      ...context.map((m) => `  ${m.name.padEnd(12)} ${m.covers}`),
    ].join('\n'),
  );
}

await main();
