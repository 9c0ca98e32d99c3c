/**
 * A problem found while reading one line, positioned by character offset within that line.
 * Sub-parsers (match, actions) only know the line; the reader turns problems into
 * file:line:col diagnostics.
 */
export interface Problem {
  readonly severity: 'error' | 'warning';
  readonly message: string;
  /** 0-based offset into the line text. */
  readonly offset: number;
  /** Characters covered (at least 1 for the caret). */
  readonly length: number;
}

export class ProblemSink {
  readonly problems: Problem[] = [];

  error(message: string, offset: number, length = 1): void {
    this.problems.push({ severity: 'error', message, offset, length: Math.max(1, length) });
  }

  warning(message: string, offset: number, length = 1): void {
    this.problems.push({ severity: 'warning', message, offset, length: Math.max(1, length) });
  }

  get hasErrors(): boolean {
    return this.problems.some((p) => p.severity === 'error');
  }
}

/**
 * An error whose problem is data (a kind and its values) for the caller to put in words; its
 * message is only the problem as JSON.
 */
export class ProblemError<P> extends Error {
  readonly problem: P;
  constructor(problem: P) {
    super(JSON.stringify(problem));
    this.problem = problem;
  }
}
