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
import type { Flow, Match, MatchField } from './flow.ts';
import type { TableRef } from './tables.ts';
import { portNameOnly } from './match.ts';
import { type Naming, resolveMatchPorts, resolveTable } from './flow-key.ts';

function stringHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

/** Final mixing, so that sums of entry hashes spread (murmur3's finaliser). */
export function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** bigintHash of a value up to 2^53, given as a number. */
function numberHash(n: number): number {
  return mix((n | 0) ^ Math.imul((n / 0x100000000) | 0, 0x9e3779b1));
}

function bigintHash(v: bigint): number {
  // Values up to 2^53 convert exactly; wider ones (IPv6, xxreg) are folded 32 bits at a time.
  if (v <= SAFE) return numberHash(Number(v));
  let h = 0;
  for (let x = v; x > 0n; x >>= 32n) h = mix(h ^ Number(x & 0xffffffffn));
  return h;
}

const storageHashes = new Map<string, number>();

function storageHash(storage: string): number {
  let s = storageHashes.get(storage);
  if (s === undefined) storageHashes.set(storage, (s = stringHash(storage)));
  return s;
}

function entryHash(e: MatchField): number {
  const name = portNameOnly(e);
  const value = name === undefined ? bigintHash(e.value) : stringHash(name) ^ 0x2545f491;
  return mix(storageHash(e.field.storage) ^ Math.imul(value, 31) ^ Math.imul(bigintHash(e.mask), 0x27d4eb2d));
}

/** Of an outline match with another address in entry `entry` (-1: none), what SlotHasher adds up. */
interface OutlineSum {
  /** The sum of the hashes of the entries but that one. */
  readonly rest: number;
  /** That entry's hash before mixing, but for its value's part. */
  readonly entry: number;
}

function sumBut(match: Match, entry: number): OutlineSum | null {
  if (match.fields.some((e) => e.port?.kind === 'name')) return null;
  let rest = 0;
  for (let i = 0; i < match.fields.length; i++) if (i !== entry) rest = (rest + entryHash(match.fields[i]!)) | 0;
  const e = match.fields[entry];
  return { rest, entry: e ? storageHash(e.field.storage) ^ Math.imul(bigintHash(e.mask), 0x27d4eb2d) : 0 };
}

/** Per outline match, by entry position + 1 (see sumBut), null where it names a port. */
const outlineSums = new WeakMap<Match, (OutlineSum | null)[]>();

function outlineSum(match: Match, entry: number): OutlineSum | null {
  let sums = outlineSums.get(match);
  if (sums === undefined) outlineSums.set(match, (sums = []));
  let sum = sums[entry + 1];
  if (sum === undefined) sums[entry + 1] = sum = sumBut(match, entry);
  return sum;
}

function tableHash(table: TableRef, naming: Naming): number {
  const t = resolveTable(table, naming);
  return t.kind === 'number' ? t.number : stringHash(t.name) ^ 0x68e31da4;
}

function matchOf(flow: Flow, naming: Naming): Match {
  return naming.ports ? resolveMatchPorts(flow.match, naming) : flow.match;
}

/**
 * slotHash of flows asked one after another, keeping the last flow's table and outline (match and
 * entry, see FlowOutline): a table's flows come in runs of one outline, a policy table's thousands
 * differing in their address alone, whose hash is then all that is worked out anew.
 */
class SlotHasher {
  private readonly naming: Naming;
  private table: TableRef | undefined = undefined;
  private tablePart = 0;
  private match: Match | undefined = undefined;
  private entry = 0;
  private sum: OutlineSum | null = null;

  constructor(naming: Naming) {
    this.naming = naming;
  }

  of(flow: Flow): number {
    const table = flow.table;
    if (table !== this.table) {
      this.table = table;
      this.tablePart = Math.imul(tableHash(table, this.naming), 0x9e3779b1);
    }
    // The sum of the entry hashes of a lazily read flow's match, from its outline: the outline's
    // entries but the one holding the flow's own address, summed once per outline, and that
    // address's. A flow read otherwise, or whose outline names a port (which a naming may
    // resolve), sums its own match.
    const match = flow.outlineMatch;
    let h = 0;
    let summed = false;
    if (match !== undefined && flow.outlineVarying === undefined) {
      const entry = flow.outlineEntry!;
      if (match !== this.match || entry !== this.entry) {
        this.match = match;
        this.entry = entry;
        this.sum = outlineSum(match, entry);
      }
      const sum = this.sum;
      if (sum !== null) {
        summed = true;
        // entryHash of the address's entry: its part but the value's is the same for every address.
        h = entry < 0 ? sum.rest : (sum.rest + mix(sum.entry ^ Math.imul(numberHash(flow.outlineAddress!), 31))) | 0;
      }
    }
    if (!summed) {
      const fields = matchOf(flow, this.naming).fields;
      for (let i = 0; i < fields.length; i++) h = (h + entryHash(fields[i]!)) | 0;
    }
    return mix(h ^ this.tablePart ^ Math.imul(flow.priority + 1, 0x85ebca6b)) & 0x3fffffff;
  }
}

/**
 * Equal for flows in one slot; entries add up, as the order a match lists them in does not count.
 * Thirty bits, so that V8 keeps it as a small integer rather than a heap number per map key.
 */
export function slotHash(flow: Flow, naming: Naming): number {
  return new SlotHasher(naming).of(flow);
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
  private readonly hasher: SlotHasher;
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
    const hasher = (this.hasher = new SlotHasher(naming));
    // Locals, not members: a short run steps this loop in the interpreter, where each member read is a lookup.
    const next = (this.next = new Int32Array(flows.length));
    this.taken = new Uint8Array(flows.length);
    let slots = 16;
    while (slots < flows.length * 2) slots *= 2;
    const table = (this.table = new Int32Array(slots * 2));
    this.mask = slots - 1;
    for (let i = 0; i < flows.length; i++) {
      const h = hasher.of(flows[i]!);
      const s = this.slotOf(h);
      let j = table[2 * s + 1]! - 1;
      if (j < 0) {
        table[2 * s] = h;
        table[2 * s + 1] = i + 1;
        continue;
      }
      while (next[j] !== 0) j = next[j]! - 1;
      next[j] = i + 1;
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
    for (let i = this.table[2 * this.slotOf(this.hasher.of(flow)) + 1]! - 1; i >= 0; i = this.next[i]! - 1) {
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
    for (const slot of this.slots(true)) if (slot.length > 1) out.push(slot.map((i) => this.flows[i]!));
    return out;
  }

  /** The positions of each slot's flows, slots in order of first appearance; `shared`: slots of one flow may be left out. */
  private *slots(shared = false): Generator<readonly number[]> {
    const visited = new Uint8Array(this.flows.length);
    for (let i = 0; i < this.flows.length; i++) {
      if (visited[i] === 1) continue;
      // Last of its hash and not taken by an earlier flow: alone in its slot.
      if (shared && this.next[i] === 0) continue;
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
