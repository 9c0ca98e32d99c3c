import { PassThrough, Readable } from 'node:stream';
import { main } from '../../src/cli/main.ts';

export interface CliRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs flowscope in-process with the given arguments and standard input. */
/** `columns`: standard output is a terminal that wide; `stderrIsTTY`: standard error is a terminal. */
export async function runCli(args: readonly string[], options: CliRunOptions = {}): Promise<CliRun> {
  return runMain(main, args, options);
}

export interface CliRunOptions {
  stdin?: string | Buffer;
  stdinIsTTY?: boolean;
  stderrIsTTY?: boolean;
  env?: Record<string, string>;
  columns?: number;
}

/** The command line's entry point, as the program's own or another build's. */
export type CliMain = typeof main;

/** Runs a given build's entry point in-process, as `runCli` runs this one's. */
export async function runMain(entry: CliMain, args: readonly string[], options: CliRunOptions = {}): Promise<CliRun> {
  const stdin = Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]) as Readable & {
    isTTY?: boolean;
  };
  if (options.stdinIsTTY) stdin.isTTY = true;
  const stdout = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  if (options.columns !== undefined) Object.assign(stdout, { isTTY: true, columns: options.columns });
  const stderr = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (options.stderrIsTTY) stderr.isTTY = true;
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  const status = await entry(args, { stdin, stdout, stderr, env: options.env ?? {} });
  return { status, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}
