/**
 * `flowscope tables`. The golden file (the OpenShift SDN example) was produced by flowscope and
 * read line by line against the OpenShift SDN centralized SNAT note and the pipeline reference
 * before it was kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertGolden } from './support/golden.ts';
import { runCli } from './support/cli.ts';
import { repoRoot } from './support/paths.ts';

const antrea = join(repoRoot, 'examples', 'antrea');
const sdn = join(repoRoot, 'examples', 'openshift-sdn');

interface TablesJson {
  schemaVersion: number;
  profile: { id: string; release: string };
  tables: { number: number | null; name: string | null; known: boolean; flows: number; packets: string | null; next: string[]; miss: string; missDiffers: boolean }[];
  missing: { number: number | null; name: string; requires: string | null }[];
  unknown: string[];
}

test('tables: one row per table with the flow counts of the add-flows input', async () => {
  const r = await runCli(['tables', join(antrea, 'dump-flows.of10.txt'), '--json']);
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout) as TablesJson;
  assert.equal(j.schemaVersion, 1);
  assert.equal(j.profile.id, 'antrea-v1');
  const counts = new Map<number, number>();
  for (const l of readFileSync(join(antrea, 'flows.txt'), 'utf8').split('\n')) {
    const m = /^table=(\d+),/.exec(l);
    if (m) counts.set(Number(m[1]), (counts.get(Number(m[1])) ?? 0) + 1);
  }
  assert.deepEqual(
    j.tables.map((t) => [t.number, t.flows]),
    [...counts].sort((a, b) => a[0] - b[0]),
  );
  const t31 = j.tables.find((t) => t.number === 31)!;
  assert.equal(t31.name, 'ConntrackStateTable');
  assert.deepEqual(t31.next, ['DNATTable']);
  assert.equal(t31.miss, 'goto DNATTable');
  assert.equal(t31.packets, '0');
  // Table 30 has no priority-0 flow in the document.
  assert.equal(j.tables.find((t) => t.number === 30)!.miss, 'no miss flow');
  // Uplink and IPv6 tables exist only with an uplink on the bridge or IPv6 Pods.
  assert.deepEqual(j.missing.map((m) => m.name), ['UplinkTable', 'IPv6Table']);
  assert.deepEqual(j.unknown, []);
});

test('tables: names from a --names dump, tables the profile does not know, miss flows that disagree', async () => {
  const text = readFileSync(join(antrea, 'dump-flows.of13.names.txt'), 'utf8') + ' cookie=0x0, table=7, priority=0 actions=drop\n table=ConntrackZone, priority=0 actions=drop\n';
  const r = await runCli(['tables', '-', '--json', '--profile', 'antrea-v1', '--release', '0.13'], { stdin: text });
  const j = JSON.parse(r.stdout) as TablesJson;
  assert.deepEqual(j.unknown, ['7']);
  const zone = j.tables.find((t) => t.name === 'ConntrackZone')!;
  assert.equal(zone.number, 30);
  assert.equal(zone.missDiffers, false); // the profile expects no miss flow there
  const classifier = j.tables.find((t) => t.name === 'Classification')!;
  assert.equal(classifier.number, 0);
  assert.equal(classifier.missDiffers, false);
});

test('tables: the OpenShift SDN example, text golden', async () => {
  const r = await runCli(['tables', join(sdn, 'dump-flows.of13.txt'), '--ports', join(sdn, 'show.of13.txt')]);
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /\u001b\[/);
  assertGolden('tables-openshift-sdn.txt', r.stdout);
});
