/**
 * Trace results as text laid out like `ovs-appctl ofproto/trace` (pass by pass, table by
 * table, each action with its details) plus a verdict line, and as JSON.
 */
import type { Flow, MatchField } from '../model/flow.ts';
import { DEFAULT_PRIORITY, type LineSpan, lineSpan } from '../model/flow.ts';
import type { FieldDef } from '../model/fields.ts';
import type { OfVersion } from '../model/openflow.ts';
import type { PortMap } from '../model/ports.ts';
import { type TableRef, tableLabel } from '../model/tables.ts';
import { fieldByName } from '../model/fields.ts';
import { formatFlags, fullMask, quotePortName } from '../syntax/field-value.ts';
import {
  type Packet,
  FIELD,
  INNER_VLAN,
  MAX_MPLS_LABELS,
  MPLS_LSES_BELOW,
  slotField,
} from '../analysis/trace/packet.ts';
import type { OutputPort } from '../analysis/trace/trace-ports.ts';
import {
  MAX_DEPTH,
  MAX_NESTING,
  MAX_PASSES,
  MAX_RESUBMITS,
  MAX_TRACE_STEPS,
  type TraceNode,
  type TracePass,
  type TraceProblem,
  type TraceResult,
  type TraceStep,
} from '../analysis/trace/trace.ts';
import type { ExplainedTrace, VerdictReason } from '../analysis/trace/trace-verdict.ts';
import type { TraceWork } from '../analysis/trace/trace-budget.ts';
import { verdictReasonText } from './words/explanation.ts';
import { traceNoteWords } from './words/trace-notes.ts';
import { formatActions } from './actions.ts';
import { firstFewPorts } from './lists.ts';
import { formatMatch } from './match.ts';
import { jsonReplacer, SCHEMA_VERSION, tableRefJson } from './json.ts';
import { nearestJson, nearestLine } from './nearest.ts';
import { maxOf } from '../model/append.ts';
import type { Pipeline } from '../model/pipeline.ts';
import { boundBytes, type ByteBound, LazyBound, TextBudget } from './text-budget.ts';

/**
 * Trace output allowed per byte of the flows and groups traced through, over a floor: OVS's limits
 * and flowscope's bound a trace's work, not what each step prints (a 2 KB chain of all-groups
 * would print 8 MB for its 32,768 steps). Past it, a trace says how much it left out.
 */
export const TRACE_BYTES_PER_INPUT_BYTE = 64;
/** What the bound is, for the line that says a trace's text was cut at it. */
export const BOUND_WORDS = `the bound for flows and groups of this size (${TRACE_BYTES_PER_INPUT_BYTE} bytes of trace per byte of them)`;
/** Any pipeline may print as much as one of this many bytes. */
const TRACE_INPUT_FLOOR = 4096;

/** How many bytes the traces of `pipeline` may print (TraceRenderOptions.maxBytes). */
export function traceOutputBudget(pipeline: Pipeline): number {
  let bytes = 0;
  // Where each line lies, not its origin: a million flows' lines are not each cut from the dump for it.
  // In the order read, not table by table: that puts no table in match order, and walks the
  // dump's text forwards.
  const span: LineSpan = { text: '', start: 0, end: 0, statsEnd: 0 };
  const { flows } = pipeline;
  for (let i = 0; i < flows.length; i++) {
    lineSpan(flows[i]!, span);
    bytes += span.end - span.start;
  }
  for (const g of pipeline.groups.values()) bytes += g.origin.text.length;
  return TRACE_BYTES_PER_INPUT_BYTE * Math.max(bytes, TRACE_INPUT_FLOOR);
}

/**
 * traceOutputBudget, worked out when a trace's text reaches the least it can be: a trace of one
 * packet through a million flows prints a few kilobytes, and need not read every line's length.
 */
export function traceOutputBound(pipeline: Pipeline): LazyBound {
  return new LazyBound(TRACE_BYTES_PER_INPUT_BYTE * TRACE_INPUT_FLOOR, () => traceOutputBudget(pipeline));
}

export interface TraceRenderOptions {
  /** Spelling of actions (the dump's OpenFlow version). */
  readonly of: OfVersion;
  /**
   * Bytes the trace itself may take (text lines, or JSON's passes, steps and problems); the rest
   * is left out and said to be. The verdict always covers the whole trace. Unbounded if absent.
   * A LazyBound is worked out only when the text reaches its floor.
   */
  readonly maxBytes?: ByteBound;
  readonly portNames?: PortMap;
  /** A name for a table (from a pipeline profile), shown beside its number. */
  readonly describeTable?: (ref: TableRef) => string | undefined;
  /** The NetworkPolicy rule a conjunction implements (`ingress rule 1 of NetworkPolicy prod/web`), where policy objects say it. */
  readonly conjunctionRule?: (table: TableRef, id: number) => string | undefined;
}

const NW_ECN = fieldByName('nw_ecn')!;

/**
 * The packet as a match on its non-zero fields (protocol folded into a keyword, as OVS prints
 * flows); a second VLAN tag and the MPLS labels under the top one, which no field matches, as
 * ofproto/trace prints them.
 */
export function formatPacket(packet: Packet, portNames?: PortMap): string {
  const match = formatMatch({ fields: packetFields(packet) }, portNames ? { portNames } : {});
  const parts = [match];
  const inner = packet.slot(INNER_VLAN);
  if (inner !== 0n)
    parts.push(
      (inner & 0x1000n) !== 0n
        ? `dl_vlan1=${inner & 0xfffn},dl_vlan_pcp1=${inner >> 13n}`
        : `vlan_tci1=0x${inner.toString(16).padStart(4, '0')}`,
    );
  // Labels under the top one, as ofproto/trace prints them (the whole entry, in decimal).
  for (const slot of MPLS_LSES_BELOW) if (packet.slot(slot) !== 0n) parts.push(`${slot}=${packet.slot(slot)}`);
  return parts.filter((s) => s !== '').join(',');
}

function packetFields(packet: Packet): MatchField[] {
  const fields: MatchField[] = [];
  for (const [slot, value] of packet.entries()) {
    const field = slotField(slot);
    if (!field) continue;
    if (slot === 'nw_tos') {
      if ((value & 0xfcn) !== 0n) fields.push(entry(field, value & 0xfcn, 0xfcn));
      if ((value & 3n) !== 0n) fields.push(entry(NW_ECN, value & 3n, 3n));
      continue;
    }
    fields.push(entry(field, value, fullMask(field)));
  }
  return fields;
}

function entry(field: FieldDef, value: bigint, mask: bigint): MatchField {
  return { field, value, mask };
}

function matchText(flow: Flow, portNames?: PortMap): string {
  return formatMatch(flow.match, portNames ? { portNames } : {});
}

/** ` 3. ip,nw_dst=10.0.0.1, priority 200, cookie 0x5`, as ofproto/trace prints a table line. */
function tableLine(node: Extract<TraceNode, { kind: 'table' }>, o: TraceRenderOptions): string {
  const label = node.table.kind === 'number' ? String(node.table.number).padStart(2) : node.table.name;
  const described = o.describeTable?.(node.table);
  const suffix = described ? `  [${described}]` : '';
  if (!node.flow) return `${label}. No match.${suffix}`;
  const match = matchText(node.flow, o.portNames);
  const cookie = node.flow.cookie !== 0n ? `, cookie 0x${node.flow.cookie.toString(16)}` : '';
  return `${label}. ${match === '' ? '' : match + ', '}priority ${node.flow.priority}${cookie}${suffix}`;
}

function renderTable(
  node: Extract<TraceNode, { kind: 'table' }>,
  indent: number,
  bodyIndent: number,
  o: TraceRenderOptions,
  out: TextBudget,
): void {
  const pad = ' '.repeat(indent * 4);
  out.push(pad + tableLine(node, o));
  if (node.conjunction) {
    for (const c of node.conjunction.components) {
      const m = matchText(c, o.portNames);
      out.push(`${pad}     -> conj. priority=${c.priority}${m ? ',' + m : ''}`);
    }
    const rule = o.conjunctionRule?.(node.table, node.conjunction.id);
    if (rule) out.push(`${pad}     -> conjunction ${node.conjunction.id} = ${rule}`);
  }
  // A miss, and a flow without actions, print as ofproto/trace prints them.
  if (!node.flow || node.flow.actions.length === 0) out.push(`${' '.repeat(bodyIndent * 4)}drop`);
  renderNodes(node.nodes, bodyIndent, o, out);
}

function renderNodes(nodes: readonly TraceNode[], indent: number, o: TraceRenderOptions, out: TextBudget): void {
  const pad = ' '.repeat(indent * 4);
  for (const [i, node] of nodes.entries()) {
    switch (node.kind) {
      case 'table':
        renderTable(node, indent, indent + 1, o, out);
        break;
      case 'action': {
        out.push(pad + formatActions([node.action], { of: o.of, ...(o.portNames ? { portNames: o.portNames } : {}) }));
        // As in ofproto/trace: a lookup in tail position (goto_table, or the last action) prints at
        // the caller's level; any other resubmit prints under its action, its actions further in.
        const tail = node.action.kind === 'goto_table' || i === nodes.length - 1;
        for (const child of node.nodes) {
          if (child.kind !== 'table') renderNodes([child], indent, o, out);
          else if (tail) renderTable(child, Math.max(indent - 1, 0), indent, o, out);
          else renderTable(child, indent, indent + 2, o, out);
        }
        break;
      }
      case 'bucket':
        out.push(`${pad}bucket ${node.bucket}`);
        renderNodes(node.nodes, indent + 2, o, out);
        break;
      case 'learned': {
        const f = node.flow;
        const match = formatMatch(f.match, o.portNames ? { portNames: o.portNames } : {});
        const prio = f.priority === DEFAULT_PRIORITY ? '' : `priority=${f.priority}`;
        const head = [prio, match].filter((s) => s !== '').join(',');
        out.push(
          `${pad} -> learned: table=${tableLabel(f.table)}${head ? ', ' + head : ''} actions=${formatActions(f.actions, { of: o.of })}`,
        );
        break;
      }
      case 'problem':
        out.push(problemLine(node.problem, pad, o));
        break;
      case 'note': {
        const { level, text } = traceNoteWords(node.note);
        out.push(
          level === 'detail'
            ? `${pad} -> ${text}`
            : level === 'warning'
              ? `${pad} >> ${text}`
              : `${pad} >>>> ${text} <<<<`,
        );
        break;
      }
    }
  }
}

/** What ofproto/trace prints for each translation error (xlate_resubmit_resource_check). */
const OVS_LIMIT_WORDS = {
  depth: `over max translation depth ${MAX_DEPTH}`,
  resubmits: `over ${MAX_RESUBMITS} resubmit actions on bridge`,
  stack: 'resubmits yielded over 64 kB of stack',
  mpls: `push_mpls onto ${MAX_MPLS_LABELS} labels, more than Open vSwitch holds`,
} as const;

/** A problem where it happened, in ofproto/trace's words where it has some. */
function problemLine(p: TraceProblem, pad: string, o: TraceRenderOptions): string {
  switch (p.kind) {
    case 'translation-failed':
      return `${pad} >>>> ${OVS_LIMIT_WORDS[p.limit]} <<<<`;
    case 'trace-cut':
      return p.limit === 'actions'
        ? `${pad} >>>> resubmits yielded over 64 kB of actions <<<<`
        : `${pad} >> ${problemText(p, o)}`;
    case 'output-to-in-port':
      return `${pad} >> skipping output to input port`;
    case 'no-ct-tuple':
      return `${pad} >>>> resubmit(ct) with non-tracked or non-IP packet! <<<<`;
    case 'unmet-prerequisites':
      return `${pad} >> unmet prerequisites for ${p.field}, set_field ignored`;
    case 'datapath-hash':
      return `${pad} >> the datapath's hash picks the bucket: following every live bucket (give dp_hash in the packet to follow one)`;
    case 'selection-unknown':
      return `${pad} >> the dump does not show how the switch picks a bucket: following every live bucket (dump the groups with -O OpenFlow15, or choose one with --bucket)`;
    default:
      return `${pad} >> ${problemText(p, o)}`;
  }
}

/** Why a translation failed, after "translation failed, ". */
const TRANSLATION_LIMIT_WORDS = {
  depth: `over the maximum depth of ${MAX_DEPTH} nested resubmits and groups`,
  resubmits: `over ${MAX_RESUBMITS} table lookups in one pass`,
  stack: 'its stack (stack_push) passed 64 kB',
  mpls: `push_mpls onto a packet of ${MAX_MPLS_LABELS} MPLS labels, the most Open vSwitch holds`,
} as const;

/** A problem in a sentence: for the verdict, the notes after it and JSON. */
function problemText(p: TraceProblem, o: TraceRenderOptions): string {
  switch (p.kind) {
    case 'missing-group':
      return p.dumpHasGroups
        ? `group ${p.group} is not among the groups given`
        : `group ${p.group} is not in the dump (give the groups with --groups: ovs-ofctl dump-groups output)`;
    case 'missing-bucket':
      return `group ${p.group} has no bucket ${p.bucket} (its buckets: ${p.buckets.join(', ')})`;
    case 'no-live-bucket':
      return `group ${p.group} has no live bucket`;
    case 'unlisted-port':
      return `port ${portText(p.port, o.portNames)} is not in the dump's port list: nothing is sent`;
    case 'output-to-in-port':
      return `output to port ${portText(p.port, o.portNames)}, the port the packet came in on, is skipped (IN_PORT sends a packet back)`;
    case 'no-ct-tuple':
      return `resubmit to ${tableName(p.target, o)} with the conntrack tuple looks nothing up: the packet has none (it is not tracked IP, or the trace is offline, where conntrack fills no tuple)`;
    case 'unmet-prerequisites':
      return `the write into ${p.field} is ignored: the packet lacks the headers ${p.field} belongs to`;
    case 'datapath-hash':
      return `group ${p.group} picks one bucket by the datapath's hash of the packet, which a dump does not tell: each live bucket was followed, so the packet takes only one of their paths (${p.choices.map((c) => `dp_hash=0x${c.dpHash.toString(16)} takes bucket ${c.bucket}`).join(', ')}); give dp_hash in the packet to follow one`;
    case 'selection-unknown':
      return `group ${p.group} picks one bucket by a selection method the dump does not show (OpenFlow 1.1–1.4 dumps leave it and the bucket ids out): each live bucket was followed (${p.buckets.join(', ')}), so the packet takes only one of their paths; dump the groups with -O OpenFlow15 to trace the switch's choice, or choose a bucket with --bucket`;
    case 'unnumbered-in-ports': {
      const shown = firstFewPorts(p.names);
      const named = `name the port instead (in_port=${quotePortName(p.names[0]!)})`;
      return p.inPort === 0
        ? `the packet gives no in_port, so it matches none of the flows that name their in_port (${shown}): ${named}`
        : `in_port=${p.inPort} matches none of the flows that name their in_port (${shown}): the dump gives no numbers for those ports; give them with --ports (ovs-ofctl show output), or ${named}`;
    }
    case 'trace-cut':
      return traceCutText(p.limit, p.unprocessed);
    case 'translation-failed': {
      const limit = TRANSLATION_LIMIT_WORDS[p.limit];
      const round = [...p.loop, ...p.loop.slice(0, 1)].map((t) => tableName(t, o));
      return `translation failed, ${limit}${round.length > 0 ? `; the path goes round ${round.join(' → ')}` : ''}`;
    }
  }
}

/** A report's traces at their shared bound: `its traces reached its bound of … trace steps (…; N taken)`. */
export function traceWorkText(work: TraceWork): string {
  return `its traces reached its bound of ${work.limit} trace steps (table lookups, actions and group buckets; ${work.spent} taken)`;
}

function traceCutText(limit: (TraceProblem & { kind: 'trace-cut' })['limit'], unprocessed: number | undefined): string {
  switch (limit) {
    case 'actions':
      return 'translation ended: the datapath actions it yielded passed 64 kB (OVS ends it there too, and sends what it sent before)';
    case 'recirculations':
      return `trace stopped after ${MAX_PASSES} recirculations, as ofproto/trace stops (${unprocessed ?? 0} more queued and not followed)`;
    case 'steps':
      return `trace stopped after ${MAX_TRACE_STEPS} steps (table lookups, actions and group buckets): flowscope follows no trace further`;
    case 'nesting':
      return `trace stopped: over ${MAX_NESTING} resubmits, groups and clones nested in one another, more than flowscope follows`;
  }
}

const RULE = '='.repeat(79);

function ctStateText(v: bigint): string {
  return formatFlags(FIELD.ctState, v, 0xffn, 0xffn);
}

function renderPass(pass: TracePass, o: TraceRenderOptions, out: TextBudget): void {
  if (pass.resume) {
    out.push('', RULE);
    const state = ctStateText(pass.resume.ctState);
    out.push(
      pass.resume.defaultCtState
        ? `recirc(0x${pass.recircId.toString(16)}) - resume conntrack with default ct_state=trk|new (use --ct-next to customize)`
        : `recirc(0x${pass.recircId.toString(16)}) - resume conntrack with ct_state=${state}`,
    );
    if (pass.resume.nat) {
      out.push('Replacing src/dst IP/ports to simulate NAT:');
      out.push(` Initial flow: ${formatPacket(pass.resume.nat.before, o.portNames)}`);
      out.push(` Modified flow: ${formatPacket(pass.resume.nat.after, o.portNames)}`);
    }
    out.push(RULE, '');
  }
  out.push(`Flow: ${formatPacket(pass.initial, o.portNames)}`, '');
  if (pass.resume) out.push('    thaw', `        Resuming from table ${tableLabel(pass.resume.table)}`);
  renderNodes(pass.nodes, 0, o, out);
  out.push('', `Final flow: ${pass.final.equals(pass.initial) ? 'unchanged' : formatPacket(pass.final, o.portNames)}`);
}

function portText(n: OutputPort, portNames?: PortMap): string {
  if (typeof n === 'string') return quotePortName(n);
  if (n === 0xfffe) return 'LOCAL';
  const name = portNames?.name(n);
  return name === undefined ? String(n) : `${n} (${name})`;
}

/** One sentence: where the packet goes, or where it was dropped — and why, when the profile says. */
export function verdictLine(result: ExplainedTrace, o: TraceRenderOptions): string {
  const why = result.reason;
  const said = why !== undefined && (why.source === 'pattern' || why.source === 'miss') ? why : undefined;
  const from = said && result.last ? ` from ${tableName(result.last.table, o)}: ${verdictReasonText(said)}` : '';
  switch (result.verdict) {
    case 'output': {
      const ports = result.outputs.map((n) => portText(n, o.portNames));
      return `Verdict: output to port${ports.length > 1 ? 's' : ''} ${ports.join(', ')}${from}`;
    }
    case 'normal':
      return `Verdict: handed to the NORMAL (L2 learning switch) pipeline${from}`;
    case 'controller': {
      // A TTL that ran out says why by itself; the flow's usual purpose would mislead.
      const ttl = result.controllerCause;
      if (ttl) {
        const which = ttl.mpls ? 'MPLS TTL' : 'TTL';
        const given = !ttl.mpls && ttl.ttl === 0 ? ' (the packet gave no nw_ttl: add nw_ttl=64)' : '';
        return `Verdict: sent to the controller from ${tableName(ttl.table, o)}: its ${which} was ${ttl.ttl}${given}, and ${ttl.mpls ? 'dec_mpls_ttl' : 'dec_ttl'} sends a packet whose TTL runs out to the controller (invalid_ttl) instead of forwarding it`;
      }
      return `Verdict: sent to the controller${from}`;
    }
    case 'drop': {
      const last = result.last;
      if (result.cause)
        return `Verdict: dropped in ${tableName(result.cause.table, o)}: ${problemText(result.cause, o)}`;
      if (!last) return 'Verdict: dropped (no table to look up)';
      const where = tableName(last.table, o);
      if (said) return `Verdict: dropped in ${where}: ${verdictReasonText(said)}`;
      if (!last.flow) return `Verdict: dropped in ${where}: no flow matched`;
      return `Verdict: dropped in ${where} by the flow at priority ${last.flow.priority} (${matchText(last.flow, o.portNames) || 'any packet'})`;
    }
  }
}

/** `SpoofGuardTable (table 10)`; a dump that names its tables keeps its name: `SpoofGuard (table 10)`. */
export function tableName(ref: TableRef, o: TraceRenderOptions): string {
  const described = o.describeTable?.(ref);
  if (!described) return `table ${tableLabel(ref)}`;
  return ref.kind === 'name' ? `${ref.name} (${described})` : `${described} (table ${ref.number})`;
}

export function formatTrace(result: ExplainedTrace, o: TraceRenderOptions): string {
  const body = new TextBudget(o.maxBytes ?? Infinity);
  for (const pass of result.passes) renderPass(pass, o, body);
  const out = body.lines;
  if (body.omitted > 0) out.push('', omittedLines(body.omitted, o.maxBytes));
  out.push('');
  const why = result.reason;
  // A miss flow, or no flow, says little by itself: the table's purpose says what it was for.
  if (!result.cause && why && why.source !== 'pattern' && why.table.purpose !== undefined && result.last) {
    out.push(`${tableName(result.last.table, o)}: ${why.table.purpose}`);
  }
  out.push(verdictLine(result, o));
  const miss = result.missDrop;
  if (miss) out.push(nearestLine(miss.nearest, o.portNames));
  // Problems the verdict does not name, each once.
  const notes = new Set(
    result.problems
      .filter((p) => p !== result.cause)
      .map((p) => `Also, in ${tableName(p.table, o)}: ${problemText(p, o)}`),
  );
  out.push(...notes);
  return out.join('\n') + '\n';
}

/**
 * The trace in one line per table lookup, for long traces: table, priority and what the flow did
 * (`--brief`), each recirculation on a line of its own, then the verdict.
 */
export function formatTraceBrief(result: ExplainedTrace, o: TraceRenderOptions): string {
  const rows: [string, string, string][] = [];
  const out: string[] = [];
  for (const pass of result.passes) {
    if (pass.resume)
      rows.push([
        `recirc(0x${pass.recircId.toString(16)})`,
        '',
        `resumed in table ${tableLabel(pass.resume.table)} with ct_state=${ctStateText(pass.resume.ctState)}`,
      ]);
    for (const step of pass.steps) {
      const name = o.describeTable?.(step.table);
      // Numbers aligned on the right, as ofproto/trace prints them.
      const table =
        step.table.kind === 'number'
          ? `${String(step.table.number).padStart(3)}${name ? ` ${name}` : ''}`
          : tableLabel(step.table);
      const did = step.flow ? formatActions(step.flow.actions, { of: o.of }) || 'drop' : 'no flow matched: drop';
      rows.push([table, step.flow ? String(step.flow.priority) : '-', did]);
    }
  }
  const width = maxOf(rows.map((r) => r[0].length));
  const prio = maxOf(rows.map((r) => r[1].length));
  const body = new TextBudget(o.maxBytes ?? Infinity);
  for (const [table, priority, did] of rows) {
    body.push(priority === '' ? `${table}: ${did}` : `${table.padEnd(width)}  ${priority.padStart(prio)}  ${did}`);
  }
  out.push(...body.lines);
  if (body.omitted > 0) out.push(omittedLines(body.omitted, o.maxBytes));
  out.push(verdictLine(result, o));
  const miss = result.missDrop;
  if (miss) out.push(nearestLine(miss.nearest, o.portNames));
  return out.join('\n') + '\n';
}

/** The line that ends a trace's text (`what` it is of: `this trace`, `both traces`) cut at its bound. */
export function omittedLines(lines: number, maxBytes: ByteBound | undefined, what = 'this trace'): string {
  return `… and ${lines} more line${lines === 1 ? '' : 's'} of ${what}, not printed: the text reached ${boundBytes(maxBytes)} bytes, ${BOUND_WORDS}. The verdict covers the whole trace.`;
}

/** The tables a trace looks the packet up in, in order (`-o name`), as many as its bound holds; how many more it left out. */
export function traceTableNames(
  result: TraceResult,
  o: TraceRenderOptions,
): { readonly names: readonly string[]; readonly omitted: number } {
  const budget = new TextBudget(o.maxBytes ?? Infinity);
  for (const pass of result.passes)
    for (const s of pass.steps) budget.push(o.describeTable?.(s.table) ?? tableLabel(s.table));
  return { names: budget.lines, omitted: budget.omitted };
}

/** The notice that says a list of a trace's tables was cut at its bound. */
export function omittedNames(omitted: number, o: TraceRenderOptions): string {
  return `${omitted} more table lookup${omitted === 1 ? '' : 's'} of this trace not listed: the list reached ${boundBytes(o.maxBytes)} bytes, ${BOUND_WORDS}`;
}

/** What a JSON item takes in the text. */
const jsonBytes = (item: unknown): number => JSON.stringify(item, jsonReplacer).length;

/** JSON's passes, steps and problems, as many as `maxBytes` holds, and counts of those left out. */
function boundedJson(
  result: TraceResult,
  o: TraceRenderOptions,
): { passes: Record<string, unknown>[]; problems: Record<string, unknown>[]; omitted?: Record<string, unknown> } {
  const budget = new TextBudget(o.maxBytes ?? Infinity);
  const omitted = { passes: 0, steps: 0, problems: 0 };
  const passes: Record<string, unknown>[] = [];
  for (const p of result.passes) {
    const pass = {
      recircId: p.recircId,
      ...(p.resume ? { resumeTable: tableRefJson(p.resume.table), ctState: ctStateText(p.resume.ctState) } : {}),
      steps: [] as Record<string, unknown>[],
      final: formatPacket(p.final, o.portNames),
    };
    if (!budget.take(jsonBytes(pass))) {
      omitted.passes++;
      omitted.steps += p.steps.length;
      continue;
    }
    passes.push(pass);
    for (const [i, s] of p.steps.entries()) {
      const step = stepJson(s, o);
      if (!budget.take(jsonBytes(step) + 1)) {
        omitted.steps += p.steps.length - i;
        break;
      }
      pass.steps.push(step);
    }
  }
  const problems: Record<string, unknown>[] = [];
  for (const p of result.problems) {
    const problem = problemJson(p, o);
    if (budget.take(jsonBytes(problem) + 1)) problems.push(problem);
    else omitted.problems++;
  }
  if (budget.omitted === 0) return { passes, problems };
  return {
    passes,
    problems,
    omitted: {
      ...omitted,
      reason: `the trace reached ${boundBytes(o.maxBytes)} bytes, ${BOUND_WORDS}; the verdict covers the whole trace`,
    },
  };
}

/** A table lookup as JSON: its table (and name), the flow's priority, match and actions, the conjunction it took. */
export function stepJson(step: TraceStep, o: TraceRenderOptions): Record<string, unknown> {
  const table = tableRefJson(step.table);
  const described = o.describeTable?.(step.table);
  const rule = step.conjunction ? o.conjunctionRule?.(step.table, step.conjunction.id) : undefined;
  return {
    table,
    ...(described ? { tableName: described } : {}),
    priority: step.flow ? step.flow.priority : null,
    match: step.flow ? matchText(step.flow, o.portNames) : '',
    actions: step.flow ? step.flow.actions.map((a) => formatActions([a], { of: o.of })) : [],
    ...(step.conjunction ? { conjunction: step.conjunction.id } : {}),
    ...(rule ? { policyRule: rule } : {}),
  };
}

function explanationJson(why: VerdictReason): Record<string, unknown> {
  const t = why.table;
  return {
    table: tableRefJson(t.ref),
    ...(t.name !== undefined && t.ref.kind === 'number' ? { tableName: t.name } : {}),
    reason: verdictReasonText(why),
    source: why.source,
    ...(t.purpose !== undefined ? { purpose: t.purpose } : {}),
  };
}

/** A problem with its sentence and the facts of its kind (tables as JSON tables). */
function problemJson(p: TraceProblem, o: TraceRenderOptions): Record<string, unknown> {
  const { kind, table, ...details } = p;
  const described = o.describeTable?.(table);
  return {
    kind,
    table: tableRefJson(table),
    ...(described ? { tableName: described } : {}),
    message: problemText(p, o),
    ...details,
    ...(p.kind === 'translation-failed' ? { loop: p.loop.map(tableRefJson) } : {}),
    ...(p.kind === 'no-ct-tuple' ? { target: tableRefJson(p.target) } : {}),
  };
}

/**
 * The JSON contract: verdict, output ports, and each pass's table steps; `explanation` when a
 * profile gives one; `problems` met, and the `cause` of a drop they explain; `nearest` for a drop
 * by a table's miss (null when no flow there would take the packet further).
 */
export function traceJson(result: ExplainedTrace, o: TraceRenderOptions): Record<string, unknown> {
  const why = result.reason;
  const miss = result.missDrop;
  const ttl = result.controllerCause;
  const { passes, problems, omitted } = boundedJson(result, o);
  return {
    schemaVersion: SCHEMA_VERSION,
    verdict: result.verdict,
    verdictText: verdictLine(result, o).replace(/^Verdict: /, ''),
    ...(ttl ? { controllerCause: { ...ttl, table: tableRefJson(ttl.table) } } : {}),
    outputs: result.outputs,
    ...(why ? { explanation: explanationJson(why) } : {}),
    ...(miss ? { nearest: miss.nearest ? nearestJson(miss.nearest) : null } : {}),
    ...(result.cause ? { cause: problemJson(result.cause, o) } : {}),
    ...(problems.length > 0 ? { problems } : {}),
    passes,
    ...(omitted ? { omitted } : {}),
  };
}
