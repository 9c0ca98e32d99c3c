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
  tables: {
    number: number | null;
    name: string | null;
    profileName: string | null;
    known: boolean;
    otherReleases: string | null;
    flows: number;
    packets: string | null;
    bytes: string | null;
    next: string[];
    miss: string;
    missDiffers: boolean;
  }[];
  missing: { number: number | null; name: string }[];
  unknown: string[];
  otherReleases: { name: string; releases: string }[];
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
  // Uplink and IPv6 tables exist only with an uplink on the bridge or IPv6 Pods: not missing here.
  assert.deepEqual(j.missing, []);
  assert.deepEqual(j.unknown, []);
});

test('tables: counters add up exactly past 2^53, and next tables are listed as match order first meets them', async () => {
  const stats = (packets: string, bytes: string): string =>
    `cookie=0x0, duration=1.0s, table=0, n_packets=${packets}, n_bytes=${bytes}, `;
  const dump = [
    // Dump order puts the low-priority flows first; match order puts the priority-300 flow's tables first.
    `${stats('4503599627370497', '9007199254740993')}priority=100,ip actions=resubmit(,9),goto_table:5`,
    `${stats('4503599627370497', '1')}priority=100,arp actions=goto_table:7`,
    `${stats('1', '18446744073709551615')}priority=300,tcp actions=resubmit(,8),goto_table:5`,
    `${stats('?', '?')}priority=0 actions=drop`,
  ].join('\n');
  const r = await runCli(['tables', '-', '--profile', 'generic', '--json'], { stdin: dump });
  assert.equal(r.status, 0, r.stderr);
  const t0 = (JSON.parse(r.stdout) as TablesJson).tables.find((t) => t.number === 0)!;
  assert.equal(t0.packets, String(4503599627370497n * 2n + 1n));
  assert.equal(t0.bytes, String(9007199254740993n + 1n + 18446744073709551615n));
  assert.deepEqual(t0.next, ['table 8', 'table 5', 'table 9', 'table 7']);
  assert.equal(t0.miss, 'drop');
});

test('tables: names from a --names dump, tables the profile does not know, miss flows that disagree', async () => {
  const text =
    readFileSync(join(antrea, 'dump-flows.of13.names.txt'), 'utf8') +
    ' cookie=0x0, table=7, priority=0 actions=drop\n table=ConntrackZone, priority=0 actions=drop\n';
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

test('a --names dump: every report calls each table by the name the dump gives it', async () => {
  const named = join(antrea, 'dump-flows.of13.names.txt');
  const j = JSON.parse((await runCli(['tables', named, '--json'])).stdout) as TablesJson;
  // The profile's names of the dump's tables, where the dump calls them otherwise (SpoofGuardTable for SpoofGuard).
  const profileNames = j.tables.flatMap((t) => (t.profileName === null ? [] : [t.profileName]));
  assert.ok(
    profileNames.includes('SpoofGuardTable') && profileNames.includes('ConntrackTable'),
    profileNames.join(', '),
  );
  assert.deepEqual(j.tables.find((t) => t.name === 'Classification')!.next, ['SpoofGuard', 'ConntrackZone']);
  assert.equal(j.tables.find((t) => t.name === 'ConntrackState')!.miss, 'goto DNAT');
  const packet =
    'in_port=coredns5-8ec607,ip,dl_src=12:9e:a6:47:d0:70,nw_src=10.10.0.2,nw_dst=10.10.0.3,dl_dst=ba:a8:13:ca:ed:cf';
  const reports: Record<string, string[]> = {
    tables: ['tables', named],
    show: ['show', named],
    check: ['check', named],
    graph: ['graph', named, '--format', 'dot'],
    conj: ['conj', named],
    trace: ['trace', named, packet],
  };
  for (const [what, args] of Object.entries(reports)) {
    const r = await runCli(args);
    assert.ok(r.stdout.length > 200, `${what}: ${r.stderr}`);
    // show names the profile's table once, beside the dump's name in the table's heading.
    const text = r.stdout.replace(/ \(the profile's \w+\)/g, '');
    const mixed = profileNames.filter((n) => new RegExp(`\\b${n}\\b`).test(text));
    assert.deepEqual(mixed, [], `${what} uses the profile's names`);
  }
  const show = (await runCli(['show', named, '-T', 'SpoofGuard'])).stdout;
  assert.match(show, /\ntable 10 SpoofGuard \(the profile's SpoofGuardTable\) — Rejects /);
  assert.match(show, /\n {2}\[0\] Packets no other flow of SpoofGuard matches are dropped\.\n/);
});

test('a table the dump holds under a name of another release is not missing, and says where the profile has it', async () => {
  const r = await runCli(['tables', join(antrea, 'dump-flows.of13.names.txt'), '--json', '--release', '1.2']);
  const j = JSON.parse(r.stdout) as TablesJson;
  // Release 1.2 has SNAT in table 71; the dump's table 71 is L3DecTTL, a table of 0.13.
  // Uplink and IPv6 exist only with an uplink on the bridge and IPv6 Pods: never missing.
  assert.deepEqual(
    j.missing.map((m) => m.name),
    ['IPTTLDecTable'],
  );
  const t71 = j.tables.find((t) => t.name === 'L3DecTTL')!;
  assert.equal(t71.number, 71);
  assert.equal(t71.known, false);
  assert.equal(t71.otherReleases, 'release 0.13');
  // The summary says of it what its row says: the profile has it, in another release.
  assert.deepEqual(j.unknown, []);
  assert.deepEqual(j.otherReleases, [{ name: 'L3DecTTL', releases: t71.otherReleases }]);
  const text = (await runCli(['tables', join(antrea, 'dump-flows.of13.names.txt'), '--release', '1.2'])).stdout;
  assert.match(text, /│ 71 +│ L3DecTTL \(profile: only in release 0\.13\) +│/);
  assert.match(
    text,
    /\nTables of the dump that antrea-v1 has only in other releases than 1\.2: L3DecTTL \(release 0\.13\)\n?$/,
  );
  assert.doesNotMatch(text, /does not know/);
  const show = (await runCli(['show', join(antrea, 'dump-flows.of13.names.txt'), '--release', '1.2', '-T', 'L3DecTTL']))
    .stdout;
  assert.match(show, /\[200\] \? table L3DecTTL is a table of antrea-v1 only in release 0\.13\n/);
});

test('tables: tables the profile does not know apart from those it has only in other releases, in text and JSON', async () => {
  const text =
    readFileSync(join(antrea, 'dump-flows.of13.names.txt'), 'utf8') + ' cookie=0x0, table=7, priority=0 actions=drop\n';
  const args = ['tables', '-', '--profile', 'antrea-v1', '--release', '1.2'];
  const j = JSON.parse((await runCli([...args, '--json'], { stdin: text })).stdout) as TablesJson;
  // Each table in the one list its row puts it in: not in the profile, or only in other releases.
  const rows = j.tables.filter((t) => !t.known);
  assert.deepEqual(
    j.unknown,
    rows.filter((t) => t.otherReleases === null).map((t) => t.name ?? String(t.number)),
  );
  assert.deepEqual(
    j.otherReleases,
    rows.flatMap((t) => (t.otherReleases === null ? [] : [{ name: t.name!, releases: t.otherReleases }])),
  );
  assert.deepEqual([j.unknown, j.otherReleases.map((t) => t.name)], [['7'], ['L3DecTTL']]);
  const lines = (await runCli(args, { stdin: text })).stdout.trimEnd().split('\n');
  assert.deepEqual(lines.slice(-2), [
    'Tables of the dump that antrea-v1 does not know: 7',
    'Tables of the dump that antrea-v1 has only in other releases than 1.2: L3DecTTL (release 0.13)',
  ]);
});

test('tables: the OpenShift SDN example, text golden', async () => {
  const r = await runCli(['tables', join(sdn, 'dump-flows.of13.txt'), '--ports', join(sdn, 'show.of13.txt')]);
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /\u001b\[/);
  assertGolden('tables-openshift-sdn.txt', r.stdout);
});
