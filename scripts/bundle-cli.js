#!/usr/bin/env node
// Part of `npm run build`: the command line (src/cli/main.ts, its dependencies included) as one
// script, dist/src/bundle/cli.cjs, which bin/flowscope.js runs (see bin/cli-script.js), and each
// everyday command's as a script of its own, NAME.cjs, with the modules of that command alone; and
// for each script the code V8 compiled for it while it ran its commands on the example dump,
// SCRIPT.cache (for cli.cjs, every everyday command's).
// Resolving, loading and compiling ~100 module files was most of a command's start-up. The library
// (dist/src/index.js) stays as tsc emits it.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { build } from 'esbuild';
import { CLI_SCRIPT, codeCache, commandScript, loadCli, SCRIPT_END, SCRIPT_START } from '../bin/cli-script.js';

/**
 * Modules that dependencies load at their start for what flowscope never asks of them, loading
 * Node's own modules that are a noticeable part of a command's start-up: commander's
 * node:child_process (for subcommands that are programs of their own, which flowscope has none
 * of) is handed over as one that loads the real module when used; chalk's colour detection
 * (node:tty, node:os), as none: the command line tells chalk the level itself (src/cli/color.ts).
 */
const STAND_INS = [
  {
    request: /^node:child_process$/,
    importer: /[\\/]commander[\\/]/,
    contents: "module.exports = { spawn: (...args) => require('node:child_process').spawn(...args) };",
  },
  {
    request: /^#supports-color$/,
    importer: /[\\/]chalk[\\/]/,
    contents: 'module.exports = { stdout: false, stderr: false };',
  },
];
const standIns = {
  name: 'stand-ins',
  setup(build) {
    for (const [i, { request, importer }] of STAND_INS.entries())
      build.onResolve({ filter: request }, (args) =>
        importer.test(args.importer) ? { path: String(i), namespace: 'stand-in' } : undefined,
      );
    build.onLoad({ filter: /.*/, namespace: 'stand-in' }, (args) => ({
      contents: STAND_INS[Number(args.path)].contents,
      loader: 'js',
    }));
  },
};

/**
 * The command modules (src/cli/command-modules.ts) of a script of one command: the module of
 * that command alone, where the script of every command has every module of src/cli/commands/.
 */
function oneCommand(name) {
  return {
    name: 'one-command',
    setup(build) {
      build.onResolve({ filter: /^\.\/command-modules\.ts$/ }, () => ({ path: name, namespace: 'one-command' }));
      build.onLoad({ filter: /.*/, namespace: 'one-command' }, () => ({
        contents: `export async function loadCommand(name) {
  if (name !== ${JSON.stringify(name)}) throw new Error(\`the script of ${name} has no command \${name}\`);
  return (await import('./commands/${name}.ts')).registerCommand;
}`,
        resolveDir: resolve('src/cli'),
        loader: 'js',
      }));
    },
  };
}

/** Bundles the command line into `outfile`: that of every command, or that of the command `only`. */
async function bundle(outfile, only) {
  await build({
    // From the TypeScript sources, which esbuild reads as tsc does (tsconfig.json): it sees the pattern of
    // command-modules.ts's import of a command's module, which tsc's output hides in a call that rewrites `.ts`.
    entryPoints: ['src/cli/main.ts'],
    // At the depth of dist/src/cli/, so that the paths modules take from import.meta.url (package.json,
    // profiles/, the compiled built-in profiles) lead to the same files.
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    define: { 'import.meta.url': 'moduleUrl' },
    // Written as the function bin/cli-script.js runs it, as Node wraps a CommonJS module: read whole, the
    // script needs no wrapping at each start (a copy of its 2 MB).
    banner: {
      js: `${SCRIPT_START}const moduleUrl = require('node:url').pathToFileURL(__filename).href;`,
    },
    footer: { js: SCRIPT_END },
    plugins: only === undefined ? [standIns] : [standIns, oneCommand(only)],
    logLevel: 'warning',
  });
  // esbuild writes the characters of comments and regular expressions beyond ASCII as they are: any
  // one makes the whole script twice the bytes in V8 and its reading a decoding of UTF-8. Escaped,
  // the script is ASCII, which bin/cli-script.js reads as Latin-1, at a third of the cost.
  const bundled = readFileSync(outfile, 'utf8');
  writeFileSync(
    outfile,
    bundled.replace(/(\\?)([^\0-\x7f])/g, (_all, backslash, c) => {
      // `\…` (the character itself, in a pattern) would become `\\u2026`, a backslash and text.
      if (backslash !== '') throw new Error(`${outfile}: a character beyond ASCII after a backslash (${c})`);
      return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
    }),
  );
}

const io = {
  stdin: Readable.from([]),
  stdout: new Writable({ write: (_chunk, _encoding, done) => done() }),
  stderr: new Writable({ write: (_chunk, _encoding, done) => done() }),
  env: {},
};
const dump = 'examples/antrea/dump-flows.of13.txt';
const packet =
  'in_port=coredns5-8ec607,tcp,dl_src=12:9e:a6:47:d0:70,nw_src=10.10.0.2,nw_dst=10.10.1.5,nw_ttl=64,tp_dst=80';
const everyday = [
  ['tables', dump],
  ['show', dump],
  ['check', dump],
  ['conj', dump],
  ['diff', dump, dump],
  ['trace', dump, 'examples/antrea/show.of13.txt', packet],
];

/** The code V8 compiled for the script `file` while it ran the command lines. */
async function cachedCode(file, commandLines) {
  const { main, script } = loadCli(file);
  for (const args of commandLines) {
    const status = await main(args, io);
    if (status > 1)
      throw new Error(`flowscope ${args.join(' ')} failed (exit ${status}) while the build cached its code`);
  }
  return script.createCachedData();
}

/**
 * cachedCode in a thread of its own: V8 keeps the code compiled for a script and gives it to the
 * next loading of the same script, so that one cache would hold the code of the command lines run
 * before too.
 */
function cachedCodeApart(file, commandLines) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { file, commandLines } });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

if (isMainThread) {
  rmSync(dirname(CLI_SCRIPT), { recursive: true, force: true });
  await bundle(CLI_SCRIPT);
  // Each everyday command has a script of its own, with the code of its own run; any other, the
  // script of every command, with the code of them all.
  for (const args of everyday) {
    const file = commandScript(args[0]);
    await bundle(file, args[0]);
    writeFileSync(codeCache(file), await cachedCodeApart(file, [args]));
  }
  writeFileSync(codeCache(CLI_SCRIPT), await cachedCodeApart(CLI_SCRIPT, everyday));
} else parentPort.postMessage(await cachedCode(workerData.file, workerData.commandLines));
