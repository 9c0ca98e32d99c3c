/**
 * Node's own modules that only some inputs need, loaded when first needed: most commands read a
 * plain dump, and loading either is a noticeable part of their start-up. Through `require`, as
 * the command line's bundle runs as a script, which has no dynamic `import` of Node's modules.
 */
import type * as FsPromises from 'node:fs/promises';
import { createRequire } from 'node:module';
import type * as Zlib from 'node:zlib';

function load(name: string): unknown {
  return createRequire(import.meta.url)(name);
}

/** node:zlib, for compressed data. */
export function zlib(): typeof Zlib {
  return load('node:zlib') as typeof Zlib;
}

/** node:fs/promises, for bundles, and for files that are no regular one (input.ts reads the others). */
export function fsPromises(): typeof FsPromises {
  return load('node:fs/promises') as typeof FsPromises;
}
