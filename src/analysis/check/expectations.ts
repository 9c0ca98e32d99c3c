/**
 * What the profile says each of its tables must hold: a priority-0 miss flow wherever the
 * documentation gives the table a miss behaviour, and the flows it marks `expected`.
 */
import type { Flow } from '../../model/flow.ts';
import type { Pipeline } from '../../model/pipeline.ts';
import type { Profile } from '../../profiles/types.ts';
import { inVersion } from '../../profiles/versions.ts';
import { fits, isTableMiss, resolveTable } from '../fit/pattern-fit.ts';
import type { Finding } from './finding.ts';

/**
 * Whether a flow of the table (in match order) passes `test`, asked from the lowest priority up:
 * the flows asked about here, miss flows, sit last, after every other flow of a large table.
 */
function someFromLast(flows: readonly Flow[], test: (f: Flow) => boolean): boolean {
  for (let i = flows.length - 1; i >= 0; i--) if (test(flows[i]!)) return true;
  return false;
}

export function findMissingExpected(pipeline: Pipeline, profile: Profile, release: string): Finding[] {
  const out: Finding[] = [];
  for (const table of pipeline.tables.values()) {
    const spec = resolveTable(profile, table.ref, release);
    if (!spec) continue;
    // A miss described in words may be several priority-0 flows (one per protocol, as in OpenShift SDN).
    // A flow with an empty match at any priority leaves no packet to a miss flow.
    const catchAll = someFromLast(table.flows, (f) => f.match.fields.length === 0);
    const hasMiss =
      catchAll ||
      (spec.miss.action === 'custom'
        ? someFromLast(table.flows, (f) => f.priority === 0)
        : someFromLast(table.flows, isTableMiss));
    if (spec.miss.action !== 'none' && !hasMiss) {
      // Without a miss flow an OpenFlow 1.3+ switch drops, so a documented drop only loses the explicit flow.
      out.push({
        kind: 'no-table-miss',
        severity: spec.miss.action === 'drop' ? 'warning' : 'error',
        table: table.ref,
        flows: [],
        spec,
      });
    }
    for (const pattern of spec.patterns) {
      if (!pattern.expected || !inVersion(pattern, release)) continue;
      if (table.given.some((f) => fits(profile, pattern, f, release))) continue;
      out.push({ kind: 'missing-expected', severity: 'error', table: table.ref, flows: [], spec, pattern });
    }
  }
  return out;
}
