/**
 * The conjunction actions of a dump's clause flows while they are gathered: one record each (the
 * conjunction it belongs to, its clause flow, its clause k and number of clauses n) in typed
 * arrays. A large dump has millions of such actions; held as numbers rather than in growing
 * arrays per conjunction, they are neither copied nor scanned by the garbage collector, which
 * otherwise spends more time on them than the gathering itself.
 */
export class ClauseRecords {
  private owners = new Int32Array(1024);
  private clauses = new Int32Array(1024);
  private ks = new Int32Array(1024);
  private ns = new Int32Array(1024);
  count = 0;

  add(owner: number, clause: number, k: number, n: number): void {
    if (this.count === this.owners.length) this.grow();
    const at = this.count++;
    this.owners[at] = owner;
    this.clauses[at] = clause;
    this.ks[at] = k;
    this.ns[at] = n;
  }

  /** Whether a record from `from` on belongs to `owner` with clause `k`: the same action twice on one flow. */
  has(from: number, owner: number, k: number): boolean {
    for (let i = from; i < this.count; i++) if (this.owners[i] === owner && this.ks[i] === k) return true;
    return false;
  }

  clause(record: number): number {
    return this.clauses[record]!;
  }

  k(record: number): number {
    return this.ks[record]!;
  }

  n(record: number): number {
    return this.ns[record]!;
  }

  /**
   * The records by owner (owners numbered from 0 to `owners` - 1), each owner's in the order
   * added: owner `o`'s are `order[start[o]]` to `order[start[o + 1] - 1]`.
   */
  byOwner(owners: number): { readonly start: Int32Array; readonly order: Int32Array } {
    const start = new Int32Array(owners + 1);
    for (let i = 0; i < this.count; i++) start[this.owners[i]! + 1]!++;
    for (let o = 0; o < owners; o++) start[o + 1]! += start[o]!;
    const next = start.slice(0, owners);
    const order = new Int32Array(this.count);
    for (let i = 0; i < this.count; i++) order[next[this.owners[i]!]!++] = i;
    return { start, order };
  }

  private grow(): void {
    this.owners = doubled(this.owners);
    this.clauses = doubled(this.clauses);
    this.ks = doubled(this.ks);
    this.ns = doubled(this.ns);
  }
}

/** A copy of `a` twice its length, for the columns above when they fill. */
function doubled(a: Int32Array): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/** One flow's conjunction actions as numbers, read before any is taken: a list found faulty half-way is then taken from the flow's actions instead. */
export class ConjunctionList {
  private ids = new Int32Array(64);
  private ks = new Int32Array(64);
  private ns = new Int32Array(64);
  count = 0;

  /** Adds one; bound, so that it is handed to a reader as it is. */
  readonly add = (id: number, k: number, n: number): void => {
    if (this.count === this.ids.length)
      [this.ids, this.ks, this.ns] = [doubled(this.ids), doubled(this.ks), doubled(this.ns)];
    this.ids[this.count] = id;
    this.ks[this.count] = k;
    this.ns[this.count] = n;
    this.count++;
  };

  id(i: number): number {
    return this.ids[i]!;
  }

  k(i: number): number {
    return this.ks[i]!;
  }

  n(i: number): number {
    return this.ns[i]!;
  }
}
