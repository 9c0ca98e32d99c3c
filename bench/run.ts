/**
 * `npm run bench`: generates (or reuses) a synthetic Antrea dump and measures, each in a fresh
 * process, the floor (read + split lines) and flowscope's typed parse, against the targets.
 *
 *   node --expose-gc dist/bench/run.js [--flows N] [--seed S] [--runs N] [--only NAME,…] [--json]
 */
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PARAMETERS, ensureDump, positiveInt, type DumpParameters } from './generate.ts';
import type { MeasurementSample } from './measure.ts';
import { MEASUREMENTS } from './measurements.ts';

interface Options {
  readonly params: DumpParameters;
  readonly runs: number;
  readonly only?: readonly string[];
  readonly json: boolean;
}

/** Targets for the typed parse (the floor is the yardstick, not a subject). */
const TARGETS = {
  ratioToFloor: 3,
  flowsPerSecond: 400_000,
  peakRssBytes: 1.5 * 1024 ** 3,
  /** The RSS limit is stated for a dump of this size; smaller runs cannot judge it. */
  rssReferenceFlows: 1_000_000,
} as const;

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

function parseArgs(argv: readonly string[]): Options {
  let flows = DEFAULT_PARAMETERS.flows;
  let seed = DEFAULT_PARAMETERS.seed;
  let runs = 1;
  let only: string[] | undefined;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = argv[i + 1];
    if (arg === '--json') {
      json = true;
      continue;
    }
    if (value === undefined) throw new Error(`${arg} needs a value`);
    if (arg === '--flows') flows = positiveInt(arg, value);
    else if (arg === '--seed') seed = positiveInt(arg, value);
    else if (arg === '--runs') runs = positiveInt(arg, value);
    else if (arg === '--only') only = value.split(',');
    else throw new Error(`unknown option: ${arg}`);
    i++;
  }
  const known = MEASUREMENTS.map((m) => m.name);
  const unknown = only?.filter((n) => !known.includes(n)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown measurement ${unknown.join(', ')} (known: ${known.join(', ')})`);
  return { params: { flows, seed }, runs, json, ...(only === undefined ? {} : { only }) };
}

const measureScript = fileURLToPath(new URL('./measure.js', import.meta.url));

/** One run in a fresh process; a string is the reason it failed (e.g. code under test not there yet). */
function sample(name: string, path: string): MeasurementSample | string {
  const child = spawnSync(process.execPath, ['--expose-gc', measureScript, name, path], { encoding: 'utf8', maxBuffer: 16 << 20 });
  const last = child.stdout.trim().split('\n').pop() ?? '';
  if (child.status === 0 && last.startsWith('{')) return JSON.parse(last) as MeasurementSample;
  const error = child.stderr.split('\n').find((l) => /^\w*Error\b|^Error \[/.test(l)) ?? child.stderr.trim().split('\n').pop();
  return `exit ${child.status ?? child.signal}: ${error ?? 'no output'}`;
}

/** The run with the median wall time (each run is a separate process), or the first failure. */
function median(name: string, path: string, runs: number): MeasurementSample | string {
  const samples: MeasurementSample[] = [];
  for (let i = 0; i < runs; i++) {
    const s = sample(name, path);
    if (typeof s === 'string') return s;
    samples.push(s);
  }
  return samples.sort((a, b) => a.wallMs - b.wallMs)[Math.floor(samples.length / 2)]!;
}

function verdicts(rows: readonly Row[], flows: number): Verdict[] {
  const parse = rows.find((r) => r.name === 'parse');
  if (!parse) return [];
  const out: Verdict[] = [];
  if (parse.ratioToFloor !== undefined) {
    out.push({ target: `typed parse ≤ ${TARGETS.ratioToFloor}× the floor`, actual: `${parse.ratioToFloor.toFixed(2)}×`, status: parse.ratioToFloor <= TARGETS.ratioToFloor ? 'PASS' : 'MISS' });
  }
  out.push({ target: `≥ ${fmtInt(TARGETS.flowsPerSecond)} flows/s`, actual: `${fmtInt(parse.flowsPerSecond)} flows/s`, status: parse.flowsPerSecond >= TARGETS.flowsPerSecond ? 'PASS' : 'MISS' });
  const rss = parse.maxRssKiB * 1024;
  out.push({
    target: `peak RSS < ${fmtMiB(TARGETS.peakRssBytes)} for ${fmtInt(TARGETS.rssReferenceFlows)} flows`,
    actual: fmtMiB(rss),
    status: flows < TARGETS.rssReferenceFlows ? 'n/a' : rss < TARGETS.peakRssBytes ? 'PASS' : 'MISS',
  });
  return out;
}

const fmtInt = (n: number): string => Math.round(n).toLocaleString('en-US');
const fmtMiB = (bytes: number): string => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;

function table(headers: readonly string[], body: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

function main(): void {
  const options = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const dump = ensureDump(options.params);
  const generatedMs = Date.now() - started;
  const bytes = statSync(dump.path).size;
  const chosen = MEASUREMENTS.filter((m) => options.only === undefined || options.only.includes(m.name) || m.name === 'floor');

  const outcomes = chosen.map((m) => ({ m, s: median(m.name, dump.path, options.runs) }));
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

  if (options.json) {
    const machine = { cpus: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version, loadAverage: loadavg()[0] };
    process.stdout.write(`${JSON.stringify({ params: options.params, runs: options.runs, dump: { ...dump, bytes }, machine, results: rows, failures, targets: checks }, null, 2)}\n`);
    return;
  }
  console.log(`dump: ${dump.path} (${(bytes / 1024 ** 2).toFixed(1)} MiB, ${dump.reused ? 'reused' : `generated in ${(generatedMs / 1000).toFixed(1)} s`})`);
  console.log(`machine: ${availableParallelism()} CPUs, node ${process.version}; ${options.runs} run(s) per measurement, median shown`);
  const load = loadavg()[0] ?? 0;
  // Wall times mean little on a busy machine; CPU time is the steadier figure then.
  if (load > availableParallelism()) console.log(`warning: load average ${load.toFixed(1)} exceeds the CPU count; wall times are inflated, compare cpu s`);
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
        fmtMiB(r.retainedHeapBytes),
        r.ratioToFloor === undefined ? '' : `${r.ratioToFloor.toFixed(2)}×`,
      ]),
    ),
  );
  for (const r of rows) if (r.note !== undefined) console.log(`note (${r.name}): ${r.note}`);
  for (const f of failures) console.log(`${f.label}: FAILED (${f.error})`);
  if (checks.length > 0) {
    console.log('');
    console.log(table(['target', 'actual', 'status'], checks.map((c) => [c.target, c.actual, c.status])));
  }
}

main();
