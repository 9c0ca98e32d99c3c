/** Options that may be given several times. */

/** A commander option parser that collects every value given, each read by `read`, in order. */
export function repeatable<T>(read: (text: string) => T): (text: string, previous: readonly T[] | undefined) => T[] {
  return (text, previous) => [...(previous ?? []), read(text)];
}
