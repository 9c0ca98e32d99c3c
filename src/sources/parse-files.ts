/**
 * Several texts read as one dump: port descriptions anywhere among them name the ports of all
 * (so `show` output may come after the flows), and a file that is not a dump at all, or that
 * looks cut short, is reported once by name instead of line by line.
 */
import { append } from '../model/append.ts';
import type { Diagnostic } from '../model/diagnostics.ts';
import type { Flow, Group } from '../model/flow.ts';
import type { OfVersion } from '../model/openflow.ts';
import type { PortMap } from '../model/ports.ts';
import { type ParseResult, parseDump } from '../syntax/reader.ts';
import { readTableResubmits } from '../syntax/table-resubmits.ts';
import { type PairedLines, withPairs } from '../syntax/paired-lines.ts';
import type { ReadAlong } from '../syntax/written-pairs.ts';
import { antctlFlowsText } from './antctl.ts';
import type { NodeFile } from './node.ts';
import { mergePortMaps, readPortDescriptions } from './port-map.ts';

export interface RejectedFile {
  readonly label: string;
  /** `<label>: not an ovs-ofctl dump: it looks like YAML`. */
  readonly message: string;
  /** What was wrong with each line, for a file that is no other kind of document. */
  readonly diagnostics: readonly Diagnostic[];
}

export interface ParsedFiles extends ParseResult {
  /** Files of which no line could be read, each with what it seems to be instead. */
  readonly rejected: readonly RejectedFile[];
  /** Damage worth a warning (a file ending inside a line). */
  readonly problems: readonly string[];
}

/** What a text that holds no flows looks like instead (YAML, JSON, HTML), or undefined. */
function guessKind(text: string): string | undefined {
  const first = firstContentLine(text);
  if (/^(?:---|[\w.-]+:(?:\s|$)|- [\w.-]+:)/.test(first)) return 'it looks like YAML';
  if (/^[{[]/.test(first)) return 'it looks like JSON';
  if (/^</.test(first)) return 'it looks like HTML or XML';
  return undefined;
}

/** The first line that is neither blank nor a comment, trimmed; found without splitting the whole text. */
function firstContentLine(text: string): string {
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const line = text.slice(at, end).trim();
    if (line !== '' && !line.startsWith('#')) return line;
    at = end + 1;
  }
  return '';
}

/** The 1-based number of the last non-empty physical line, when the text does not end with a line end. */
function unterminatedLastLine(text: string): number | undefined {
  if (text === '' || /[\r\n]$/.test(text)) return undefined;
  return text.split(/\r\n|\r|\n/).length;
}

function shown(label: string): string {
  return label === '-' ? '<stdin>' : label;
}

export interface ParseFilesOptions {
  readonly portMap?: PortMap;
  /** Port descriptions only (`ovsports`, whose trimmed detail lines are no dump lines). */
  readonly portFiles?: readonly NodeFile[];
  /** Told now and then how far the reading of all the files is, in characters. */
  readonly onProgress?: (done: number, of: number) => void;
  /** The dump these files are read along (see ReadAlong). */
  readonly along?: ReadAlong;
}

export function parseFiles(files: readonly NodeFile[], options: ParseFilesOptions = {}): ParsedFiles {
  const problems: string[] = [];
  const described = (options.portFiles ?? []).map((f) => {
    const map = readPortDescriptions(f.text);
    if (map.size === 0 && f.text.trim() !== '') problems.push(`${f.label}: no port descriptions found`);
    return map;
  });
  const ports = mergePortMaps([
    ...(options.portMap ? [options.portMap] : []),
    ...described,
    ...files.map((f) => readPortDescriptions(f.text)),
  ]);
  // The first file's flows are the list itself: a million flows are not copied into another.
  let flows: Flow[] = [];
  const groups: Group[] = [];
  const diagnostics: Diagnostic[] = [];
  const protocols: OfVersion[] = [];
  const rejected: RejectedFile[] = [];
  // The pairs of the one text that holds flows, when it was read along another dump.
  let kept: PairedLines | undefined;
  let badLines = 0;
  let proseLines = 0;
  // One text's flows are looked through for them as it is read; several texts' together, after.
  let namedPortResubmits = true;
  const total = files.reduce((n, f) => n + f.text.length, 0);
  let before = 0;
  for (const f of files) {
    const { onProgress } = options;
    const start = before;
    // Lines are told in proportion to the file's share of all the text.
    const progress =
      onProgress && ((lines: number, of: number): void => onProgress(start + (f.text.length * lines) / of, total));
    before += f.text.length;
    const r = parseDump(antctlFlowsText(f.text) ?? f.text, {
      file: f.label,
      ...(ports.size > 0 ? { portMap: ports } : {}),
      ...(progress ? { onProgress: progress } : {}),
      ...(options.along ? { along: options.along } : {}),
    });
    namedPortResubmits = r.namedPortResubmits ?? true;
    // Asked of the pairs and the flows read otherwise: a text's flows are made only when asked for.
    const { paired } = r;
    const flowCount = paired ? paired.size + paired.unpaired.length : r.flows.length;
    const readSomething = flowCount > 0 || r.groups.length > 0 || r.ports.size > 0 || r.protocols.length > 0;
    if (!readSomething && r.badLines + r.proseLines > 0) {
      // A document of another kind is named; else each line says what is wrong with it.
      const kind = guessKind(f.text);
      const why =
        kind ?? (r.badLines > 0 ? `no line could be read as a flow or group` : 'it holds only text, no flow or group');
      rejected.push({
        label: f.label,
        message: `${shown(f.label)}: not an ovs-ofctl dump: ${why}`,
        diagnostics: kind === undefined ? r.diagnostics : [],
      });
      continue;
    }
    const last = unterminatedLastLine(f.text);
    if (last !== undefined && r.diagnostics.some((d) => d.severity === 'error' && d.line === last)) {
      problems.push(
        `${shown(f.label)}: line ${last} could not be read and ends without a line end: the file looks cut short`,
      );
    }
    if (flowCount > 0) {
      // The pairs of one text are kept as such; with flows of other texts, they are made.
      if (kept === undefined && flows.length === 0 && paired) kept = paired;
      else {
        if (kept) flows = kept.flows().slice();
        kept = undefined;
        if (flows.length === 0) flows = r.flows;
        else append(flows, r.flows);
      }
    }
    append(groups, r.groups);
    append(diagnostics, r.diagnostics);
    for (const v of r.protocols) if (protocols[protocols.length - 1] !== v) protocols.push(v);
    for (const [n, name] of r.ports.entries()) ports.set(n, name);
    badLines += r.badLines;
    proseLines += r.proseLines;
  }
  // A listing's groups may name tables its flows, in another file, hold.
  if (files.length > 1 && kept) {
    const all = kept.unpaired.slice();
    if (!kept.settle(all, groups, ports)) [flows, kept] = [all, undefined];
  }
  // Kept pairs settled: none of their flows, nor any other, resubmits to a port by a stranger's name.
  if (files.length > 1) namedPortResubmits = kept !== undefined || readTableResubmits(flows, groups, ports);
  const read = {
    flows,
    groups,
    diagnostics,
    ports,
    protocols,
    badLines,
    proseLines,
    rejected,
    problems,
    namedPortResubmits,
  };
  return kept ? withPairs(read, kept) : read;
}
