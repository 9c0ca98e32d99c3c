/**
 * Lines of text kept up to a number of bytes: what comes after is counted, not kept, so output
 * that input can drive (a trace of 32,768 steps from a pipeline of 2 KB) stays within a bound
 * and can say how much it left out.
 */

/**
 * A bound in bytes worked out when first needed, known meanwhile to be at least `floor`: text
 * that stays below the floor never asks for it (a trace's bound is read off every line of the
 * dump, and a trace of one packet prints a few kilobytes).
 */
export class LazyBound {
  readonly floor: number;
  private readonly work: () => number;
  private worked: number | undefined;

  /** `work` must give `floor` or more. */
  constructor(floor: number, work: () => number) {
    this.floor = floor;
    this.work = work;
  }

  get value(): number {
    return (this.worked ??= this.work());
  }
}

/** A number of bytes, or one worked out when needed. */
export type ByteBound = number | LazyBound;

/** The bound's number, worked out if it was not; Infinity for none. */
export function boundBytes(bound: ByteBound | undefined): number {
  return bound === undefined ? Infinity : typeof bound === 'number' ? bound : bound.value;
}

/** What two bounds (none: unbounded) allow together, worked out when needed. */
export function sumBounds(a: ByteBound | undefined, b: ByteBound | undefined): ByteBound {
  const floor = (x: ByteBound | undefined): number =>
    x === undefined ? Infinity : typeof x === 'number' ? x : x.floor;
  if (typeof a !== 'object' && typeof b !== 'object') return floor(a) + floor(b);
  return new LazyBound(floor(a) + floor(b), () => boundBytes(a) + boundBytes(b));
}

export class TextBudget {
  readonly lines: string[] = [];
  /** Lines left out once the budget was spent. */
  omitted = 0;
  private left: number;
  /** The bound, while not worked out: `left` counts down from its floor meanwhile. */
  private lazy: LazyBound | undefined;

  constructor(maxBytes: ByteBound) {
    if (typeof maxBytes === 'number') this.left = maxBytes;
    else {
      this.left = maxBytes.floor;
      this.lazy = maxBytes;
    }
  }

  push(...lines: string[]): void {
    for (const line of lines) {
      // Once a line is left out, every later one is too: the text never skips a part and goes on.
      if (this.omitted === 0 && this.fits(line.length + 1)) {
        this.lines.push(line);
        this.left -= line.length + 1;
      } else this.omitted++;
    }
  }

  /** Charges `bytes` against the budget (a JSON item); false, and counted, once it is spent. */
  take(bytes: number): boolean {
    if (this.omitted === 0 && this.fits(bytes)) {
      this.left -= bytes;
      return true;
    }
    this.omitted++;
    return false;
  }

  /** Whether `bytes` more fit; past a lazy bound's floor, the bound is worked out. */
  private fits(bytes: number): boolean {
    if (bytes > this.left && this.lazy) {
      this.left += this.lazy.value - this.lazy.floor;
      this.lazy = undefined;
    }
    return bytes <= this.left;
  }
}
