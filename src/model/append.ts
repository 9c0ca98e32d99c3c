/**
 * Array helpers for lists as long as the input: `push(...items)` and `Math.min(...items)` pass
 * every item as an argument, and past some 100,000 the call overflows the stack.
 */
export function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

/** Adds `value` to the list kept under `key`, starting the list when it is the first. */
export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The least of the numbers (Infinity for none), as Math.min would say. */
export function minOf(values: Iterable<number>): number {
  let min = Number.POSITIVE_INFINITY;
  for (const v of values) if (v < min) min = v;
  return min;
}

/** The greatest of the numbers (-Infinity for none), as Math.max would say. */
export function maxOf(values: Iterable<number>): number {
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) if (v > max) max = v;
  return max;
}
