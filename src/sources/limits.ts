/**
 * How much flowscope reads, so that an input that never ends (`/dev/zero`, a FIFO) or inflates
 * without bound (a gzip bomb, archives of archives) is refused with a message instead of
 * exhausting memory. Far above any real dump or bundle: a cluster of 100,000 flows dumps ~50 MB.
 */
import { SourceError } from './node.ts';

/** One input, as read or inflated: below the longest string JavaScript can hold (~512 MiB). */
export const MAX_INPUT_BYTES = 256 * 1024 * 1024;
/** Everything inflated from one bundle, across its nested archives. */
export const MAX_BUNDLE_BYTES = 1024 * 1024 * 1024;

export function mebibytes(n: number): string {
  return `${Math.round(n / (1024 * 1024))} MiB`;
}

/** Bytes a bundle may still inflate: one budget shared by the bundle and every archive inside it. */
export class ReadBudget {
  private left: number;

  constructor(total: number) {
    this.left = total;
  }

  /** What one more piece may take at most. */
  get remaining(): number {
    return this.left;
  }

  /** Counts bytes read; throws SourceError once the budget is spent. */
  take(bytes: number, what: string): void {
    this.left -= bytes;
    if (this.left < 0) throw new SourceError(`${what}: the bundle holds more than ${mebibytes(MAX_BUNDLE_BYTES)} once decompressed, more than flowscope reads`);
  }
}
