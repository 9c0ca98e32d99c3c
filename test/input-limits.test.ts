// Inputs that never end, wait for ever or inflate without bound are refused with a message and
// exit 2: /dev/zero as a file or --ports, endless standard input, a FIFO as --bundle, a gzip
// bomb. What is checked is the refusal and what was read, never the time it took.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { main } from '../src/cli/main.ts';
import { runCli } from './support/cli.ts';
import { repoRoot } from './support/paths.ts';

const dir = mkdtempSync(join(tmpdir(), 'flowscope-limits-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** A gzip file of many members, each 64 MiB of zeros: `members` × 64 MiB once inflated, from a few KB each. */
function gzipBomb(members: number): Buffer {
  const one = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
  return Buffer.concat(Array.from({ length: members }, () => one));
}

test(
  '/dev/zero as an input or as --ports is refused past the size flowscope reads',
  { skip: !existsSync('/dev/zero') },
  async () => {
    const input = await runCli(['fmt', '/dev/zero']);
    assert.deepEqual(
      [input.status, input.stderr],
      [2, 'flowscope: error: /dev/zero: more than 256 MiB, more than flowscope reads of one input\n'],
    );
    const ports = await runCli(['fmt', '--ports', '/dev/zero', '-'], { stdin: 'priority=1 actions=drop\n' });
    assert.deepEqual(
      [ports.status, ports.stderr],
      [2, 'flowscope: error: /dev/zero: more than 256 MiB, more than flowscope reads of one input\n'],
    );
  },
);

test('standard input that never ends is refused past the size flowscope reads, and no more is read of it', async () => {
  let produced = 0;
  const chunk = Buffer.alloc(1 << 20);
  const stdin = new Readable({
    read() {
      produced += chunk.length;
      this.push(chunk);
    },
  });
  const stderr = new PassThrough();
  const err: Buffer[] = [];
  stderr.on('data', (c: Buffer) => err.push(c));
  const status = await main(['fmt', '-'], { stdin, stdout: new PassThrough(), stderr, env: {} });
  assert.equal(status, 2);
  assert.equal(
    Buffer.concat(err).toString(),
    'flowscope: error: standard input: more than 256 MiB, more than flowscope reads of one input\n',
  );
  assert.ok(stdin.destroyed, 'the stream is let go');
  assert.ok(produced <= 260 * (1 << 20), `${produced} bytes read`);
});

test('a FIFO as --bundle is refused without waiting for a writer', { skip: process.platform === 'win32' }, async () => {
  const fifo = join(dir, 'bundle.fifo');
  execFileSync('mkfifo', [fifo]);
  const r = await runCli(['show', '--bundle', fifo]);
  assert.deepEqual(
    [r.status, r.stderr],
    [2, `flowscope: error: ${fifo}: not a directory or a regular file; give a bundle directory or archive\n`],
  );
});

test('a gzip bomb given as a dump is refused once it passes what one input may inflate to', async () => {
  // 160 members: 10 GiB once inflated, from about 10 MB.
  const file = join(dir, 'bomb.gz');
  writeFileSync(file, gzipBomb(160));
  const r = await runCli(['fmt', file]);
  assert.deepEqual(
    [r.status, r.stderr],
    [
      2,
      `flowscope: error: cannot read ${file}: it decompresses to more than 256 MiB, more than flowscope reads of one input\n`,
    ],
  );
});

test('a directory as standard input is an error', () => {
  const fd = openSync(dir, 'r');
  try {
    const r = spawnSync(process.execPath, [join(repoRoot, 'bin', 'flowscope.js'), 'fmt'], {
      stdio: [fd, 'pipe', 'pipe'],
      encoding: 'utf8',
    });
    assert.deepEqual([r.status, r.stderr], [2, 'flowscope: error: cannot read standard input: is a directory\n']);
  } finally {
    closeSync(fd);
  }
});

test('stderr closed early leaves the exit status as it was', async () => {
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'flowscope.js'), 'fmt', '-'], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  // The reader of stderr is gone before the first diagnostic is written.
  child.stderr!.destroy();
  child.stdin!.end('priority=1,bogus=1 actions=drop\npriority=1 actions=drop\n');
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 0);
});
