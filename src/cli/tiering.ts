/**
 * How soon V8 optimises the functions a command runs hot. Most runs read an everyday dump and end
 * within a second, before optimised code pays for compiling it: a function is then left in the
 * interpreter and baseline code, and the optimising compiler is off (`tables` of a 24k-flow dump:
 * about a third less CPU with the raised budget than with V8's own, and another twentieth with the
 * compiler off, whose compiling of the few functions that grow hot ends too late in such a run to
 * pay back its cost). The larger the input, the sooner optimising pays: the compiler is put back
 * and the budget lowered as soon as such an input is about to be read (the compiler alone for a
 * second input, or once a comparison's stops coming in the order of the first), and V8's own budget is put
 * back for an input read for seconds (`tables` of a million flows: about a tenth less CPU than with
 * the short-run budget). The command line sets these after its script is loaded, as V8 uses a
 * code cache only under the flags it was made with (bin/cli-script.js).
 */
import { setFlagsFromString } from 'node:v8';

/**
 * The bytecode a function runs through before V8 considers optimising it, for a short run.
 * Measured against 400k with every command on a 24k-flow dump (4 MB): a tenth less CPU for most.
 */
export const SHORT_RUN_BUDGET = 1_000_000;
/**
 * The budget for an input of more characters than this and up to LONG_RUN_CHARS, with the
 * optimising compiler on: at 20–32 MB (100k–180k flows) the short-run budget costs 3–8% over this
 * one, which still saves a tenth. Below it, the compiler off saves most commands 5–20% (50k
 * flows, 9 MB: check a fifth, show an eighth, tables a thirtieth); at 18 MB it costs some a tenth.
 */
export const MEDIUM_RUN_CHARS = 8 * 1024 * 1024;
export const MEDIUM_RUN_BUDGET = 400_000;
/** V8's own budget (Node 20's `node --v8-options`), for a long run. */
export const USUAL_BUDGET = 67_584;
/** Inputs of more characters than this make a long run: at 50 MB the medium budget costs a few percent. */
export const LONG_RUN_CHARS = 32 * 1024 * 1024;

export interface Tiering {
  /** Raises the budget and turns the optimising compiler off, for a run expected to be short; nothing when the user set either. */
  readonly shortRun: () => void;
  /**
   * Turns the compiler back on and lowers the budget when an input of `chars` characters makes the
   * run longer, back to V8's for a long one; turns the compiler back on for a second input, unless
   * it is read `along` the first (see ReadAlong): while its lines come in the order of the first's
   * flows, each costs a comparison, and compiling does not pay back (see `unordered`).
   */
  readonly input: (chars: number, along?: boolean) => void;
  /**
   * Turns the compiler back on, as for a second input, once the lines of one read along the first
   * stop coming in its order: they are looked up then, which pays for it (24k flows with a shuffled
   * copy: a twentieth less CPU for --json with it; with themselves, a fourteenth more).
   */
  readonly unordered: () => void;
}

/**
 * The tiering of this process: `setFlags` sets V8 flags, `userFlags` are the flags node was
 * started with (its arguments and NODE_OPTIONS), which win over the command line's choice.
 */
export function tiering(setFlags: (flags: string) => void, userFlags: readonly string[]): Tiering {
  // The budget this process set (undefined: none, V8's or the user's holds); once raised, only lowered.
  let budget: number | undefined;
  // Whether this process turned the optimising compiler off (see shortRun), and the inputs read since.
  let compilerOff = false;
  let inputs = 0;
  const userSet = userFlags.some((f) => /--(?:interrupt[-_]budget|(?:no[-_]?)?(?:turbofan|opt))\b/.test(f));
  return {
    shortRun: () => {
      if (userSet || budget !== undefined) return;
      budget = SHORT_RUN_BUDGET;
      compilerOff = true;
      setFlags(`--no-turbofan --interrupt-budget=${budget}`);
    },
    input: (chars, along = false) => {
      if (budget === undefined) return;
      inputs++;
      const to = chars > LONG_RUN_CHARS ? USUAL_BUDGET : chars > MEDIUM_RUN_CHARS ? MEDIUM_RUN_BUDGET : budget;
      // A second input (a comparison's: 24k flows with a shuffled copy cost a twentieth more without the compiler) makes a run long enough too.
      const compilerOn = compilerOff && (to < budget || (inputs > 1 && !along));
      if (!compilerOn && to >= budget) return;
      const flags: string[] = [];
      if (compilerOn) flags.push('--turbofan');
      if (to < budget) flags.push(`--interrupt-budget=${to}`);
      setFlags(flags.join(' '));
      compilerOff = false;
      budget = to;
    },
    unordered: () => {
      if (!compilerOff) return;
      setFlags('--turbofan');
      compilerOff = false;
    },
  };
}

/** The tiering of the running process. */
export const processTiering = tiering(setFlagsFromString, [...process.execArgv, process.env['NODE_OPTIONS'] ?? '']);
