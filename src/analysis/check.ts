/**
 * `flowscope check`: the defects of a pipeline, found offline. Each check lives in its own
 * module under `checks/`; this one runs them, adds the conjunction analysis's problems, and
 * orders the findings by severity, then table, then dump line.
 */
import { type Pipeline, tableKey } from '../model/pipeline.ts';
import { profileById } from '../profiles/index.ts';
import type { Profile } from '../profiles/types.ts';
import type { AnnotatedPipeline } from './profile-choice.ts';
import { findConjunctions } from './conjunctions.ts';
import { findMissingExpected } from './checks/expectations.ts';
import { type Finding, type Severity, SEVERITY_RANK } from './checks/finding.ts';
import { findDeadActions, findDuplicates } from './checks/flows.ts';
import { findUnsetRegisters } from './checks/registers.ts';
import { findShadowed } from './checks/shadowing.ts';
import { findEmptyTargets, findUnreachableTables } from './checks/tables.ts';
import { defaultRelease } from './pattern-fit.ts';

export type { Finding, FindingKind, Severity } from './checks/finding.ts';

export interface CheckOptions {
  /** The pipeline's profile: enables the checks of what it documents. */
  readonly profile?: Profile;
  /** Release of the profile's product; its latest when absent. */
  readonly release?: string;
}

export interface CheckReport {
  readonly findings: readonly Finding[];
  readonly counts: Readonly<Record<Severity, number>>;
  readonly flowCount: number;
  readonly tableCount: number;
  readonly profile?: Profile;
  readonly release?: string;
}

function firstLine(f: Finding): number {
  return f.flows[0]?.origin.line ?? 0;
}

export function checkPipeline(pipeline: Pipeline, options: CheckOptions = {}): CheckReport {
  const conj = findConjunctions(pipeline);
  const findings: Finding[] = [
    ...findShadowed(pipeline),
    ...findUnsetRegisters(pipeline),
    ...conj.conjunctions.flatMap((c) =>
      c.problems.map((problem): Finding => ({ kind: 'conjunction', severity: problem.severity, table: c.table, flows: problem.flows, conjunction: c, problem })),
    ),
    ...findEmptyTargets(pipeline),
    ...findUnreachableTables(pipeline),
    ...findDeadActions(pipeline),
    ...findDuplicates(pipeline),
  ];
  const release = options.profile ? (options.release ?? defaultRelease(options.profile)) : undefined;
  if (options.profile && release) findings.push(...findMissingExpected(pipeline, options.profile, release));
  const order = new Map([...pipeline.tables.keys()].map((k, i) => [k, i]));
  const tableIndex = (f: Finding): number => {
    if (!f.table) return -1;
    return order.get(tableKey(f.table)) ?? order.size;
  };
  findings.sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || tableIndex(a) - tableIndex(b) || firstLine(a) - firstLine(b));
  const counts = { error: 0, warning: 0, info: 0 };
  for (const f of findings) counts[f.severity]++;
  return {
    findings,
    counts,
    flowCount: pipeline.flowCount,
    tableCount: pipeline.tables.size,
    ...(options.profile ? { profile: options.profile } : {}),
    ...(release ? { release } : {}),
  };
}

/** The checks of a pipeline read by a profile: with that profile's documented flows, in the release it was read in. */
export function checkAnnotated(read: AnnotatedPipeline): CheckReport {
  const profile = profileById(read.profile.id);
  return checkPipeline(read.pipeline, { ...(profile ? { profile } : {}), release: read.annotator.release });
}
