import assert from 'node:assert/strict';
import { resolveTable } from '../../src/analysis/fit/pattern-fit.ts';
import { jumpTargets } from '../../src/model/flow-exits.ts';
import type { Flow } from '../../src/model/flow.ts';
import type { Profile } from '../../src/profiles/types.ts';
import { inVersion } from '../../src/profiles/versions.ts';

/**
 * Asserts that every jump of every flow lands in a table the profile knows in that release, along
 * an edge the profile documents (its `next` tables, its miss target, or itself); returns the flows
 * whose own table the profile does not know.
 */
export function flowsOutsideProfile(profile: Profile, flows: readonly Flow[], version: string): string[] {
  const unknown: string[] = [];
  for (const flow of flows) {
    const table = resolveTable(profile, flow.table, version);
    if (!table) {
      unknown.push(flow.origin.text);
      continue;
    }
    assert.ok(inVersion(table, version), `${table.name} is not in ${version}`);
    for (const ref of jumpTargets(flow.actions)) {
      const to = resolveTable(profile, ref, version);
      assert.ok(to, `${flow.origin.text}: jump to unknown table`);
      const edge =
        table.next.includes(to.name) || (table.miss.action === 'goto' && table.miss.table === to.name) || to === table;
      assert.ok(edge, `${table.name} → ${to.name} is not a documented edge (${flow.origin.text})`);
    }
  }
  return unknown;
}
