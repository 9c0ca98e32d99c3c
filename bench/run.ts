/**
 * `npm run bench`: generates (or reuses) a synthetic Antrea dump and measures, each in a fresh
 * process, the floor (read + split lines), flowscope's typed parse and the commands built on it,
 * against the targets.
 *
 *   node --expose-gc dist/bench/run.js [--flows N] [--seed S] [--changes N] [--runs N] [--only NAME,…] [--json]
 */
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PARAMETERS, ensureDump, positiveInt, type DumpParameters } from './generate.ts';
import type { MeasurementSample } from './measure.ts';
import { type BenchContext, type Measurement, TARGET_FLOWS } from './measurement.ts';
import { MEASUREMENTS } from './measurements.ts';

interface Options {
  readonly params: DumpParameters;
  /** Flows added, removed and changed in the second dump of the diff measurement. */
  readonly changes: number;
  readonly runs: number;
  readonly only?: readonly string[];
  readonly json: boolean;
}

/** Targets for the typed parse (the floor is the yardstick, not a subject). */
const PARSE_TARGETS = {
  ratioToFloor: 3,
  flowsPerSecond: 400_000,
  peakRssBytes: 1.5 * 1024 ** 3,
} as const;

const DEFAULT_CHANGES = 300;

interface Row extends MeasurementSample {
  readonly label: string;
  readonly flowsPerSecond: number;
  readonly ratioToFloor?: number;
}

interface Verdict {
  readonly target: string;
  readonly actual: string;
  readonly status: 'PASS' | 'MISS' | 'n/a';
}

const USAGE = `usage: npm run bench -- [--flows N] [--seed S] [--changes N] [--runs N] [--only NAME,…] [--json]
  --flows N     flows in the generated dump (default ${DEFAULT_PARAMETERS.flows.toLocaleString('en-US')})
  --seed S      seed of the generator (default ${DEFAULT_PARAMETERS.seed})
  --changes N   flows added, removed and changed in the second dump of the diff measurement (default ${DEFAULT_CHANGES})
  --runs N      runs of each measurement, each in a fresh process; the median is shown (default 1)
  --only NAMES  these measurements only (the floor always runs, model-floor with parse): ${MEASUREMENTS.map((m) => m.name).join(', ')}
  --json        print the results as JSON`;

function parseArgs(argv: readonly string[]): Options | 'help' {
  let flows = DEFAULT_PARAMETERS.flows;
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
    else if (arg === '--seed') seed = positiveInt(arg, value);
    else if (arg === '--changes') changes = positiveInt(arg, value);
    else if (arg === '--runs') runs = positiveInt(arg, value);
    else if (arg === '--only') only = value.split(',');
    else throw new Error(`unknown option: ${arg}`);
    i++;
  }
  const known = MEASUREMENTS.map((m) => m.name);
  const unknown = only?.filter((n) => !known.includes(n)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown measurement ${unknown.join(', ')} (known: ${known.join(', ')})`);
  return { params: { flows, seed }, changes, runs, json, ...(only === undefined ? {} : { only }) };
}

const measureScript = fileURLToPath(new URL('./measure.js', import.meta.url));

/** A measurement still running after this long has missed any target by far; stop it. */
const CHILD_TIMEOUT_MS = 10 * 60_000;

/** One run in a fresh process; a string is the reason it failed (e.g. code under test not there yet). */
function sample(name: string, context: BenchContext): MeasurementSample | string {
  const child = spawnSync(process.execPath, ['--expose-gc', measureScript, name, JSON.stringify(context)], { encoding: 'utf8', maxBuffer: 16 << 20, timeout: CHILD_TIMEOUT_MS });
  if (child.error && (child.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') return `stopped after ${CHILD_TIMEOUT_MS / 60_000} minutes`;
  const last = child.stdout.trim().split('\n').pop() ?? '';
  if (child.status === 0 && last.startsWith('{')) return JSON.parse(last) as MeasurementSample;
  const error = child.stderr.split('\n').find((l) => /^\w*Error\b|^Error \[|heap out of memory/.test(l)) ?? child.stderr.trim().split('\n').pop();
  return `exit ${child.status ?? child.signal}: ${error ?? 'no output'}`;
}

/** The run with the median wall time (each run is a separate process), or the first failure. */
function median(name: string, context: BenchContext, runs: number): MeasurementSample | string {
  const samples: MeasurementSample[] = [];
  for (let i = 0; i < runs; i++) {
    const s = sample(name, context);
    if (typeof s === 'string') return s;
    samples.push(s);
  }
  return samples.sort((a, b) => a.wallMs - b.wallMs)[Math.floor(samples.length / 2)]!;
}

/** A target judged on a smaller dump than it is stated for only hints at the outcome. */
function sizeCaveat(flows: number): string {
  return flows < TARGET_FLOWS ? ` (at ${fmtInt(flows)})` : '';
}

function parseVerdicts(parse: Row, flows: number): Verdict[] {
  const out: Verdict[] = [];
  if (parse.ratioToFloor !== undefined) {
    const ratio = parse.ratioToFloor;
    out.push({ target: `typed parse ≤ ${PARSE_TARGETS.ratioToFloor}× the floor`, actual: `${ratio.toFixed(2)}×`, status: ratio <= PARSE_TARGETS.ratioToFloor ? 'PASS' : 'MISS' });
  }
  const fps = parse.flowsPerSecond;
  out.push({ target: `typed parse ≥ ${fmtInt(PARSE_TARGETS.flowsPerSecond)} flows/s`, actual: `${fmtInt(fps)} flows/s`, status: fps >= PARSE_TARGETS.flowsPerSecond ? 'PASS' : 'MISS' });
  const rss = parse.maxRssKiB * 1024;
  out.push({
    target: `typed parse peak RSS < ${fmtMiB(PARSE_TARGETS.peakRssBytes)} for ${fmtInt(TARGET_FLOWS)} flows`,
    actual: fmtMiB(rss),
    // The RSS limit is stated for the full size; smaller runs cannot judge it.
    status: flows < TARGET_FLOWS ? 'n/a' : rss < PARSE_TARGETS.peakRssBytes ? 'PASS' : 'MISS',
  });
  return out;
}

function verdicts(rows: readonly Row[], flows: number): Verdict[] {
  const out: Verdict[] = [];
  for (const r of rows) {
    if (r.name === 'parse') out.push(...parseVerdicts(r, flows));
    const target = MEASUREMENTS.find((m) => m.name === r.name)?.target;
    if (!target) continue;
    const perOperation = target.per === 'operation' && r.operations !== undefined && r.operations > 0;
    const figure = perOperation ? r.wallMs / r.operations! : r.wallMs;
    out.push({
      target: `${r.label} < ${fmtMs(target.limitMs)}${target.per === 'operation' ? ' each' : ''}`,
      actual: `${r.failure === undefined ? '' : 'failed after '}${fmtMs(figure)}${sizeCaveat(flows)}`,
      status: r.failure === undefined && figure < target.limitMs ? 'PASS' : 'MISS',
    });
  }
  return out;
}

const fmtInt = (n: number): string => Math.round(n).toLocaleString('en-US');
const fmtMiB = (bytes: number): string => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
const fmtMs = (ms: number): string => (ms < 100 ? `${ms.toPrecision(3)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`);

function table(headers: readonly string[], body: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

function legend(chosen: readonly Measurement[]): string[] {
  return [
    'Each measurement runs in a fresh node process; wall and CPU time cover only its timed part (below),',
    'peak RSS the whole process. flows/s = flows read ÷ wall time; × floor = wall time ÷ that of the floor;',
    'heap kept = V8 heap still in use, after a full collection, while the result is alive.',
    `Targets are stated for ${fmtInt(TARGET_FLOWS)} flows; on smaller dumps a verdict only hints at the outcome.`,
    ...chosen.map((m) => `  ${m.name.padEnd(10)} ${m.covers}`),
  ];
}

function phaseLines(rows: readonly Row[]): string[] {
  return rows.flatMap((r) => {
    if (r.phases === undefined) return [];
    const parts = Object.entries(r.phases).map(([name, ms]) => `${name} ${(ms / 1000).toFixed(2)}`);
    return [`  ${r.name}: ${parts.join(', ')}`];
  });
}

function timed<T>(work: () => T): T & { readonly ms: number } {
  const t0 = Date.now();
  return { ...work(), ms: Date.now() - t0 };
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

function main(): void {
  const options = readOptions();
  if (options === undefined) return;
  // The floor is every row's yardstick; the model floor is the parse's.
  const wanted = (name: string): boolean => options.only === undefined || options.only.includes(name);
  const chosen = MEASUREMENTS.filter((m) => wanted(m.name) || m.name === 'floor' || (m.name === 'model-floor' && wanted('parse')));
  const dump = timed(() => ensureDump(options.params));
  const changedParams = { ...options.params, changes: options.changes };
  const changed = chosen.some((m) => m.needsChanged) ? timed(() => ensureDump(changedParams)) : undefined;
  const bytes = statSync(dump.path).size;
  const context: BenchContext = changed ? { params: changedParams, dump: dump.path, changed: changed.path } : { params: options.params, dump: dump.path };
  const loadBefore = loadavg();

  const outcomes = chosen.map((m) => ({ m, s: median(m.name, context, options.runs) }));
  const failures = outcomes.flatMap(({ m, s }) => (typeof s === 'string' ? [{ name: m.name, label: m.label, error: s }] : []));
  const samples = outcomes.flatMap(({ m, s }) => (typeof s === 'string' ? [] : [{ m, s }]));
  const floorMs = samples.find((x) => x.m.name === 'floor')?.s.wallMs;
  const rows: Row[] = samples.map(({ m, s }) => ({
    ...s,
    label: m.label,
    flowsPerSecond: s.flows / (s.wallMs / 1000),
    ...(floorMs === undefined ? {} : { ratioToFloor: s.wallMs / floorMs }),
  }));
  const checks = verdicts(rows, options.params.flows);
  const loadAfter = loadavg();

  if (options.json) {
    const machine = { cpus: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version, loadAverage: { before: loadBefore, after: loadAfter } };
    const dumps = { dump: { ...dump, bytes }, ...(changed ? { changed } : {}) };
    process.stdout.write(`${JSON.stringify({ params: options.params, changes: options.changes, runs: options.runs, ...dumps, machine, results: rows, failures, targets: checks }, null, 2)}\n`);
    return;
  }
  const origin = (d: { reused: boolean; ms: number }): string => (d.reused ? 'reused' : `generated in ${(d.ms / 1000).toFixed(1)} s`);
  console.log(`dump: ${dump.path} (${(bytes / 1024 ** 2).toFixed(1)} MiB, ${origin(dump)})`);
  if (changed) console.log(`changed dump (${options.changes} flows added, removed and changed): ${changed.path} (${origin(changed)})`);
  console.log(`machine: ${availableParallelism()} CPUs, node ${process.version}; ${options.runs} run(s) per measurement, median shown`);
  const fmtLoad = (l: number[]): string => l.map((x) => x.toFixed(2)).join(' ');
  console.log(`load average (1, 5, 15 min): ${fmtLoad(loadBefore)} before, ${fmtLoad(loadAfter)} after`);
  // Wall times mean little on a busy machine; CPU time is the steadier figure then.
  if (Math.max(loadBefore[0] ?? 0, loadAfter[0] ?? 0) > availableParallelism()) console.log('warning: the load average exceeds the CPU count; wall times are inflated, compare cpu s');
  console.log('');
  console.log(
    table(
      ['measurement', 'flows', 'wall s', 'cpu s', 'flows/s', 'peak RSS', 'heap kept', '× floor'],
      rows.map((r) => [
        r.label,
        fmtInt(r.flows),
        (r.wallMs / 1000).toFixed(3),
        (r.cpuMs / 1000).toFixed(3),
        fmtInt(r.flowsPerSecond),
        fmtMiB(r.maxRssKiB * 1024),
        r.retainedHeapBytes === undefined ? '' : fmtMiB(r.retainedHeapBytes),
        r.ratioToFloor === undefined ? '' : `${r.ratioToFloor.toFixed(2)}×`,
      ]),
    ),
  );
  for (const f of failures) console.log(`${f.label}: FAILED (${f.error})`);
  for (const r of rows) if (r.failure !== undefined) console.log(`${r.label}: did not finish (${r.failure})`);
  const phases = phaseLines(rows);
  if (phases.length > 0) console.log(['', 'where the time went (wall s):', ...phases].join('\n'));
  const notes = rows.filter((r) => r.note !== undefined);
  if (notes.length > 0) console.log(['', 'results:', ...notes.map((r) => `  ${r.name}: ${r.note}`)].join('\n'));
  if (checks.length > 0) {
    console.log('');
    console.log(table(['target', 'actual', 'status'], checks.map((c) => [c.target, c.actual, c.status])));
  }
  const objects = rows.find((r) => r.name === 'model-floor')?.ratioToFloor;
  if (objects !== undefined) {
    const left = PARSE_TARGETS.ratioToFloor - objects;
    console.log(`\nmaking the model's objects alone takes ${objects.toFixed(2)}× the floor, which leaves ${left.toFixed(2)}× of the ${PARSE_TARGETS.ratioToFloor}× parse target for reading the text`);
  }
  console.log(['', ...legend(chosen)].join('\n'));
}

main();
