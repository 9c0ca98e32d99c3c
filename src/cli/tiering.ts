/**
 * How soon V8 optimises the functions a command runs hot. Most runs read an everyday dump and end
 * within a second, before optimised code pays for compiling it: a function is then best left
 * longer in the interpreter and baseline code (`tables` of a 24k-flow dump: about a quarter less
 * CPU). A large input is read for seconds, over which optimising early pays (`tables` of a
 * million flows: about a tenth less CPU with V8's own budget): V8's budget is put back as soon as
 * such an input is about to be read. The command line sets the budget after its script is
 * loaded, as V8 uses a code cache only under the flags it was made with (bin/cli-script.js).
 */
import { setFlagsFromString } from 'node:v8';

/** The bytecode a function runs through before V8 considers optimising it, for a short run. */
export const SHORT_RUN_BUDGET = 400_000;
/** V8's own budget (Node 20's `node --v8-options`), for a long run. */
export const USUAL_BUDGET = 67_584;
/**
 * Inputs of more characters than this make a long run. Measured with `tables`: at 20 MB (100k
 * flows) the short-run budget still saves a tenth, at 50 MB it costs a few percent.
 */
export const LONG_RUN_CHARS = 32 * 1024 * 1024;

export interface Tiering {
  /** Raises the budget, for a run expected to be short; nothing when the user set the budget. */
  readonly shortRun: () => void;
  /** Puts V8's budget back when an input of `chars` characters makes the run long. */
  readonly input: (chars: number) => void;
}

/**
 * The tiering of this process: `setFlags` sets V8 flags, `userFlags` are the flags node was
 * started with (its arguments and NODE_OPTIONS), which win over the command line's choice.
 */
export function tiering(setFlags: (flags: string) => void, userFlags: readonly string[]): Tiering {
  let raised = false;
  const userSet = userFlags.some((f) => /--interrupt[-_]budget\b/.test(f));
  return {
    shortRun: () => {
      if (userSet || raised) return;
      setFlags(`--interrupt-budget=${SHORT_RUN_BUDGET}`);
      raised = true;
    },
    input: (chars) => {
      if (!raised || chars <= LONG_RUN_CHARS) return;
      setFlags(`--interrupt-budget=${USUAL_BUDGET}`);
      raised = false;
    },
  };
}

/** The tiering of the running process. */
export const processTiering = tiering(setFlagsFromString, [...process.execArgv, process.env['NODE_OPTIONS'] ?? '']);
