/**
 * The known name a mistyped one was meant to be (`nw_dts` → `nw_dst`), for "did you mean …?":
 * the one fewest single-character edits away (an insertion, a deletion, a substitution, or two
 * neighbours swapped), when few enough for the word to be that name misspelt rather than
 * another word.
 */

/** Edits that still make a misspelling, by the length of the word: one in a short word, up to three in a long one. */
function editsAllowed(length: number): number {
  return length <= 3 ? 1 : length <= 6 ? 2 : 3;
}

/** Edit distance with adjacent transpositions (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  // Three rows of the table: two back for a transposition.
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1);
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row[j] = d;
    }
    before = previous;
    previous = row;
  }
  return previous[b.length]!;
}

/** The name closest to `word` (case aside) if it is close enough to be what was meant; the first of equals. */
export function closestName(word: string, names: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = editsAllowed(word.length) + 1;
  for (const name of names) {
    // Names far longer or shorter are not worth measuring.
    if (Math.abs(name.length - word.length) >= bestDistance) continue;
    const d = editDistance(lower, name.toLowerCase());
    if (d < bestDistance && d > 0) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}
