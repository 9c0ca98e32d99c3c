/**
 * The dump reader: whole `ovs-ofctl` outputs, add-flows/add-groups files and pasted listings →
 * flows, groups, a port map and diagnostics. Each logical line is classified on its own, so
 * dumps of several kinds may be concatenated. Never throws on any input.
 */
import type { Diagnostic } from '../model/diagnostics.ts';
import type { Flow, Group } from '../model/flow.ts';
import type { OfVersion } from '../model/openflow.ts';
import { PortMap } from '../model/ports.ts';
import { ProblemSink } from '../model/problems.ts';
import { parseFlowLine } from './flow-line.ts';
import { parseGroupLine } from './group-line.ts';
import { type LogicalLine, logicalLines } from './lines.ts';

export interface ParseOptions {
  /** Name shown in diagnostics (`-` is shown as `<stdin>`). */
  readonly file: string;
  /** Port numbers ↔ names known from elsewhere (a bundle's ovsports, `dump-ports-desc`). */
  readonly portMap?: PortMap;
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
}

const HEADER = /^(?:NXST|OFPST|ONFST|OFPT|NXT|ONFT)_[A-Z0-9_]+(?:\s|$)/;
const HEADER_VERSION = /\(OF1\.([0-5])\)/;
const PORT_LINE = /^\s*(\d+|LOCAL)\((.*)\): addr:/;
const PORT_DETAIL = /^\s+(?:config|state|current|advertised|supported|peer|speed):/;
const FEATURES = /^(?:n_tables:|capabilities:|actions: )/;
const HEX_DUMP = /^[0-9a-f]{8}  [0-9a-f]{2}/;

function toDiagnostic(file: string, line: LogicalLine, p: { severity: 'error' | 'warning'; message: string; offset: number; length: number }): Diagnostic {
  const pos = line.position(Math.min(p.offset, Math.max(0, line.text.length - 1)));
  return { severity: p.severity, message: p.message, file, line: pos.line, column: pos.column, length: p.length, lineText: pos.lineText };
}

export function parseDump(text: string, options: ParseOptions): ParseResult {
  const file = options.file === '-' ? '<stdin>' : options.file;
  const ports = new PortMap();
  if (options.portMap) for (const [n, name] of options.portMap.entries()) ports.set(n, name);
  const result = { flows: [] as Flow[], groups: [] as Group[], diagnostics: [] as Diagnostic[], ports, protocols: [] as OfVersion[], badLines: 0 };
  let inHexDump = false;
  for (const line of logicalLines(text)) {
    const body = line.text.trimStart();
    if (body === '' || body.startsWith('#')) continue;
    if (inHexDump && HEX_DUMP.test(body)) continue;
    inHexDump = false;
    if (HEADER.test(body)) {
      const v = HEADER_VERSION.exec(body);
      const version: OfVersion = v ? ((10 + Number(v[1])) as OfVersion) : 10;
      if (result.protocols[result.protocols.length - 1] !== version) result.protocols.push(version);
      continue;
    }
    if (body.startsWith('***decode error')) {
      inHexDump = true;
      result.badLines++;
      result.diagnostics.push(
        toDiagnostic(file, line, {
          severity: 'error',
          message: 'ovs-ofctl could not decode the rest of this reply: the flows it held are missing from the dump (dump again with -O OpenFlow13 or later)',
          offset: line.text.length - body.length,
          length: body.length,
        }),
      );
      continue;
    }
    const port = PORT_LINE.exec(line.text);
    if (port) {
      const n = port[1] === 'LOCAL' ? 0xfffe : Number(port[1]);
      if (port[1] !== 'LOCAL') ports.set(n, port[2]!);
      continue;
    }
    if (PORT_DETAIL.test(line.text) || FEATURES.test(body)) continue;
    const sink = new ProblemSink();
    const origin = { file, line: line.line, text: line.text };
    const portMap = ports.size > 0 ? { portMap: ports } : {};
    if (body.startsWith('group_id=')) {
      const group = parseGroupLine(line.text, origin, { sink, ...portMap });
      if (group) result.groups.push(group);
      else result.badLines++;
    } else {
      const flow = parseFlowLine(line.text, origin, { sink, ...portMap });
      if (flow) result.flows.push(flow);
      else result.badLines++;
    }
    for (const p of sink.problems) result.diagnostics.push(toDiagnostic(file, line, p));
  }
  return result satisfies ParseResult;
}
