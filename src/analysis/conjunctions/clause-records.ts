/**
 * Conjunction actions as numbers while they are gathered, a record each in typed arrays: the
 * conjunction (its id, or the number of its entry), its clause k, its number of clauses n, then
 * whatever more a kind of record holds. A large dump has millions of such actions; held as
 * numbers rather than in growing arrays per conjunction, they are neither copied nor scanned by
 * the garbage collector, which otherwise spends more time on them than the gathering itself.
 */

/** Records a block of ClauseRecords holds. */
const BLOCK_SHIFT = 16;
const BLOCK_MASK = (1 << BLOCK_SHIFT) - 1;
/** The numbers of a ClauseRecords record: owner, k, n, clause flow. */
const CLAUSE_WIDTH = 4;

/**
 * The conjunction actions of a dump's clause flows: the entry of the conjunction each belongs
 * to (its owner), k, n, and the number of its clause flow. Held in blocks of a fixed size rather
 * than one array that doubles: millions of records were copied at each doubling, and the arrays
 * made and dropped, twice the memory of the records, counted outside the heap, started full
 * collections of a heap of hundreds of megabytes.
 */
export class ClauseRecords {
  private readonly blocks: Int32Array[] = [];
  /** The block records are added to. */
  private last = new Int32Array(0);
  count = 0;

  add(owner: number, clause: number, k: number, n: number): void {
    const i = this.count++ & BLOCK_MASK;
    if (i === 0) this.blocks.push((this.last = new Int32Array(CLAUSE_WIDTH << BLOCK_SHIFT)));
    const at = i * CLAUSE_WIDTH;
    const data = this.last;
    data[at] = owner;
    data[at + 1] = k;
    data[at + 2] = n;
    data[at + 3] = clause;
  }

  /** The block of `record` and where the record starts in it. */
  private field(record: number, offset: number): number {
    return this.blocks[record >> BLOCK_SHIFT]![(record & BLOCK_MASK) * CLAUSE_WIDTH + offset]!;
  }

  n(record: number): number {
    return this.field(record, 2);
  }

  /** Whether a record from `from` on belongs to `owner` with clause `k`: the same action twice on one flow. */
  has(from: number, owner: number, k: number): boolean {
    for (let i = from; i < this.count; i++) if (this.field(i, 0) === owner && this.field(i, 1) === k) return true;
    return false;
  }

  /**
   * The records by owner (owners numbered from 0 to `owners` - 1), each owner's in the order
   * added: owner `o`'s are `order[start[o]]` to `order[start[o + 1] - 1]`, their clause flows
   * and k at the same places in `clauses` and `ks`. Read there in order rather than through
   * `order`: a million records read at random places cost a cache miss each.
   */
  byOwner(owners: number): RecordsByOwner {
    const start = new Int32Array(owners + 1);
    // Block by block, in loops of their own: a callback per record costs more than the rest in a
    // short run, in which this code is never optimised.
    for (let b = 0; b < this.blocks.length; b++) {
      const data = this.blocks[b]!;
      const end = this.recordsIn(b) * CLAUSE_WIDTH;
      for (let at = 0; at < end; at += CLAUSE_WIDTH) start[data[at]! + 1]!++;
    }
    for (let o = 0; o < owners; o++) start[o + 1]! += start[o]!;
    const next = start.slice(0, owners);
    const order = new Int32Array(this.count);
    const clauses = new Int32Array(this.count);
    const ks = new Int32Array(this.count);
    for (let b = 0, i = 0; b < this.blocks.length; b++) {
      const data = this.blocks[b]!;
      const end = this.recordsIn(b) * CLAUSE_WIDTH;
      for (let at = 0; at < end; at += CLAUSE_WIDTH, i++) {
        const to = next[data[at]!]!++;
        order[to] = i;
        ks[to] = data[at + 1]!;
        clauses[to] = data[at + 3]!;
      }
    }
    return { start, order, clauses, ks };
  }

  /** How many records block `b` holds. */
  private recordsIn(b: number): number {
    return Math.min(this.count - (b << BLOCK_SHIFT), 1 << BLOCK_SHIFT);
  }
}

/** See ClauseRecords.byOwner. */
export interface RecordsByOwner {
  readonly start: Int32Array;
  readonly order: Int32Array;
  readonly clauses: Int32Array;
  readonly ks: Int32Array;
}

/** The numbers of a ConjunctionList record: id, k, n. */
export const LISTED_WIDTH = 3;

/**
 * One flow's conjunction actions (id, k, n), read before any is taken: a list found faulty
 * half-way is then taken from the flow's actions instead. In one array that doubles when full.
 */
export class ConjunctionList {
  private data = new Int32Array(LISTED_WIDTH * 64);
  count = 0;

  /**
   * The records, LISTED_WIDTH numbers each, read in place (until the next is added): outside
   * optimised code, as a short run reads, a method call for each number of each of a dump's
   * conjunction actions cost more than the reading.
   */
  get numbers(): Int32Array {
    return this.data;
  }

  /** Adds one; bound, so that it is handed to a reader as it is. */
  readonly add = (id: number, k: number, n: number): void => {
    const at = this.count++ * LISTED_WIDTH;
    if (at === this.data.length) {
      const doubled = new Int32Array(at * 2);
      doubled.set(this.data);
      this.data = doubled;
    }
    const { data } = this;
    data[at] = id;
    data[at + 1] = k;
    data[at + 2] = n;
  };
}
