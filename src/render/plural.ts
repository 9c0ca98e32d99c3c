/** `1 flow`, `3 flows`: a count with its noun. */
export function plural(n: number | bigint, word: string): string {
  return `${n} ${word}${n === 1 || n === 1n ? '' : 's'}`;
}
