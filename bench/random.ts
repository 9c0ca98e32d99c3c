/**
 * A small seeded pseudo-random source, so that a given seed always yields the same synthetic dump
 * (the benchmark reuses a generated file only when its parameters, and therefore its bytes, match).
 */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }

  /** Uniform in [0, 1): xorshift32 scaled down; quality is ample for synthetic data. */
  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 0x1_0000_0000;
  }

  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** Integer in [lo, hi], log-uniform: small values common, large ones present (address-set sizes, counters). */
  logInt(lo: number, hi: number): number {
    const a = Math.log(lo);
    const b = Math.log(hi + 1);
    return Math.min(hi, Math.floor(Math.exp(a + this.next() * (b - a))));
  }

  /** Fisher–Yates in place. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const t = items[i]!;
      items[i] = items[j]!;
      items[j] = t;
    }
    return items;
  }
}
