/**
 * A conjunction whose clause flows sit in one table and whose conj_id flow in another: OVS joins
 * clauses and conj_id only within a table, so the conj_id flow never matches and the clauses
 * never act. The conjunction analysis sees two halves (clauses without a conj_id flow, a conj_id
 * flow without clauses); this check reports them as the one defect they are.
 */
import { pushTo } from '../../model/append.ts';
import { tableKey } from '../../model/pipeline.ts';
import type { TableRef } from '../../model/tables.ts';
import type { Conjunction } from '../conjunctions/conjunctions.ts';
import type { PolicyMatch } from '../conjunctions/policy-match.ts';
import type { Finding } from './finding.ts';

export interface ConjunctionTables {
  readonly findings: readonly Finding[];
  /** Whether a conjunction finding is one of the halves a `conjunction-table` finding reports. */
  explains(f: Finding): boolean;
}

/** `policyOf`: the NetworkPolicy rule a conjunction implements, where the node's policy objects say (its clause half tells). */
export function findConjunctionTables(
  conjunctions: readonly Conjunction[],
  policyOf: (c: Conjunction) => PolicyMatch | undefined = () => undefined,
): ConjunctionTables {
  const clausesOnly = new Map<number, Conjunction[]>();
  const actionOnly = new Map<number, Conjunction[]>();
  for (const c of conjunctions) {
    const into = c.problems.some((p) => p.kind === 'no-action-flow')
      ? clausesOnly
      : c.problems.some((p) => p.kind === 'orphan-action-flow')
        ? actionOnly
        : undefined;
    if (!into) continue;
    pushTo(into, c.id, c);
  }
  const halves = new Set<Conjunction>();
  const findings: Finding[] = [];
  for (const [id, clauses] of clausesOnly) {
    const actions = actionOnly.get(id);
    if (!actions) continue;
    for (const c of [...clauses, ...actions]) halves.add(c);
    const tables = (list: Conjunction[]): TableRef[] => [
      ...new Map(list.map((c) => [tableKey(c.table), c.table])).values(),
    ];
    const policy = clauses.map(policyOf).find((p) => p !== undefined);
    findings.push({
      kind: 'conjunction-table',
      severity: 'error',
      table: actions[0]!.table,
      flows: [
        ...actions.flatMap((c) => c.actionFlows),
        ...clauses.flatMap((c) => c.dimensions.flatMap((d) => d.flows)),
      ],
      id,
      clauseTables: tables(clauses),
      actionTables: tables(actions),
      ...(policy ? { policy } : {}),
    });
  }
  return {
    findings,
    explains: (f) =>
      f.kind === 'conjunction' &&
      halves.has(f.conjunction) &&
      (f.problem.kind === 'no-action-flow' || f.problem.kind === 'orphan-action-flow'),
  };
}
