/**
 * Two sets of values compared: the same, overlapping or with nothing in common, and which values
 * both hold and which only one does (the NetworkPolicy rule behind a conjunction is told by its
 * dimensions' sets compared).
 */
export interface SetComparison<T> {
  readonly agreement: 'same' | 'overlap' | 'different';
  /** Each set, in order. */
  readonly first: readonly T[];
  readonly second: readonly T[];
  /** Values both hold; values only the first holds; values only the second holds; each in order. */
  readonly both: readonly T[];
  readonly onlyFirst: readonly T[];
  readonly onlySecond: readonly T[];
}

/** Compares two sets, each given as values (repeats count once); `order` sorts the lists, by default as strings. */
export function compareSets<T>(
  first: Iterable<T>,
  second: Iterable<T>,
  order?: (x: T, y: T) => number,
): SetComparison<T> {
  const a = new Set(first);
  const b = new Set(second);
  const sorted = (values: Iterable<T>, keep: (x: T) => boolean = () => true): T[] =>
    [...values].filter(keep).sort(order);
  const both = sorted(a, (x) => b.has(x));
  const agreement =
    both.length === a.size && both.length === b.size ? 'same' : both.length > 0 ? 'overlap' : 'different';
  return {
    agreement,
    first: sorted(a),
    second: sorted(b),
    both,
    onlyFirst: sorted(a, (x) => !b.has(x)),
    onlySecond: sorted(b, (x) => !a.has(x)),
  };
}
