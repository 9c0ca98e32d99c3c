/**
 * Conjunctions as readable rules ("if source ∈ {…} and TCP destination port ∈ {80} then …")
 * and as JSON, plus the per-dimension verdicts for one packet.
 */
import type { PolicyMatch } from '../analysis/conjunctions/policy-match.ts';
import { policyLines, policyMatchJson } from './policy-words.ts';
import type { FieldMiss } from '../analysis/trace/nearest-flow.ts';
import type { FieldDef } from '../model/fields.ts';
import { type Flow, type Match, originFile, originLine } from '../model/flow.ts';
import { assertNever } from '../model/actions.ts';
import { type TableRef, tableLabel } from '../model/tables.ts';
import type {
  Conjunction,
  ConjunctionProblem,
  ConjunctionReport,
  Dimension,
  DimensionTerm,
  PacketConjunction,
  SetDimensionTerm,
  TermMiss,
} from '../analysis/conjunctions/conjunctions.ts';
import { termMemberTexts, writeTermMembers } from '../analysis/conjunctions/conjunctions.ts';
import type { ConjunctionScope } from '../analysis/conjunctions/conjunction-scope.ts';
import { PLAIN_WORDING } from '../analysis/annotate/wording.ts';
import { describeActions } from './words/flow.ts';
import { formatFieldValue } from '../syntax/field-value.ts';
import { formatPriorityAndMatch } from './flow.ts';
import { flowJson, tableRefJson } from './json.ts';
import { formatMatch } from './match.ts';
import { entryValue, NONE_NEAR, nearestJson, setterClause } from './nearest.ts';
import { AsciiJson, JsonText, LazyList, StreamedObject, StringList } from './json-stream.ts';
import { severityWord } from './severity.ts';
import { plural } from './plural.ts';

/** Members printed in full up to this many; beyond it the first few and a count. */
const MEMBERS_SHOWN = 12;
const MEMBERS_WHEN_CUT = 8;

const FIELD_WORDS: Readonly<Record<string, string>> = {
  ip_src: 'source address',
  ip_dst: 'destination address',
  ipv6_src: 'source address',
  ipv6_dst: 'destination address',
  arp_spa: 'ARP source address',
  arp_tpa: 'ARP target address',
  tcp_src: 'TCP source port',
  tcp_dst: 'TCP destination port',
  udp_src: 'UDP source port',
  udp_dst: 'UDP destination port',
  sctp_src: 'SCTP source port',
  sctp_dst: 'SCTP destination port',
  arp_sha: 'ARP source MAC',
  arp_tha: 'ARP target MAC',
  in_port: 'input port',
  in_port_oxm: 'input port',
  eth_src: 'source MAC',
  eth_dst: 'destination MAC',
  ct_state: 'conntrack state',
};

/** Protocol keywords a field's prerequisite already implies, so the term need not repeat them. */
const IMPLIED: Readonly<Partial<Record<FieldDef['prerequisite'], readonly string[]>>> = {
  ipv4: ['ip'],
  ipv6: ['ipv6'],
  tcp: ['tcp', 'tcp6'],
  udp: ['udp', 'udp6'],
  sctp: ['sctp', 'sctp6'],
  icmpv4: ['icmp'],
  icmpv6: ['icmp6'],
  arp: ['arp', 'rarp'],
};

function fieldWords(field: FieldDef): string {
  return FIELD_WORDS[field.name] ?? field.name;
}

/** A field whose values the pipeline names (a register holding a port): its name and each value's words. */
export interface FieldWords {
  readonly name: string;
  value(v: bigint): string;
}

/** How the report names tables, register values and what action flows do: a profile's words, or plain ones. */
export interface ConjunctionWords {
  /** The table's name in the pipeline, when it has one. */
  tableName(ref: TableRef): string | undefined;
  /** The words for a set term's field in `table`, when the pipeline names its values. */
  field(field: FieldDef, table: TableRef): FieldWords | undefined;
  /** What an action flow does: its actions one after the other, and the pipeline's account of it. */
  actionFlow(flow: Flow): { readonly actions: string; readonly meaning?: string };
  /** How a conjunction's heading line stands out (colour, for a terminal). */
  readonly heading?: (text: string) => string;
  /** The NetworkPolicy rule the conjunction implements, where the policy objects say it. */
  readonly policy?: (c: Conjunction) => PolicyMatch | undefined;
}

export const PLAIN_WORDS: ConjunctionWords = {
  tableName: () => undefined,
  field: () => undefined,
  actionFlow: (flow) => ({ actions: actionsText(describeActions(flow.actions, PLAIN_WORDING)) }),
};

/** A set term's members as a list in braces, the first few of a long one and a count. */
function memberList(term: SetDimensionTerm, named?: FieldWords): string {
  const { texts, count } = termMemberTexts(term, 'field', MEMBERS_SHOWN + 1, named && ((v) => named.value(v)));
  const shown = count > MEMBERS_SHOWN ? texts.slice(0, MEMBERS_WHEN_CUT) : texts;
  const text = shown.join(', ');
  return count > shown.length ? `{${text}, … ${count - shown.length} more (${count} in all)}` : `{${text}}`;
}

/** The protocol keyword of a qualifier when the term's field does not already imply it. */
function qualifierNote(qualifier: Match, field?: FieldDef): string {
  if (qualifier.fields.length === 0) return '';
  const text = formatMatch(qualifier);
  if (field && IMPLIED[field.prerequisite]?.includes(text)) return '';
  return ` (${text})`;
}

/** A term as a condition; `named`: the pipeline's words for a set term's field. */
export function formatTerm(term: DimensionTerm, named?: FieldWords): string {
  const count = term.flowCount > 1 ? `  [${plural(term.flowCount, 'flow')}]` : '';
  switch (term.kind) {
    case 'set':
      return `${named?.name ?? fieldWords(term.field)} ∈ ${memberList(term, named)}${qualifierNote(term.qualifier, term.field)}${count}`;
    case 'any':
      return term.qualifier.fields.length === 0 ? 'any packet' : `any ${formatMatch(term.qualifier)} packet`;
    case 'matches': {
      const shown = term.flows.slice(0, MEMBERS_WHEN_CUT).map((f) => formatMatch(f.match));
      const more = term.flows.length > shown.length ? ` | … ${term.flows.length - shown.length} more` : '';
      return `one of (${shown.join(' | ')}${more})${count}`;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Actions in words

/** Actions described one by one, as one phrase; `drop` when there are none. */
export function actionsText(words: readonly string[]): string {
  return words.length === 0 ? 'drop' : words.join(', ');
}

// ---------------------------------------------------------------------------------------------
// Problems

export function problemMessage(c: Conjunction, p: ConjunctionProblem): string {
  switch (p.kind) {
    case 'empty-dimension':
      return p.flows.length > 0
        ? `dimension ${p.k} has no clause flow at priority ${c.priority} (its flows are at another priority): the conjunction can never match`
        : `dimension ${p.k} has no clause flow: the conjunction can never match`;
    case 'no-action-flow':
      return `no conj_id=${c.id} flow in table ${tableLabel(c.table)}: a completed match falls to whatever other flow matches the packet`;
    case 'orphan-action-flow':
      return `no flow carries conjunction(${c.id},…) in table ${tableLabel(c.table)}: the conj_id=${c.id} flow never matches`;
    case 'inconsistent-n':
      return `clause flows disagree on the number of dimensions (${p.counts.join(' vs ')}): those with another number never complete`;
    case 'split-priority':
      return `clause flows are at priorities ${p.priorities.join(', ')}: OVS treats each priority as a separate conjunction; only those at ${c.priority} are shown`;
    case 'action-priority':
      return `conj_id flow at priority ${p.flows.map((f) => f.priority).join(', ')}, clauses at ${c.priority}: any other flow above that priority that matches the packet takes precedence over it`;
    case 'overlap':
      return `overlaps conjunction ${p.otherId} at the same priority: one packet can satisfy both, and OVS does not define which applies`;
    case 'pre-empted': {
      const n = p.flows.length / 2;
      const what = `${n === 1 ? '1 clause flow' : `${n} clause flows`} of dimension ${p.k} ${n === 1 ? 'is' : 'are'} always pre-empted by a flow at the same or a higher priority`;
      return p.dimensionDead ? `${what}: the whole dimension is, so the conjunction can never match` : what;
    }
  }
}

/** A flow by its source line and its priority and match (its actions are described separately). */
function flowRef(f: Flow): string {
  const packets = f.stats?.packets;
  const counted = packets === undefined ? '' : `  (n_packets=${packets ?? '?'})`;
  return `line ${originLine(f)}: ${formatPriorityAndMatch(f)}${counted}`;
}

/**
 * flowRef, each flow's worked out once: a report names a few clause flows hundreds of times (the
 * witnesses of overlapping conjunctions), and each time read its match and counters again.
 */
function flowRefs(): (f: Flow) => string {
  const said = new Map<Flow, string>();
  return (f) => {
    let ref = said.get(f);
    if (ref === undefined) said.set(f, (ref = flowRef(f)));
    return ref;
  };
}

function hitsText(c: Conjunction): string {
  if (c.hits === undefined) return 'no statistics in the dump';
  if (c.hits === null) return 'unknown (the switch printed ?)';
  return plural(Number(c.hits), 'packet');
}

function header(c: Conjunction, words: ConjunctionWords): string {
  const dims = c.n === 0 ? 'no clause flows' : plural(c.n, 'dimension');
  const name = words.tableName(c.table);
  const text = `conjunction ${c.id}  table ${tableLabel(c.table)}${name !== undefined && name !== tableLabel(c.table) ? ` ${name}` : ''}  priority ${c.priority}  ${dims}`;
  return words.heading ? words.heading(text) : text;
}

/** The pipeline's words for a term's field in the conjunction's table. */
function termWords(term: DimensionTerm, c: Conjunction, words: ConjunctionWords): FieldWords | undefined {
  return term.kind === 'set' ? words.field(term.field, c.table) : undefined;
}

function ruleLines(c: Conjunction, words: ConjunctionWords, ref: (f: Flow) => string): string[] {
  const lines: string[] = [];
  c.dimensions.forEach((d, i) => {
    const word = i === 0 ? 'if  ' : 'and ';
    const text =
      d.terms.length === 0
        ? '(no flows: never satisfied)'
        : d.terms.map((t) => formatTerm(t, termWords(t, c, words))).join('  or  ');
    lines.push(`  ${word} ${d.k}: ${text}`);
  });
  if (c.actionFlows.length === 0) lines.push(`  then (no conj_id=${c.id} flow)`);
  for (const f of c.actionFlows) {
    const { actions, meaning } = words.actionFlow(f);
    lines.push(`  then ${actions}`);
    if (meaning !== undefined) lines.push(`       ${meaning}`);
    lines.push(`       ${ref(f)}`);
  }
  return lines;
}

/** `ref`: how flows are referred to (see flowRefs). */
export function formatConjunction(
  c: Conjunction,
  words: ConjunctionWords = PLAIN_WORDS,
  ref: (f: Flow) => string = flowRef,
): string {
  const policy = words.policy?.(c);
  const lines = [
    header(c, words),
    ...(policy ? policyLines(policy).map((l) => `  ${l}`) : []),
    ...ruleLines(c, words, ref),
    `  hits: ${hitsText(c)}`,
  ];
  for (const p of c.problems) {
    lines.push(`  ${severityWord(p.severity)}: ${problemMessage(c, p)}`);
    if (p.kind === 'pre-empted') {
      // Flows come in pairs: the clause flow, then the flow that takes precedence over it.
      for (let i = 0; i + 1 < p.flows.length; i += 2)
        lines.push(`    ${ref(p.flows[i]!)}`, `      pre-empted by ${ref(p.flows[i + 1]!)}`);
    } else for (const f of p.flows) lines.push(`    ${ref(f)}`);
  }
  return lines.join('\n');
}

export function formatConjunctionReport(report: ConjunctionReport, words: ConjunctionWords = PLAIN_WORDS): string {
  if (report.conjunctions.length === 0) return 'no conjunctions';
  const ref = flowRefs();
  const blocks = report.conjunctions.map((c) => formatConjunction(c, words, ref));
  if (report.overlapSearchIncomplete > 0) {
    blocks.push(
      `note: the overlap search stopped early for ${plural(report.overlapSearchIncomplete, 'conjunction')}; more overlaps may exist`,
    );
  }
  return blocks.join('\n\n');
}

/** A set term's members as JSON strings, written as bytes where they can be. */
function membersJson(t: SetDimensionTerm): StringList {
  return new StringList(
    () => termMemberTexts(t).texts,
    (out, separator) => writeTermMembers(t, out, separator),
  );
}

function termJson(t: DimensionTerm, named: FieldWords | undefined): StreamedObject {
  const set = t.kind === 'set' ? { field: t.field.name, members: membersJson(t) } : {};
  // The pipeline's name for the field and its members, beside the values as OVS prints them.
  const words =
    t.kind === 'set' && named
      ? {
          fieldName: named.name,
          memberWords: new StringList(termMemberTexts(t, 'field', Infinity, (v) => named.value(v)).texts),
        }
      : {};
  return new StreamedObject({
    kind: t.kind,
    ...set,
    ...words,
    ...(t.qualifier.fields.length > 0 ? { qualifier: formatMatch(t.qualifier) } : {}),
    // Made once the members are written, which counts them on the way (the text gives their count).
    get text() {
      return formatTerm(t, named);
    },
  });
}

/** Version of the `conj --json` report: 2 gives clause flows by line, the file named once at the top. */
export const CONJUNCTIONS_SCHEMA_VERSION = 2;

/**
 * Flow references as compact JSON: a flow by its line in the report's file, named once at the top
 * of the report. A clause flow carries one conjunction action for every conjunction it serves, too
 * many to repeat, and is itself listed once per conjunction: millions of times in a large dump. A
 * flow read from another file (several inputs) is given as `{"file", "line"}`.
 */
class LineRefs {
  private readonly quoted = new Map<string, string>();
  readonly file: string | undefined;

  constructor(file: string | undefined) {
    this.file = file;
  }

  /** The flows' references as one JSON array, written on one line. */
  list(flows: readonly Flow[]): JsonText {
    const parts = new Array<number | string>(flows.length);
    for (let i = 0; i < flows.length; i++) {
      // Not the flow's origin: a lazily read flow would cut its line's text to make it.
      const f = flows[i]!;
      const file = originFile(f);
      parts[i] = file === this.file ? originLine(f) : `{"file":${this.quote(file)},"line":${originLine(f)}}`;
    }
    return new JsonText(`[${parts.join(',')}]`);
  }

  /** A dimension's flows' references: its lines alone, when the report's file holds them all. */
  dimension(d: Dimension): JsonText | AsciiJson {
    const lines = d.lines;
    if (lines === undefined || lines.file !== this.file) return this.list(d.flows);
    const { numbers } = lines;
    return new AsciiJson((out) => {
      out.char(0x5b); // [
      for (let i = 0; i < numbers.length; i++) {
        if (i > 0) out.char(0x2c); // ,
        out.decimal(numbers[i]!);
      }
      out.char(0x5d); // ]
    });
  }

  private quote(file: string): string {
    let q = this.quoted.get(file);
    if (q === undefined) this.quoted.set(file, (q = JSON.stringify(file)));
    return q;
  }
}

/** The file of the conjunctions' first clause flow: the one a report names at its top. */
function firstFile(conjunctions: readonly Conjunction[]): string | undefined {
  for (const c of conjunctions) for (const d of c.dimensions) if (d.flows.length > 0) return originFile(d.flows[0]!);
  return undefined;
}

export function conjunctionJson(
  c: Conjunction,
  words: ConjunctionWords = PLAIN_WORDS,
  refs = new LineRefs(firstFile([c])),
): StreamedObject {
  const tableName = words.tableName(c.table);
  const policy = words.policy?.(c);
  // Streamed member by member: its lists of clause flows may be long.
  return new StreamedObject({
    id: c.id,
    table: tableRefJson(c.table),
    ...(tableName !== undefined ? { tableName } : {}),
    priority: c.priority,
    n: c.n,
    ...(policy ? { policy: policyMatchJson(policy) } : {}),
    // Clause flows without their actions: a clause flow serves up to thousands of conjunctions (with
    // one conjunction action for each), so printing it whole in each made reports of big dumps quadratic.
    dimensions: new LazyList(c.dimensions, (d: Dimension) => {
      const terms = new LazyList(d.terms, (t: DimensionTerm) => termJson(t, termWords(t, c, words)));
      return new StreamedObject({ k: d.k, terms, flows: refs.dimension(d) });
    }),
    actionFlows: c.actionFlows.map((f) => {
      const { actions, meaning } = words.actionFlow(f);
      return { ...flowJson(f), description: actions, ...(meaning !== undefined ? { meaning } : {}) };
    }),
    hits: c.hits === undefined ? null : c.hits,
    problems: new LazyList(
      c.problems,
      (p: ConjunctionProblem) =>
        new StreamedObject({
          kind: p.kind,
          severity: p.severity,
          message: problemMessage(c, p),
          ...(p.kind === 'overlap' ? { otherId: p.otherId } : {}),
          ...('k' in p ? { k: p.k } : {}),
          flows: refs.list(p.flows),
        }),
    ),
  });
}

/** The report as JSON: the file the clause flows are given by line in, then every conjunction. */
export function conjunctionReportJson(
  report: ConjunctionReport,
  words: ConjunctionWords = PLAIN_WORDS,
): Record<string, unknown> {
  const refs = new LineRefs(firstFile(report.conjunctions));
  return {
    ...(refs.file === undefined ? {} : { file: refs.file }),
    // Made as it is written.
    conjunctions: new LazyList(report.conjunctions, (c: Conjunction) => conjunctionJson(c, words, refs)),
    overlapSearchIncomplete: report.overlapSearchIncomplete,
  };
}

// ---------------------------------------------------------------------------------------------
// A packet against the conjunctions

/** Which tables were checked, and with what packet. */
export function scopeNote(scope: ConjunctionScope): string {
  if (scope.traced) {
    return `Conjunctions of the tables the packet reaches (${scope.tables.map(tableLabel).join(', ')}), each checked with the packet as the trace has it there.`;
  }
  const ending = scope.last ? ` (it ends in table ${tableLabel(scope.last)})` : '';
  const checked = `The trace reaches no table with conjunctions${ending}: the conjunctions of every table are checked with the packet as given.`;
  if (!scope.dropped) return checked;
  const near = scope.dropped.nearest;
  if (!near) return `${checked} ${NONE_NEAR}`;
  const why = (m: FieldMiss): string =>
    m.setBy ? setterClause(m.setBy) : m.has ? `the packet has ${entryValue(m.has)}` : 'the packet gives none';
  const wants = near.misses.map((m) => `${fieldWords(m.wanted.field)} ${entryValue(m.wanted)} (${why(m)})`);
  return `${checked} The nearest flow there, line ${near.flow.origin.line} (${formatPriorityAndMatch(near.flow)}), would take the packet further with ${wants.join(' and ')}.`;
}

/** Near misses first: satisfied conjunctions, then by the number of failed dimensions. */
function byCloseness(a: PacketConjunction, b: PacketConjunction): number {
  const failed = (x: PacketConjunction): number =>
    x.satisfied ? -1 : x.dimensions.filter((d) => d.matchedBy.length === 0).length;
  return failed(a) - failed(b);
}

/** Why a packet fails a term: its own value for the term's field, or its protocol. */
function failedTerm(miss: TermMiss, named: FieldWords | undefined): string {
  const term = miss.term;
  switch (miss.reason) {
    case 'qualifier':
      return `the packet is not ${formatMatch(term.qualifier)}`;
    case 'value': {
      const { field, qualifier } = miss.term;
      const v = named ? named.value(miss.value) : formatFieldValue(field, miss.value);
      return `${named?.name ?? fieldWords(field)} is ${v}, not in ${memberList(miss.term, named)}${qualifierNote(qualifier, field)}`;
    }
    case 'flows':
      return `matches none of ${plural(term.flows.length, 'flow')}`;
    default:
      return assertNever(miss);
  }
}

function verdict(r: PacketConjunction, words: ConjunctionWords): string {
  if (!r.satisfied) {
    const failed = r.dimensions.filter((d) => d.matchedBy.length === 0).map((d) => d.k);
    return `does not match: fails dimension${failed.length === 1 ? '' : 's'} ${failed.join(', ')}`;
  }
  if (r.preemptedBy)
    return `all dimensions hold, but a flow at priority ${r.preemptedBy.priority} matches the packet first (${flowRef(r.preemptedBy)})`;
  if (!r.result)
    return 'all dimensions hold, but no flow answers the conj_id lookup: OVS goes on as if the conjunction had not matched';
  const isAction = r.conjunction.actionFlows.includes(r.result);
  return isAction
    ? `matches: ${words.actionFlow(r.result).actions}`
    : `all dimensions hold; the conj_id lookup returns another flow, at priority ${r.result.priority}: ${words.actionFlow(r.result).actions}`;
}

/** `packet`: the packet as given, printed. */
export function formatPacketReport(
  packet: string,
  scope: ConjunctionScope,
  results: readonly PacketConjunction[],
  words: ConjunctionWords = PLAIN_WORDS,
): string {
  const out = [`packet: ${packet}`, scopeNote(scope)];
  if (results.length === 0) out.push('', 'no conjunctions');
  for (const r of [...results].sort(byCloseness)) {
    const c = r.conjunction;
    out.push('', header(c, words), `  ${verdict(r, words)}`);
    for (const d of r.dimensions) {
      if (d.matchedBy.length > 0) {
        out.push(
          `  ✓ ${d.k}: ${flowRef(d.matchedBy[0]!)}${d.matchedBy.length > 1 ? ` (+${d.matchedBy.length - 1} more)` : ''}`,
        );
      } else {
        const why =
          d.misses.length > 0
            ? d.misses.map((m) => failedTerm(m, termWords(m.term, c, words))).join('; ')
            : 'no clause flows';
        out.push(`  ✗ ${d.k}: ${why}`);
      }
    }
  }
  return out.join('\n');
}

export function packetReportJson(
  packet: string,
  scope: ConjunctionScope,
  results: readonly PacketConjunction[],
  words: ConjunctionWords = PLAIN_WORDS,
): Record<string, unknown> {
  return {
    packet,
    traced: scope.traced,
    tables: scope.tables.map(tableRefJson),
    note: scopeNote(scope),
    // The note's nearest flow for a packet dropped before the conjunctions, null when there is none.
    ...(scope.dropped ? { nearest: scope.dropped.nearest ? nearestJson(scope.dropped.nearest) : null } : {}),
    conjunctions: results.map((r) => ({
      id: r.conjunction.id,
      table: tableRefJson(r.conjunction.table),
      priority: r.conjunction.priority,
      satisfied: r.satisfied,
      verdict: verdict(r, words),
      dimensions: r.dimensions.map((d) => ({
        k: d.k,
        satisfied: d.matchedBy.length > 0,
        matchedBy: d.matchedBy.map(flowJson),
      })),
      ...(r.preemptedBy ? { preemptedBy: flowJson(r.preemptedBy) } : {}),
      ...(r.result ? { result: flowJson(r.result) } : {}),
    })),
  };
}
