/**
 * Reading one input: a file, or `-` for standard input. Gzip-compressed data is inflated; what
 * cannot be read whole — more than MAX_INPUT_BYTES, a stream that never ends, a damaged gzip
 * stream — is refused with a SourceError that says why, instead of read in part.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { contentMagic, gunzip, sniff, SNIFF_BYTES } from './archive.ts';
import { fsPromises } from './lazy-modules.ts';
import { MAX_INPUT_BYTES, mebibytes } from './limits.ts';
import { binaryKind, SourceError } from './node.ts';

/** Standard input as a reader is given it: a terminal is refused instead of waited on. */
export type InputStream = Readable & { readonly isTTY?: boolean };

/** How an input is named in messages and report headers. */
export function inputLabel(name: string): string {
  return name === '-' ? '<stdin>' : name;
}

export interface InputText {
  /** As the user named it; `-` for stdin. */
  readonly name: string;
  readonly text: string;
}

/** What standard input held, per stream: it can be read once, and both a look at its start and the reading of it want it. */
const stdinData = new WeakMap<object, Promise<Buffer>>();

function tooLarge(what: string): SourceError {
  return new SourceError(`${what}: more than ${mebibytes(MAX_INPUT_BYTES)}, more than flowscope reads of one input`);
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

/**
 * Reads inputs by name for one run: standard input and files that are no regular file (a FIFO,
 * `<(command)`, a device) can be read once only, so what they held is kept for the run's other
 * looks at them (a look at an input's start to tell a bundle from a dump, then its reading).
 */
export class InputReader {
  private readonly stdin: InputStream | (() => InputStream) | undefined;
  private readonly streamed = new Map<string, Promise<Buffer>>();
  /** How many more regular files' buffers are kept for the read after theirs (see holdReads), and the buffer kept. */
  private holding = 0;
  private held: Buffer | undefined;

  /**
   * `stdin`: what `-` reads, or what gives it (asked only then: node makes the stream of its
   * standard input when first asked for it); the process's standard input unless given, taken only when read.
   */
  constructor(stdin?: InputStream | (() => InputStream)) {
    this.stdin = stdin;
  }

  /** All of standard input, read once however many times it is asked for. */
  readStdin(): Promise<Buffer> {
    const stream = (typeof this.stdin === 'function' ? this.stdin() : this.stdin) ?? process.stdin;
    let data = stdinData.get(stream);
    if (data === undefined) stdinData.set(stream, (data = readAll(stream)));
    return data;
  }

  /** A file that is not a regular one, read once up to MAX_INPUT_BYTES, or undefined for a regular file. */
  async readSpecialFile(name: string): Promise<Buffer | undefined> {
    const known = this.streamed.get(name);
    if (known !== undefined) return known;
    const st = statSync(name);
    if (st.isFile() || st.isDirectory()) return undefined;
    const data = readStream(name);
    this.streamed.set(name, data);
    return data;
  }

  /**
   * The bytes of a file or of standard input, and the buffer a regular file was read into when it
   * may be read into again (see holdReads): `into`, when given and large enough. A regular file is
   * read with node:fs's synchronous calls: it is wanted whole before anything else can go on, and
   * node:fs/promises costs every command the loading of its module and each call a round trip
   * through the thread pool.
   */
  private async readBytes(name: string, into: Buffer | undefined): Promise<{ data: Buffer; buffer?: Buffer }> {
    if (name === '-') return { data: await this.readStdin() };
    try {
      const special = await this.readSpecialFile(name);
      if (special !== undefined) return { data: special };
      const { size } = statSync(name);
      if (size > MAX_INPUT_BYTES) throw tooLarge(name);
      if (this.holding === 0 && into === undefined) return { data: readFileSync(name) };
      return readInto(name, into !== undefined && into.length > size ? into : roomFor(size));
    } catch (err) {
      if (err instanceof SourceError) throw err;
      throw new SourceError(`cannot read ${name}: ${describeFsError(err)}`);
    }
  }

  /**
   * Keeps the buffer of each of the next `reads` regular files read for the file read after it; 0
   * lets go of the buffer kept. A comparison reads a second dump about as large as the first: a
   * new buffer of that size, memory outside the heap, starts a full collection of the heap the
   * first dump's flows fill (two million-flow dumps: 0.1-0.15 s of CPU), where the first's buffer,
   * read into again, starts none.
   */
  holdReads(reads: number): void {
    this.holding = reads;
    if (reads === 0) this.held = undefined;
  }

  /**
   * What `use` makes of the bytes of a file or of standard input, unchecked; gzip-compressed data
   * (a dump saved with gzip) inflated. `use` must not keep them: a regular file's buffer may be
   * read into again (see holdReads). A damaged stream is refused: what came before the damage
   * would read as a shorter dump.
   */
  async readInputBytes<T>(name: string, use: (data: Buffer) => T): Promise<T> {
    // Taken while in use: a read meanwhile reads into a buffer of its own.
    const held = this.held;
    this.held = undefined;
    const { data, buffer } = await this.readBytes(name, held);
    try {
      if (sniff(data) !== 'gzip') return use(data);
      const inflated = await gunzip(data, MAX_INPUT_BYTES);
      if (inflated.tooLarge)
        throw new SourceError(
          `cannot read ${inputLabel(name)}: it decompresses to more than ${mebibytes(MAX_INPUT_BYTES)}, more than flowscope reads of one input`,
        );
      if (inflated.problem !== undefined)
        throw new SourceError(`cannot read ${inputLabel(name)}: it ${inflated.problem}`);
      return use(inflated.data);
    } finally {
      if (this.holding > 0 && buffer !== undefined) {
        this.holding--;
        this.held = buffer;
      }
    }
  }

  /**
   * The text of a file or of standard input, gzip-compressed data inflated; data that is no text
   * (an image, an archive: see binaryKind) is refused with the error `notText` makes of its kind.
   */
  async readInputText(name: string, notText: (kind: string) => Error): Promise<string> {
    if (name !== '-' && this.holding === 0 && this.held === undefined) {
      const text = this.plainText(name, notText);
      if (text !== undefined) return text;
    }
    return this.readInputBytes(name, (data) => {
      const kind = binaryKind(data);
      if (kind !== undefined) throw notText(kind);
      return data.toString('utf8');
    });
  }

  /**
   * The text of a regular file that its first bytes show to be neither compressed nor binary;
   * undefined for any other file. Node decodes the file as it reads it: there is no buffer of its
   * bytes, memory outside the heap that starts a full collection while the buffer is still in use,
   * which then keeps it to the end of the run (a million-flow dump's peak memory grew by its size).
   */
  private plainText(name: string, notText: (kind: string) => Error): string | undefined {
    const head = fsRead(name, () => {
      if (this.streamed.has(name)) return undefined;
      const st = statSync(name);
      if (!st.isFile()) return undefined;
      if (st.size > MAX_INPUT_BYTES) throw tooLarge(name);
      return fileHead(name);
    });
    if (head === undefined || sniff(head) === 'gzip') return undefined;
    const kind = binaryKind(head);
    if (kind !== undefined) throw notText(kind);
    return fsRead(name, () => readFileSync(name, 'utf8'));
  }

  /** The text of a file or of standard input; binary data (an image, an archive) is refused by name. */
  async readInput(name: string): Promise<InputText> {
    const text = await this.readInputText(
      name,
      (kind) => new SourceError(`${inputLabel(name)}: not a text file (${kind})`),
    );
    return { name, text };
  }

  /**
   * Whether an input names a bundle: a directory, or a tar archive, gzip-compressed or not (a
   * gzip-compressed dump is no bundle), in a file or on standard input. An input that cannot be
   * read is none (reading it says why).
   */
  async isBundleInput(name: string): Promise<boolean> {
    try {
      if (name === '-') return contentMagic(await this.readStdin()) === 'tar';
      if (statSync(name).isDirectory()) return true;
      const special = await this.readSpecialFile(name);
      if (special !== undefined) return false;
      return contentMagic(fileHead(name)) === 'tar';
    } catch {
      return false;
    }
  }
}

async function readAll(stdin: InputStream): Promise<Buffer> {
  if (stdin.isTTY) {
    throw new SourceError(
      'no input: standard input is a terminal; give a file name, or pipe a dump in (kubectl exec … -- ovs-ofctl dump-flows br-int | flowscope <command> -)',
    );
  }
  // A directory given as standard input (`< dir`) reads as nothing at all: say what it is.
  const fd = (stdin as { fd?: unknown }).fd;
  if (typeof fd === 'number' && fstatSync(fd).isDirectory())
    throw new SourceError('cannot read standard input: is a directory');
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stdin) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      size += bytes.length;
      if (size > MAX_INPUT_BYTES) throw tooLarge('standard input');
      chunks.push(bytes);
    }
  } catch (err) {
    if (err instanceof SourceError) throw err;
    throw new SourceError(`cannot read standard input: ${describeFsError(err)}`);
  } finally {
    // Nothing more is wanted of a stream that goes on without end.
    if (size > MAX_INPUT_BYTES) stdin.destroy();
  }
  return Buffer.concat(chunks);
}

/** What `read` returns; an error of the file system says that `name` cannot be read. */
function fsRead<T>(name: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof SourceError) throw err;
    throw new SourceError(`cannot read ${name}: ${describeFsError(err)}`);
  }
}

/** The first SNIFF_BYTES of a regular file (all of a shorter one): enough to tell what it holds (see contentMagic, binaryKind). */
function fileHead(name: string): Buffer {
  const fd = openSync(name, 'r');
  try {
    const head = Buffer.alloc(SNIFF_BYTES);
    return head.subarray(0, readSync(fd, head, 0, SNIFF_BYTES, 0));
  } finally {
    closeSync(fd);
  }
}

/** A buffer for a file of `size` bytes, with room for one that grew a little or the next one read (see holdReads). */
function roomFor(size: number): Buffer {
  return Buffer.allocUnsafe(size + (size >> 4) + (1 << 16));
}

/** A regular file read into `buffer` (into a larger one should it have grown beyond), and the buffer. */
function readInto(name: string, buffer: Buffer): { data: Buffer; buffer: Buffer } {
  const fd = openSync(name, 'r');
  try {
    let into = buffer;
    let size = 0;
    for (;;) {
      if (size === into.length) {
        if (size > MAX_INPUT_BYTES) throw tooLarge(name);
        const larger = Buffer.allocUnsafe(size * 2);
        into.copy(larger, 0, 0, size);
        into = larger;
      }
      const bytesRead = readSync(fd, into, size, into.length - size, size);
      if (bytesRead === 0) return { data: into.subarray(0, size), buffer: into };
      size += bytesRead;
    }
  } finally {
    closeSync(fd);
  }
}

/** A file that is no regular one (a FIFO, `<(command)`): read as it comes, without holding up the process while its writer is slow. */
async function readStream(name: string): Promise<Buffer> {
  const file = await fsPromises().open(name, 'r');
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
