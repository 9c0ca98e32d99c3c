/** A table as a flow names it: by number, or by the name OVS prints with `--names`. */
export type TableRef =
  { readonly kind: 'number'; readonly number: number } | { readonly kind: 'name'; readonly name: string };

export function tableNumber(n: number): TableRef {
  return { kind: 'number', number: n };
}

export function sameTable(a: TableRef, b: TableRef): boolean {
  return a.kind === 'number' ? b.kind === 'number' && a.number === b.number : b.kind === 'name' && a.name === b.name;
}

export function tableLabel(t: TableRef): string {
  return t.kind === 'number' ? String(t.number) : t.name;
}

/**
 * Which number each named table has on the switch, as far as it is known: a `--names` dump and
 * the numbers in its groups (or in `ofproto/trace`) are one pipeline seen two ways.
 */
export class TableNumbering {
  private readonly byName = new Map<string, number>();
  private readonly byNumber = new Map<number, string>();

  /** Pairs of number and name; a number or name given twice keeps its first partner. */
  constructor(pairs: Iterable<readonly [number, string]> = []) {
    for (const [n, name] of pairs) {
      if (this.byName.has(name) || this.byNumber.has(n)) continue;
      this.byName.set(name, n);
      this.byNumber.set(n, name);
    }
  }

  get size(): number {
    return this.byName.size;
  }

  numberOf(name: string): number | undefined {
    return this.byName.get(name);
  }

  nameOf(n: number): string | undefined {
    return this.byNumber.get(n);
  }

  /** The same table written the other way (its name for a number, its number for a name), when known. */
  counterpart(ref: TableRef): TableRef | undefined {
    if (ref.kind === 'number') {
      const name = this.byNumber.get(ref.number);
      return name === undefined ? undefined : { kind: 'name', name };
    }
    const n = this.byName.get(ref.name);
    return n === undefined ? undefined : tableNumber(n);
  }

  entries(): IterableIterator<[number, string]> {
    return this.byNumber.entries();
  }
}
