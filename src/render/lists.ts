import { quotePortName } from '../syntax/field-value.ts';

/** Items listed in a sentence before it says there are more. */
const SHOWN = 3;

/** `a, b, c, …`: the first three items, each as `show` writes it, then `…` when there are more. */
export function firstFew<T>(items: readonly T[], show: (item: T) => string = String): string {
  return items.slice(0, SHOWN).map(show).join(', ') + (items.length > SHOWN ? ', …' : '');
}

/** Port names listed with `firstFew`, each as OVS writes it in a `--names` dump (`"antrea-gw0"`). */
export function firstFewPorts(names: readonly string[]): string {
  return firstFew(names, quotePortName);
}
