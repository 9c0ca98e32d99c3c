/**
 * Commands whose positional arguments are not all inputs (trace's packet, conj's ids) read the
 * flows from the first positional, unless an option (--bundle, --pod, --local) names the source.
 */
import type { InputCliOptions } from '../load.ts';

/** Whether the flows come from an option rather than from positional inputs. */
export function flowsFromOption(opts: InputCliOptions): boolean {
  return opts.bundle !== undefined || opts.pod !== undefined || opts.local === true;
}

/** Whether the flows come from standard input: `--bundle -`, `-` among the inputs, or no input and no source option. */
export function flowsFromStdin(inputs: readonly string[], opts: InputCliOptions): boolean {
  return opts.bundle === '-' || (!flowsFromOption(opts) && (inputs.length === 0 || inputs.includes('-')));
}
