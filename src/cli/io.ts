/** The streams and environment a command runs with, injectable so tests drive main() in-process. */
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { jsonPieces } from '../render/json-stream.ts';

export interface Io {
  readonly stdin: Readable & { readonly isTTY?: boolean };
  readonly stdout: Writable & { readonly isTTY?: boolean };
  readonly stderr: Writable & { readonly isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** A mistake the user can fix (bad option, unreadable file): message on stderr, exit 2. */
export class UserError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = 'UserError';
    this.exitCode = exitCode;
  }
}

export function writeOut(io: Io, text: string): void {
  io.stdout.write(text.endsWith('\n') || text === '' ? text : text + '\n');
}

export function writeErr(io: Io, text: string): void {
  io.stderr.write(text.endsWith('\n') ? text : text + '\n');
}

/** Writes JSON piece by piece (see render/json-stream.ts), waiting when the stream is full. */
export async function writeJson(io: Io, value: unknown): Promise<void> {
  let buffered = '';
  for (const piece of jsonPieces(value)) {
    buffered += piece;
    if (buffered.length < 1 << 16) continue;
    if (!io.stdout.write(buffered)) await once(io.stdout, 'drain');
    buffered = '';
  }
  io.stdout.write(buffered + '\n');
}
