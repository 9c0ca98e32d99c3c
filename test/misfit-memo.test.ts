/**
 * Detection counts a flow's misfits once per reading of it (MisfitMemo): layouts and releases
 * that read a flow alike share the count. A reading told too coarsely would give one layout or
 * release another's verdict; the memo must answer as misfitCount does in every one of them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fitClasses } from '../src/analysis/fit/fit-classes.ts';
import { MisfitMemo } from '../src/analysis/fit/misfit-memo.ts';
import { defaultRelease, misfitCount } from '../src/analysis/fit/pattern-fit.ts';
import { numberTables } from '../src/analysis/fit/table-layout.ts';
import type { Flow } from '../src/model/flow.ts';
import { PROFILES } from '../src/profiles/index.ts';
import type { Profile, Versioned } from '../src/profiles/types.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { corpusDir, repoRoot } from './support/paths.ts';

/** Every release a bound of the profile names, and its default: where a reading can change. */
function releases(p: Profile): string[] {
  const items: Versioned[] = [
    p.versions,
    ...p.tables,
    ...p.tables.flatMap((t) => t.patterns),
    ...p.bitFields,
    ...p.ports,
  ];
  const named = items.flatMap((v) => [v.since, v.until]).filter((r): r is string => r !== undefined);
  return [...new Set([...named, defaultRelease(p)])];
}

/** Each profile with one memo for it and its layouts, asked in every layout and release in turn. */
function assertAsCounted(flows: readonly Flow[], what: string): void {
  for (const base of PROFILES) {
    const memo = new MisfitMemo();
    const copies = [base, ...(base.layouts ?? []).map((l) => numberTables(base, l))];
    for (const release of releases(base)) {
      for (const p of copies) {
        for (const { flow } of fitClasses(p, flows))
          assert.equal(
            memo.count(p, flow, release),
            misfitCount(p, flow, release),
            `${what}, ${p.id}${p.numbering ? ` (${p.numbering})` : ''} in ${release}: ${flow.origin.text}`,
          );
      }
    }
  }
}

function listings(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((n) => n.endsWith('.txt'))
    .map((n) => join(dir, n));
}

test("a flow's misfits counted once per reading are misfitCount's in every layout and release", () => {
  const files = [
    ...listings(corpusDir),
    ...listings(join(repoRoot, 'examples')).filter((f) => /dump-flows|[/]flows\.txt$/.test(f)),
  ];
  assert.ok(files.length > 10, `${files.length} listings`);
  for (const file of files) {
    const { flows } = parseDump(readFileSync(file, 'utf8'), { file });
    assertAsCounted(flows, file);
  }
});
