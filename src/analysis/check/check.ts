/**
 * `flowscope check`: the defects of a pipeline, found offline. Each check lives in its own
 * module beside this one; this one runs them, adds the conjunction analysis's problems, and
 * orders the findings by severity, then table, then dump line.
 */
import { type Pipeline, tableKey } from '../../model/pipeline.ts';
import { originLine } from '../../model/flow.ts';
import type { Profile } from '../../profiles/types.ts';
import type { AnnotatedPipeline } from '../detect/profile-choice.ts';
import { type ConjunctionReport, findConjunctions } from '../conjunctions/conjunctions.ts';
import { findMissingExpected } from './expectations.ts';
import { type Finding, type Severity, SEVERITY_RANK } from './finding.ts';
import { findDeadActions, findDuplicates } from './flows.ts';
import { type Excerpt, findExcerpt } from './excerpt.ts';
import { findConjunctionTables } from './conjunction-tables.ts';
import { findBucketsWithoutEndpoint } from './endpoints.ts';
import { findForwardingLoops } from './loops.ts';
import type { TraceWork } from '../trace/trace-budget.ts';
import { findPodsWithoutSpoofGuard, findUnknownTunnelDestinations, findUnroutedPeers, NodeFacts } from './topology.ts';
import { PortRoles } from '../fit/port-roles.ts';
import { findUnsetRegisters, pipelineWrites } from './registers.ts';
import { DumpFacts, weigh } from './standing.ts';
import { findShadowed } from './shadowing.ts';
import { findEmptyTargets, findUnreachableTables } from './tables.ts';
import { defaultRelease } from '../fit/pattern-fit.ts';
import { slotKey } from '../../model/flow-key.ts';
import { emptyTargets } from '../../model/flow-exits.ts';
import type { PolicyMatching } from '../conjunctions/policy-match.ts';

export type { Finding, FindingKind, FlowFinding, Severity, Standing } from './finding.ts';
export { subjectOf } from './finding.ts';
export type { Excerpt } from './excerpt.ts';

export interface CheckOptions {
  /** The pipeline's profile: enables the checks of what it documents. */
  readonly profile?: Profile;
  /** Release of the profile's product; its latest when absent. */
  readonly release?: string;
  /** The node's conjunctions matched to its NetworkPolicy rules (a support bundle's policy objects). */
  readonly policies?: PolicyMatching;
  /** The pipeline's conjunctions, when found already (to match them to policy objects): not searched for again. */
  readonly conjunctions?: ConjunctionReport;
  /** Told after each check how many of them have run: for a progress display. */
  readonly onProgress?: (done: number, of: number) => void;
}

export interface CheckReport {
  /** Every finding, the known ones (silent unless asked for) included. */
  readonly findings: readonly Finding[];
  /** Findings by severity, the known ones left out. */
  readonly counts: Readonly<Record<Severity, number>>;
  /** Findings of patterns the profile documents as by design. */
  readonly known: number;
  /** Set when the dump is not a whole bridge. */
  readonly excerpt?: Excerpt;
  readonly flowCount: number;
  readonly tableCount: number;
  readonly profile?: Profile;
  readonly release?: string;
  /** Set when the loop search spent its budget of trace steps: the flows it did not follow. */
  readonly loopsUntraced?: { readonly flows: number; readonly work: TraceWork };
}

function firstLine(f: Finding): number {
  const flow = f.flows[0];
  // Not from its origin, which a lazily read flow makes anew each time the sort asks.
  return flow === undefined ? 0 : originLine(flow);
}

/**
 * Conjunctions no NetworkPolicy rule explains, and rules of this node's Pods that no conjunction
 * implements. Unexplained conjunctions are told only when the policy objects explain some: objects
 * that explain none are not this node's, or are cut short, and would make every conjunction a finding.
 */
function policyFindings(p: PolicyMatching): Finding[] {
  const unexplained = p.matches.length > 0 ? p.unexplained : [];
  return [
    ...unexplained.map((c): Finding => ({
      kind: 'policy-unexplained',
      severity: 'warning',
      table: c.table,
      flows: [...c.actionFlows, ...c.dimensions.flatMap((d) => d.flows)],
      conjunction: c,
    })),
    ...p.unimplemented.map((rule): Finding => ({ kind: 'policy-unimplemented', severity: 'warning', flows: [], rule })),
  ];
}

/** A finding the check reports under its own kind, or as one of two symmetric halves already reported. */
function isSecondHalf(f: Finding): boolean {
  return f.kind === 'conjunction' && f.problem.kind === 'overlap' && f.problem.otherId < f.conjunction.id;
}

export function checkPipeline(pipeline: Pipeline, options: CheckOptions = {}): CheckReport {
  const release = options.profile ? (options.release ?? defaultRelease(options.profile)) : undefined;
  const expected = options.profile !== undefined && release !== undefined;
  // What a node says of its Pods and peers is read only where a product's pipeline is known.
  const topology = expected && options.profile!.tables.length > 0;
  const steps = 10 + (expected ? 1 : 0) + (topology ? 1 : 0);
  let done = 0;
  const step = <T>(work: () => T): T => {
    const result = work();
    options.onProgress?.(++done, steps);
    return result;
  };
  const conj = step(() => options.conjunctions ?? findConjunctions(pipeline));
  const writes = step(() => pipelineWrites(pipeline));
  const loops = step(() => findForwardingLoops(pipeline));
  // Found once, for their own check and for whether the dump is an excerpt.
  const empty = emptyTargets(pipeline);
  const split = findConjunctionTables(conj.conjunctions, (c) => options.policies?.byConjunction(c));
  const raw: Finding[] = [
    ...step(() => findShadowed(pipeline)),
    ...step(() => findUnsetRegisters(pipeline, writes)),
    ...conj.conjunctions
      .flatMap((c) => {
        const policy = options.policies?.byConjunction(c);
        return c.problems.map((problem): Finding => ({
          kind: 'conjunction',
          severity: problem.severity,
          table: c.table,
          flows: problem.flows,
          conjunction: c,
          problem,
          ...(policy ? { policy } : {}),
        }));
      })
      .filter((f) => !isSecondHalf(f) && !split.explains(f)),
    ...split.findings,
    ...step(() => findEmptyTargets(empty)),
    ...step(() => findBucketsWithoutEndpoint(pipeline)),
    ...loops.findings,
    ...step(() => findUnreachableTables(pipeline)),
    ...step(() => findDeadActions(pipeline)),
    ...step(() => findDuplicates(pipeline)),
  ];
  if (options.policies) raw.push(...policyFindings(options.policies));
  if (expected) raw.push(...step(() => findMissingExpected(pipeline, options.profile!, release!)));
  if (topology) {
    const facts = new NodeFacts(pipeline);
    const roles = new PortRoles(options.profile!, release!, pipeline.ports);
    raw.push(
      ...step(() => [
        ...findUnknownTunnelDestinations(facts),
        ...findUnroutedPeers(facts),
        ...findPodsWithoutSpoofGuard(facts, roles),
      ]),
    );
  }
  const excerpt = findExcerpt(pipeline, options.profile, release, empty);
  const context = {
    writes,
    dump: new DumpFacts(pipeline),
    ...(options.profile ? { profile: options.profile } : {}),
    ...(release ? { release } : {}),
    ...(excerpt ? { excerpt } : {}),
  };
  const order = new Map([...pipeline.tables.keys()].map((k, i) => [k, i]));
  const tableIndex = (f: Finding): number => {
    if (!f.table) return -1;
    return order.get(tableKey(f.table)) ?? order.size;
  };
  // Each finding's place worked out once, not at each of the sort's comparisons.
  const placed = raw.map((r) => {
    const f = weigh(r, context);
    return { f, severity: SEVERITY_RANK[f.severity], table: tableIndex(f), line: firstLine(f) };
  });
  placed.sort((a, b) => a.severity - b.severity || a.table - b.table || a.line - b.line);
  const findings = placed.map((p) => p.f);
  const counts = { error: 0, warning: 0, info: 0 };
  let known = 0;
  for (const f of findings) {
    if (isSilent(f)) known++;
    else counts[f.severity]++;
  }
  return {
    findings,
    counts,
    known,
    ...(excerpt ? { excerpt } : {}),
    ...(loops.untraced > 0 ? { loopsUntraced: { flows: loops.untraced, work: loops.work } } : {}),
    flowCount: pipeline.flowCount,
    tableCount: pipeline.tables.size,
    ...(options.profile ? { profile: options.profile } : {}),
    ...(release ? { release } : {}),
  };
}

/** A finding of a pattern the design produces on purpose: reported only when asked for. */
export function isSilent(f: Finding): boolean {
  return f.standing?.kind === 'redundant-miss' || (f.standing?.kind === 'known' && f.standing.silent);
}

/** The checks of a pipeline read by a profile: with that profile's documented flows, in the release it was read in. */
export function checkAnnotated(
  read: AnnotatedPipeline,
  policies?: PolicyMatching,
  options: Pick<CheckOptions, 'onProgress' | 'conjunctions'> = {},
): CheckReport {
  // The annotator's profile: for a named pipeline dumped with numbers, the copy with the layout's numbers.
  const profile = read.annotator.profile;
  return checkPipeline(read.pipeline, {
    ...options,
    ...(profile ? { profile } : {}),
    release: read.annotator.release,
    ...(policies ? { policies } : {}),
  });
}

/**
 * What identifies a finding across two dumps of the same node: its kind, table and the
 * classifier slots (table, priority, normalised match) of its flows, so that renumbered lines,
 * other counters or another spelling of the same flows are the same finding.
 */
export function findingKey(f: Finding): string {
  const slots = f.flows.map((x) => slotKey(x, {})).sort();
  const detail =
    f.kind === 'conjunction'
      ? `${f.problem.kind} ${f.conjunction.id}`
      : f.kind === 'missing-expected'
        ? f.pattern.match
        : f.kind === 'bucket-no-endpoint'
          ? `${f.group}:${f.bucket}`
          : f.kind === 'forwarding-loop'
            ? `${f.loop.map(tableKey).join('>')} ${f.group ?? ''}`
            : f.kind === 'no-spoof-guard'
              ? String(f.port)
              : f.kind === 'unknown-tunnel-destination'
                ? f.destination
                : f.kind === 'no-route'
                  ? f.address
                  : f.kind === 'conjunction-table'
                    ? String(f.id)
                    : f.kind === 'policy-unexplained'
                      ? String(f.conjunction.id)
                      : f.kind === 'policy-unimplemented'
                        ? `${f.rule.policy.type} ${f.rule.policy.namespace ?? ''}/${f.rule.policy.name} ${f.rule.rule.direction} ${f.rule.index}`
                        : f.kind === 'empty-target'
                          ? `${f.via} ${f.buckets.map((b) => `${b.group}:${b.bucket}`).join(',')}`
                          : '';
  return [f.kind, f.table ? tableKey(f.table) : '', detail, ...slots].join('|');
}
