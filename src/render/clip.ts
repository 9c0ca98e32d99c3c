/** Text from the input shown in a report: a flow of a 100 KB line is shown by its start. */
export const ELLIPSIS = '…';

export function clip(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max) + ELLIPSIS;
}
