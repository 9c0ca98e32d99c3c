/**
 * Lines of text kept up to a number of bytes: what comes after is counted, not kept, so output
 * that input can drive (a trace of 32,768 steps from a pipeline of 2 KB) stays within a bound
 * and can say how much it left out.
 */
export class TextBudget {
  readonly lines: string[] = [];
  /** Lines left out once the budget was spent. */
  omitted = 0;
  private left: number;

  constructor(maxBytes: number) {
    this.left = maxBytes;
  }

  push(...lines: string[]): void {
    for (const line of lines) {
      // Once a line is left out, every later one is too: the text never skips a part and goes on.
      if (this.omitted === 0 && line.length < this.left) {
        this.lines.push(line);
        this.left -= line.length + 1;
      } else this.omitted++;
    }
  }

  /** Charges `bytes` against the budget (a JSON item); false, and counted, once it is spent. */
  take(bytes: number): boolean {
    if (this.omitted === 0 && bytes <= this.left) {
      this.left -= bytes;
      return true;
    }
    this.omitted++;
    return false;
  }
}
