/** How a command's help groups its options: its own first, then the options that say where the flows come from. */
import { type Command, Help, type Option } from 'commander';

/** The heading the input options are listed under in a command's help, after its own options. */
export const INPUT_OPTIONS_HEADING = 'Input options:';

/**
 * Help's grouping of options, with the input options moved to the end: help lists groups in the
 * order their first option was declared, and a command may declare an input option first.
 */
export function inputGroupLast<T extends Command | Option>(
  this: Help,
  unsorted: T[],
  visible: T[],
  group: (item: T) => string,
): Map<string, T[]> {
  const groups = Help.prototype.groupItems.call<Help, [T[], T[], (item: T) => string], Map<string, T[]>>(
    this,
    unsorted,
    visible,
    group,
  );
  const input = groups.get(INPUT_OPTIONS_HEADING);
  if (input !== undefined) {
    groups.delete(INPUT_OPTIONS_HEADING);
    groups.set(INPUT_OPTIONS_HEADING, input);
  }
  return groups;
}
