/** A report's colours: a function per kind of text, which a terminal paints and a pipe leaves as it is. */
export type Style<K extends string> = { readonly [P in K]: (s: string) => string };

/** Text as it is. */
export const unpainted = (s: string): string => s;

/** The style that paints nothing, for pipes, files and tests. */
export function plainStyle<K extends string>(...kinds: readonly K[]): Style<K> {
  return Object.fromEntries(kinds.map((k) => [k, unpainted])) as Style<K>;
}
