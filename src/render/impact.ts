/**
 * `flowscope diff A B --impact` as text and JSON: each change of the diff, the probes traced for
 * it, and the traffic whose fate changed, in the pipeline's words ("traffic from local Pod client
 * (10.10.0.26) to local Pod web (10.10.0.24) on TCP 80: was output to port 4, through
 * conjunction 6 in AntreaPolicyIngressRule; now dropped in IngressMetric …").
 */
import {
  affectsTraffic,
  type ChangeImpact,
  type ImpactChange,
  type ImpactReport,
  type ProbeOutcome,
} from '../analysis/impact/impact.ts';
import { ETH_TYPE, FIELD } from '../analysis/trace/packet.ts';
import type { Probe } from '../analysis/impact/probes.ts';
import type { TraceResult } from '../analysis/trace/trace.ts';
import type { Change } from '../model/change.ts';
import type { FieldDef } from '../model/fields.ts';
import type { OfVersion } from '../model/openflow.ts';
import { ones } from '../model/values.ts';
import { formatFieldValue } from '../syntax/field-value.ts';
import { formatFlowCanonical } from './flow.ts';
import { formatGroup } from './group.ts';
import { divergenceJson } from './trace-compare.ts';
import { jsonReplacer, SCHEMA_VERSION } from './json.ts';
import { boundBytes, type ByteBound, sumBounds, TextBudget } from './text-budget.ts';
import { plural } from './plural.ts';
import {
  formatPacket,
  stepJson,
  tableName,
  TRACE_BYTES_PER_INPUT_BYTE,
  type TraceRenderOptions,
  traceWorkText,
  verdictLine,
} from './trace.ts';

/** How each dump's traces are told, and who an address belongs to (a Pod, a Node's subnet). */
export interface ImpactWords {
  readonly of: OfVersion;
  readonly before: TraceRenderOptions;
  readonly after: TraceRenderOptions;
  readonly address?: (field: FieldDef, value: bigint, mask: bigint) => string | undefined;
}

const PROTOCOLS: Readonly<Record<string, string>> = {
  '1': 'ICMP',
  '6': 'TCP',
  '17': 'UDP',
  '58': 'ICMPv6',
  '132': 'SCTP',
};

/** `local Pod web (10.10.0.24)`, `10.10.1.0/24`: the address the probe stands for (a block when the flow matched one), with its owner. */
function addressText(probe: Probe, field: FieldDef, words: ImpactWords): string | undefined {
  const scoped = probe.scope.find((e) => e.field.storage === field.storage);
  const value = scoped ? scoped.value : probe.packet.get(field);
  const mask = scoped ? scoped.mask : ones(field.bits);
  if (value === 0n && !scoped) return undefined;
  const text = formatFieldValue(field, value, mask);
  const owner = words.address?.(field, value, mask);
  if (!owner) return text;
  // `10.10.0.26 (in local Pod subnet 10.10.0.0/24)`, `local Pod web (10.10.0.24)`.
  return owner.startsWith('in ') ? `${text} (${owner})` : `${owner} (${text})`;
}

/** `traffic from X to Y on TCP 80`, in the terms the probe was derived from. */
export function trafficText(probe: Probe, words: ImpactWords): string {
  const p = probe.packet;
  if (p.get(FIELD.ethType) === 0x806n) return `ARP on port ${p.get(FIELD.inPort)}`;
  const v6 = p.get(FIELD.ethType) === ETH_TYPE.ipv6;
  const src = addressText(probe, v6 ? FIELD.ipv6Src : FIELD.ipSrc, words) ?? `port ${p.get(FIELD.inPort)}`;
  const dst = addressText(probe, v6 ? FIELD.ipv6Dst : FIELD.ipDst, words);
  const proto = PROTOCOLS[String(p.get(FIELD.nwProto))];
  const port = probe.scope.some((e) => e.field.storage === 'tp_dst') ? p.get(FIELD.tpDst) : undefined;
  const service = proto === undefined ? 'IP' : port === undefined ? proto : `${proto} ${port}`;
  return `traffic from ${src}${dst === undefined ? '' : ` to ${dst}`} on ${service}`;
}

/** The conjunctions a path took, as `conjunction 6 in AntreaPolicyIngressRule`. */
function conjunctionsTaken(result: TraceResult, o: TraceRenderOptions): string[] {
  return result.passes.flatMap((pass) =>
    pass.steps.flatMap((s) => (s.conjunction ? [`conjunction ${s.conjunction.id} in ${tableName(s.table, o)}`] : [])),
  );
}

function sideText(result: TraceResult, o: TraceRenderOptions): string {
  const verdict = verdictLine(result, o)
    .replace(/^Verdict: /, '')
    .replace(/\.$/, '');
  const conj = conjunctionsTaken(result, o);
  return conj.length === 0 ? verdict : `matched ${conj.join(' and ')}, then ${verdict}`;
}

/** What happened to the probe's traffic: was this, now that; or the same end by another path. */
export function outcomeText(outcome: ProbeOutcome, words: ImpactWords): string {
  const c = outcome.comparison;
  if (outcome.effect === 'none') return `unchanged: ${sideText(c.left, words.before)}`;
  if (outcome.effect === 'drop-moved')
    return `dropped before and after, no change to traffic: was ${sideText(c.left, words.before)}; now ${sideText(c.right, words.after)}`;
  if (outcome.effect === 'path') {
    const d = c.divergence!;
    const where = d.left
      ? tableName(d.left.table, words.before)
      : d.right
        ? tableName(d.right.table, words.after)
        : 'the end';
    return `still ${sideText(c.right, words.after)}, by another path from ${where} on`;
  }
  return `was ${sideText(c.left, words.before)}; now ${sideText(c.right, words.after)}`;
}

/** The change in a line (two for a rewrite): what was removed, added or changed, as the dump would have it. */
export function changeText(change: ImpactChange, of: OfVersion): string {
  return change.of === 'flow'
    ? itemChangeText(change, (f) => formatFlowCanonical(f, of))
    : itemChangeText(change, (g) => formatGroup(g, of));
}

function itemChangeText<T>(change: Change<T>, text: (item: T) => string): string {
  return change.kind === 'changed'
    ? `changed: ${text(change.before)}\n     now: ${text(change.after)}`
    : `${change.kind}: ${text(change.item)}`;
}

/** The change's kind as the JSON names it: `removed`, `added`, `changed` for a flow, `group-removed` etc. for a group. */
function changeKind(change: ImpactChange): string {
  return change.of === 'group' ? `group-${change.kind}` : change.kind;
}

function ctText(states: readonly bigint[]): string {
  return states.length === 0
    ? ''
    : ` --ct-next ${formatFieldValue(FIELD.ctState, states[0]!, ones(FIELD.ctState.bits))}`;
}

function bucketText(buckets: ReadonlyMap<number, number>): string {
  return [...buckets].map(([g, b]) => ` --bucket ${g}:${b}`).join('');
}

/** The probe as `flowscope trace` takes it: the packet, then the options it was traced with. */
function probeCommand(probe: Probe, o: TraceRenderOptions): string {
  return `${formatPacket(probe.packet, o.portNames)}${ctText(probe.ctNext)}${bucketText(probe.groupBuckets)}`;
}

const SHOWN_PER_OUTCOME = 3;

function affected(c: ChangeImpact): ProbeOutcome[] {
  return c.outcomes.filter((o) => affectsTraffic(o.effect));
}

/** Probes dropped in both dumps, by other flows: counted apart, as no change to traffic. */
function dropMoved(c: ChangeImpact): number {
  return c.outcomes.filter((o) => o.effect === 'drop-moved').length;
}

const REPORT_BOUND = "the report's traces had spent its bound of trace steps: its impact is not known";

/** Why a change's search for probes stopped short. */
function cutText(c: ChangeImpact): string {
  return c.cut === 'report'
    ? "the search stopped when the report's traces had spent its bound of trace steps"
    : `the search stopped at its bound of ${plural(c.steps, 'trace step')}`;
}

/** What the report's bound of trace work left untraced, or nothing when it was not reached. */
function untracedText(report: ImpactReport): string | undefined {
  if (report.untraced === 0) return undefined;
  return `${plural(report.untraced, 'change')} not traced, or only in part: the report stopped tracing when ${traceWorkText(report.work)}`;
}

function changeLines(c: ChangeImpact, words: ImpactWords): string[] {
  const out = [changeText(c.change, words.of)];
  const hit = affected(c);
  const tried = c.outcomes.length;
  const candidates = plural(c.screened, 'candidate packet');
  if (c.cut === 'report' && c.screened === 0) {
    out.push(`  not traced: ${REPORT_BOUND}`);
    return out;
  }
  const bound = c.cut ? cutText(c) : '';
  if (tried === 0) {
    out.push(
      `  no probe reaches it (${candidates} derived from it tried${bound ? `, ${bound}` : ''}): its impact is not known`,
    );
    return out;
  }
  if (bound) out.push(`  ${bound} (${candidates} tried)`);
  const moved = dropMoved(c);
  const still = moved === 0 ? '' : ` (${moved} dropped in both, only by another flow: no change to traffic)`;
  out.push(
    `  ${plural(tried, 'probe')} traced through both dumps: ${hit.length === 0 ? 'none affected' : `${hit.length} affected`}${still}`,
  );
  // Probes that tell the same story are told once, with a few of their packets.
  const stories = new Map<string, ProbeOutcome[]>();
  for (const o of hit) {
    const story = `${trafficText(o.probe, words)}: ${outcomeText(o, words)}`;
    stories.set(story, [...(stories.get(story) ?? []), o]);
  }
  for (const [story, outcomes] of stories) {
    out.push(`  - ${story}`);
    for (const o of outcomes.slice(0, SHOWN_PER_OUTCOME))
      out.push(`      probe: ${probeCommand(o.probe, words.before)}`);
    if (outcomes.length > SHOWN_PER_OUTCOME)
      out.push(`      and ${plural(outcomes.length - SHOWN_PER_OUTCOME, 'more probe')}`);
  }
  return out;
}

/**
 * What the report may take: what a trace of each dump may (a fixed multiple of the dump), so that
 * many changes, each with its probes, print no more than the dumps could drive.
 */
function reportBudget(words: ImpactWords): ByteBound {
  return sumBounds(words.before.maxBytes, words.after.maxBytes);
}

function boundText(budget: ByteBound): string {
  return `the report reached ${boundBytes(budget)} bytes, the bound for dumps of this size (${TRACE_BYTES_PER_INPUT_BYTE} bytes per byte of them)`;
}

export function formatImpact(report: ImpactReport, words: ImpactWords): string {
  const tried = report.changes.reduce((n, c) => n + c.outcomes.length, 0);
  const hit = report.changes.reduce((n, c) => n + affected(c).length, 0);
  const screened = report.changes.reduce((n, c) => n + c.screened, 0);
  const out = [
    `Impact of ${plural(report.changes.length, 'change')}: ${plural(tried, 'probe')} traced through both dumps (at most ${report.maxProbes} per change, found among ${plural(screened, 'candidate packet')}), ${hit} affected`,
  ];
  const untraced = untracedText(report);
  if (untraced) out.push(untraced);
  const budget = reportBudget(words);
  const body = new TextBudget(budget);
  for (const c of report.changes) body.push('', ...changeLines(c, words));
  out.push(...body.lines);
  if (body.omitted > 0) out.push('', `… and ${plural(body.omitted, 'more line')}, not printed: ${boundText(budget)}.`);
  return out.join('\n') + '\n';
}

const jsonBytes = (item: unknown): number => JSON.stringify(item, jsonReplacer).length;

/** A trace in brief: its verdict and outputs; its path is added as the report's bound allows (tracePath). */
function traceSummary(
  result: TraceResult,
  o: TraceRenderOptions,
): { [key: string]: unknown; path: Record<string, unknown>[] } {
  return {
    verdict: result.verdict,
    verdictText: verdictLine(result, o).replace(/^Verdict: /, ''),
    outputs: result.outputs,
    path: [],
  };
}

/** The path of a trace into its summary, step by step while `budget` lasts; the steps left out counted. */
function tracePath(
  summary: ReturnType<typeof traceSummary>,
  result: TraceResult,
  o: TraceRenderOptions,
  budget: TextBudget,
): void {
  let left = 0;
  for (const pass of result.passes) {
    for (const s of pass.steps) {
      const step = stepJson(s, o);
      if (budget.take(jsonBytes(step) + 1)) summary.path.push(step);
      else left++;
    }
  }
  if (left > 0) summary.pathOmitted = left;
}

/** A probe as JSON, its traces' paths as far as `budget` goes; none when the budget is spent. */
function outcomeJson(o: ProbeOutcome, words: ImpactWords, budget: TextBudget): Record<string, unknown> | undefined {
  const c = o.comparison;
  const probe = {
    packet: formatPacket(o.probe.packet, words.before.portNames),
    ctNext: o.probe.ctNext.map((s) => formatFieldValue(FIELD.ctState, s, ones(FIELD.ctState.bits))),
    buckets: Object.fromEntries(o.probe.groupBuckets),
    traffic: trafficText(o.probe, words),
    effect: o.effect,
    summary: outcomeText(o, words),
    before: traceSummary(c.left, words.before),
    after: traceSummary(c.right, words.after),
    divergence: divergenceJson(c.divergence, ['before', words.before], ['after', words.after]),
  };
  if (!budget.take(jsonBytes(probe) + 1)) return undefined;
  tracePath(probe.before, c.left, words.before, budget);
  tracePath(probe.after, c.right, words.after, budget);
  return probe;
}

/**
 * The JSON contract: every change with every probe tried for it and both traces' summaries; past
 * the report's bound, the steps and probes left out are counted (`pathOmitted`, `omitted`).
 */
export function impactJson(report: ImpactReport, words: ImpactWords): Record<string, unknown> {
  const bound = reportBudget(words);
  const budget = new TextBudget(bound);
  let left = 0;
  const changes = report.changes.map((c) => {
    // Every change is listed (its text is the dump's own); its probes as far as the bound goes.
    const change = {
      kind: changeKind(c.change),
      change: changeText(c.change, words.of),
      screened: c.screened,
      tried: c.outcomes.length,
      affected: affected(c).length,
      dropMoved: dropMoved(c),
      steps: c.steps,
      ...(c.cut ? { cut: c.cut } : {}),
    };
    budget.take(JSON.stringify(change).length);
    const probes: Record<string, unknown>[] = [];
    for (const o of c.outcomes) {
      const probe = outcomeJson(o, words, budget);
      if (probe) probes.push(probe);
      else left++;
    }
    return { ...change, probes };
  });
  return {
    schemaVersion: SCHEMA_VERSION,
    maxProbes: report.maxProbes,
    probesTried: report.changes.reduce((n, c) => n + c.outcomes.length, 0),
    affected: report.changes.reduce((n, c) => n + affected(c).length, 0),
    traceSteps: report.work,
    ...(report.untraced > 0 ? { untraced: { changes: report.untraced, reason: untracedText(report) } } : {}),
    changes,
    ...(left > 0 ? { omitted: { probes: left, reason: boundText(bound) } } : {}),
  };
}
