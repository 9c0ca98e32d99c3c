/**
 * Progress of long work on standard error, for a person at a terminal: one line rewritten in
 * place (`flowscope: reading dump.txt 45%`) and cleared when the work ends. Nothing at all when
 * standard error is no terminal (a pipe, a file, a CI log), nor for work too small to wait for.
 */
import { type Io, PROGRAM_PREFIX } from './io.ts';

/** Inputs of more characters than this take long enough to read to show how far the reading is. */
export const LARGE_INPUT_CHARS = 50 * 1024 * 1024;
/** Dumps of this many flows or more take long enough to check to show how far the check is. */
export const LARGE_CHECK_FLOWS = 20_000;

const ERASE_LINE = '\u001b[K';

export class Progress {
  private shown = '';
  private readonly io: Io;
  private readonly enabled: boolean;

  /** `large`: whether the work is long enough to show; shown only when standard error is a terminal. */
  constructor(io: Io, large: boolean) {
    this.io = io;
    this.enabled = large && io.stderr.isTTY === true;
  }

  /** Says that `what` is done to `done` of `of` (in any unit), as a percentage. */
  update(what: string, done: number, of: number): void {
    if (!this.enabled) return;
    const percent = Math.min(100, Math.floor((done * 100) / Math.max(1, of)));
    const line = `${PROGRAM_PREFIX}${what} ${percent}%`;
    if (line === this.shown) return;
    this.shown = line;
    this.io.stderr.write(`\r${line}${ERASE_LINE}`);
  }

  /**
   * Runs `work`, handing it the function that tells how far it is (nothing when no progress is
   * shown, so that nothing is spent on measuring it), and clears the line after it.
   */
  around<T>(what: string, work: (tell: ((done: number, of: number) => void) | undefined) => T): T {
    try {
      return work(this.enabled ? (done, of) => this.update(what, done, of) : undefined);
    } finally {
      this.end();
    }
  }

  /** Clears the line, leaving the terminal as it was for what comes next. */
  end(): void {
    if (this.shown === '') return;
    this.io.stderr.write(`\r${ERASE_LINE}`);
    this.shown = '';
  }
}
