/**
 * How soon V8 optimises the functions a command runs hot. Most runs read an everyday dump and end
 * within a second, before optimised code pays for compiling it: a function is then best left
 * longer in the interpreter and baseline code (`tables` of a 24k-flow dump: about a third less
 * CPU than with V8's own budget). The larger the input, the sooner optimising pays: the budget is
 * lowered as soon as such an input is about to be read, and V8's own is put back for an input read
 * for seconds (`tables` of a million flows: about a tenth less CPU than with the short-run budget).
 * The command line sets the budget after its script is loaded, as V8 uses a code cache only under
 * the flags it was made with (bin/cli-script.js).
 */
import { setFlagsFromString } from 'node:v8';

/**
 * The bytecode a function runs through before V8 considers optimising it, for a short run.
 * Measured against 400k with every command on a 24k-flow dump (4 MB): a tenth less CPU for most.
 */
export const SHORT_RUN_BUDGET = 1_000_000;
/**
 * The budget for an input of more characters than this and up to LONG_RUN_CHARS: at 20–32 MB
 * (100k–180k flows) the short-run budget costs 3–8% over this one, which still saves a tenth.
 */
export const MEDIUM_RUN_CHARS = 8 * 1024 * 1024;
export const MEDIUM_RUN_BUDGET = 400_000;
/** V8's own budget (Node 20's `node --v8-options`), for a long run. */
export const USUAL_BUDGET = 67_584;
/** Inputs of more characters than this make a long run: at 50 MB the medium budget costs a few percent. */
export const LONG_RUN_CHARS = 32 * 1024 * 1024;

export interface Tiering {
  /** Raises the budget, for a run expected to be short; nothing when the user set the budget. */
  readonly shortRun: () => void;
  /** Lowers the budget when an input of `chars` characters makes the run longer, back to V8's for a long one. */
  readonly input: (chars: number) => void;
}

/**
 * The tiering of this process: `setFlags` sets V8 flags, `userFlags` are the flags node was
 * started with (its arguments and NODE_OPTIONS), which win over the command line's choice.
 */
export function tiering(setFlags: (flags: string) => void, userFlags: readonly string[]): Tiering {
  // The budget this process set (undefined: none, V8's or the user's holds); once raised, only lowered.
  let budget: number | undefined;
  const userSet = userFlags.some((f) => /--interrupt[-_]budget\b/.test(f));
  const set = (to: number): void => {
    setFlags(`--interrupt-budget=${to}`);
    budget = to;
  };
  return {
    shortRun: () => {
      if (!userSet && budget === undefined) set(SHORT_RUN_BUDGET);
    },
    input: (chars) => {
      if (budget === undefined || chars <= MEDIUM_RUN_CHARS) return;
      const to = chars > LONG_RUN_CHARS ? USUAL_BUDGET : MEDIUM_RUN_BUDGET;
      if (to < budget) set(to);
    },
  };
}

/** The tiering of the running process. */
export const processTiering = tiering(setFlagsFromString, [...process.execArgv, process.env['NODE_OPTIONS'] ?? '']);
