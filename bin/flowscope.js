#!/usr/bin/env node
// Thin shim: the command line lives in dist/src/cli/main.js, bundled into dist/src/bundle/ by `npm run build`.
import { main } from '../dist/src/bundle/main.js';

process.stdout.on('error', (err) => {
  // Output piped into `head` and closed early is a normal end, not a failure.
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});
process.stderr.on('error', (err) => {
  // Messages no one reads any more change nothing of the outcome: exit 1 would mean "differences".
  if (err.code !== 'EPIPE') throw err;
});

process.exitCode = await main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
