/** writeJson: the streamed JSON of a command, byte for byte what JSON.stringify gives. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { writeJson, type Io } from '../src/cli/io.ts';
import { jsonReplacer } from '../src/render/json.ts';

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
