/**
 * Looks a word from the input up in a table written as an object literal. A plain `table[word]`
 * would find what every object inherits (`constructor`, `toString`, `__proto__`) and take it for
 * an entry.
 */
export function ownEntry<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
