/**
 * `flowscope check` findings as text (one block per finding: severity, table, reason, the flows
 * involved by file and line) and as JSON (schemaVersion 1). Reasons name tables as every report
 * does (the dump's names, else the profile's) and say the profile's miss behaviours, through the
 * caller's `Wording`.
 */
import type { CheckReport, Finding, Severity } from '../analysis/check.ts';
import type { Wording } from '../analysis/describe-fields.ts';
import type { Flow } from '../model/flow.ts';
import type { TableRef } from '../model/tables.ts';
import { ones } from '../model/values.ts';
import type { TableMiss } from '../profiles/types.ts';
import { formatActions } from './actions.ts';
import { problemMessage } from './conjunctions.ts';
import { SCHEMA_VERSION } from './json.ts';
import type { ProfileNote } from '../analysis/profile-choice.ts';
import { severityWord } from './severity.ts';
import { plural } from './plural.ts';

export interface CheckStyle {
  readonly severity: (severity: Severity, text: string) => string;
  readonly dim: (s: string) => string;
}

const same = (s: string): string => s;
export const PLAIN_CHECK: CheckStyle = { severity: (_s, text) => text, dim: same };

/** `table 50 (EgressRuleTable)`, `EgressRule`, `table 7`: the dump's reference, with the profile's name when it differs. */
export function tableWords(ref: TableRef, wording: Wording): string {
  const name = wording.table(ref);
  if (ref.kind === 'name') return name;
  const plain = `table ${ref.number}`;
  return name === plain ? plain : `${plain} (${name})`;
}

function missWords(miss: TableMiss, wording: Wording): string {
  switch (miss.action) {
    case 'drop':
      return 'are dropped';
    case 'goto':
      return `continue in ${wording.profileTable(miss.table)}`;
    case 'next':
      return 'continue in the next table of the pipeline';
    case 'normal':
      return 'are switched normally';
    case 'controller':
      return 'go to the controller';
    case 'custom':
      return `are handled by a miss flow that ${miss.description}`;
    case 'none':
      return 'meet no miss flow (and OpenFlow 1.3 switches drop them)';
  }
}

/** A profile sentence with its placeholders filled where the finding can fill them, others left out. */
function fillMeaning(template: string, words: Readonly<Record<string, string>>): string {
  return template.replace(/\{([^}]+)\}/g, (_m, key: string) => words[key] ?? '…');
}

function flowPosition(f: Flow): string {
  return `${f.origin.file}:${f.origin.line}`;
}

function bitsHex(bits: bigint): string {
  return `0x${bits.toString(16)}`;
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
      const several = (f.bits & (f.bits - 1n)) !== 0n;
      const named = wording.bits(f.entry.field, f.entry.value, f.entry.mask);
      const mask = f.entry.mask === ones(f.entry.field.bits) ? '' : `/${bitsHex(f.entry.mask)}`;
      const asks = `${f.entry.field.name}=${bitsHex(f.entry.value)}${mask}${named ? ` (${named})` : ''}`;
      return `never matches: it asks for ${asks}, but no flow, group bucket or learned flow ever sets ${f.slot} bit${several ? 's' : ''} ${bitsHex(f.bits)} (registers start at 0)`;
    }
    case 'conjunction':
      return `conjunction ${f.conjunction.id}: ${problemMessage(f.conjunction, f.problem)}`;
    case 'empty-target': {
      const from = [plural(f.flows.length, 'flow'), ...(f.buckets.length > 0 ? [plural(f.buckets.length, 'group bucket')] : [])].join(' and ');
      const target = tableWords(f.target, wording);
      if (f.via === 'resubmit') return `${from} resubmit to ${target}, which holds no flow: the resubmit does nothing`;
      const how = f.via === 'goto' ? 'go to' : 'resume after conntrack in';
      return `${from} ${how} ${target}, which holds no flow: the packets miss there and are dropped`;
    }
    case 'unreachable-table':
      return `no goto_table, resubmit, ct(table=…) or group bucket leads here from the first table: ${f.flowCount === 1 ? 'its flow never sees' : `its ${f.flowCount} flows never see`} a packet`;
    case 'no-table-miss': {
      const base = `no priority-0 miss flow, but the profile says packets that match nothing else in ${wording.profileTable(f.spec.name)} ${missWords(f.spec.miss, wording)}`;
      return f.spec.miss.action === 'drop' ? `${base}; OpenFlow 1.3 switches drop them anyway, but the documented flow is missing` : `${base}; without the flow they are dropped`;
    }
    case 'dead-actions':
      return `the actions after exit never run: ${formatActions(f.dead, { of: 15 })}`;
    case 'duplicate':
      return f.sameActions
        ? `${plural(f.flows.length, 'flow')} with the same table, priority and match (spelled differently): the switch holds one`
        : `${plural(f.flows.length, 'flow')} with the same table, priority and match but different actions: the switch keeps whichever is added last`;
    case 'missing-expected': {
      const table = wording.profileTable(f.spec.name);
      const meaning = fillMeaning(f.pattern.meaning, { table, next: f.spec.next.map(wording.profileTable).join(' or ') || 'the next table' });
      return `missing the flow the profile says ${table} always holds (${f.pattern.match || 'any match'}): ${meaning}`;
    }
  }
}

function heading(report: CheckReport, profile: ProfileNote | undefined): string {
  const c = report.counts;
  const what = `${plural(report.flowCount, 'flow')} in ${plural(report.tableCount, 'table')}`;
  const prof = profile ? `, profile ${profile.id}${profile.release !== undefined ? ` ${profile.release}` : ''} (${profile.source})` : '';
  return `${what}${prof}: ${plural(c.error, 'error')}, ${plural(c.warning, 'warning')}, ${plural(c.info, 'note')}`;
}

/** Flows shown per finding; the JSON lists them all. */
const FLOWS_SHOWN = 5;

export function formatCheck(report: CheckReport, wording: Wording, profile: ProfileNote | undefined, style: CheckStyle): string {
  const lines = [heading(report, profile)];
  for (const f of report.findings) {
    lines.push('');
    const where = f.table ? `${tableWords(f.table, wording)}: ` : '';
    lines.push(`${style.severity(f.severity, severityWord(f.severity))} [${f.kind}] ${where}${findingMessage(f, wording)}`);
    for (const flow of f.flows.slice(0, FLOWS_SHOWN)) lines.push(style.dim(`  ${flowPosition(flow)}: ${flow.origin.text.trim()}`));
    if (f.flows.length > FLOWS_SHOWN) lines.push(style.dim(`  … and ${f.flows.length - FLOWS_SHOWN} more`));
  }
  return lines.join('\n');
}

function tableJson(ref: TableRef, wording: Wording): Record<string, unknown> {
  const name = wording.table(ref);
  return ref.kind === 'number' ? { number: ref.number, ...(name !== `table ${ref.number}` ? { name } : {}) } : { name: ref.name };
}

export function checkJson(report: CheckReport, wording: Wording, profile: ProfileNote | undefined): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    ...(profile ? { profile } : {}),
    flows: report.flowCount,
    tables: report.tableCount,
    counts: report.counts,
    findings: report.findings.map((f) => ({
      kind: f.kind,
      severity: f.severity,
      ...(f.table ? { table: tableJson(f.table, wording) } : {}),
      message: findingMessage(f, wording),
      ...(f.kind === 'conjunction' ? { conjunction: f.conjunction.id, problem: f.problem.kind } : {}),
      flows: f.flows.map((x) => ({ file: x.origin.file, line: x.origin.line, text: x.origin.text.trim() })),
    })),
  };
}
