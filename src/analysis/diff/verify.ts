/**
 * Checks that a dump holds an expected set of flows (an add-flows file, as CNI unit tests and
 * runbooks write them): each expected flow must be present in its slot with equivalent actions.
 * With `exact`, flows the dump holds in the expected tables beyond those are reported too.
 */
import type { Flow, Group } from '../../model/flow.ts';
import type { TableRef } from '../../model/tables.ts';
import {
  type CompareOptions,
  type DumpSide,
  FLOW_ATTRIBUTES,
  type FlowAttribute,
  type FlowChange,
  type GroupChange,
  diffFlows,
  namingFor,
  pairGroups,
  type PortNamingGap,
  portNamingGap,
  readAlike,
} from './diff.ts';
import { type Naming, tableId } from '../../model/flow-key.ts';

export interface VerifyOptions extends CompareOptions {
  /** Also report flows (and groups) of the actual dump that were not expected. */
  readonly exact?: boolean;
}

export interface TableVerdict {
  readonly table: TableRef;
  readonly expected: number;
  readonly actual: number;
  readonly missing: readonly Flow[];
  /** `before` is the expected flow, `after` the one found in its slot. */
  readonly mismatched: readonly FlowChange[];
  /** Only with `exact`. */
  readonly unexpected: readonly Flow[];
}

export interface GroupVerdict {
  readonly missing: readonly Group[];
  readonly mismatched: readonly GroupChange[];
  readonly unexpected: readonly Group[];
}

export interface Verification {
  /** Tables the expectation names, in table order. */
  readonly tables: readonly TableVerdict[];
  readonly groups: GroupVerdict;
  readonly expectedFlows: number;
  /** Expected flows found with equivalent actions. */
  readonly matched: number;
  /** Of the expected flows found in their slot but not as expected, how many differ in each attribute. */
  readonly mismatchedBy: Readonly<Record<FlowAttribute, number>>;
  readonly naming: Naming;
  readonly ok: boolean;
  /** Set when flows are missing and port names may be why (see `portNamingGap`). */
  readonly portNamingGap?: PortNamingGap;
}

export function verifyDump(expected: DumpSide, actual: DumpSide, options: VerifyOptions = {}): Verification {
  const naming = namingFor(expected, actual, options);
  const expectedTables = new Set(expected.flows.map((f) => tableId(f.table, naming)));
  // Timeouts count only where the expectation states them; cookies only when asked.
  const diff = diffFlows(expected.flows, actual.flows, naming, {
    timeoutsWhenSet: true,
    readAlike: readAlike(expected, actual),
    ...(options.cookies ? { cookies: true } : {}),
  });
  const tables: TableVerdict[] = diff
    .filter((t) => expectedTables.has(tableId(t.table, naming)))
    .map((t) => ({
      table: t.table,
      expected: t.before,
      actual: t.after,
      missing: t.removed,
      mismatched: t.changed,
      unexpected: options.exact ? t.added : [],
    }));
  const groups = verifyGroups(expected.groups, actual.groups, naming, options.exact ?? false);
  const problems =
    tables.reduce((n, t) => n + t.missing.length + t.mismatched.length + t.unexpected.length, 0) +
    groups.missing.length +
    groups.mismatched.length +
    groups.unexpected.length;
  const matched = tables.reduce((n, t) => n + t.expected - t.missing.length - t.mismatched.length, 0);
  const mismatchedBy = Object.fromEntries(FLOW_ATTRIBUTES.map((a) => [a, 0])) as Record<FlowAttribute, number>;
  for (const t of tables) for (const c of t.mismatched) for (const a of c.attributes) mismatchedBy[a]++;
  const ok = problems === 0;
  const gap = ok ? undefined : portNamingGap(expected, actual, naming);
  const verdict = { tables, groups, expectedFlows: expected.flows.length, matched, mismatchedBy, naming, ok };
  return gap ? { ...verdict, portNamingGap: gap } : verdict;
}

function verifyGroups(
  expected: readonly Group[],
  actual: readonly Group[],
  naming: Naming,
  exact: boolean,
): GroupVerdict {
  const { removed, changed, added } = pairGroups(expected, actual, naming);
  return { missing: removed, mismatched: changed, unexpected: exact && expected.length > 0 ? added : [] };
}
