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
/**
 * Files in one bundle, across its nested archives: a sosreport holds tens of thousands, and each
 * costs the tar reader work however small, so a bomb of empty files is bounded too.
 */
export const MAX_BUNDLE_ENTRIES = 250_000;

export function mebibytes(n: number): string {
  return `${Math.round(n / (1024 * 1024))} MiB`;
}

/** What a bundle may hold past which it is refused. */
export type BundleLimit = 'bytes' | 'entries';

/** What a bundle may still read: one budget shared by the bundle and every archive inside it. */
export class ReadBudget {
  private bytesLeft = MAX_BUNDLE_BYTES;
  private entriesLeft = MAX_BUNDLE_ENTRIES;

  /** Bytes one more piece may take at most. */
  get bytes(): number {
    return this.bytesLeft;
  }

  /** Files one more archive may hold at most. */
  get entries(): number {
    return this.entriesLeft;
  }

  /** Counts what was read; throws SourceError once the budget is spent. */
  take(bytes: number, entries: number, what: string): void {
    this.bytesLeft -= bytes;
    this.entriesLeft -= entries;
    if (this.bytesLeft < 0) throw exceeded('bytes', what);
    if (this.entriesLeft < 0) throw exceeded('entries', what);
  }
}

/** The refusal of a bundle past one of its limits. */
export function exceeded(limit: BundleLimit, what: string): SourceError {
  const much =
    limit === 'bytes'
      ? `more than ${mebibytes(MAX_BUNDLE_BYTES)} once decompressed`
      : `more than ${MAX_BUNDLE_ENTRIES.toLocaleString('en-US')} files`;
  return new SourceError(`${what}: the bundle holds ${much}, more than flowscope reads`);
}
