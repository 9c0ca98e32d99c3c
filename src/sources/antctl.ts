/**
 * `antctl get ovsflows -o json` and `-o yaml` print the dump as a list of `{flow: "…"}`. Read
 * with a YAML parser (YAML holds JSON): antctl's YAML folds long flows over several lines and
 * quotes some, which only a real parser undoes. (Its table form, a `FLOW` heading over the raw
 * lines, is a dump already: the syntax reader skips the heading.)
 */
import { yamlLibrary } from '../syntax/yaml-library.ts';

/** A list's opening: `[`, or a YAML item whose first key is `flow`. */
const LIST_START = /^\s*(?:\[|-\s+["']?flow["']?\s*:)/;

/**
 * The flows of antctl's JSON or YAML output as dump text, each flow on the line its value starts
 * on, so diagnostics point into the file as given; undefined for any other text.
 */
export function antctlFlowsText(text: string): string | undefined {
  const first = text.split('\n', 50).find((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  if (first === undefined || !LIST_START.test(first)) return undefined;
  const { isMap, isScalar, isSeq, LineCounter, parseDocument } = yamlLibrary();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false });
  if (doc.errors.length > 0 || !isSeq(doc.contents)) return undefined;
  const lines: string[] = text.split('\n').map(() => '');
  const flows: string[] = [];
  let sameLine = false;
  for (const item of doc.contents.items) {
    const value = isMap(item) ? item.get('flow', true) : undefined;
    if (!isScalar(value) || typeof value.value !== 'string') return undefined;
    const line = lineCounter.linePos(value.range?.[0] ?? 0).line - 1;
    if (lines[line] !== '') sameLine = true;
    lines[line] = value.value;
    flows.push(value.value);
  }
  // JSON on one line holds every flow on line 1: then a flow's line is its place in the list.
  return (sameLine ? flows : lines).join('\n') + '\n';
}
