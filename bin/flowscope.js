#!/usr/bin/env node
// Thin shim: the command line lives in dist/src/cli/main.js, bundled into one script by `npm run build`.
// CommonJS (bin/package.json): node starts a CommonJS script without its loader of ES modules and
// their facades of node's own modules, a few milliseconds of every command.
'use strict';
const { EventEmitter } = require('node:events');
const { fstatSync, statSync, writeSync } = require('node:fs');
const { loadCli, readCodeCache, scriptFor } = require('./cli-script.js');

/**
 * Standard output when it is a file or the null device, written as node's own stream of a file
 * writes it (SyncWriteStream: each write at once, with writeSync) without that stream, whose
 * making loads its modules (~0.5 ms of every command, most of which write to a file or to
 * nothing). Written at once, it is never full and has nothing queued.
 */
class FileOutput extends EventEmitter {
  writableLength = 0;

  constructor(fd) {
    super();
    this.fd = fd;
  }

  write(chunk, encoding, done) {
    try {
      writeSync(this.fd, chunk);
    } catch (err) {
      outputFailed(err);
    }
    const written = typeof encoding === 'function' ? encoding : done;
    if (written !== undefined) process.nextTick(written);
    return true;
  }
}

/**
 * Ends the command whose output cannot be written: quietly where its reader closed a pipe early
 * (`| head`), a normal end; else (a full disk) with a message and status 2, as any error, rather
 * than with node's trace of the error, or with the status of a command that only seemed to finish.
 */
function outputFailed(err) {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  // Node says `ENOSPC: no space left on device, write`: the words alone, as other messages say them.
  const reason = String(err.message ?? err)
    .replace(/^[A-Z]+: /, '')
    .replace(/, write$/, '');
  stderr().write(`flowscope: error: cannot write standard output: ${reason}\n`);
  process.exit(2);
}

/** Whether standard output is a file or the null device, which node too writes with writeSync. */
function outputToFile() {
  try {
    const out = fstatSync(1);
    return out.isFile() || (out.isCharacterDevice() && out.rdev === statSync('/dev/null').rdev);
  } catch {
    return false;
  }
}

/** Standard output: node's stream of it, unless it is a file (see FileOutput). */
function stdout() {
  if (outputToFile()) return new FileOutput(1);
  process.stdout.on('error', outputFailed);
  return process.stdout;
}

/**
 * Standard error, taken when first written to: node makes its stream when first asked for it (a
 * socket, for a pipe: a few milliseconds), and most runs write nothing there.
 */
let stderrWatched = false;
function stderr() {
  if (!stderrWatched) {
    stderrWatched = true;
    process.stderr.on('error', (err) => {
      // Messages no one reads any more change nothing of the outcome: exit 1 would mean "differences".
      if (err.code !== 'EPIPE') throw err;
    });
  }
  return process.stderr;
}

const args = process.argv.slice(2);
const io = {
  // Taken when read: node makes the stream of standard input when first asked for it (a few
  // milliseconds), and most commands read files.
  get stdin() {
    return process.stdin;
  },
  stdout: stdout(),
  get stderr() {
    return stderr();
  },
  env: process.env,
};

/** The command line's `main`: of its few modules for the version alone (versionOnly, src/cli/version.ts), else of the script. */
async function loadMain() {
  if (args.length === 1 && (args[0] === '-V' || args[0] === '--version'))
    return (await import('../dist/src/cli/main.js')).main;
  const script = scriptFor(args);
  const cli = loadCli(script, readCodeCache(script));
  // Only once the script is loaded: its code cache holds under the flags it was made with.
  cli.processTiering.shortRun();
  return cli.main;
}

/**
 * Ends the process with the command's status as soon as all it wrote is written. Left to end by
 * itself, node first runs the work V8 put off for when the program is idle, which is the end of a
 * command: after `tables` of a 24k-flow dump, the marking and compacting of a heap about to be
 * dropped (~8 ms, a twentieth of the command). Output still queued (a full pipe) ends it the usual
 * way, and so does output that failed: its error, told after this, decides the status (outputFailed).
 */
function exitOnceWritten(status) {
  process.exitCode = status;
  const streams = stderrWatched ? [io.stdout, process.stderr] : [io.stdout];
  if (streams.every((s) => s.writableLength === 0 && !s.errored)) process.exit(status);
}

loadMain()
  .then((main) => main(args, io))
  .then(exitOnceWritten);
