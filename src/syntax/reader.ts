/**
 * The dump reader: whole `ovs-ofctl` outputs, add-flows/add-groups files and pasted listings →
 * flows, groups, a port map and diagnostics. Each logical line is classified on its own, so
 * dumps of several kinds may be concatenated. Never throws on any input.
 */
import type { Diagnostic } from '../model/diagnostics.ts';
import type { Flow, Group, Origin } from '../model/flow.ts';
import type { OfVersion } from '../model/openflow.ts';
import { PortMap } from '../model/ports.ts';
import { ProblemSink } from '../model/problems.ts';
import { forgetLastTemplate } from './address-variants.ts';
import { cleanLineActions, type FlowLineContext, lazyFlow, parseFlowLine, shapedLineMatch } from './flow-line.ts';
import type { LineSource } from './line-flow.ts';
import { parseGroupLine } from './group-line.ts';
import { type LogicalLine, eachLogicalLine } from './lines.ts';
import { PortDescriptionReader } from './port-description.ts';
import { forgetPrintedStats } from './printed-stats.ts';
import { RecurringParts } from './recurring.ts';
import { readTableResubmits } from './table-resubmits.ts';
import type { ReadAlong } from './written-pairs.ts';
import { type PairedLines, withPairs } from './paired-lines.ts';

export interface ParseOptions {
  /** Name shown in diagnostics (`-` is shown as `<stdin>`). */
  readonly file: string;
  /** Port numbers ↔ names known from elsewhere (a bundle's ovsports, `dump-ports-desc`). */
  readonly portMap?: PortMap;
  /** Told now and then how far the reading is, in lines: for a progress display. */
  readonly onProgress?: (lines: number, of: number) => void;
  /** The dump this one is read along (see ReadAlong), its lines read without port names. */
  readonly along?: ReadAlong;
}

/** Lines read between two calls of `onProgress`. */
const PROGRESS_LINES = 4096;

function lineCount(text: string): number {
  let n = 1;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

export interface ParseResult {
  readonly flows: Flow[];
  readonly groups: Group[];
  readonly diagnostics: Diagnostic[];
  /** The port map given, extended with ports described in the input (`show`, `dump-ports-desc`). */
  readonly ports: PortMap;
  /** OpenFlow versions named by reply headers, in order of appearance. */
  readonly protocols: OfVersion[];
  /** Lines that held a flow or group but could not be read. */
  readonly badLines: number;
  /**
   * Lines of prose, skipped: no flow or group is written without `=` (a pasted document's
   * sentences, a shell prompt, a code fence).
   */
  readonly proseLines: number;
  /** Read along another dump (see ReadAlong): the lines that pair its flows, their flows among `flows` made when first asked for. */
  readonly paired?: PairedLines;
  /**
   * False when no flow or bucket resubmits to a port by name (`resubmit:NAME`, see
   * readTableResubmits): a dump read along this one need not look for such in its flows again.
   */
  readonly namedPortResubmits?: boolean;
}

const HEADER = /^(?:NXST|OFPST|ONFST|OFPT|NXT|ONFT)_[A-Z0-9_]+(?:\s|$)/;
const HEADER_VERSION = /\(OF1\.([0-5])\)/;
/** A group description reply of OpenFlow 1.1–1.4, whose groups lack their selection method and bucket ids. */
const GROUPS_WITHOUT_SELECTION = /^\S+_GROUP_DESC reply \(OF1\.[1-4]\)/;
const PORT_DETAIL = /^\s+(?:config|state|current|advertised|supported|peer|speed):/;
const FEATURES = /^(?:n_tables:|capabilities:|actions: )/;
/**
 * A line of an `ovs-ofctl bundle` file (what openshift-sdn feeds the switch) that adds a flow or
 * a group: `flow add …`, `group add …`, the word `add` being the default.
 */
const BUNDLE_ADD = /^(flow|group)\s+(?:add\s+)?(?=[^\s=]+=)/;
const HEX_DUMP = /^[0-9a-f]{8} {2}[0-9a-f]{2}/;

function toDiagnostic(
  file: string,
  line: LogicalLine,
  p: { severity: 'error' | 'warning'; message: string; offset: number; length: number },
): Diagnostic {
  const pos = line.position(Math.min(p.offset, Math.max(0, line.text.length - 1)));
  return {
    severity: p.severity,
    message: p.message,
    file,
    line: pos.line,
    column: pos.column,
    length: p.length,
    lineText: pos.lineText,
  };
}

/** The usual flow line of a dump: the reader goes straight to the flow parser. */
function isDumpFlowLine(text: string): boolean {
  return text.startsWith(' cookie=') || text.startsWith('cookie=');
}

export function parseDump(text: string, options: ParseOptions): ParseResult {
  const file = options.file === '-' ? '<stdin>' : options.file;
  const ports = new PortMap();
  if (options.portMap) ports.addAll(options.portMap);
  const portLines = new PortDescriptionReader(ports);
  const result = {
    flows: [] as Flow[],
    groups: [] as Group[],
    diagnostics: [] as Diagnostic[],
    ports,
    protocols: [] as OfVersion[],
    badLines: 0,
    proseLines: 0,
  };
  // One sink serves every line: it is emptied after each, once its problems are diagnostics.
  const sink = new ProblemSink();
  // A flow read lazily may be read again from its line later, with the port names its line was
  // read with: a context ending, or the reading, pins them (copies the map) when it has such flows.
  let pinPorts = (): void => {};
  // Port names change how later lines read: with each, the context and what it has cached start anew.
  const freshContext = (): FlowLineContext => {
    const recurring = new RecurringParts();
    const live = ports.size > 0 ? ports : undefined;
    let names = live;
    pinPorts = () => {
      if (names !== undefined && names === live && recurring.shapes.size > 0) names = live.copy();
    };
    // Read again, a line's parts are known clean: the sink is only where the readers write.
    const rereading = (): FlowLineContext =>
      names ? { sink: new ProblemSink(), portMap: names } : { sink: new ProblemSink() };
    const source: LineSource = {
      file,
      parts: recurring,
      readMatch: (text, statsEnd, keyword, shape) => shapedLineMatch(text, statsEnd, keyword, shape, rereading),
      readActions: (text, start, match) => cleanLineActions(text, start, match, rereading()),
    };
    return live ? { sink, portMap: live, recurring, source } : { sink, recurring, source };
  };
  let context = freshContext();
  let inHexDump = false;
  let selectionHidden = false;
  const { onProgress } = options;
  const lines = onProgress === undefined ? 0 : lineCount(text);
  let nextProgress = 0;
  const progress = (line: number): void => {
    if (onProgress !== undefined && line >= nextProgress) {
      onProgress(line, lines);
      nextProgress = line + PROGRESS_LINES;
    }
  };
  // The next quote at or after the line taken, in the text it was looked for in (its length: none).
  let quoteText = '';
  let quote = 0;
  const quoteFree = (text: string, start: number, end: number): boolean => {
    if (quote < start || text !== quoteText) {
      quoteText = text;
      quote = text.indexOf('"', start);
      if (quote < 0) quote = text.length;
    }
    return quote >= end;
  };
  // The line takeLazyFlow last turned down: the flow parser need not try it lazily again.
  let turnedDown = 0;
  /** A dump's usual flow line read lazily from where it lies in the text, without a LogicalLine. */
  const takeLazyFlow = (text: string, start: number, end: number, line: number): boolean => {
    // progress() and quoteFree() called only when they have to be: a call for each line costs more than the tests.
    if (onProgress !== undefined) progress(line);
    const { source } = context;
    // Read along another dump only while both read without port names, as a comparison reads them.
    const along = context.portMap === undefined ? options.along : undefined;
    const usual = source !== undefined && ((quote >= end && text === quoteText) || quoteFree(text, start, end));
    // A line that pairs a flow of that dump is kept as numbers, its flow made when asked for.
    const claimed = usual && along !== undefined && along.claim(text, start, end, line, source, result.flows.length);
    const flow = usual && !claimed ? lazyFlow(text, start, end, line, source) : undefined;
    if (!claimed && flow === undefined) {
      turnedDown = line;
      return false;
    }
    inHexDump = false;
    if (flow) result.flows.push(flow);
    return true;
  };
  eachLogicalLine(text, takeLazyFlow, (line) => {
    progress(line.line);
    if (isDumpFlowLine(line.text)) {
      inHexDump = false;
      readItem(line, false);
      return;
    }
    const body = line.text.trimStart();
    if (body === '' || body.startsWith('#')) return;
    if (inHexDump && HEX_DUMP.test(body)) return;
    inHexDump = false;
    // antctl get ovsflows prints the flows as a table under this one heading.
    if (body.trimEnd() === 'FLOW') return;
    if (HEADER.test(body)) {
      const v = HEADER_VERSION.exec(body);
      const version: OfVersion = v ? ((10 + Number(v[1])) as OfVersion) : 10;
      if (result.protocols[result.protocols.length - 1] !== version) result.protocols.push(version);
      selectionHidden = GROUPS_WITHOUT_SELECTION.test(body);
      return;
    }
    if (body.startsWith('***decode error')) {
      inHexDump = true;
      result.badLines++;
      result.diagnostics.push(
        toDiagnostic(file, line, {
          severity: 'error',
          message:
            'ovs-ofctl could not decode the rest of this reply: the flows it held are missing from the dump (dump again with -O OpenFlow13 or later)',
          offset: line.text.length - body.length,
          length: body.length,
        }),
      );
      return;
    }
    pinPorts();
    const port = portLines.read(line.text);
    if (port === 'port') context = freshContext();
    if (port) return;
    if (PORT_DETAIL.test(line.text) || FEATURES.test(body)) return;
    if (!body.includes('=')) {
      result.proseLines++;
      return;
    }
    const bundled = BUNDLE_ADD.exec(body);
    if (bundled) {
      readItem(line, bundled[1] === 'group', line.text.length - body.length + bundled[0].length);
      return;
    }
    readItem(line, body.startsWith('group_id='));
  });

  /** Reads a flow or group from the line, its first `skip` characters blanked (columns stay true). */
  function readItem(line: LogicalLine, group: boolean, skip = 0): void {
    const text = skip === 0 ? line.text : ' '.repeat(skip) + line.text.slice(skip);
    if (group) {
      const origin: Origin = { file, line: line.line, text: line.text };
      const g = parseGroupLine(text, origin, context);
      if (g) result.groups.push(selectionHidden && g.type === 'select' ? { ...g, selectionHidden } : g);
      else result.badLines++;
    } else {
      const flow = parseFlowLine(text, file, line.line, context, turnedDown === line.line);
      if (flow) {
        result.flows.push(flow);
        options.along?.passed(flow);
      } else result.badLines++;
    }
    if (sink.problems.length === 0) return;
    for (const p of sink.problems) result.diagnostics.push(toDiagnostic(file, line, p));
    sink.problems.length = 0;
  }
  pinPorts();
  const paired = options.along?.settle(result.flows, result.groups, ports);
  const namedPortResubmits = paired !== undefined || readTableResubmits(result.flows, result.groups, ports);
  forgetPrintedStats();
  forgetLastTemplate();
  return paired === undefined ? { ...result, namedPortResubmits } : withPairs(result, paired);
}
