#!/usr/bin/env node
// Thin shim: the command line lives in dist/src/cli/main.js, bundled into one script by `npm run build`.
import { versionOnly } from '../dist/src/cli/version.js';
import { loadCli, readCodeCache } from './cli-script.js';

process.stdout.on('error', (err) => {
  // Output piped into `head` and closed early is a normal end, not a failure.
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});
process.stderr.on('error', (err) => {
  // Messages no one reads any more change nothing of the outcome: exit 1 would mean "differences".
  if (err.code !== 'EPIPE') throw err;
});

const args = process.argv.slice(2);
// The version alone is answered by the command line's few modules, in the time node takes to start.
let main;
if (versionOnly(args)) ({ main } = await import('../dist/src/cli/main.js'));
else {
  const cli = loadCli(readCodeCache(args));
  main = cli.main;
  // Only once the script is loaded: its code cache holds under the flags it was made with.
  cli.processTiering.shortRun();
}
process.exitCode = await main(args, {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
