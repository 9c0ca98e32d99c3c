/**
 * Tarballs read in memory: gunzip with node:zlib, entries with tar-stream. Nothing is written
 * to disk and links are never followed, so an archive cannot reach outside itself. A cut or
 * corrupt archive yields the entries read before the damage plus a problem saying what broke.
 */
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import type * as Zlib from 'node:zlib';
import { zlib } from './lazy-modules.ts';
import type { BundleLimit } from './limits.ts';
import { TarFrames } from './tar-frames.ts';

/** Kinds of file recognised by their first bytes. */
export type Magic = 'gzip' | 'xz' | 'bzip2' | 'zstd' | 'zip' | 'tar' | 'png' | 'jpeg' | 'gif' | 'pdf' | 'elf';

const SIGNATURES: readonly (readonly [Magic, readonly number[]])[] = [
  ['gzip', [0x1f, 0x8b]],
  ['xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ['bzip2', [0x42, 0x5a, 0x68]],
  ['zstd', [0x28, 0xb5, 0x2f, 0xfd]],
  ['zip', [0x50, 0x4b, 0x03, 0x04]],
  ['png', [0x89, 0x50, 0x4e, 0x47]],
  ['jpeg', [0xff, 0xd8, 0xff]],
  ['gif', [0x47, 0x49, 0x46, 0x38]],
  ['pdf', [0x25, 0x50, 0x44, 0x46]],
  ['elf', [0x7f, 0x45, 0x4c, 0x46]],
];

export const MAGIC_DESCRIPTION: Readonly<Record<Magic, string>> = {
  gzip: 'gzip-compressed data',
  xz: 'xz-compressed data',
  bzip2: 'bzip2-compressed data',
  zstd: 'zstd-compressed data',
  zip: 'a zip archive',
  tar: 'a tar archive',
  png: 'a PNG image',
  jpeg: 'a JPEG image',
  gif: 'a GIF image',
  pdf: 'a PDF document',
  elf: 'an executable',
};

export function sniff(data: Uint8Array): Magic | undefined {
  for (const [magic, sig] of SIGNATURES) if (sig.every((b, i) => data[i] === b)) return magic;
  // ustar headers carry their magic at offset 257.
  if (Buffer.from(data.subarray(257, 262)).toString('latin1') === 'ustar') return 'tar';
  return undefined;
}

export interface ArchiveEntry {
  /** Path inside the archive, without a leading `./`. */
  readonly path: string;
  readonly data: Buffer;
  /** Set when the archive ends inside this entry: the size its header announced. */
  readonly cutFrom?: number;
}

export interface ArchiveContents {
  readonly entries: readonly ArchiveEntry[];
  /** What was wrong with the archive; entries read before the damage are still there. */
  readonly problems: readonly string[];
  /** Bytes of tar data read: what a gzip stream inflated to, or the tar itself. */
  readonly bytes: number;
  /** Entries read, of any kind. */
  readonly entryCount: number;
}

export interface ReadArchiveOptions {
  /** Entries to keep (by normalised path); the others are skipped unread. All when absent. */
  readonly wanted?: (path: string) => boolean;
  /** Most tar data read, once decompressed; past it the archive is refused (ArchiveTooLarge). */
  readonly maxBytes?: number;
  /** Most entries read, of any kind; past it the archive is refused (ArchiveTooLarge). */
  readonly maxEntries?: number;
  /** Largest entry kept; a larger one is skipped with a problem. */
  readonly maxEntryBytes?: number;
}

/** Guards against archives that inflate without bound (1 GiB is far above any real bundle). */
const DEFAULT_MAX_BYTES = 1 << 30;

/** An archive that holds more than the reader was allowed (bytes of tar data, or entries): nothing of it is read. */
export class ArchiveTooLarge extends Error {
  readonly limit: BundleLimit;

  constructor(limit: BundleLimit) {
    super(`holds more ${limit} than allowed`);
    this.name = 'ArchiveTooLarge';
    this.limit = limit;
  }
}

/**
 * A path made relative to the archive root, or undefined when it would leave it
 * (absolute after stripping, or with `..` segments).
 */
export function normaliseEntryPath(name: string): string | undefined {
  const parts: string[] = [];
  for (const seg of name.replace(/\\/g, '/').split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') return undefined;
    parts.push(seg);
  }
  return parts.length === 0 ? undefined : parts.join('/');
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function gunzipAsync(data: Buffer, options: Zlib.ZlibOptions): Promise<Buffer> {
  return promisify(zlib().gunzip)(data, options);
}

/**
 * Gunzips the data; a damaged stream is inflated again with sync flushing, which hands out
 * everything that came before the damage instead of failing, and the problem says what broke.
 */
export async function gunzip(
  data: Buffer,
  maxBytes = DEFAULT_MAX_BYTES,
): Promise<{ data: Buffer; problem?: string; tooLarge?: true }> {
  try {
    return { data: await gunzipAsync(data, { maxOutputLength: maxBytes }) };
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError)
      return { data: Buffer.alloc(0), problem: `decompresses to more than ${maxBytes} bytes`, tooLarge: true };
    const partial = await gunzipAsync(data, {
      maxOutputLength: maxBytes,
      finishFlush: zlib().constants.Z_SYNC_FLUSH,
    }).catch(() => Buffer.alloc(0));
    return { data: partial, problem: gzipProblem(err) };
  }
}

/** The start of a file that tells what it holds: a gzip stream's first 16 KiB inflate to far more than `sniff` reads. */
export const SNIFF_BYTES = 16 * 1024;

/**
 * What data holds, seen through gzip compression (`tar` for a .tar.gz as for a .tar), from its
 * start: a cut stream is enough. `gzip` only when even the stream's start cannot be inflated.
 */
export function contentMagic(start: Uint8Array): Magic | undefined {
  const magic = sniff(start);
  if (magic !== 'gzip') return magic;
  try {
    const { gunzipSync, constants } = zlib();
    return sniff(gunzipSync(start.subarray(0, SNIFF_BYTES), { finishFlush: constants.Z_SYNC_FLUSH }));
  } catch {
    return 'gzip';
  }
}

function tarProblem(err: unknown): string {
  const m = message(err);
  if (/unexpected end/i.test(m)) return 'is truncated (the tar data ends inside an entry)';
  return `is corrupt (${m.replace(/\. Maybe .*$/, '')})`;
}

/** An entry whose data is still arriving. */
interface Pending {
  readonly path: string;
  readonly size: number;
  readonly chunks: Buffer[];
}

interface Extracted {
  readonly entries: ArchiveEntry[];
  readonly pathProblems: string[];
  /** What broke the tar data, if anything. */
  readonly error?: unknown;
  /** What broke the stream the tar data came from (a gzip stream), if anything. */
  readonly sourceError?: unknown;
  /** Bytes of tar data read. */
  readonly bytes: number;
  readonly entryCount: number;
}

/** Input handed to the inflater at a time: on damage, only the output of the piece being inflated is lost. */
const INFLATE_PIECE = 64 * 1024;

/** The inflated stream of gzip data held in memory, read as it is made. */
function inflatedStream(data: Buffer): AsyncIterable<Buffer> {
  const pieces = function* (): Generator<Buffer> {
    for (let at = 0; at < data.length; at += INFLATE_PIECE) yield data.subarray(at, at + INFLATE_PIECE);
  };
  return Readable.from(pieces()).pipe(zlib().createGunzip({ chunkSize: INFLATE_PIECE }));
}

/**
 * Runs tar-stream over the chunks of tar data as they come, up to the archive's end. Past
 * `maxBytes` (or at a header announcing more, or past `maxEntries` headers) ArchiveTooLarge is
 * thrown and the source is read no further, so a bomb costs no more than the budget. Never
 * rejects otherwise: damage to the source or to the tar data is returned with the entries read
 * before it.
 */
async function extractEntries(
  source: AsyncIterable<Buffer> | Iterable<Buffer>,
  options: ReadArchiveOptions,
): Promise<Extracted> {
  const {
    wanted,
    maxBytes = DEFAULT_MAX_BYTES,
    maxEntries = Number.POSITIVE_INFINITY,
    maxEntryBytes = Number.POSITIVE_INFINITY,
  } = options;
  // Loaded only when an archive is read: a dump read from a file needs none of it.
  const { extract } = await import('tar-stream');
  const entries: ArchiveEntry[] = [];
  const pathProblems: string[] = [];
  let current: Pending | undefined;
  let progress = 0;
  const frames = new TarFrames();
  let bytes = 0;
  let tooLarge: BundleLimit | undefined;
  let error: unknown;
  let settled = false;
  const ex = extract();
  const done = new Promise<void>((resolve) => {
    const settle = (err?: unknown): void => {
      if (settled) return;
      settled = true;
      // The entry being read when the data ends: what arrived of it is kept, marked as cut.
      if (err !== undefined && current !== undefined)
        entries.push({ path: current.path, data: Buffer.concat(current.chunks), cutFrom: current.size });
      error = err;
      resolve();
    };
    ex.on('error', settle);
    ex.on('finish', () => settle());
    ex.on('close', () => settle());
  });
  ex.on('entry', (header, stream, next) => {
    progress++;
    // The extractor reports damage itself; the entry stream only repeats it.
    stream.on('error', () => undefined);
    const path = normaliseEntryPath(header.name);
    if (path === undefined && header.type !== 'directory')
      pathProblems.push(`entry ${JSON.stringify(header.name)} skipped: its path leaves the archive`);
    const keep =
      (header.type === 'file' || header.type === 'contiguous-file') && path !== undefined && (wanted?.(path) ?? true);
    const tooLargeEntry = keep && (header.size ?? 0) > maxEntryBytes;
    if (tooLargeEntry)
      pathProblems.push(
        `entry ${path} skipped: ${header.size} bytes, more than flowscope reads of one file (${maxEntryBytes})`,
      );
    const entry: Pending | undefined =
      keep && !tooLargeEntry ? { path, size: header.size ?? 0, chunks: [] } : undefined;
    current = entry;
    stream.on('data', (chunk: unknown) => {
      progress++;
      entry?.chunks.push(chunk as Buffer);
    });
    stream.on('end', () => {
      if (entry !== undefined) entries.push({ path: entry.path, data: Buffer.concat(entry.chunks) });
      current = undefined;
      next();
    });
  });
  let sourceError: unknown;
  try {
    for await (const chunk of source) {
      const part = frames.pass(chunk);
      bytes += part.length;
      // A header announcing more than is left is refused before its data is inflated.
      if (frames.reach > maxBytes) tooLarge = 'bytes';
      else if (frames.headers > maxEntries) tooLarge = 'entries';
      if (tooLarge !== undefined || settled) break;
      if (!ex.write(part)) await Promise.race([once(ex, 'drain').catch(() => undefined), done]);
      if (frames.ended || settled) break;
    }
  } catch (err) {
    sourceError = err;
  }
  if (tooLarge !== undefined) {
    ex.destroy();
    throw new ArchiveTooLarge(tooLarge);
  }
  // Tell the extractor the data ends only once it has handed out all it holds, so that a
  // cut archive still yields the start of the entry it was cut in.
  const endWhenIdle = (seen: number): void => {
    setImmediate(() => {
      if (settled) return;
      if (progress === seen) ex.end(() => undefined);
      else endWhenIdle(progress);
    });
  };
  endWhenIdle(-1);
  await done;
  return { entries, pathProblems, error, sourceError, bytes, entryCount: frames.headers };
}

function gzipProblem(err: unknown): string {
  const code = (err as { code?: string }).code;
  const cut = code === 'Z_BUF_ERROR' || /unexpected end/i.test(message(err));
  return cut ? 'is truncated (the gzip stream ends early)' : `is corrupt (${message(err)})`;
}

/**
 * The regular files of a tar or tar.gz archive held in memory. A gzip stream is inflated as the
 * tar reader takes it; past `maxBytes` of tar data or `maxEntries` entries ArchiveTooLarge is thrown.
 */
export async function readArchive(data: Buffer, options: ReadArchiveOptions = {}): Promise<ArchiveContents> {
  const gzip = sniff(data) === 'gzip';
  const source = gzip ? inflatedStream(data) : [data];
  const { entries, pathProblems, error, sourceError, bytes, entryCount } = await extractEntries(source, options);
  const problems = [...pathProblems];
  // After a damaged gzip stream the tar reader only sees the consequence: report the cause.
  if (sourceError !== undefined) problems.unshift(gzipProblem(sourceError));
  else if (error !== undefined)
    problems.push(entries.length === 0 && !looksLikeTar(data, gzip) ? 'is not a tar archive' : tarProblem(error));
  return { entries, problems, bytes, entryCount };
}

function looksLikeTar(data: Buffer, gzip: boolean): boolean {
  return (gzip ? contentMagic(data) : sniff(data)) === 'tar';
}
