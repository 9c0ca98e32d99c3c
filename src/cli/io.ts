/** The streams and environment a command runs with, injectable so tests drive main() in-process. */
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';

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

/** What every line flowscope writes of its own on standard error starts with. */
export const PROGRAM_PREFIX = 'flowscope: ';

/** What every error message starts with, whichever part of the program found the error. */
export const ERROR_PREFIX = `${PROGRAM_PREFIX}error: `;

/** What a notice is: a warning or a hint is labelled so, a plain notice (a count, a summary) is not. */
export type NoticeKind = 'warning' | 'hint' | 'plain';

/** A line on standard error that is not an error, with the program's name as errors have it. */
export function notice(io: Io, text: string, kind: NoticeKind = 'plain'): void {
  writeErr(io, `${PROGRAM_PREFIX}${kind === 'plain' ? '' : `${kind}: `}${text}`);
}

/** Bytes handed to the stream at once. */
const CHUNK = 1 << 20;
/** Chunks made at most: one filled while the stream writes the others. */
const CHUNKS = 4;

/**
 * Chunks of bytes to write into, each used again once a stream of a file descriptor (standard
 * output) says it has written it: a report of a large dump runs to a hundred chunks, and the
 * memory of each chunk made anew is counted outside the heap, whose growth starts a full
 * collection of a heap of hundreds of megabytes (a third of a second). Another stream may hand
 * the chunk on to a reader who keeps it, and has a new one each time.
 */
class Chunks {
  private readonly free: Buffer[] = [];
  private readonly reused: boolean;
  private made = 0;
  private waiting: (() => void) | undefined;

  constructor(stream: Io['stdout']) {
    this.reused = typeof (stream as { fd?: unknown }).fd === 'number';
  }

  /** A chunk to fill: a free one, a new one, or the first the stream gives back. */
  async take(): Promise<Buffer> {
    if (!this.reused) return Buffer.allocUnsafe(CHUNK);
    if (this.free.length === 0 && this.made === CHUNKS) await new Promise<void>((r) => (this.waiting = r));
    const chunk = this.free.pop();
    if (chunk) return chunk;
    this.made++;
    return Buffer.allocUnsafe(CHUNK);
  }

  /** Writes the first `used` bytes of `chunk`; the chunk is free again once written. False when the stream is full. */
  write(io: Io, chunk: Buffer, used: number): boolean {
    if (!this.reused) return io.stdout.write(chunk.subarray(0, used));
    return io.stdout.write(chunk.subarray(0, used), () => {
      this.free.push(chunk);
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.();
    });
  }
}

/**
 * Writes text piece by piece, waiting when the stream is full: a report of a large dump runs to
 * hundreds of megabytes, more than one string can hold. The pieces are encoded straight into
 * chunks of bytes (joining them into strings first, often two-byte strings for the words reports
 * use, cost more than the encoding).
 */
async function writePieces(io: Io, pieces: Iterable<string | Uint8Array>): Promise<void> {
  const chunks = new Chunks(io.stdout);
  let chunk = await chunks.take();
  let used = 0;
  // `more`: pieces follow, to be written into another chunk.
  const flush = async (more = true): Promise<void> => {
    if (used === 0) return;
    const full = !chunks.write(io, chunk, used);
    used = 0;
    if (full) await once(io.stdout, 'drain');
    if (more) chunk = await chunks.take();
  };
  for (const piece of pieces) {
    if (typeof piece !== 'string') {
      // Bytes (see JsonPiece): copied before the next piece is asked for, which may write over
      // them; a piece larger than the room left, in parts.
      for (let from = 0; from < piece.length;) {
        if (used === CHUNK) await flush();
        const n = Math.min(CHUNK - used, piece.length - from);
        chunk.set(from === 0 && n === piece.length ? piece : piece.subarray(from, from + n), used);
        used += n;
        from += n;
      }
      continue;
    }
    // A UTF-8 character takes at most three bytes per UTF-16 unit.
    if (used + piece.length * 3 > CHUNK) await flush();
    if (piece.length * 3 <= CHUNK) used += chunk.write(piece, used, 'utf8');
    else if (!io.stdout.write(piece)) await once(io.stdout, 'drain');
  }
  await flush(false);
}

/** Writes JSON piece by piece (see render/json-stream.ts), then a line end. */
export async function writeJson(io: Io, value: unknown): Promise<void> {
  // Loaded when JSON is asked for: the JSON renderers bring the flow printers with them.
  const { jsonBytePieces } = await import('../render/json-stream.ts');
  await writePieces(io, withLineEnd(jsonBytePieces(value)));
}

/** Writes a text report made piece by piece, ending in a line end. */
export async function writeText(io: Io, pieces: Iterable<string>): Promise<void> {
  await writePieces(io, withLineEnd(pieces));
}

/** Lines as pieces of a text: each but the last followed by a line end. */
export function* lines(of: Iterable<string>): Generator<string> {
  let first = true;
  for (const line of of) {
    if (!first) yield '\n';
    first = false;
    yield line;
  }
}

/** The pieces, then a line end unless they end in one (or are empty, like writeOut's text). */
function* withLineEnd<T extends string | Uint8Array>(pieces: Iterable<T>): Generator<T | '\n'> {
  let any = false;
  let ended = false;
  for (const piece of pieces) {
    // Read before the piece is handed on: bytes may be written over once the next is asked for.
    if (piece.length > 0) {
      any = true;
      ended = piece[piece.length - 1] === (typeof piece === 'string' ? '\n' : 10);
    }
    yield piece;
  }
  if (any && !ended) yield '\n';
}
