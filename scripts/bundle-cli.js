#!/usr/bin/env node
// Part of `npm run build`: the command line (dist/src/cli/main.js, its dependencies included) in a
// few files under dist/src/bundle/, which bin/flowscope.js loads. Resolving and loading ~100 module
// files is most of the start-up of a command; bundled, each command's code is one chunk (loaded
// when that command runs) beside the chunks commands share. The library (dist/src/index.js) stays
// as tsc emits it.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

const OUT_DIR = 'dist/src/bundle';

rmSync(OUT_DIR, { recursive: true, force: true });
await build({
  entryPoints: ['dist/src/cli/main.js'],
  // At the depth of dist/src/cli/, so that the paths modules take from import.meta.url (package.json,
  // profiles/, the compiled built-in profiles) lead to the same files.
  outdir: OUT_DIR,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // The CommonJS dependencies (commander, cli-table3) require Node's modules.
  banner: {
    js: "import { createRequire as flowscopeRequire } from 'node:module'; const require = flowscopeRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
