/**
 * Layout and release choice fit one flow per class of flows the profile's patterns cannot tell
 * apart. The classes must be exact: every flow of a class gets the verdict of the one fitted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DumpParameters, writeDump } from '../bench/generate.ts';
import { classKeyer, fitClasses } from '../src/analysis/fit/fit-classes.ts';
import { defaultRelease, findPattern, misfitCount, resolveTable } from '../src/analysis/fit/pattern-fit.ts';
import { numberTables } from '../src/analysis/fit/table-layout.ts';
import { type Flow, withActions } from '../src/model/flow.ts';
import { PROFILES } from '../src/profiles/index.ts';
import type { Profile } from '../src/profiles/types.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { corpusDir } from './support/paths.ts';

/** Every profile as detection reads it: as it is, and a named one in each of its layouts. */
const readings: readonly Profile[] = PROFILES.flatMap((p) => [p, ...(p.layouts ?? []).map((l) => numberTables(p, l))]);

/** The releases a profile is fitted in: its first, its last, and a few its items name. */
function releases(p: Profile): string[] {
  const named = [p.versions, ...p.tables]
    .flatMap((v) => [v.since, v.until])
    .filter((r): r is string => r !== undefined);
  return [...new Set([...named, defaultRelease(p)])];
}

/** The flows of a dump the bench's generator writes (to a directory removed once it is read). */
function syntheticFlows(params: DumpParameters): readonly Flow[] {
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-fit-classes-'));
  try {
    const path = join(dir, 'dump.txt');
    writeDump(path, params);
    return parseDump(readFileSync(path, 'utf8'), { file: path }).flows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What fitting says of one flow: its misfits and the pattern it fits. */
function verdict(p: Profile, flow: Flow, release: string): string {
  const table = resolveTable(p, flow.table, release);
  return `${misfitCount(p, flow, release)}/${table ? (findPattern(p, table, flow, release)?.index ?? 'none') : 'no table'}`;
}

function assertExact(flows: readonly Flow[], what: string): void {
  for (const p of readings) {
    const classes = fitClasses(p, flows);
    assert.equal(
      classes.reduce((n, c) => n + c.count, 0),
      flows.length,
      `${what}: every flow is in a class`,
    );
    for (const release of releases(p)) {
      // Each flow's verdict is that of its class's flow: the counts by verdict agree.
      const byFlow = new Map<string, number>();
      for (const f of flows) {
        const v = `${f.table.kind === 'number' ? f.table.number : f.table.name} ${verdict(p, f, release)}`;
        byFlow.set(v, (byFlow.get(v) ?? 0) + 1);
      }
      const byClass = new Map<string, number>();
      for (const c of classes) {
        const f = c.flow;
        const v = `${f.table.kind === 'number' ? f.table.number : f.table.name} ${verdict(p, f, release)}`;
        byClass.set(v, (byClass.get(v) ?? 0) + c.count);
      }
      assert.deepEqual(byClass, byFlow, `${what}, ${p.id}${p.numbering ? ` (${p.numbering})` : ''} in ${release}`);
    }
  }
}

test('classes of the corpus listings give every flow its own verdict', () => {
  for (const name of readdirSync(corpusDir).filter((n) => n.endsWith('.txt'))) {
    const { flows } = parseDump(readFileSync(join(corpusDir, name), 'utf8'), { file: name });
    assertExact(flows, name);
  }
});

test('a synthetic node of thousands of policy and Service flows falls into few exact classes', () => {
  const flows = syntheticFlows({ flows: 3000, seed: 3 });
  assertExact(flows, 'synthetic dump');
  const antrea = PROFILES.find((p) => p.id === 'antrea')!;
  const classes = fitClasses(antrea, flows).length;
  assert.ok(classes * 5 < flows.length, `${classes} classes for ${flows.length} flows`);
});

test("a lazily read flow's class key, taken from its outline, is that of the same flow read whole", () => {
  const flows = syntheticFlows({ flows: 3000, seed: 5 });
  const outlined = flows.filter((f) => f.outline !== undefined && !f.outline.shaped);
  assert.ok(outlined.length > 1000, `${outlined.length} flows read from outlines`);
  assert.ok(outlined.some((f) => f.outline?.actions === 'conjunctions' && f.outline.entry >= 0));
  for (const p of readings) {
    const [lazy, whole] = [classKeyer(p), classKeyer(p)];
    for (const f of outlined) assert.equal(lazy(f), whole(withActions(f, f.actions)), `${p.id}: ${f.origin.text}`);
  }
});

test("a lazily read flow of a shape is in the class of the same flow read whole, read from its shape's first line where no pattern reads the values its numbers hold", () => {
  const flows = syntheticFlows({ flows: 3000, seed: 5 });
  const shaped = flows.filter((f) => f.outline?.shaped === true);
  assert.ok(shaped.length > 100, `${shaped.length} flows of a shape`);
  const unread = (f: Flow, parts: readonly ('match' | 'actions')[]): Flow => {
    const read = (): never => assert.fail(`read: ${f.origin.text}`);
    return Object.create(f, Object.fromEntries(parts.map((part) => [part, { get: read }]))) as Flow;
  };
  for (const p of readings) {
    const [lazy, whole] = [classKeyer(p), classKeyer(p)];
    // Each class of the lazily read flows is within one class of the flows read whole; a line whose
    // actions write other values than its shape's line may be a class of its own (see writtenNumbers).
    const wholeKeys = new Map<string, string>();
    let same = 0;
    for (const f of shaped) {
      const key = lazy(f);
      const wholeKey = whole(withActions(f, f.actions));
      assert.equal(wholeKeys.get(key) ?? wholeKey, wholeKey, `${p.id}: ${f.origin.text}`);
      wholeKeys.set(key, wholeKey);
      if (key === wholeKey) same++;
    }
    assert.ok(same > shaped.length / 2, `${p.id}: ${same} of ${shaped.length} keys as read whole`);
  }
  // Conjunction ids, ct_label values and registers no Antrea pattern reads: none of those flows is read.
  const antrea = classKeyer(PROFILES.find((p) => p.id === 'antrea')!);
  const spared = shaped.filter((f) =>
    [...f.outline!.varying!].every((s) => ['conj_id', 'ct_label', 'reg5', 'reg6'].includes(s)),
  );
  assert.ok(spared.length > 0);
  for (const f of spared) antrea(unread(f, ['match', 'actions']));
  // What the actions write is told by the numbers that give it: no line's actions are read again.
  for (const f of shaped) antrea(unread(f, ['actions']));
});

test('flows that differ where a pattern looks are in different classes', () => {
  const antrea = PROFILES.find((p) => p.id === 'antrea')!;
  const { flows } = parseDump(
    [
      'table=0,priority=200,ip,nw_dst=224.0.0.5 actions=conjunction(1,1/2)',
      'table=0,priority=200,ip,nw_dst=10.0.0.5 actions=conjunction(2,1/2)',
      'table=0,priority=200,ip,nw_dst=10.0.0.6 actions=conjunction(3,1/2),conjunction(4,2/2)',
      'table=0,priority=200,ip,nw_dst=10.0.0.6 actions=goto_table:1',
      'table=0,priority=200,ip,nw_dst=10.0.0.6 actions=resubmit(,2)',
      'table=0,priority=200,ip,nw_dst=10.0.0.6 actions=set_field:0x1->reg1,goto_table:1',
      'table=0,priority=200,ip,nw_dst=10.0.0.6 actions=set_field:0x2->reg1,goto_table:1',
      'table=0,priority=201,ip,nw_dst=10.0.0.6 actions=goto_table:1',
    ].join('\n'),
    { file: 'classes' },
  );
  const classes = fitClasses(antrea, flows);
  // 224/4 is multicast, which patterns look for; conjunction ids and register values written are not looked at.
  assert.deepEqual(
    classes.map((c) => c.count),
    [1, 2, 1, 1, 2, 1],
  );
});
