/** ` (did you mean nw_dst?)` after a name nothing knows, or nothing when no known name is close. */
export function didYouMean(closest: string | undefined): string {
  return closest === undefined ? '' : ` (did you mean ${closest}?)`;
}
