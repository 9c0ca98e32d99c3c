/** Input → parsed model, with diagnostics reported the way every command reports them. */
import { type ParseResult, parseDump } from '../syntax/reader.ts';
import { formatDiagnostic } from '../render/diagnostics.ts';
import { readInput } from './input.ts';
import { type Io, UserError, writeErr } from './io.ts';

export interface LoadOptions {
  /** Any error diagnostic makes the command fail with exit 2. */
  readonly strict?: boolean;
  /** Do not print warnings (errors are always printed). */
  readonly quiet?: boolean;
}

export async function loadDump(name: string, io: Io, options: LoadOptions = {}): Promise<ParseResult> {
  const input = await readInput(name, io);
  const result = parseDump(input.text, { file: input.name });
  for (const d of result.diagnostics) {
    if (d.severity === 'warning' && options.quiet) continue;
    writeErr(io, formatDiagnostic(d));
  }
  if (result.badLines > 0) {
    const what = `${result.badLines} line${result.badLines === 1 ? '' : 's'} of ${input.name === '-' ? '<stdin>' : input.name} could not be read`;
    if (options.strict) throw new UserError(`${what} (--strict)`);
    writeErr(io, `flowscope: ${what} and ${result.badLines === 1 ? 'was' : 'were'} skipped`);
  }
  return result;
}
