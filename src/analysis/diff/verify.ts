/**
 * Checks that a dump holds an expected set of flows (an add-flows file, as CNI unit tests and
 * runbooks write them): each expected flow must be present in its slot with equivalent actions.
 * With `exact`, flows the dump holds in the expected tables beyond those are reported too.
 */
import type { Flow, Group } from '../../model/flow.ts';
import type { TableRef } from '../../model/tables.ts';
import {
  type Changes,
  type Comparison,
  type CompareOptions,
  type DumpSide,
  FLOW_ATTRIBUTES,
  type FlowAttribute,
  type FlowChange,
  type GroupChange,
  diffFlows,
  namingFor,
  pairGroups,
  portNamingGap,
  readAlike,
} from './diff.ts';
import { tableId } from '../../model/flow-key.ts';

export interface VerifyOptions extends CompareOptions {
  /** Also report flows (and groups) of the actual dump that were not expected. */
  readonly exact?: boolean;
}

/**
 * A diff of the expectation with the dump, in a verification's words: the expected that the dump
 * lacks, the expected it holds otherwise (`before` the expected, `after` the one found in its
 * slot), and what it holds that was not expected (only with `exact`).
 */
export interface Verified<T, C> {
  readonly missing: readonly T[];
  readonly mismatched: readonly C[];
  readonly unexpected: readonly T[];
}

export interface TableVerdict extends Verified<Flow, FlowChange> {
  readonly table: TableRef;
  readonly expected: number;
  readonly actual: number;
}

export type GroupVerdict = Verified<Group, GroupChange>;

/** The tables the expectation names, in table order, and the groups. */
export interface Verification extends Comparison<TableVerdict, GroupVerdict> {
  readonly expectedFlows: number;
  /** Expected flows found with equivalent actions. */
  readonly matched: number;
  /** Of the expected flows found in their slot but not as expected, how many differ in each attribute. */
  readonly mismatchedBy: Readonly<Record<FlowAttribute, number>>;
  readonly ok: boolean;
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
    .map((t) => ({ table: t.table, expected: t.before, actual: t.after, ...verdictOf(t, options.exact ?? false) }));
  // Groups not expected count only where some are.
  const groups = verdictOf(
    pairGroups(expected.groups, actual.groups, naming),
    (options.exact ?? false) && expected.groups.length > 0,
  );
  const problems = tables.reduce((n, t) => n + verdictSize(t), 0) + verdictSize(groups);
  const matched = tables.reduce((n, t) => n + t.expected - t.missing.length - t.mismatched.length, 0);
  const mismatchedBy = Object.fromEntries(FLOW_ATTRIBUTES.map((a) => [a, 0])) as Record<FlowAttribute, number>;
  for (const t of tables) for (const c of t.mismatched) for (const a of c.attributes) mismatchedBy[a]++;
  const ok = problems === 0;
  const gap = ok ? undefined : portNamingGap(expected, actual, naming);
  const verdict = { tables, groups, expectedFlows: expected.flows.length, matched, mismatchedBy, naming, ok };
  return gap ? { ...verdict, portNamingGap: gap } : verdict;
}

/** A diff of the expectation (the first dump) with the dump, read as a verdict. */
function verdictOf<T, C>(d: Changes<T, C>, unexpected: boolean): Verified<T, C> {
  return { missing: d.removed, mismatched: d.changed, unexpected: unexpected ? d.added : [] };
}

/** How many expected things a verdict finds missing or otherwise, and how many unexpected. */
export function verdictSize(v: Verified<unknown, unknown>): number {
  return v.missing.length + v.mismatched.length + v.unexpected.length;
}
