/**
 * The conjunction report in a pipeline's words: its table names, the values of registers its
 * profile names (a port register as the Pod on that port), and what action flows do as the
 * profile explains them.
 */
import { profileNoteJson } from './words/profile.ts';
import type { Annotator } from '../analysis/annotate/annotate.ts';
import type { PacketConjunctions } from '../analysis/conjunctions/conjunction-scope.ts';
import type { Conjunction, ConjunctionReport } from '../analysis/conjunctions/conjunctions.ts';
import type { PolicyMatching } from '../analysis/conjunctions/policy-match.ts';
import type { AnnotatedPipeline } from '../analysis/detect/profile-choice.ts';
import type { FieldDef } from '../model/fields.ts';
import type { TableRef } from '../model/tables.ts';
import { tableKey } from '../model/pipeline.ts';
import { fullMask } from '../syntax/field-value.ts';
import {
  type ConjunctionWords,
  CONJUNCTIONS_SCHEMA_VERSION,
  conjunctionReportJson,
  type FieldWords,
  actionsText,
  formatConjunctionReport,
  formatPacketReport,
  packetReportJson,
} from './conjunctions.ts';
import { SCHEMA_VERSION } from './json.ts';
import { profileHead } from './show.ts';
import { formatPacket, verdictLine } from './trace.ts';
import { annotatorTraceWords } from './trace-words.ts';
import { describeActions } from './words/flow.ts';
import { explanationText } from './words/explanation.ts';
import { bitsValueWords } from './words/bits.ts';

export function pipelineWords(
  annotator: Annotator,
  heading?: (text: string) => string,
  policies?: PolicyMatching,
): ConjunctionWords {
  // Asked for each term of each conjunction: worked out once per field and table.
  const fields = new Map<string, FieldWords | undefined>();
  return {
    ...(heading ? { heading } : {}),
    ...(policies ? { policy: (c: Conjunction) => policies.byConjunction(c) } : {}),
    tableName: (ref) => annotator.tableInfo(ref).name,
    field: (field, table) => {
      const key = `${field.name} ${tableKey(table)}`;
      if (!fields.has(key)) fields.set(key, wholeFieldWords(annotator, field, table));
      return fields.get(key);
    },
    actionFlow: (flow) => {
      const { explanation, wording } = annotator.describe(flow);
      const actions = actionsText(describeActions(flow.actions, wording));
      return explanation ? { actions, meaning: explanationText(explanation) } : { actions };
    },
  };
}

/** Words for a field that one bit field of the profile covers whole, read as `table` uses it. */
function wholeFieldWords(annotator: Annotator, field: FieldDef, table: TableRef): FieldWords | undefined {
  const { bits } = annotator;
  const decoded = bits.decode(field, 0n, fullMask(field), annotator.tableInfo(table).spec);
  const only = decoded.length === 1 ? decoded[0]! : undefined;
  const span = only && only.start === 0 && only.end >= field.bits - 1 ? bits.byName(only.name) : undefined;
  if (!span) return undefined;
  // A value (a port) recurs in the member sets of many conjunctions: said once.
  const said = new Map<bigint, string>();
  return {
    name: span.name,
    value: (v) => {
      let words = said.get(v);
      if (words === undefined) said.set(v, (words = bitsValueWords(bits.reading(span, v))));
      return words;
    },
  };
}

/** What conj's text starts with: the profile line, and the reasons for the profile when asked for them. */
export interface ConjunctionsTextOptions {
  readonly heading?: (text: string) => string;
  readonly explainProfile?: boolean;
  /** The conjunctions matched to the node's NetworkPolicy rules, which then name them. */
  readonly policies?: PolicyMatching;
}

function profileText(read: AnnotatedPipeline, o: ConjunctionsTextOptions): string {
  return profileHead(read.profile, read.pipeline.tables.size, o.explainProfile ?? false).join('\n');
}

/** The conjunctions as `flowscope conj` prints them: the profile line, then each conjunction in the pipeline's words. */
export function conjunctionsText(
  report: ConjunctionReport,
  read: AnnotatedPipeline,
  o: ConjunctionsTextOptions = {},
): string {
  return `${profileText(read, o)}\n\n${formatConjunctionReport(report, pipelineWords(read.annotator, o.heading, o.policies))}`;
}

/** The conjunctions as `flowscope conj --json` prints them. */
export function conjunctionsJson(
  report: ConjunctionReport,
  read: AnnotatedPipeline,
  policies?: PolicyMatching,
): Record<string, unknown> {
  return {
    schemaVersion: CONJUNCTIONS_SCHEMA_VERSION,
    profile: profileNoteJson(read.profile),
    ...conjunctionReportJson(report, pipelineWords(read.annotator, undefined, policies)),
  };
}

/** A packet against the conjunctions as `flowscope conj --packet` prints it. */
export function packetConjunctionsText(
  p: PacketConjunctions,
  read: AnnotatedPipeline,
  o: ConjunctionsTextOptions = {},
): string {
  const shown = formatPacket(p.packet, p.portNames);
  const report = formatPacketReport(shown, p.scope, p.conjunctions, pipelineWords(read.annotator, o.heading));
  return `${profileText(read, o)}\n${report}\n\n${packetVerdict(p, read)}`;
}

/** Where the packet's trace ends, as `flowscope trace` says it: the report's last line. */
function packetVerdict(p: PacketConjunctions, read: AnnotatedPipeline): string {
  return verdictLine(p.scope.trace, annotatorTraceWords(read.annotator, 15, p.portNames));
}

/** A packet against the conjunctions as `flowscope conj --packet --json` prints it. */
export function packetConjunctionsJson(p: PacketConjunctions, read: AnnotatedPipeline): Record<string, unknown> {
  const shown = formatPacket(p.packet, p.portNames);
  const trace = p.scope.trace;
  const verdict = {
    verdict: trace.verdict,
    outputs: trace.outputs,
    text: packetVerdict(p, read).replace(/^Verdict: /, ''),
  };
  return {
    schemaVersion: SCHEMA_VERSION,
    profile: profileNoteJson(read.profile),
    ...packetReportJson(shown, p.scope, p.conjunctions, pipelineWords(read.annotator)),
    verdict,
  };
}
