/** writeJson: the streamed JSON of a command, byte for byte what JSON.stringify gives. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { writeJson, type Io } from '../src/cli/io.ts';
import { AsciiJson, JsonText, jsonReplacer, StringList } from '../src/render/json.ts';
import { formatJson } from '../src/render/json-stream.ts';

function ioWriting(stdout: Writable): Io {
  return { stdin: new PassThrough(), stdout, stderr: new PassThrough(), env: {} };
}

test('writeJson: large output in chunks, with pieces larger than a chunk and characters beyond ASCII', async () => {
  const value = {
    words: Array.from({ length: 40_000 }, (_, i) => ({
      i,
      text: `address ∈ {10.0.${i >> 8}.${i & 255}}`,
      n: BigInt(i) * 1_000_000_007n,
    })),
    // One element is one piece: this one is larger than a chunk on its own.
    huge: [{ text: 'é'.repeat(600_000) }],
  };
  const chunks: Buffer[] = [];
  const stdout = new PassThrough();
  stdout.on('data', (c: Buffer) => chunks.push(c));
  await writeJson(ioWriting(stdout), value);
  const out = Buffer.concat(chunks).toString('utf8');
  assert.equal(out, JSON.stringify(value, jsonReplacer, 2) + '\n');
  assert.ok(chunks.length > 3, `${chunks.length} chunks`);
});

test('writeJson: to a file descriptor, its chunks written again and again, nothing lost or written over', async () => {
  // Many more chunks of a megabyte than writeJson makes: they are used again once written.
  const value = { items: Array.from({ length: 120_000 }, (_, i) => ({ i, text: `${'x'.repeat(80)} ∈ ${i}` })) };
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-io-'));
  try {
    const path = join(dir, 'out.json');
    const fd = openSync(path, 'w');
    // A stream that takes every chunk without asking to wait: each is reused only once written.
    const stdout = createWriteStream('', { fd, autoClose: false, highWaterMark: 1 << 26 });
    await writeJson(ioWriting(stdout), value);
    await new Promise<void>((resolve) => stdout.end(resolve));
    closeSync(fd);
    assert.equal(readFileSync(path, 'utf8'), JSON.stringify(value, null, 2) + '\n');
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('writeJson: waits for a slow stream to drain and loses nothing', async () => {
  const value = { items: Array.from({ length: 20_000 }, (_, i) => ({ i, text: 'x'.repeat(80) })) };
  const chunks: Buffer[] = [];
  let waits = 0;
  const stdout = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      waits++;
      setImmediate(done);
    },
  });
  await writeJson(ioWriting(stdout), value);
  await new Promise<void>((resolve) => stdout.end(resolve));
  assert.equal(Buffer.concat(chunks).toString('utf8'), JSON.stringify(value, null, 2) + '\n');
  assert.ok(waits > 1);
});

test('writeJson: text written as bytes where it stands is what the same text as strings gives', async () => {
  const numbers = Array.from({ length: 300_000 }, (_, i) => i * 7919);
  const members = numbers.map((n) => `10.0.${n % 251}.${n % 256}`);
  // The same report twice: lists of numbers and of members written as bytes, or given as strings.
  const report = (bytes: boolean): unknown => {
    const lines = (list: readonly number[]): AsciiJson | JsonText =>
      bytes
        ? new AsciiJson((out) => {
            out.char(0x5b);
            list.forEach((n, i) => {
              if (i > 0) out.char(0x2c);
              out.decimal(n);
            });
            out.char(0x5d);
          })
        : new JsonText(JSON.stringify(list));
    const joined = (strings: readonly string[]): StringList =>
      bytes
        ? new StringList(strings, (out, separator) => {
            strings.forEach((s, i) => {
              if (i > 0) out.ascii(separator);
              out.ascii(s);
            });
            return true;
          })
        : new StringList(strings);
    return {
      // The first list is larger than a chunk on its own.
      items: [{ lines: lines(numbers), members: joined(members) }],
      few: { lines: lines([1, 22, 333, 4444]), members: joined(['a', 'b']), none: joined([]), empty: lines([]) },
      refused: new StringList(['x "quoted"'], () => false),
    };
  };
  const written = async (value: unknown): Promise<string> => {
    const chunks: Buffer[] = [];
    const stdout = new PassThrough();
    stdout.on('data', (c: Buffer) => chunks.push(c));
    await writeJson(ioWriting(stdout), value);
    return Buffer.concat(chunks).toString('utf8');
  };
  const out = await written(report(true));
  assert.equal(out, await written(report(false)));
  assert.equal(out, `${formatJson(report(true))}\n`);
  assert.deepEqual(JSON.parse(out), {
    items: [{ lines: numbers, members }],
    few: { lines: [1, 22, 333, 4444], members: ['a', 'b'], none: [], empty: [] },
    refused: ['x "quoted"'],
  });
});
