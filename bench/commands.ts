/**
 * The commands as users run them: `node bin/flowscope.js …` in a process of its own, start-up
 * included, timed as timeNode says. Each is judged against a floor run the same way in the same
 * bench run: `node -e 0` for start-up, `node` reading and splitting the same file(s) for the
 * commands.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DumpParameters } from './generate.ts';
import { tracePackets } from './packets.ts';

const TIME = '/usr/bin/time';
const bin = fileURLToPath(new URL('../../bin/flowscope.js', import.meta.url));

/** The dumps of one bench run. */
export interface CommandDumps {
  /** The everyday dump (about 24k flows, from a real switch when one is installed) and its parameters. */
  readonly everyday: { readonly path: string; readonly params: DumpParameters };
  /** The big dump, and the same node a while later (300 flows added, removed and changed). */
  readonly big: { readonly path: string; readonly changed: string; readonly params: DumpParameters };
}

export type FloorName = 'start-up' | 'everyday' | 'big' | 'big, both dumps';

/** Floors, in the order they are measured: what any command at least does. */
export const FLOORS: readonly {
  readonly name: FloorName;
  readonly label: string;
  readonly args: (d: CommandDumps) => string[];
}[] = [
  { name: 'start-up', label: 'node -e 0', args: () => ['-e', '0'] },
  { name: 'everyday', label: 'node: read + split the everyday dump', args: (d) => readAndSplit([d.everyday.path]) },
  { name: 'big', label: 'node: read + split the big dump', args: (d) => readAndSplit([d.big.path]) },
  {
    name: 'big, both dumps',
    label: 'node: read + split both big dumps',
    args: (d) => readAndSplit([d.big.path, d.big.changed]),
  },
];

function readAndSplit(paths: readonly string[]): string[] {
  return ['-e', `for (const p of ${JSON.stringify(paths)}) require('fs').readFileSync(p, 'utf8').split('\\n')`];
}

export type Target = { readonly ratio: number } | { readonly cpuMs: number };

export interface CommandMeasurement {
  readonly name: string;
  readonly label: string;
  readonly floor: FloorName;
  readonly target: Target;
  /** Peak RSS the command must stay under, bytes. */
  readonly maxRssBytes?: number;
  /** The command's arguments after `flowscope`. */
  readonly args: (d: CommandDumps) => string[];
  /** Output read through a pipe (as `| less` would), else written to /dev/null. */
  readonly pipe?: boolean;
  /**
   * Exit status 1 is a finished run that found something (diff's differences, check's errors);
   * for any other command it is a failure, as node's own exit on an uncaught error.
   */
  readonly finds?: boolean;
}

const packet = (params: DumpParameters): string => tracePackets(params, 1)[0]!;

export const COMMANDS: readonly CommandMeasurement[] = [
  { name: 'version', label: 'flowscope --version', floor: 'start-up', target: { ratio: 2 }, args: () => ['--version'] },
  {
    name: 'tables',
    label: 'tables',
    floor: 'everyday',
    target: { ratio: 3 },
    args: (d) => ['tables', d.everyday.path],
  },
  {
    name: 'show',
    label: 'show | (pipe)',
    floor: 'everyday',
    target: { ratio: 3 },
    pipe: true,
    args: (d) => ['show', d.everyday.path],
  },
  {
    name: 'check',
    label: 'check',
    floor: 'everyday',
    target: { ratio: 3 },
    finds: true,
    args: (d) => ['check', d.everyday.path],
  },
  {
    name: 'trace',
    label: 'trace one packet',
    floor: 'everyday',
    target: { ratio: 3 },
    args: (d) => ['trace', d.everyday.path, packet(d.everyday.params)],
  },
  { name: 'conj', label: 'conj', floor: 'everyday', target: { ratio: 3 }, args: (d) => ['conj', d.everyday.path] },
  {
    name: 'diff-self',
    label: 'diff of the dump with itself',
    floor: 'everyday',
    target: { ratio: 3 },
    finds: true,
    args: (d) => ['diff', d.everyday.path, d.everyday.path],
  },
  {
    name: 'big-tables',
    label: 'tables',
    floor: 'big',
    target: { ratio: 4 },
    maxRssBytes: 1024 ** 3,
    args: (d) => ['tables', d.big.path],
  },
  {
    name: 'big-trace',
    label: 'trace one packet, cold',
    floor: 'big',
    target: { ratio: 5 },
    args: (d) => ['trace', d.big.path, packet(d.big.params)],
  },
  {
    name: 'big-diff',
    label: 'diff of two dumps of the node',
    floor: 'big, both dumps',
    target: { ratio: 3 },
    finds: true,
    args: (d) => ['diff', d.big.path, d.big.changed],
  },
  {
    name: 'big-conj',
    label: 'conj --json',
    floor: 'big',
    target: { ratio: 8 },
    args: (d) => ['conj', '--json', d.big.path],
  },
  {
    name: 'big-check',
    label: 'check',
    floor: 'big',
    target: { cpuMs: 30_000 },
    finds: true,
    args: (d) => ['check', d.big.path],
  },
];

export interface ProcessSample {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly maxRssKiB: number;
}

/** A child still running after this long has missed any target by far; stop it. */
const TIMEOUT_MS = 10 * 60_000;

/**
 * `node ARGS` under GNU time, for wall time and peak RSS, through bash, whose `times` gives the
 * CPU time to the millisecond (GNU time prints it to 10 ms, a fifth of the everyday floor). Exit
 * status 0 is a finished run, and 1 too when the command `finds` (see CommandMeasurement); a
 * string is why the run failed.
 */
export function timeNode(args: readonly string[], pipe = false, finds = false): ProcessSample | string {
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-bench-time-'));
  const report = join(dir, 'time.txt');
  const times = join(dir, 'times.txt');
  try {
    const child = spawnSync(
      TIME,
      ['-f', '%e %M', '-o', report, 'bash', '-c', TIMED, 'bash', times, process.execPath, ...args],
      {
        stdio: ['ignore', pipe ? 'pipe' : 'ignore', 'pipe'],
        encoding: 'buffer',
        maxBuffer: 4 * 1024 ** 3,
        timeout: TIMEOUT_MS,
      },
    );
    if (child.error)
      return `${child.error.message}${(child.error as NodeJS.ErrnoException).code === 'ENOENT' ? ' (GNU time is needed: apt-get install time)' : ''}`;
    if (child.status !== 0 && !(finds && child.status === 1))
      return `exit ${child.status ?? child.signal}: ${child.stderr.toString('utf8').trim().split('\n').pop() ?? ''}`;
    const [wall, rss] = readFileSync(report, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
    return { wallMs: wall! * 1000, cpuMs: childrenCpuMs(readFileSync(times, 'utf8')), maxRssKiB: rss! };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs "$@" after the file named by $1, writes bash's `times` to that file, exits as the command. */
const TIMED = 'out=$1; shift; "$@"; status=$?; times > "$out"; exit $status';

/** User + system time of the children in bash's `times` (its second line: `0m0.053s 0m0.028s`). */
function childrenCpuMs(times: string): number {
  const line = times.trim().split('\n')[1] ?? '';
  const parts = [...line.matchAll(/(\d+)m([\d.]+)s/g)];
  if (parts.length !== 2) throw new Error(`bash's times printed ${JSON.stringify(times)}`);
  return parts.reduce((ms, [, min, sec]) => ms + (Number(min) * 60 + Number(sec)) * 1000, 0);
}

/** `flowscope ARGS`, as timeNode. */
export function timeCommand(m: CommandMeasurement, dumps: CommandDumps): ProcessSample | string {
  return timeNode([bin, ...m.args(dumps)], m.pipe, m.finds);
}
