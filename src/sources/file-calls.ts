/**
 * Node's file calls as promises, made from its callback API rather than taken from
 * node:fs/promises: loading that module (and the readline and stream modules it loads) was a few
 * milliseconds of every command's start-up, the CPU profile's largest module of Node's own.
 */
import {
  close,
  lstat as lstatFile,
  open,
  read,
  readdir as readDirectory,
  readFile as readWhole,
  stat as statFile,
} from 'node:fs';
import { promisify } from 'node:util';

export const stat = promisify(statFile);
export const lstat = promisify(lstatFile);
export const readdir = promisify(readDirectory);
export const readFile = promisify(readWhole);

const openFile = promisify(open);
const readInto = promisify(read);
const closeFile = promisify(close);

/** Reads up to `length` bytes into `buffer` from `position` (null: where the last read ended); how many were read. */
export type ReadBytes = (buffer: Buffer, length: number, position: number | null) => Promise<number>;

/** Opens the file `name` for reading, hands `use` a way to read it, and closes it again, whatever `use` does. */
export async function withFile<T>(name: string, use: (readBytes: ReadBytes) => Promise<T>): Promise<T> {
  const fd = await openFile(name, 'r');
  try {
    return await use(async (buffer, length, position) => (await readInto(fd, buffer, 0, length, position)).bytesRead);
  } finally {
    await closeFile(fd);
  }
}
