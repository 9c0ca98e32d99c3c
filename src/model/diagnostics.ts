/** A positioned message about the input, in GNU `file:line:col: message` terms. */
export interface Diagnostic {
  readonly severity: 'error' | 'warning';
  readonly message: string;
  /** File name as given by the user (`-` shown as `<stdin>`). */
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
  readonly length: number;
  /** The source line, for the caret display. */
  readonly lineText: string;
}
