/**
 * Open vSwitch's general-purpose hash functions (lib/hash.h, lib/hash.c), on unsigned 32-bit
 * numbers, so a trace can compute what the switch computes from a packet: the bucket a
 * `selection_method=hash` group picks. These are the portable (Murmur3-based) variants that
 * builds without SSE4.2, such as the distributions' packages, use; the scores `ofproto/trace`
 * prints for a select group are the reference they are checked against.
 */

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/** One 32-bit word into the running hash (mhash_add); a zero word only rotates and mixes. */
export function hashAdd(hash: number, data: number): number {
  if (data !== 0) {
    let d = Math.imul(data, 0xcc9e2d51);
    d = rotl(d, 15);
    d = Math.imul(d, 0x1b873593);
    hash = (hash ^ d) >>> 0;
  }
  return (Math.imul(rotl(hash, 13), 5) + 0xe6546b64) >>> 0;
}

/** The final avalanche (mhash_finish of `hash ^ final`). */
export function hashFinish(hash: number, final: number): number {
  let h = (hash ^ final) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** hash_add64: the low word, then the high one. */
function hashAdd64(hash: number, data: bigint): number {
  return hashAdd(hashAdd(hash, Number(data & 0xffffffffn)), Number((data >> 32n) & 0xffffffffn));
}

/** hash_uint64_basis. */
export function hashUint64(x: bigint, basis = 0): number {
  return hashFinish(hashAdd64(basis, x), 8);
}

/** hash_int (hash_2words of the value and the basis). */
export function hashInt(x: number, basis: number): number {
  return hashFinish(hashAdd(hashAdd(x >>> 0, 0), basis), 8);
}

/** hash_boolean: hash_int(1, 0) or hash_int(2, 0) mixed with the rotated basis. */
export function hashBoolean(x: boolean, basis: number): number {
  return ((x ? 0xc2b73583 : 0xe90f1258) ^ rotl(basis, 1)) >>> 0;
}

/** Little-endian 32-bit word at `i` of `bytes` (as x86 and ARM read it), zero past the end. */
function wordAt(bytes: Uint8Array, i: number): number {
  let w = 0;
  for (let j = 0; j < 4 && i + j < bytes.length; j++) w |= bytes[i + j]! << (8 * j);
  return w >>> 0;
}

/** hash_bytes: the bytes as little-endian words, a short tail zero-padded, the length mixed in last. */
export function hashBytes(bytes: Uint8Array, basis: number): number {
  let hash = basis >>> 0;
  for (let i = 0; i < bytes.length; i += 4) hash = hashAdd(hash, wordAt(bytes, i));
  return hashFinish(hash, bytes.length);
}

/** `value` as `n` bytes in network order, as OVS holds a field's value (union mf_value). */
export function networkBytes(value: bigint, n: number): Uint8Array {
  const out = new Uint8Array(n);
  let v = value;
  for (let i = n - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** Bob Jenkins's lookup3 state: three words, kept unsigned by Uint32Array. */
type Jstate = Uint32Array;

function jhashMix(s: Jstate): void {
  const step = (x: 0 | 1 | 2, y: 0 | 1 | 2, z: 0 | 1 | 2, k: number): void => {
    // x -= y; x ^= rot(y, k); y += z
    s[x] = s[x]! - s[y]!;
    s[x] = s[x]! ^ rotl(s[y]!, k);
    s[y] = s[y]! + s[z]!;
  };
  step(0, 2, 1, 4);
  step(1, 0, 2, 6);
  step(2, 1, 0, 8);
  step(0, 2, 1, 16);
  step(1, 0, 2, 19);
  step(2, 1, 0, 4);
}

function jhashFinal(s: Jstate): void {
  const step = (x: 0 | 1 | 2, y: 0 | 1 | 2, k: number): void => {
    // x ^= y; x -= rot(y, k)
    s[x] = s[x]! ^ s[y]!;
    s[x] = s[x]! - rotl(s[y]!, k);
  };
  step(2, 1, 14);
  step(0, 2, 11);
  step(1, 0, 25);
  step(2, 1, 16);
  step(0, 2, 4);
  step(1, 0, 14);
  step(2, 1, 24);
}

/** jhash_bytes (lib/jhash.c): lookup3 over little-endian words, a short tail zero-padded. */
export function jhashBytes(bytes: Uint8Array, basis: number): number {
  const s: Jstate = new Uint32Array(3).fill((0xdeadbeef + bytes.length + basis) >>> 0);
  let i = 0;
  for (; bytes.length - i >= 12; i += 12) {
    s[0] = s[0]! + wordAt(bytes, i);
    s[1] = s[1]! + wordAt(bytes, i + 4);
    s[2] = s[2]! + wordAt(bytes, i + 8);
    jhashMix(s);
  }
  if (i < bytes.length) {
    s[0] = s[0]! + wordAt(bytes, i);
    s[1] = s[1]! + wordAt(bytes, i + 4);
    s[2] = s[2]! + wordAt(bytes, i + 8);
    jhashFinal(s);
  }
  return s[2]!;
}
