/**
 * Whether to colour a stream, decided once from the flag, the environment and the stream:
 * `--color`/`--no-color` first, then NO_COLOR (non-empty: never), FORCE_COLOR (set: always,
 * unless it says 0/false), then a terminal that is not `TERM=dumb`. chalk's own detection
 * ignores NO_COLOR, so commands build `new Chalk({ level })` from this decision instead.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import type { Io } from './io.ts';
import type { Style } from '../render/style.ts';

export type ColorLevel = 0 | 1 | 2 | 3;

export function colorLevel(
  flag: boolean | undefined,
  env: Io['env'],
  stream: { readonly isTTY?: boolean },
): ColorLevel {
  if (flag !== undefined) return flag ? forcedLevel(env) : 0;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force === '0' || force === 'false' ? 0 : forcedLevel(env);
  if (!stream.isTTY || env.TERM === 'dumb') return 0;
  return terminalLevel(env);
}

/** FORCE_COLOR=2/3 ask for 256 colours / truecolor; anything else forces the basic 16. */
function forcedLevel(env: Io['env']): ColorLevel {
  const n = Number(env.FORCE_COLOR);
  return n === 2 || n === 3 ? n : 1;
}

function terminalLevel(env: Io['env']): ColorLevel {
  if (env.COLORTERM === 'truecolor' || env.COLORTERM === '24bit') return 3;
  if (/-256(color)?$/i.test(env.TERM ?? '')) return 2;
  return 1;
}

/** A chalk for standard output, coloured or plain as decided above. */
export function stdoutChalk(io: Io, flag: boolean | undefined): ChalkInstance {
  return new Chalk({ level: colorLevel(flag, io.env, io.stdout) });
}

/** Headings bold, warnings yellow, asides dim: how `tables` and `profile fit` colour their text. */
export function headStyle(io: Io, opts: { readonly color?: boolean }): Style<'head' | 'warn' | 'dim'> {
  const c = stdoutChalk(io, opts.color);
  return { head: (s) => c.bold(s), warn: (s) => c.yellow(s), dim: (s) => c.dim(s) };
}
