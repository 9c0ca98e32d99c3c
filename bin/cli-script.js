// The command line as one script (dist/src/bundle/cli.cjs, bundled by `npm run build`), compiled
// with the code V8 cached when the build ran it (cli.cjs.cache, and cli.cjs.NAME.cache for the
// everyday commands). Compiling the command line's functions is a good part of a command's
// start-up; V8 checks that the cache was made by the same version of it, with the same flags, for a
// script of the same length, and otherwise ignores it and compiles as usual.
// CommonJS, as every script of bin/ (bin/package.json): see flowscope.js.
'use strict';
const { readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname, join } = require('node:path');
const vm = require('node:vm');

const CLI_SCRIPT = join(__dirname, '..', 'dist', 'src', 'bundle', 'cli.cjs');
/** How the script begins and ends (scripts/bundle-cli.js writes them): a function of a CommonJS module's arguments. */
const SCRIPT_START = '(function (exports, require, module, __filename, __dirname) {';
const SCRIPT_END = '\n})';
const CODE_CACHE = `${CLI_SCRIPT}.cache`;

/**
 * The code cache of the command `name` alone: V8 reads a whole cache before running anything, and
 * one of every command's code is half again as large as one command's (`tables` of a small dump:
 * about 4 ms more).
 */
function commandCodeCache(name) {
  return `${CLI_SCRIPT}.${name}.cache`;
}

/**
 * The code cache the build made for the command line `args`, if it is there: that of the command
 * they name, or that of every command.
 */
function readCodeCache(args = []) {
  const [name] = args;
  for (const file of name !== undefined && /^[a-z]+$/.test(name)
    ? [commandCodeCache(name), CODE_CACHE]
    : [CODE_CACHE]) {
    try {
      return readFileSync(file);
    } catch {
      // The next one.
    }
  }
  return undefined;
}

/**
 * Runs the command line's script (as Node runs a CommonJS module); its `main`, its
 * `processTiering` (src/cli/tiering.ts) and the script, whose code can be cached.
 */
function loadCli(cachedData) {
  // ASCII alone (scripts/bundle-cli.js): read as Latin-1, no UTF-8 to decode. Already a function
  // (SCRIPT_START): V8 would copy a script made of several strings into one before compiling it.
  const source = readFileSync(CLI_SCRIPT, 'latin1');
  const script = new vm.Script(source, {
    filename: CLI_SCRIPT,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(CLI_SCRIPT), module, CLI_SCRIPT, dirname(CLI_SCRIPT));
  return { main: module.exports.main, processTiering: module.exports.processTiering, script };
}

module.exports = { CLI_SCRIPT, CODE_CACHE, SCRIPT_END, SCRIPT_START, commandCodeCache, readCodeCache, loadCli };
