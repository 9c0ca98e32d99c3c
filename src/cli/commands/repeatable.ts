/** Options that may be given several times, and the rule for all others: once. */
import type { EventEmitter } from 'node:events';
import type { Command } from 'commander';
import { UserError } from '../io.ts';

/** The parsers `repeatable` made: options declared with one collect every value given. */
const collectors = new WeakSet<object>();

/** How many times an option may be given, and what a user who gives it more often is told. */
export interface Repeats {
  readonly most: number;
  readonly refusal: string;
}

/**
 * A commander option parser that collects every value given, each read by `read`, in order; with
 * `limit`, one value too many is refused as it is given rather than by whatever reads them later.
 */
export function repeatable<T>(
  read: (text: string) => T,
  limit?: Repeats,
): (text: string, previous: readonly T[] | undefined) => T[] {
  const collect = (text: string, previous: readonly T[] | undefined): T[] => {
    if (limit !== undefined && (previous?.length ?? 0) >= limit.most) throw new UserError(limit.refusal);
    return [...(previous ?? []), read(text)];
  };
  collectors.add(collect);
  return collect;
}

/**
 * Makes every option of `cmd` that takes a value, except those declared `repeatable`, refuse a
 * second one: commander keeps the last silently, and a user who gives two --groups files expects
 * both read. A default does not count as given.
 */
export function onceOnly(cmd: Command): void {
  for (const option of cmd.options) {
    if (!(option.required || option.optional) || option.variadic) continue;
    if (option.parseArg !== undefined && collectors.has(option.parseArg)) continue;
    const key = option.attributeName();
    const flag = option.long ?? option.short ?? option.flags;
    let first: string | undefined;
    // Runs before commander stores the value, so a source of 'cli' means given before. (A
    // Command is an EventEmitter, which commander's typings leave out.)
    (cmd as unknown as EventEmitter).prependListener(`option:${option.name()}`, (value: string | null) => {
      if (cmd.getOptionValueSource(key) === 'cli')
        throw new UserError(`${flag} was given twice: ${first}, ${value}; give it once`);
      first = value ?? '';
    });
  }
}
