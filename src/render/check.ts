/**
 * `flowscope check` findings as text (one block per finding: severity, table, reason, the flows
 * involved by file and line) and as JSON (schemaVersion 1). Reasons name tables as every report
 * does (the dump's names, else the profile's) and say the profile's miss behaviours, through the
 * caller's `Wording`.
 */
import { profileNoteJson } from './words/profile.ts';
import { conjunctionRuleText, ruleName } from './policy-words.ts';
import {
  type CheckReport,
  type Excerpt,
  type Finding,
  findingKey,
  isSilent,
  type Severity,
  type Standing,
} from '../analysis/check/check.ts';
import type { CountedCause } from '../analysis/check/finding.ts';
import { SEVERITY_RANK } from '../analysis/check/finding.ts';
import type { SelectedFindings } from '../analysis/check/check-view.ts';
import type { DecodedBits } from '../analysis/annotate/bit-fields.ts';
import type { Wording } from '../analysis/annotate/wording.ts';
import type { Flow, MatchField } from '../model/flow.ts';
import type { TableRef } from '../model/tables.ts';
import { ones } from '../model/values.ts';
import type { TableMiss } from '../profiles/types.ts';
import { formatActions } from './actions.ts';
import { problemMessage } from './conjunctions.ts';
import { SCHEMA_VERSION } from './json.ts';
import type { ProfileNote } from '../analysis/detect/profile-choice.ts';
import { profileLine } from './show.ts';
import { severityWord } from './severity.ts';
import { plural } from './plural.ts';
import { ownEntry } from '../model/own-key.ts';
import { clip } from './clip.ts';
import { minOf } from '../model/append.ts';
import { missPredicate } from './words/miss.ts';
import { bitsWords, stateWords } from './words/bits.ts';
import { portWords } from './words/port.ts';
import { tableNameWords } from './words/names.ts';
import { unpainted } from './style.ts';
import { fillTemplate } from './words/template.ts';
import { traceWorkText } from './trace.ts';

export interface CheckStyle {
  readonly severity: (severity: Severity, text: string) => string;
  readonly dim: (s: string) => string;
}

export const PLAIN_CHECK: CheckStyle = { severity: (_s, text) => text, dim: unpainted };

/** `table 50 (EgressRuleTable)`, `EgressRule`, `table 7`: the dump's reference, with the profile's name when it differs. */
export function tableWords(ref: TableRef, wording: Wording): string {
  const name = tableNameWords(wording.table(ref));
  if (ref.kind === 'name') return name;
  const plain = `table ${ref.number}`;
  return name === plain ? plain : `${plain} (${name})`;
}

function missWords(miss: TableMiss, wording: Wording): string {
  switch (miss.action) {
    case 'drop':
    case 'goto':
    case 'next':
    case 'normal':
    case 'controller':
      return missPredicate(miss, (key) => wording.profileTable(key));
    case 'custom':
      return `are handled by a miss flow that ${miss.description}`;
    case 'none':
      return 'meet no miss flow (and OpenFlow 1.3 switches drop them)';
  }
}

/**
 * A profile sentence with its placeholders filled where the finding can fill them, read as the
 * annotator reads templates: a run of alternatives takes the first filled, else the template's
 * words for an absent value, else `…`.
 */
function fillMeaning(template: string, words: Readonly<Record<string, string>>): string {
  return fillTemplate(template, (name) => ownEntry(words, name), 'first', '…');
}

function flowPosition(f: Flow): string {
  return `${f.origin.file}:${f.origin.line}`;
}

function bitsHex(bits: bigint): string {
  return `0x${bits.toString(16)}`;
}

/** `reg4=0x90000/0xf0000`, the mask left out when it is whole. */
function fieldValueText(e: MatchField): string {
  return `${e.field.name}=${bitsHex(e.value)}${e.mask === ones(e.field.bits) ? '' : `/${bitsHex(e.mask)}`}`;
}

/**
 * What nothing in the pipeline sets, in the profile's words: a port no flow sends to, or the
 * named state no flow writes. Undefined when the profile names none of the bits never set.
 */
function unsetWords(f: Finding & { kind: 'unset-register' }, wording: Wording): string | undefined {
  // Named bits are read in their own register; a wider field's request is said in registers.
  if (f.entry.field.name !== f.slot) return undefined;
  const states = wording
    .states(f.entry.field, f.entry.value, f.entry.mask)
    .filter((d) => ((ones(d.end - d.start + 1) << BigInt(d.start)) & f.bits) !== 0n);
  if (states.length === 0) return undefined;
  const nothing = 'no flow, group bucket or learned flow';
  const port = states.find((d) => d.format === 'port' && !d.partial);
  if (port)
    return `no port ${port.value} exists for the pipeline: ${nothing} sends packets to it by setting ${port.name}`;
  const short = (d: DecodedBits): string =>
    d.partial
      ? bitsWords(d)
      : d.format === 'flag'
        ? d.name
        : `${d.name} = ${d.valueName ?? `0x${d.value.toString(16)}`}`;
  return `${nothing} ever sets ${states.map(short).join(' or ')}`;
}

/** Why the finding is a defect, in one or two sentences. */
export function findingMessage(f: Finding, wording: Wording): string {
  switch (f.kind) {
    case 'shadowed':
      return (
        `never matches: the priority-${f.by.priority} flow at ${flowPosition(f.by)} matches every packet it matches` +
        (f.sameActions ? ' and does the same, so this flow is redundant' : ', so its own actions never run')
      );
    case 'unset-register': {
      const reading = wording.bits(f.entry.field, f.entry.value, f.entry.mask);
      const asked = reading && stateWords(reading);
      const raw = fieldValueText(f.entry);
      const several = (f.bits & (f.bits - 1n)) !== 0n;
      const unset = `${f.slot} bit${several ? 's' : ''} ${bitsHex(f.bits)}`;
      return `never matches: it asks for ${asked ? `${asked} (${raw})` : raw}, but ${unsetWords(f, wording) ?? `no flow, group bucket or learned flow ever sets ${unset}`} (${asked ? `${unset}; ` : ''}registers start at 0)`;
    }
    case 'conjunction':
      return `conjunction ${f.conjunction.id}${f.policy ? ` = ${conjunctionRuleText(f.policy)}` : ''}: ${problemMessage(f.conjunction, f.problem)}`;
    case 'empty-target': {
      const from = [
        plural(f.flows.length, 'flow'),
        ...(f.buckets.length > 0 ? [plural(f.buckets.length, 'group bucket')] : []),
      ].join(' and ');
      const target = tableWords(f.target, wording);
      if (f.via === 'resubmit') return `${from} resubmit to ${target}, which holds no flow: the resubmit does nothing`;
      const how = f.via === 'goto' ? 'go to' : 'resume after conntrack in';
      return `${from} ${how} ${target}, which holds no flow: the packets miss there and are dropped`;
    }
    case 'unreachable-table':
      return `no goto_table, resubmit, ct(table=…) or group bucket leads here from the first table: ${f.flowCount === 1 ? 'its flow never sees' : `its ${f.flowCount} flows never see`} a packet`;
    case 'no-table-miss': {
      const base = `no priority-0 miss flow, but the profile says packets that match nothing else in ${wording.profileTable(f.spec.name)} ${missWords(f.spec.miss, wording)}`;
      return f.spec.miss.action === 'drop'
        ? `${base}; OpenFlow 1.3 switches drop them anyway, but the documented flow is missing`
        : `${base}; without the flow they are dropped`;
    }
    case 'dead-actions':
      return `the actions after exit never run: ${formatActions(f.dead, { of: 15 })}`;
    case 'duplicate':
      return f.sameActions
        ? `${plural(f.flows.length, 'flow')} with the same table, priority and match (spelled differently): the switch holds one`
        : `${plural(f.flows.length, 'flow')} with the same table, priority and match but different actions: the switch keeps whichever is added last`;
    case 'missing-expected': {
      const table = wording.profileTable(f.spec.name);
      const meaning = fillMeaning(f.pattern.meaning, {
        table,
        next: f.spec.next.map(wording.profileTable).join(' or ') || 'the next table',
      });
      return `missing the flow the profile says ${table} always holds (${f.pattern.match || 'any match'}): ${meaning}`;
    }
    case 'bucket-no-endpoint': {
      const raw = f.writes.map(fieldValueText).join(',');
      const named = f.writes.map((w) => {
        const reading = wording.bits(w.field, w.value, w.mask);
        return reading && stateWords(reading);
      });
      const writes = named.every((n) => n !== undefined) ? `${named.join(', ')} (${raw})` : raw;
      return `bucket ${f.bucket} of group ${f.group} selects the endpoint ${writes}, but ${tableWords(f.target, wording)} has no flow for it: packets that choose this bucket miss the endpoint's flow there`;
    }
    case 'forwarding-loop': {
      const buckets = f.buckets ?? [];
      const via =
        f.group === undefined
          ? ''
          : ` (through ${buckets.length === 1 ? 'bucket' : 'buckets'} ${buckets.join(', ')} of group ${f.group})`;
      return `a packet this flow matches${via} goes round ${f.loop.map((t) => tableWords(t, wording)).join(' → ')} until OVS's resubmit limit, and is dropped`;
    }
    case 'unknown-tunnel-destination':
      return `${plural(f.flows.length, 'flow')} tunnel to ${f.destination}, which no other flow names: not one of the ${plural(f.knownNodes, 'Node')} the dump knows, so the packets go to a wrong or gone Node`;
    case 'no-route':
      return f.node !== undefined
        ? `ARP for ${f.address} is tunnelled to Node ${f.node}, but no IP flow routes ${f.address} there: the peer's IP traffic goes astray`
        : `the bridge answers ARP for ${f.address}, but no IP flow routes it: the peer subnet has lost its route`;
    case 'no-spoof-guard':
      return `the Pod on ${portWords(wording.port(BigInt(f.port)))} has no spoof-guard flow (its port matched with its source address) though other Pods have one: its packets are dropped, or go unchecked`;
    case 'policy-unexplained':
      return `conjunction ${f.conjunction.id}: no rule of the node's NetworkPolicies (the bundle's networkpolicies, addressgroups and appliedtogroups) has its addresses, Pods and services: a rule the agent no longer holds, or flows left behind`;
    case 'policy-unimplemented':
      return `${ruleName(f.rule)} applies to Pods on this node, but no conjunction has its addresses, Pods and services: the rule is not enforced here`;
    case 'conjunction-table':
      return `conjunction ${f.id}${f.policy ? ` = ${conjunctionRuleText(f.policy)}` : ''}: its conj_id flow is in ${f.actionTables.map((t) => tableWords(t, wording)).join(', ')} but its clause flows are in ${f.clauseTables.map((t) => tableWords(t, wording)).join(', ')}; OVS joins clauses only within a table, so it never matches`;
  }
}

/** Which premise of the finding a flow's counter proves wrong, in a clause. */
function countedCauseWords(c: CountedCause): string {
  const tables = (names: readonly string[]): string => names.join(' or ');
  switch (c.kind) {
    case 'excerpt':
      return 'the dump is partial: what sets the bits is among the flows the excerpt leaves out';
    case 'groups-not-given':
      return `the dump is partial: its flows send to ${plural(c.groups, 'group')} the input does not hold, whose buckets may set the bits (give their dump-groups output with --groups)`;
    case 'setter-table-missing':
      return `the dump is partial: it lacks ${tables(c.tables)}, whose flows set the bits`;
    case 'setter-removed':
      return c.tables.length > 0
        ? `a setter is gone: the flows of ${tables(c.tables)} set these bits, and none does now, so the one that did was removed after this flow matched`
        : 'a setter is gone: the pipeline writes other values there, so the flow that wrote this one was removed after this flow matched';
    case 'unknown-setter':
      return "the setter is unknown: no flow of the dump nor of the profile sets the bits, so something outside the flows does (the agent's packet-outs, another controller)";
    case 'hidden-later':
      return `it matched before the flow that hides it was added (that flow is ${c.hiderAge} s old, this one ${c.age} s)`;
    case 'not-one-moment':
      return 'the dump is not of one moment: the flow that hides it was there first, so the flows changed while they were read, or were edited';
  }
}

/** Why the finding is less than its kind says, in a clause appended to its reason. */
export function standingWords(s: Standing): string {
  switch (s.kind) {
    case 'dormant':
      return `dormant, not dead: a stock flow that waits for ${s.features.join(', or ')}`;
    case 'known':
      return s.silent ? `by design: ${s.why}` : `as configured: ${s.why}`;
    case 'redundant-miss':
      return "by design: the table's miss flow under a catch-all flow, which decides";
    case 'counted':
      return `yet it has matched ${s.packets} packet${s.packets === 1n ? '' : 's'}, so ${countedCauseWords(s.cause)}`;
    case 'excerpt':
      return 'this may only follow from what the excerpt leaves out';
    case 'stale':
      return 'the pipeline writes other values there, so this is a flow left for something no longer on the bridge';
  }
}

/** The reason and, when evidence or knowledge lowered the severity, why. */
export function fullMessage(f: Finding, wording: Wording): string {
  const base = findingMessage(f, wording);
  return f.standing ? `${base}; ${standingWords(f.standing)}` : base;
}

/** What the loop search left when its traces spent their bound, in one sentence. */
function loopsUntracedText(u: NonNullable<CheckReport['loopsUntraced']>): string {
  return `the search for forwarding loops stopped when ${traceWorkText(u.work)}: ${plural(u.flows, 'flow')} that may go round (a resubmit to an earlier table, or a group) not followed, so loops through them are not known.`;
}

/** Why the dump is taken for an excerpt, in one sentence. */
export function excerptWords(e: Excerpt, wording: Wording): string {
  const signs = [
    ...(e.noStartTable ? ['no flow in table 0, where every packet starts'] : []),
    ...(e.oneTable ? [`every flow is in ${tableWords(e.oneTable, wording)}`] : []),
    ...(e.oneCookie !== undefined ? [`every flow carries cookie 0x${e.oneCookie.toString(16)}`] : []),
    ...(e.noCookies
      ? [
          'no flow carries the cookie the agent gives every flow it installs, so the flows were written or edited by hand',
        ]
      : []),
    ...(e.missingTargets
      ? [
          `flows continue in ${e.missingTargets.length} tables that hold no flow (${e.missingTargets.map((t) => tableWords(t, wording)).join(', ')})`,
        ]
      : []),
    ...(e.missingTables ? [`${e.missingTables.length} tables every such node has are absent`] : []),
  ];
  return `this dump is an excerpt, not a whole bridge: ${signs.join('; ')}. Findings that may only follow from what it leaves out are notes.`;
}

/** What the user chose to see of a report. */
export type CheckView = SelectedFindings;

/** Every finding but the known ones. */
export function defaultView(report: CheckReport): CheckView {
  return { findings: report.findings.filter((f) => !isSilent(f)), hidden: report.known, inBaseline: 0 };
}

function countsOf(findings: readonly Finding[]): Record<Severity, number> {
  const counts = { error: 0, warning: 0, info: 0 };
  for (const f of findings) counts[f.severity]++;
  return counts;
}

/**
 * The profile line every command that reads a profile begins with, then `86 flows in 19 tables:`
 * and the counts of what is shown.
 */
function heading(report: CheckReport, view: CheckView, profile: ProfileNote | undefined, style: CheckStyle): string[] {
  const c = countsOf(view.findings);
  const what = `${plural(report.flowCount, 'flow')} in ${plural(report.tableCount, 'table')}`;
  const left = [
    ...(view.hidden > 0 ? [`${view.hidden} by design, shown with --all`] : []),
    ...(view.inBaseline > 0 ? [`${view.inBaseline} in the baseline`] : []),
  ];
  const counts = `${what}: ${plural(c.error, 'error')}, ${plural(c.warning, 'warning')}, ${plural(c.info, 'note')}${left.length > 0 ? ` (${left.join('; ')})` : ''}`;
  return [...(profile ? [style.dim(profileLine(profile, report.tableCount))] : []), counts];
}

interface KindGroup {
  readonly kind: Finding['kind'];
  readonly findings: Finding[];
  readonly counts: Record<Severity, number>;
}

/** Findings by kind, the kind with the worst findings first (then the most of them). */
function byKind(findings: readonly Finding[]): KindGroup[] {
  const groups = new Map<Finding['kind'], KindGroup>();
  for (const f of findings) {
    let g = groups.get(f.kind);
    if (!g) groups.set(f.kind, (g = { kind: f.kind, findings: [], counts: { error: 0, warning: 0, info: 0 } }));
    g.findings.push(f);
    g.counts[f.severity]++;
  }
  const worst = (g: KindGroup): number => minOf(g.findings.map((f) => SEVERITY_RANK[f.severity]));
  return [...groups.values()].sort(
    (a, b) =>
      worst(a) - worst(b) ||
      b.counts.error - a.counts.error ||
      b.counts.warning - a.counts.warning ||
      b.findings.length - a.findings.length,
  );
}

/** Flows shown per finding; the JSON lists them all. */
const FLOWS_SHOWN = 5;

/** A finding's message and flow as shown: the start of a very long one (the JSON has them whole). */
const TEXT_SHOWN = 400;

export function formatCheck(
  report: CheckReport,
  wording: Wording,
  profile: ProfileNote | undefined,
  style: CheckStyle,
  view: CheckView = defaultView(report),
): string {
  return [...checkLines(report, wording, profile, style, view)].join('\n');
}

/** The report line by line, to be written as it is made: a big dump's runs to many megabytes. */
export function* checkLines(
  report: CheckReport,
  wording: Wording,
  profile: ProfileNote | undefined,
  style: CheckStyle,
  view: CheckView = defaultView(report),
): Generator<string> {
  yield* heading(report, view, profile, style);
  if (report.excerpt) yield excerptWords(report.excerpt, wording);
  if (report.loopsUntraced) yield loopsUntracedText(report.loopsUntraced);
  const groups = byKind(view.findings);
  if (groups.length > 1) {
    yield '';
    const width = Math.max(...groups.map((g) => g.kind.length));
    for (const g of groups) {
      const parts = (['error', 'warning', 'info'] as const)
        .filter((s) => g.counts[s] > 0)
        .map((s) => style.severity(s, plural(g.counts[s], severityWord(s))));
      yield `  ${g.kind.padEnd(width)}  ${parts.join(', ')}`;
    }
  }
  for (const g of groups) {
    yield '';
    yield `${g.kind} (${g.findings.length}):`;
    for (const f of g.findings) {
      const where = f.table ? `${tableWords(f.table, wording)}: ` : '';
      yield `${style.severity(f.severity, severityWord(f.severity))} ${where}${clip(fullMessage(f, wording), TEXT_SHOWN)}`;
      for (const flow of f.flows.slice(0, FLOWS_SHOWN))
        yield style.dim(`  ${flowPosition(flow)}: ${clip(flow.origin.text.trim(), TEXT_SHOWN)}`);
      if (f.flows.length > FLOWS_SHOWN) yield style.dim(`  … and ${f.flows.length - FLOWS_SHOWN} more`);
    }
  }
}

function tableJson(ref: TableRef, wording: Wording): Record<string, unknown> {
  const name = tableNameWords(wording.table(ref));
  return ref.kind === 'number'
    ? { number: ref.number, ...(name !== `table ${ref.number}` ? { name } : {}) }
    : { name: ref.name };
}

function standingJson(s: Standing): Record<string, unknown> {
  switch (s.kind) {
    case 'dormant':
      return { kind: s.kind, features: s.features };
    case 'known':
      return { kind: s.kind, why: s.why, silent: s.silent };
    case 'counted':
      return {
        kind: s.kind,
        packets: Number(s.packets),
        cause: s.cause.kind,
        ...('tables' in s.cause ? { tables: s.cause.tables } : {}),
      };
    default:
      return { kind: s.kind };
  }
}

export function checkJson(
  report: CheckReport,
  wording: Wording,
  profile: ProfileNote | undefined,
  view: CheckView = defaultView(report),
): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    ...(profile ? { profile: profileNoteJson(profile) } : {}),
    flows: report.flowCount,
    tables: report.tableCount,
    counts: countsOf(view.findings),
    hidden: view.hidden,
    inBaseline: view.inBaseline,
    ...(report.excerpt ? { excerpt: { message: excerptWords(report.excerpt, wording) } } : {}),
    ...(report.loopsUntraced
      ? {
          loopsUntraced: {
            flows: report.loopsUntraced.flows,
            traceSteps: report.loopsUntraced.work,
            message: loopsUntracedText(report.loopsUntraced),
          },
        }
      : {}),
    summary: byKind(view.findings).map((g) => ({ kind: g.kind, ...g.counts })),
    findings: view.findings.map((f) => ({
      kind: f.kind,
      severity: f.severity,
      ...(f.table ? { table: tableJson(f.table, wording) } : {}),
      message: findingMessage(f, wording),
      ...(f.kind === 'conjunction'
        ? {
            conjunction: f.conjunction.id,
            problem: f.problem.kind,
            ...(f.policy ? { policyRule: conjunctionRuleText(f.policy) } : {}),
          }
        : {}),
      ...(f.kind === 'conjunction-table' && f.policy ? { policyRule: conjunctionRuleText(f.policy) } : {}),
      ...(f.kind === 'bucket-no-endpoint' ? { group: f.group, bucket: f.bucket } : {}),
      ...(f.kind === 'forwarding-loop'
        ? {
            loop: f.loop.map((t) => tableJson(t, wording)),
            ...(f.group !== undefined ? { group: f.group, buckets: f.buckets } : {}),
          }
        : {}),
      ...(f.standing ? { standing: { ...standingJson(f.standing), message: standingWords(f.standing) } } : {}),
      known: isSilent(f),
      key: findingKey(f),
      flows: f.flows.map((x) => ({ file: x.origin.file, line: x.origin.line, text: x.origin.text.trim() })),
    })),
  };
}
