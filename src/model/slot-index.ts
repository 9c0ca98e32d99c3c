/**
 * Flows by classifier slot (table, priority and normalised match, as `flowKey` identifies them)
 * without building a key string per flow: a million-flow dump spends most of a comparison
 * building, hashing and comparing such strings. Flows are filed under a numeric hash of the
 * slot; flows whose hashes collide are told apart by comparing their slots field by field.
 *
 * Not the flow index (flow-index.ts), on purpose: that one answers the classifier's questions
 * (which flow a packet hits, which flow covers another), grouping flows by the bits they match
 * and keying each group by arrays of masked bigint values. A slot is a simpler question, exact
 * equality of table, priority and match, asked of every flow of two whole dumps; one number per
 * flow in typed arrays answers it several times faster (on a million flows, building and
 * probing this index once per flow took 1.4 s of CPU, the flow index's add and lookup 7 s).
 */
import { type Flow, type LineSpan, lineSpan, type Match, type MatchField } from './flow.ts';
import { portNameOnly } from './match.ts';
import { type Naming, resolveMatchPorts, resolveTable } from './flow-key.ts';

function stringHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

/** Final mixing, so that sums of entry hashes spread (murmur3's finaliser). */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function bigintHash(v: bigint): number {
  // Values up to 2^53 convert exactly; wider ones (IPv6, xxreg) are folded 32 bits at a time.
  if (v <= SAFE) {
    const n = Number(v);
    return mix((n | 0) ^ Math.imul((n / 0x100000000) | 0, 0x9e3779b1));
  }
  let h = 0;
  for (let x = v; x > 0n; x >>= 32n) h = mix(h ^ Number(x & 0xffffffffn));
  return h;
}

const storageHashes = new Map<string, number>();

function entryHash(e: MatchField): number {
  const storage = e.field.storage;
  let s = storageHashes.get(storage);
  if (s === undefined) storageHashes.set(storage, (s = stringHash(storage)));
  const name = portNameOnly(e);
  const value = name === undefined ? bigintHash(e.value) : stringHash(name) ^ 0x2545f491;
  return mix(s ^ Math.imul(value, 31) ^ Math.imul(bigintHash(e.mask), 0x27d4eb2d));
}

function tableHash(flow: Flow, naming: Naming): number {
  const t = resolveTable(flow.table, naming);
  return t.kind === 'number' ? t.number : stringHash(t.name) ^ 0x68e31da4;
}

function matchOf(flow: Flow, naming: Naming): Match {
  return naming.ports ? resolveMatchPorts(flow.match, naming) : flow.match;
}

/**
 * Equal for flows in one slot; entries add up, as the order a match lists them in does not count.
 * Thirty bits, so that V8 keeps it as a small integer rather than a heap number per map key.
 */
export function slotHash(flow: Flow, naming: Naming): number {
  let h = 0;
  for (const e of matchOf(flow, naming).fields) h = (h + entryHash(e)) | 0;
  return (
    mix(h ^ Math.imul(tableHash(flow, naming), 0x9e3779b1) ^ Math.imul(flow.priority + 1, 0x85ebca6b)) & 0x3fffffff
  );
}

function sameEntry(a: MatchField, b: MatchField): boolean {
  const name = portNameOnly(a);
  return (
    a.mask === b.mask &&
    (name === undefined ? portNameOnly(b) === undefined && a.value === b.value : portNameOnly(b) === name)
  );
}

/** Whether two flows occupy the same classifier slot: `flowKey(a) === flowKey(b)`, compared in place. */
export function sameSlot(a: Flow, b: Flow, naming: Naming): boolean {
  if (a.priority !== b.priority) return false;
  const ta = resolveTable(a.table, naming);
  const tb = resolveTable(b.table, naming);
  if (
    ta.kind === 'number' ? tb.kind !== 'number' || ta.number !== tb.number : tb.kind !== 'name' || ta.name !== tb.name
  )
    return false;
  const fa = matchOf(a, naming).fields;
  const fb = matchOf(b, naming).fields;
  if (fa.length !== fb.length) return false;
  // A normalised match holds one entry per storage, so a one-way search is a bijection.
  for (const ea of fa) {
    const eb = fb.find((e) => e.field.storage === ea.field.storage);
    if (!eb || !sameEntry(ea, eb)) return false;
  }
  return true;
}

/**
 * The flows of one dump filed by slot, for taking them out one by one as the other dump's flows
 * come, or for finding the slots several flows occupy; a dump may hold one slot twice
 * (concatenated dumps), and then its flows are taken in order.
 */
export class SlotIndex {
  private readonly flows: readonly Flow[];
  private readonly naming: Naming;
  private readonly hashes: Int32Array;
  /**
   * Open addressing over typed arrays (a million-entry Map costs several cache misses a lookup):
   * slot s holds a hash at 2s and, at 2s + 1, 1 + the position of the first flow with that hash.
   */
  private readonly table: Int32Array;
  private readonly mask: number;
  /** 1 + the position of the next flow with the same hash, in dump order; 0 at the end. */
  private readonly next: Int32Array;
  private readonly taken: Uint8Array;

  constructor(flows: readonly Flow[], naming: Naming) {
    this.flows = flows;
    this.naming = naming;
    this.hashes = new Int32Array(flows.length);
    this.next = new Int32Array(flows.length);
    this.taken = new Uint8Array(flows.length);
    let slots = 16;
    while (slots < flows.length * 2) slots *= 2;
    this.table = new Int32Array(slots * 2);
    this.mask = slots - 1;
    for (let i = 0; i < flows.length; i++) {
      const h = (this.hashes[i] = slotHash(flows[i]!, naming));
      const s = this.slotOf(h);
      let j = this.table[2 * s + 1]! - 1;
      if (j < 0) {
        this.table[2 * s] = h;
        this.table[2 * s + 1] = i + 1;
        continue;
      }
      while (this.next[j] !== 0) j = this.next[j]! - 1;
      this.next[j] = i + 1;
    }
  }

  /** The slot holding hash `h`, or the empty slot where it would go. */
  private slotOf(h: number): number {
    let s = h & this.mask;
    while (this.table[2 * s + 1] !== 0 && this.table[2 * s] !== h) s = (s + 1) & this.mask;
    return s;
  }

  /** The first flow not taken yet in the slot of `flow` (from any dump), now taken. */
  take(flow: Flow): Flow | undefined {
    for (let i = this.table[2 * this.slotOf(slotHash(flow, this.naming)) + 1]! - 1; i >= 0; i = this.next[i]! - 1) {
      if (this.taken[i] === 1 || !sameSlot(this.flows[i]!, flow, this.naming)) continue;
      this.taken[i] = 1;
      return this.flows[i];
    }
    return undefined;
  }

  /**
   * The flows never taken, slot by slot in the order each slot first appears in the dump, and in
   * dump order within a slot.
   */
  *rest(): Generator<Flow> {
    for (const slot of this.slots()) for (const i of slot) if (this.taken[i] === 0) yield this.flows[i]!;
  }

  /** Flows that share their slot with another, slot by slot in order of first appearance. */
  shared(): Flow[][] {
    const out: Flow[][] = [];
    for (const slot of this.slots()) if (slot.length > 1) out.push(slot.map((i) => this.flows[i]!));
    return out;
  }

  /** The positions of each slot's flows, slots in order of first appearance. */
  private *slots(): Generator<readonly number[]> {
    const visited = new Uint8Array(this.flows.length);
    for (let i = 0; i < this.flows.length; i++) {
      if (visited[i] === 1) continue;
      const slot = [i];
      // Later flows of the same hash follow in the chain; those of the same slot go with this one.
      for (let j = this.next[i]! - 1; j >= 0; j = this.next[j]! - 1) {
        if (visited[j] === 1 || !sameSlot(this.flows[j]!, this.flows[i]!, this.naming)) continue;
        visited[j] = 1;
        slot.push(j);
      }
      yield slot;
    }
  }
}

/**
 * A hash of `text[start, end)`, the text of a dump line after its statistics, from its length and
 * a sample of its characters: the first 40 (priority and match, where flows of one table differ
 * most), the last 12 and 12 spread between. Lines that hash alike are compared whole; reading
 * every character of two million-flow dumps cost more than the rest of a diff.
 */
function writtenHash(text: string, start: number, end: number): number {
  let h = Math.imul(0x811c9dc5 ^ (end - start), 0x01000193);
  if (end - start <= 64) {
    for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    return mix(h) & 0x3fffffff;
  }
  for (let i = start; i < start + 40; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  const stride = Math.floor((end - 12 - (start + 40)) / 12) || 1;
  for (let i = start + 40; i < end - 12; i += stride) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  for (let i = end - 12; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return mix(h) & 0x3fffffff;
}

/**
 * Where the flow's line, in the printed form with its statistics, says the flow itself (after
 * them), into `span` as `span.start`; false for a line in any other form.
 */
function writtenPart(f: Flow, span: LineSpan): boolean {
  lineSpan(f, span);
  span.start += span.statsEnd;
  return span.statsEnd !== 0;
}

/** Whether `a` from `i` and `b` from `j` hold the same `length` characters. */
function sameText(a: string, i: number, b: string, j: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (a.charCodeAt(i + k) !== b.charCodeAt(j + k)) return false;
  return true;
}

/**
 * Flows of two dumps written alike, paired without reading their matches: a flow of `a` in the
 * printed form with its statistics is paired with the first flow of `b`, in dump order, not yet
 * paired whose line reads the same after its statistics and whose `key` is the same (what the
 * statistics say that counts, such as the table). Each is paired at most once, so where a dump
 * holds one line twice (two dumps concatenated), the first of its copies pairs first. Returns, per
 * dump, 1 for each flow paired. The lines are found where they lie in their dumps' texts (see
 * lineSpan): neither a string nor an object is made per flow.
 *
 * `b`'s flows are visited in dump order once: their keys and where their lines lie are kept in
 * typed arrays, so that confirming a pair reads no flow object of `b` (`a` and `b` list their
 * flows in different orders, and each read of `b` is a cache miss: asking `b`'s flows again for
 * their lines and tables took a fifth longer on two million-flow dumps).
 */
export function pairWritten(
  a: readonly Flow[],
  b: readonly Flow[],
  key: (f: Flow) => number,
): { readonly a: Uint8Array; readonly b: Uint8Array } {
  const pairedA = new Uint8Array(a.length);
  const pairedB = new Uint8Array(b.length);
  let slots = 16;
  while (slots < b.length * 2) slots *= 2;
  const mask = slots - 1;
  // As SlotIndex: a hash at 2s, 1 + the first flow with it at 2s + 1; then chains in dump order.
  const table = new Int32Array(slots * 2);
  const next = new Int32Array(b.length);
  const last = new Int32Array(slots);
  // Each flow's key, and where its written part lies: in its dump's whole text, or a line read whole.
  const keys = new Int32Array(b.length);
  const starts = new Int32Array(b.length);
  const ends = new Int32Array(b.length);
  const texts = new Array<string>(b.length);
  const slotOf = (h: number): number => {
    let s = h & mask;
    while (table[2 * s + 1] !== 0 && table[2 * s] !== h) s = (s + 1) & mask;
    return s;
  };
  const x: LineSpan = { text: '', start: 0, end: 0, statsEnd: 0 };
  for (let i = 0; i < b.length; i++) {
    const flow = b[i]!;
    if (!writtenPart(flow, x)) continue;
    keys[i] = key(flow);
    starts[i] = x.start;
    ends[i] = x.end;
    texts[i] = x.text;
    const h = writtenHash(x.text, x.start, x.end);
    const s = slotOf(h);
    if (table[2 * s + 1] === 0) {
      table[2 * s] = h;
      table[2 * s + 1] = i + 1;
    } else next[last[s]! - 1] = i + 1;
    last[s] = i + 1;
  }
  for (let i = 0; i < a.length; i++) {
    const flow = a[i]!;
    if (!writtenPart(flow, x)) continue;
    const k = key(flow);
    const length = x.end - x.start;
    for (let j = table[2 * slotOf(writtenHash(x.text, x.start, x.end)) + 1]! - 1; j >= 0; j = next[j]! - 1) {
      if (pairedB[j] === 1 || keys[j] !== k || ends[j]! - starts[j]! !== length) continue;
      if (!sameText(x.text, x.start, texts[j]!, starts[j]!, length)) continue;
      pairedA[i] = 1;
      pairedB[j] = 1;
      break;
    }
  }
  return { a: pairedA, b: pairedB };
}
