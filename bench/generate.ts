/**
 * Writes a synthetic Antrea `ovs-ofctl -O OpenFlow13 dump-flows br-int` reply (with statistics and
 * multipart headers) of about the requested number of flows, deterministically for a seed.
 *
 *   node dist/bench/generate.js [--flows N] [--seed S] [--changes N] [--out FILE]
 *
 * Without --out the file goes to the system temp directory under a name that encodes the parameters
 * and the generator version, and an existing file of that name is reused.
 */
import { closeSync, existsSync, openSync, renameSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AntreaFlowBuilder, shapeFor, type SyntheticFlow } from './antrea-flows.ts';
import { Random } from './random.ts';

/** Bump whenever the output for given parameters changes, so stale cached dumps are not reused. */
export const GENERATOR_VERSION = 3;

export interface DumpParameters {
  readonly flows: number;
  readonly seed: number;
  /**
   * When set, the dump as it might read a while later: this many flows removed, as many added and
   * as many with other actions, flow order within tables and statistics different (the second
   * side of a diff).
   */
  readonly changes?: number;
}

export const DEFAULT_PARAMETERS: DumpParameters = { flows: 1_000_000, seed: 1 };

export function dumpPath(p: DumpParameters): string {
  const changed = p.changes === undefined ? '' : `-changed${p.changes}`;
  return join(tmpdir(), `flowscope-bench-antrea-${p.flows}-seed${p.seed}${changed}-v${GENERATOR_VERSION}.flows.txt`);
}

export interface GeneratedDump {
  readonly path: string;
  readonly reused: boolean;
}

/** The cached dump for these parameters, generated first when absent. */
export function ensureDump(p: DumpParameters): GeneratedDump {
  const path = dumpPath(p);
  if (existsSync(path)) return { path, reused: true };
  writeDump(path, p);
  return { path, reused: false };
}

/**
 * OVS splits a large flow-stats reply into multipart messages of at most 64 KiB; the printed chunk
 * size therefore tracks the text length (OVS 3.1.0: ~510 short OpenFlow 1.3 flows per chunk).
 */
const CHUNK_TEXT_BUDGET = 56_000;
const REPLY_HEADER = 'OFPST_FLOW reply (OF1.3) (xid=0x2):';

/** Writes the dump (atomically, through a temporary name) and returns the number of flow lines. */
export function writeDump(path: string, p: DumpParameters): number {
  const tables = new AntreaFlowBuilder(p.seed, shapeFor(p.flows)).build(p.flows);
  if (p.changes !== undefined) applyChanges(tables, p.changes, new Random(p.seed ^ 0xd1ff));
  const stats = new StatsSource(p.seed ^ 0x5eed ^ (p.changes ?? 0));
  const partial = `${path}.partial-${process.pid}`;
  const fd = openSync(partial, 'w');
  let chunk: string[] = [];
  let chunkChars = 0;
  let written = 0;
  const flush = (last: boolean): void => {
    writeSync(fd, `${REPLY_HEADER}${last ? '' : ' flags=[more]'}\n${chunk.join('')}`);
    chunk = [];
    chunkChars = 0;
  };
  try {
    for (const flows of tables) {
      for (const flow of flows) {
        const line = formatFlowLine(flow, stats);
        if (chunkChars + line.length > CHUNK_TEXT_BUDGET) flush(false);
        chunk.push(line);
        chunkChars += line.length;
        written++;
      }
    }
    flush(true);
  } finally {
    closeSync(fd);
  }
  renameSync(partial, path);
  return written;
}

/** Priority of the added flows; the builder uses none below 190 except table-miss flows. */
const ADDED_PRIORITY = 100;

/**
 * Removes `n` flows, adds `n` (copies of other flows at a priority of their own, so each is a new
 * key) and changes the actions of `n` more, then reorders every table. Clause flows are never
 * edited or copied (their conjunction actions cannot be combined with others), nor conj_id flows.
 */
function applyChanges(tables: SyntheticFlow[][], n: number, rnd: Random): void {
  const all = tables.flatMap((flows, t) => flows.map((_, i) => ({ t, i })));
  const editable = all.filter(({ t, i }) => {
    const f = tables[t]![i]!;
    return (
      f.counted &&
      f.match !== '' &&
      !f.match.includes('conj_id') &&
      f.actions[0] !== 'drop' &&
      !f.actions[0]!.startsWith('meter:')
    );
  });
  if (editable.length < 2 * n || all.length < 3 * n)
    throw new Error(`${n} changes are too many for ${all.length} flows`);
  const touched = new Set<string>();
  const take = (from: readonly { t: number; i: number }[]): { t: number; i: number } => {
    for (;;) {
      const at = rnd.pick(from);
      const key = `${at.t}/${at.i}`;
      if (touched.has(key)) continue;
      touched.add(key);
      return at;
    }
  };
  const edits = Array.from({ length: n }, () => take(editable));
  const copies = Array.from({ length: n }, () => take(editable));
  const removals = Array.from({ length: n }, () => take(all));
  for (const [k, { t, i }] of edits.entries()) {
    const f = tables[t]![i]!;
    tables[t]![i] = { ...f, actions: [`load:0x${(k + 1).toString(16)}->NXM_NX_REG2[0..15]`, ...f.actions] };
  }
  const added = copies.map(({ t, i }) => ({ ...tables[t]![i]!, priority: ADDED_PRIORITY }));
  const removed = new Set(removals.map(({ t, i }) => tables[t]![i]!));
  for (const [t, flows] of tables.entries()) tables[t] = flows.filter((f) => !removed.has(f));
  for (const f of added) tables[f.table]!.push(f);
  for (const flows of tables) rnd.shuffle(flows);
}

/** Plausible counters for a Node that has been up for about two weeks. */
class StatsSource {
  private readonly rnd: Random;
  private static readonly UPTIME_MS = 1_296_000_000;

  constructor(seed: number) {
    this.rnd = new Random(seed);
  }

  /** `duration=` text: OVS prints whole milliseconds as `.mmm` and omits a zero fraction. */
  duration(): string {
    const ms = this.rnd.int(1_000, StatsSource.UPTIME_MS);
    const s = Math.floor(ms / 1000);
    const frac = ms % 1000;
    return frac === 0 ? `${s}s` : `${s}.${String(frac).padStart(3, '0')}s`;
  }

  counters(counted: boolean): { packets: number; bytes: number } {
    if (!counted || this.rnd.chance(0.4)) return { packets: 0, bytes: 0 };
    const packets = this.rnd.logInt(1, 500_000_000);
    return { packets, bytes: packets * this.rnd.int(60, 1400) };
  }
}

function formatFlowLine(flow: SyntheticFlow, stats: StatsSource): string {
  const { packets, bytes } = stats.counters(flow.counted);
  const timeout = flow.hardTimeout === undefined ? '' : `hard_timeout=${flow.hardTimeout}, `;
  const match = flow.match === '' ? '' : `,${flow.match}`;
  return ` cookie=0x${flow.cookie.toString(16)}, duration=${stats.duration()}, table=${flow.table}, n_packets=${packets}, n_bytes=${bytes}, ${timeout}priority=${flow.priority}${match} actions=${flow.actions.join(',')}\n`;
}

const FLOW_LINE =
  /^ cookie=(0x[0-9a-f]+), duration=[0-9.]+s, table=(\d+), n_packets=\d+, n_bytes=\d+, (hard_timeout=\d+, )?(priority=.*)$/;

/** A dump line of this generator as an add-flows line (statistics dropped, cookie and timeout kept). */
export function flowModOf(line: string): string {
  const m = FLOW_LINE.exec(line);
  if (m === null) throw new Error(`not a dump-flows line: ${line}`);
  return `table=${m[2]},cookie=${m[1]},${m[3]?.replace(', ', ',') ?? ''}${m[4]}`;
}

function parseArgs(argv: readonly string[]): { params: DumpParameters; out?: string } {
  let flows = DEFAULT_PARAMETERS.flows;
  let seed = DEFAULT_PARAMETERS.seed;
  let changes: number | undefined;
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = argv[i + 1];
    if (arg === '--flows' && value !== undefined) flows = positiveInt(arg, value);
    else if (arg === '--seed' && value !== undefined) seed = positiveInt(arg, value);
    else if (arg === '--changes' && value !== undefined) changes = positiveInt(arg, value);
    else if (arg === '--out' && value !== undefined) out = resolve(value);
    else throw new Error(`unknown or incomplete option: ${arg ?? ''}`);
    i++;
  }
  const params = changes === undefined ? { flows, seed } : { flows, seed, changes };
  return out === undefined ? { params } : { params, out };
}

export function positiveInt(option: string, text: string): number {
  const n = Number(text.replace(/_/g, ''));
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${option} needs a positive integer, got ${text}`);
  return n;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { params, out } = parseArgs(process.argv.slice(2));
  if (out !== undefined) {
    const n = writeDump(out, params);
    console.log(`${out}: ${n} flows`);
  } else {
    const dump = ensureDump(params);
    console.log(`${dump.path}${dump.reused ? ' (reused)' : ''}`);
  }
}
