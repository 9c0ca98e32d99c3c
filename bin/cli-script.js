// The command line as one script (dist/src/bundle/cli.cjs, bundled by `npm run build`), compiled
// with the code V8 cached when the build ran it (cli.cjs.cache); each everyday command also as a
// script of its own with its code (dist/src/bundle/NAME.cjs, NAME.cjs.cache). Compiling the command
// line's functions is a good part of a command's start-up; V8 checks that the cache was made by the
// same version of it, with the same flags, for a script of the same length, and otherwise ignores it
// and compiles as usual.
// CommonJS, as every script of bin/ (bin/package.json): see flowscope.js.
'use strict';
const { existsSync, readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname, join } = require('node:path');
const vm = require('node:vm');

const CLI_SCRIPT = join(__dirname, '..', 'dist', 'src', 'bundle', 'cli.cjs');
/** How the script begins and ends (scripts/bundle-cli.js writes them): a function of a CommonJS module's arguments. */
const SCRIPT_START = '(function (exports, require, module, __filename, __dirname) {';
const SCRIPT_END = '\n})';

/**
 * The script of the command `name` alone: V8 makes, at each start, a function of every function of
 * the script and reads the code of those the command ran; the modules of the other commands are a
 * third of the script of every command (`tables` of a small dump: about 2 ms more).
 */
function commandScript(name) {
  return join(dirname(CLI_SCRIPT), `${name}.cjs`);
}

/** The file of the code the build cached for a script. */
function codeCache(script) {
  return `${script}.cache`;
}

/** The script for the command line `args`: that of the command they name, if the build made one, or that of every command. */
function scriptFor(args = []) {
  const [name] = args;
  if (name !== undefined && /^[a-z]+$/.test(name) && existsSync(commandScript(name))) return commandScript(name);
  return CLI_SCRIPT;
}

/** The code the build cached for the script, if it is there. */
function readCodeCache(script) {
  try {
    return readFileSync(codeCache(script));
  } catch {
    return undefined;
  }
}

/**
 * Runs a script of the command line (as Node runs a CommonJS module); its `main`, its
 * `processTiering` (src/cli/tiering.ts) and the script, whose code can be cached.
 */
function loadCli(file = CLI_SCRIPT, cachedData = undefined) {
  // ASCII alone (scripts/bundle-cli.js): read as Latin-1, no UTF-8 to decode. Already a function
  // (SCRIPT_START): V8 would copy a script made of several strings into one before compiling it.
  const source = readFileSync(file, 'latin1');
  const script = new vm.Script(source, {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  return { main: module.exports.main, processTiering: module.exports.processTiering, script };
}

module.exports = { CLI_SCRIPT, SCRIPT_END, SCRIPT_START, codeCache, commandScript, loadCli, readCodeCache, scriptFor };
