/** Reading what a command is given: a file, or `-` for standard input. */
import { fstatSync } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { gunzip, sniff } from '../sources/archive.ts';
import { MAX_INPUT_BYTES, mebibytes } from '../sources/limits.ts';
import { binaryKind } from '../sources/node.ts';
import { type Io, UserError } from './io.ts';

/** How an input is named in messages and report headers. */
export function inputLabel(name: string): string {
  return name === '-' ? '<stdin>' : name;
}

export interface InputText {
  /** As the user named it; `-` for stdin. */
  readonly name: string;
  readonly text: string;
}

export interface InputBytes {
  readonly name: string;
  readonly data: Buffer;
}

/** What standard input held, per stream: it can be read once, and both a look at its start and the reading of it want it. */
const stdinData = new WeakMap<object, Promise<Buffer>>();

/** All of standard input, read once however many times it is asked for. */
export function readStdin(io: Io): Promise<Buffer> {
  let data = stdinData.get(io.stdin);
  if (data === undefined) stdinData.set(io.stdin, (data = readAll(io)));
  return data;
}

async function readAll(io: Io): Promise<Buffer> {
  if (io.stdin.isTTY) {
    throw new UserError(
      'no input: standard input is a terminal; give a file name, or pipe a dump in (kubectl exec … -- ovs-ofctl dump-flows br-int | flowscope <command> -)',
    );
  }
  // A directory given as standard input (`< dir`) reads as nothing at all: say what it is.
  const fd = (io.stdin as { fd?: unknown }).fd;
  if (typeof fd === 'number' && fstatSync(fd).isDirectory())
    throw new UserError('cannot read standard input: is a directory');
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of io.stdin) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      size += bytes.length;
      if (size > MAX_INPUT_BYTES) throw tooLarge('standard input');
      chunks.push(bytes);
    }
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`cannot read standard input: ${describeFsError(err)}`);
  } finally {
    // Nothing more is wanted of a stream that goes on without end.
    if (size > MAX_INPUT_BYTES) io.stdin.destroy();
  }
  return Buffer.concat(chunks);
}

function tooLarge(what: string): UserError {
  return new UserError(`${what}: more than ${mebibytes(MAX_INPUT_BYTES)}, more than flowscope reads of one input`);
}

/** What a file that is no regular file (a FIFO, `<(command)`, a device) held, per run: it can be read once. */
const streamed = new WeakMap<Io, Map<string, Promise<Buffer>>>();

/** A file that is not a regular one, read once up to MAX_INPUT_BYTES, or undefined for a regular file. */
export async function readSpecialFile(name: string, io: Io): Promise<Buffer | undefined> {
  let files = streamed.get(io);
  if (files === undefined) streamed.set(io, (files = new Map()));
  const known = files.get(name);
  if (known !== undefined) return known;
  const st = await stat(name);
  if (st.isFile() || st.isDirectory()) return undefined;
  const data = readStream(name);
  files.set(name, data);
  return data;
}

async function readStream(name: string): Promise<Buffer> {
  const file = await open(name, 'r');
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const { buffer, bytesRead } = await file.read(Buffer.alloc(1 << 20), 0, 1 << 20, null);
      if (bytesRead === 0) return Buffer.concat(chunks);
      size += bytesRead;
      if (size > MAX_INPUT_BYTES) throw tooLarge(name);
      chunks.push(buffer.subarray(0, bytesRead));
    }
  } finally {
    await file.close();
  }
}

export function describeFsError(err: unknown): string {
  const code = (err as { code?: string }).code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}

async function readBytes(name: string, io: Io): Promise<Buffer> {
  if (name === '-') return readStdin(io);
  try {
    const special = await readSpecialFile(name, io);
    if (special !== undefined) return special;
    if ((await stat(name)).size > MAX_INPUT_BYTES) throw tooLarge(name);
    return await readFile(name);
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`cannot read ${name}: ${describeFsError(err)}`);
  }
}

/**
 * The bytes of a file or of standard input, unchecked; gzip-compressed data (a dump saved with
 * gzip) inflated. A damaged stream is refused: what came before the damage would read as a
 * shorter dump.
 */
export async function readInputBytes(name: string, io: Io): Promise<InputBytes> {
  const data = await readBytes(name, io);
  if (sniff(data) !== 'gzip') return { name, data };
  const inflated = await gunzip(data, MAX_INPUT_BYTES);
  if (inflated.tooLarge)
    throw new UserError(
      `cannot read ${inputLabel(name)}: it decompresses to more than ${mebibytes(MAX_INPUT_BYTES)}, more than flowscope reads of one input`,
    );
  if (inflated.problem !== undefined) throw new UserError(`cannot read ${inputLabel(name)}: it ${inflated.problem}`);
  return { name, data: inflated.data };
}

/** The text of a file or of standard input; binary data (an image, an archive) is refused by name. */
export async function readInput(name: string, io: Io): Promise<InputText> {
  const { data } = await readInputBytes(name, io);
  const kind = binaryKind(data);
  if (kind !== undefined) throw new UserError(`${inputLabel(name)}: not a text file (${kind})`);
  return { name, text: data.toString('utf8') };
}

/** Lines that hold something other than blanks or a `#` comment. */
const CONTENT_LINE = /^[ \t]*[^\s#]/m;

/**
 * Why an input holds nothing to read (empty, only blank lines and comments, nothing on standard
 * input), or undefined when it holds something: most often a command before a pipe failed, or a
 * wrong file was named.
 */
export function emptyInputReason(name: string, text: string): string | undefined {
  // Stops at the first line that holds something: at once for any input, however large.
  if (CONTENT_LINE.test(text)) return undefined;
  const stdin = name === '-';
  if (text.trim() !== '') return `${stdin ? 'standard input' : name} holds only comments`;
  return stdin ? 'nothing came in on standard input (did the command before the pipe fail?)' : `${name} is empty`;
}

/** A line of a line-based input that says nothing: blank, or a `#` comment. */
export function isBlankOrComment(line: string): boolean {
  return !CONTENT_LINE.test(line);
}
