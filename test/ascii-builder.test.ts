import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsciiBuilder } from '../src/model/ascii-builder.ts';

test('ASCII builder: whole numbers and IPv4 addresses as String and dotted quads write them', () => {
  const out = new AsciiBuilder();
  const numbers = [0, 7, 10, 99, 100, 999, 1000, 1001, 1010, 9999, 10_000, 100_005, 999_999, 1_000_000, 12_345_678];
  numbers.push(2 ** 32 - 1, 2 ** 53 - 1, 2 ** 53 - 2);
  for (let bits = 1; bits <= 53; bits++) numbers.push(Math.floor(2 ** bits * 0.7071));
  for (const n of numbers) {
    out.decimal(n);
    assert.equal(out.take(), String(n));
  }
  for (const n of [0, 1, 0x0a000001, 0x0a0b0c0d, 0x7f000001, 0xc0a80064, 0xffffffff]) {
    out.ipv4(n);
    assert.equal(out.take(), [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.'));
  }
  // Taken as bytes, then the builder starts again empty.
  out.ascii('[');
  out.decimal(42);
  out.char(0x5d);
  assert.equal(out.length, 4);
  assert.equal(Buffer.from(out.takeBytes()).toString('latin1'), '[42]');
  assert.equal(out.length, 0);
});
