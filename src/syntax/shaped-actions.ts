/**
 * The actions of a line of a shape (see line-shape.ts) made from the shape's own, without reading
 * the line's actions again: they differ from the shape's only in the numbers its places let vary
 * (an address NAT translates to, a value loaded, a group or conjunction id, a zone), and each such
 * number gives some values of the actions, each growing with it by a step of its own (an IPv4
 * octet's by 2^24, 2^16, …; a value loaded into bits 16..18 by 2^16). What each number gives is not
 * told here but found out by the reader itself: the shape's actions are read with the number 0 and
 * with 1, and the values that differ are the ones it gives. The result is checked against a reading
 * of the shape's actions with every such number 0, and with every one 1; a shape whose actions do
 * not pass is read again line by line, as before.
 */
import type { Action } from '../model/actions.ts';
import type { Match } from '../model/flow.ts';
import { FIXED, HEX, type LineShape, numberEnd } from './line-shape.ts';
import { plainNumberAt } from './numbers.ts';

/** A key into an action list or one of its objects. */
type Step = string | number;

/** One value of the actions that numbers of the line give: where it is, the shape's, and what each number adds per unit. */
interface Given {
  readonly path: readonly Step[];
  readonly own: number | bigint;
  /** Indexes into ActionsRebuild.numbers, and the step of each. */
  readonly numbers: number[];
  readonly steps: (number | bigint)[];
}

/** How a line's actions are made from its shape's (see the module's comment). */
export interface ActionsRebuild {
  /** The shape's first number in its actions (index into LineShape.starts). */
  readonly first: number;
  /** The numbers of the actions that vary, and their values on the shape's own line. */
  readonly numbers: Int32Array;
  readonly own: readonly (number | bigint)[];
  readonly given: readonly Given[];
}

/** Reads the actions `text` holds from `start` as those of a line whose match is `match` (see LineSource.readActions). */
export type ActionsReader = (text: string, start: number, match: Match) => readonly Action[];

/**
 * Lines of a shape whose actions are read again before the shape's rebuild is worked out: it costs
 * a few readings of the actions per number that varies, more than a shape of few lines saves.
 */
const READ_BEFORE_REBUILD = 2;

/** The values of numbers, text[s, e), as their places take them: a number when exact, else a bigint. */
function numberValue(text: string, s: number, e: number): number | bigint {
  const n = plainNumberAt(text, s, e);
  return n >= 0 ? n : BigInt(text.slice(s, e));
}

/** `own` grown by (`value` - `was`) steps of `step`, in the type of `own`. */
function grown(
  own: number | bigint,
  step: number | bigint,
  value: number | bigint,
  was: number | bigint,
): number | bigint {
  if (typeof own === 'bigint') return own + BigInt(step) * (BigInt(value) - BigInt(was));
  return own + Number(step) * (Number(value) - Number(was));
}

/** `node` with the value at `path` (from `at` on) set to `value`, the objects on the way copied. */
function withValue(node: unknown, path: readonly Step[], at: number, value: unknown): unknown {
  if (at === path.length) return value;
  const key = path[at]!;
  if (Array.isArray(node)) {
    const copy = node.slice();
    copy[key as number] = withValue(node[key as number], path, at + 1, value);
    return copy;
  }
  const object = node as Record<string, unknown>;
  return { ...object, [key]: withValue(object[key as string], path, at + 1, value) };
}

/** The actions of a line whose varying numbers have the values `values` (by index into rebuild.numbers). */
function rebuilt(
  actions: readonly Action[],
  rebuild: ActionsRebuild,
  values: readonly (number | bigint)[],
): readonly Action[] {
  let out: unknown = actions;
  const { given, own } = rebuild;
  for (let g = 0; g < given.length; g++) {
    const { path, numbers, steps } = given[g]!;
    let value = given[g]!.own;
    let changed = false;
    for (let j = 0; j < numbers.length; j++) {
      const n = numbers[j]!;
      // Compared as they are: a number and a bigint of one value differ, and the value is made anew.
      if (values[n] === own[n]) continue;
      value = grown(value, steps[j]!, values[n]!, own[n]!);
      changed = true;
    }
    if (changed) out = withValue(out, path, 0, value);
  }
  return out as readonly Action[];
}

/**
 * The values where `a` and `b` differ, each a number or bigint in both, by path; undefined when
 * they differ otherwise (in kind, keys, length or a value of another type).
 */
function differences(
  a: unknown,
  b: unknown,
  path: Step[],
  out: { path: Step[]; a: number | bigint; b: number | bigint }[],
): boolean {
  if (a === b) return true;
  if ((typeof a === 'number' && typeof b === 'number') || (typeof a === 'bigint' && typeof b === 'bigint')) {
    out.push({ path: path.slice(), a, b });
    return true;
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (let i = 0; i < keysA.length; i++) {
    const key = keysA[i]!;
    if (keysB[i] !== key) return false;
    const step: Step = Array.isArray(a) ? Number(key) : key;
    path.push(step);
    const same = differences((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], path, out);
    path.pop();
    if (!same) return false;
  }
  return true;
}

/** Whether `a` and `b` are the same actions, value for value. */
function sameActions(a: unknown, b: unknown): boolean {
  const out: { path: Step[]; a: number | bigint; b: number | bigint }[] = [];
  return differences(a, b, [], out) && out.length === 0;
}

/** The shape's text with each number `numbers[j]` written as `written[j]`. */
function rewritten(shape: LineShape, numbers: readonly number[], written: readonly string[]): string {
  const { text, starts, ends } = shape;
  let out = '';
  let at = 0;
  for (let j = 0; j < numbers.length; j++) {
    const k = numbers[j]!;
    out += text.slice(at, starts[k]!) + written[j]!;
    at = ends[k]!;
  }
  return out + text.slice(at);
}

/** How lines of `shape` make their actions from the shape's, worked out with `read`; undefined when they cannot. */
function workOut(shape: LineShape, readWith: ActionsReader): ActionsRebuild | undefined {
  const { starts, ends, kinds, text, actionsAt } = shape;
  // Read with the shape's match, which decides as the match of each line of the shape does.
  const read = (t: string, start: number): readonly Action[] => readWith(t, start, shape.match);
  let first = starts.length;
  const numbers: number[] = [];
  for (let k = 0; k < starts.length; k++) {
    if (starts[k]! < actionsAt) continue;
    if (first === starts.length) first = k;
    if (kinds[k] !== FIXED) numbers.push(k);
  }
  const own = numbers.map((k) => numberValue(text, starts[k]!, ends[k]!));
  const zero = numbers.map((k) => (kinds[k] === HEX ? '0x0' : '0'));
  const one = numbers.map((k) => (kinds[k] === HEX ? '0x1' : '1'));
  const given = new Map<string, Given>();
  for (let j = 0; j < numbers.length; j++) {
    const at0 = read(rewritten(shape, [numbers[j]!], [zero[j]!]), actionsAt);
    const at1 = read(rewritten(shape, [numbers[j]!], [one[j]!]), actionsAt);
    const found: { path: Step[]; a: number | bigint; b: number | bigint }[] = [];
    if (!differences(at0, at1, [], found)) return undefined;
    for (const d of found) {
      const key = JSON.stringify(d.path);
      let g = given.get(key);
      if (g === undefined) {
        let own: unknown = shape.actions;
        for (const step of d.path) own = (own as Record<string, unknown>)[step];
        if (typeof own !== typeof d.a) return undefined;
        given.set(key, (g = { path: d.path, own: own as number | bigint, numbers: [], steps: [] }));
      }
      g.numbers.push(j);
      g.steps.push(typeof d.a === 'bigint' ? (d.b as bigint) - d.a : (d.b as number) - d.a);
    }
  }
  const rebuild: ActionsRebuild = { first, numbers: Int32Array.from(numbers), own, given: [...given.values()] };
  // Every number at once, each 0, then each 1: the steps add up as the reader reads them.
  for (const [written, value] of [
    [zero, 0],
    [one, 1],
  ] as const) {
    const made = rebuilt(
      shape.actions,
      rebuild,
      numbers.map((_, j) => (typeof own[j] === 'bigint' ? BigInt(value) : value)),
    );
    if (!sameActions(made, read(rewritten(shape, numbers, written), actionsAt))) return undefined;
  }
  return rebuild;
}

/**
 * The actions of a line of `shape`, `text` with its actions from `actionsStart`, made from the
 * shape's (see the module's comment); undefined when they are to be read from the line.
 */
export function shapedActions(
  shape: LineShape,
  text: string,
  actionsStart: number,
  read: ActionsReader,
): readonly Action[] | undefined {
  let rebuild = shape.actionsRebuild;
  if (rebuild === undefined) {
    if (++shape.actionsRead <= READ_BEFORE_REBUILD) return undefined;
    shape.actionsRebuild = rebuild = workOut(shape, read) ?? null;
  }
  if (rebuild === null) return undefined;
  const { numbers, first } = rebuild;
  if (numbers.length === 0) return shape.actions;
  const { starts, ends } = shape;
  const values: (number | bigint)[] = [];
  // From the actions on, the line is the shape's text but for the numbers, which differ in length.
  let delta = actionsStart - shape.actionsAt;
  let j = 0;
  for (let k = first; j < numbers.length; k++) {
    const s = starts[k]! + delta;
    const e = numberEnd(text, s, text.length);
    delta += e - s - (ends[k]! - starts[k]!);
    if (k !== numbers[j]) continue;
    values.push(numberValue(text, s, e));
    j++;
  }
  return rebuilt(shape.actions, rebuild, values);
}
