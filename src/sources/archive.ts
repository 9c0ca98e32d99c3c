/**
 * Tarballs read in memory: gunzip with node:zlib, entries with tar-stream. Nothing is written
 * to disk and links are never followed, so an archive cannot reach outside itself. A cut or
 * corrupt archive yields the entries read before the damage plus a problem saying what broke.
 */
import { createGunzip } from 'node:zlib';
import { Readable } from 'node:stream';
import { extract } from 'tar-stream';

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
}

export interface ArchiveContents {
  readonly entries: readonly ArchiveEntry[];
  /** What was wrong with the archive; entries read before the damage are still there. */
  readonly problems: readonly string[];
}

export interface ReadArchiveOptions {
  /** Entries to keep (by normalised path); the others are skipped unread. All when absent. */
  readonly wanted?: (path: string) => boolean;
  /** Largest decompressed size accepted; past it the archive is read no further. */
  readonly maxBytes?: number;
}

/** Guards against archives that inflate without bound (1 GiB is far above any real bundle). */
const DEFAULT_MAX_BYTES = 1 << 30;

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

/** Gunzips as much as the data allows; a damaged stream keeps the bytes that came out first. */
async function gunzip(data: Buffer, maxBytes: number): Promise<{ data: Buffer; problem?: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  const z = createGunzip();
  try {
    for await (const chunk of Readable.from([data]).pipe(z)) {
      const b = chunk as Buffer;
      size += b.length;
      if (size > maxBytes) {
        z.destroy();
        return { data: Buffer.concat(chunks), problem: `decompresses to more than ${maxBytes} bytes; read no further` };
      }
      chunks.push(b);
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    const what = code === 'Z_BUF_ERROR' || /unexpected end/i.test(message(err)) ? 'is truncated (the gzip stream ends early)' : `is corrupt (${message(err)})`;
    return { data: Buffer.concat(chunks), problem: what };
  }
  return { data: Buffer.concat(chunks) };
}

function tarProblem(err: unknown): string {
  const m = message(err);
  if (/unexpected end/i.test(m)) return 'is truncated (the tar data ends inside an entry)';
  return `is corrupt (${m.replace(/\. Maybe .*$/, '')})`;
}

/** The regular files of a tar or tar.gz archive held in memory. */
export async function readArchive(data: Buffer, options: ReadArchiveOptions = {}): Promise<ArchiveContents> {
  const problems: string[] = [];
  let tarData = data;
  let gzipProblem: string | undefined;
  if (sniff(data) === 'gzip') {
    const g = await gunzip(data, options.maxBytes ?? DEFAULT_MAX_BYTES);
    tarData = g.data;
    gzipProblem = g.problem;
  }
  const entries: ArchiveEntry[] = [];
  const ex = extract();
  try {
    const source = Readable.from([tarData]);
    source.on('error', (e) => ex.destroy(e));
    source.pipe(ex);
    for await (const entry of ex) {
      const { name, type } = entry.header;
      const path = normaliseEntryPath(name);
      const keep = (type === 'file' || type === 'contiguous-file') && path !== undefined && (options.wanted?.(path) ?? true);
      if (path === undefined && type !== 'directory') problems.push(`entry ${JSON.stringify(name)} skipped: its path leaves the archive`);
      if (!keep) {
        entry.resume();
        continue;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      entries.push({ path, data: Buffer.concat(chunks) });
    }
  } catch (err) {
    // After a damaged gzip stream the tar reader only sees the consequence: report the cause.
    if (gzipProblem === undefined) problems.push(entries.length === 0 && sniff(tarData) !== 'tar' ? 'is not a tar archive' : tarProblem(err));
  }
  if (gzipProblem !== undefined) problems.unshift(gzipProblem);
  return { entries, problems };
}
