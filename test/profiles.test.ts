import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fieldByName } from '../src/model/fields.ts';
import { parseIpv4, parseIpv6, parseMac } from '../src/model/values.ts';
import { PROFILES, profileById } from '../src/profiles/index.ts';
import { TEMPLATE_WORDS } from '../src/profiles/types.ts';
import type { ActionHint, Versioned } from '../src/profiles/types.ts';
import { compareVersions, inVersion, versionsOverlap } from '../src/profiles/versions.ts';
import {
  fits,
  isTableMiss,
  parsePattern,
  resolveTable,
  tableByKey,
  valueHint,
} from '../src/analysis/fit/pattern-fit.ts';
import { jumpTargets } from '../src/model/flow-exits.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { corpusDir } from './support/paths.ts';
import { flowsOutsideProfile } from './support/profile-edges.ts';

function versionText(v: Versioned): string {
  return `${v.since ?? '…'}–${v.until ?? '…'}`;
}

test('registry: unique ids, lookup by id', () => {
  const ids = PROFILES.map((p) => p.id);
  assert.deepEqual([...new Set(ids)], ids);
  for (const id of ['antrea', 'antrea-v1', 'antrea-cnp', 'antrea-proxy', 'antrea-policy-only'])
    assert.equal(profileById(id)?.id, id);
  assert.equal(profileById('nope'), undefined);
});

test('versions compare numerically', () => {
  assert.ok(compareVersions('1.10', '1.9') > 0);
  assert.ok(inVersion({ since: '1.0', until: '1.5' }, '1.5'));
  assert.ok(!inVersion({ since: '1.0', until: '1.5' }, '1.6'));
  assert.ok(!versionsOverlap({ until: '0.13' }, { since: '1.0' }));
  assert.ok(versionsOverlap({ since: '1.4' }, { until: '1.4' }));
});

for (const profile of PROFILES) {
  test(`${profile.id}: version bounds are ordered`, () => {
    const items: Versioned[] = [
      profile.versions,
      ...profile.tables,
      ...profile.bitFields,
      ...profile.tables.flatMap((t) => t.patterns),
    ];
    for (const v of items) if (v.since && v.until) assert.ok(compareVersions(v.since, v.until) <= 0, versionText(v));
  });

  test(`${profile.id}: table names and numbers are unique, references resolve`, () => {
    const keys = profile.tables.flatMap((t) => [t.name, ...(t.aliases ?? [])]);
    assert.deepEqual(
      keys.filter((k, i) => keys.indexOf(k) !== i),
      [],
      'names and aliases used twice',
    );
    for (const [i, a] of profile.tables.entries()) {
      if (profile.tableNaming === 'number') assert.ok(a.number !== undefined, `${a.name} has no number`);
      for (const b of profile.tables.slice(i + 1)) {
        if (a.number !== undefined && a.number === b.number)
          assert.ok(!versionsOverlap(a, b), `${a.name} and ${b.name} share number ${a.number}`);
      }
      for (const n of a.next)
        assert.ok(
          profile.tables.some((t) => t.name === n),
          `${a.name}: next ${n} is not a table`,
        );
      if (a.miss.action === 'goto')
        assert.ok(
          profile.tables.some((t) => t.name === (a.miss as { table: string }).table),
          `${a.name}: miss target`,
        );
    }
    for (const layout of profile.layouts ?? []) {
      assert.equal(new Set(layout.tables).size, layout.tables.length, `${layout.id} repeats a table`);
      for (const t of layout.tables)
        assert.ok(
          profile.tables.some((s) => s.name === t),
          `${layout.id}: ${t} is not a table`,
        );
    }
  });

  test(`${profile.id}: bit fields fit their fields and overlap only where declared`, () => {
    const names = new Set(profile.bitFields.map((b) => b.name));
    for (const [i, b] of profile.bitFields.entries()) {
      const def = fieldByName(b.field);
      assert.ok(def, `${b.name}: unknown field ${b.field}`);
      assert.ok(
        b.start >= 0 && b.start <= b.end && b.end < def.bits,
        `${b.name}: ${b.field}[${b.start}..${b.end}] outside ${def.bits} bits`,
      );
      for (const v of b.values ?? [])
        assert.ok(v.value < 1n << BigInt(b.end - b.start + 1), `${b.name}: value ${v.name} too wide`);
      for (const s of b.sharesBitsWith ?? []) assert.ok(names.has(s), `${b.name}: shares bits with unknown ${s}`);
      if (b.tables) {
        assert.ok(b.sharesBitsWith?.length, `${b.name}: only readings that share bits are scoped to tables`);
        assert.ok(
          b.tables.some((t) => tableByKey(profile, t)),
          `${b.name}: none of its tables is a table of ${profile.id}`,
        );
        const product = PROFILES.filter((p) => p.product === profile.product);
        for (const t of b.tables)
          assert.ok(
            product.some((p) => tableByKey(p, t)),
            `${b.name}: ${t} is no ${profile.product} table`,
          );
      }
      for (const c of profile.bitFields.slice(i + 1)) {
        if (!versionsOverlap(b, c)) continue;
        assert.ok(b.name !== c.name, `${b.name} defined twice for the same releases`);
        if (b.field !== c.field || b.end < c.start || c.end < b.start) continue;
        const declared = (b.sharesBitsWith ?? []).includes(c.name) || (c.sharesBitsWith ?? []).includes(b.name);
        assert.ok(declared, `${b.name} and ${c.name} overlap in ${b.field}`);
      }
    }
    for (const [i, a] of (profile.cookie ?? []).entries()) {
      assert.ok(a.start <= a.end && a.end < 64, a.name);
      for (const b of (profile.cookie ?? []).slice(i + 1))
        assert.ok(a.end < b.start || b.end < a.start || !versionsOverlap(a, b), `${a.name}/${b.name}`);
    }
  });

  test(`${profile.id}: addresses, port patterns and detection signals are well formed`, () => {
    for (const a of profile.addresses) {
      const [addr, prefix] = a.address.split('/');
      const ok = a.kind === 'mac' ? parseMac(addr!) : a.kind === 'ipv4' ? parseIpv4(addr!) : parseIpv6(addr!);
      assert.ok(ok !== undefined, a.address);
      if (prefix !== undefined) assert.ok(Number(prefix) <= (a.kind === 'ipv4' ? 32 : 128), a.address);
    }
    for (const p of profile.ports) if (p.namePattern) assert.doesNotThrow(() => new RegExp(p.namePattern!));
    for (const z of profile.ctZones) assert.ok(z.zone >= 0 && z.zone <= 0xffff, z.name);
    for (const s of profile.detect) {
      if (s.kind === 'port-name' || s.kind === 'note') assert.doesNotThrow(() => new RegExp(s.pattern));
      if (s.kind === 'flow') assert.deepEqual(parsePattern(s.match).problems, [], s.match);
      if (s.kind === 'field-used') assert.ok(fieldByName(s.field), s.field);
    }
    assert.ok(profile.detect.some((s) => s.weight > 0));
  });

  test(`${profile.id}: every pattern parses, names real fields, tables and placeholders`, () => {
    const bitNames = new Set(profile.bitFields.map((b) => b.name));
    const hints: ActionHint[] = [
      ...profile.tables.flatMap((t) => t.patterns.flatMap((p) => p.actions ?? [])),
      ...(profile.groups ?? []).flatMap((g) => g.bucketActions),
    ];
    for (const h of hints) {
      if (h.startsWith('goto:')) assert.ok(tableByKey(profile, h.slice(5)), h);
      // `set:F`, or `set:F=V/M` whose value parses as a match on F.
      if (h.startsWith('set:') && !h.includes('=')) assert.ok(fieldByName(h.slice(4)), h);
      if (h.startsWith('set:') && h.includes('='))
        assert.ok(valueHint(h) && parsePattern(h.slice(4)).problems.length === 0, h);
    }
    for (const t of profile.tables) {
      for (const p of t.patterns) {
        assert.deepEqual(parsePattern(p.match).problems, [], `${t.name}: ${p.match}`);
        for (const f of p.fields ?? []) assert.ok(fieldByName(f), `${t.name}: field ${f}`);
        for (const [, ph, fallback] of p.meaning.matchAll(/\{([^}|]+)(?:\|([^}]*))?\}/g)) {
          // Words for an absent value are words, never empty.
          if (fallback !== undefined) assert.match(fallback, /\S/, `${t.name}: placeholder {${ph}|} in “${p.meaning}”`);
          const known =
            ph! in TEMPLATE_WORDS ||
            fieldByName(ph!) !== undefined ||
            (ph!.startsWith('reg.') && bitNames.has(ph!.slice(4))) ||
            (ph!.startsWith('set.') && fieldByName(ph!.slice(4)) !== undefined);
          assert.ok(known, `${t.name}: placeholder {${ph}} in “${p.meaning}”`);
        }
      }
    }
  });
}

/** The corpus listings and the profile (and release) each one documents. */
const LISTINGS: readonly { file: string; profile: string; version: string }[] = [
  { file: 'antrea-ovs-pipeline-doc-v1.0.0.flows.txt', profile: 'antrea-v1', version: '1.0' },
  // The document's ConntrackCommit flow is that of 2.5 and later (ct_mark bit 5).
  { file: 'antrea-ovs-pipeline-doc-HEAD.flows.txt', profile: 'antrea', version: '2.5' },
  { file: 'antrea-ovs-pipeline-doc-HEAD.groups.txt', profile: 'antrea', version: '2.5' },
  { file: 'antrea-pipeline_test-ipv4-encap.txt', profile: 'antrea', version: '2.7' },
  { file: 'antrea-pipeline_test-ipv4-encap-egresstrafficshaping.txt', profile: 'antrea', version: '2.7' },
  { file: 'antrea-pipeline_test-ipv4-externalnode.txt', profile: 'antrea', version: '2.7' },
  { file: 'antrea-pipeline_test-ipv4-noencap-bridging.txt', profile: 'antrea', version: '2.7' },
  { file: 'antrea-pipeline_test-ipv6-encap.txt', profile: 'antrea', version: '2.7' },
];

for (const { file, profile: id, version } of LISTINGS) {
  const profile = profileById(id)!;
  const dump = parseDump(readFileSync(join(corpusDir, file), 'utf8'), { file });

  test(`${file}: every flow and jump lands in a table ${id} knows, along a documented edge`, () => {
    assert.ok(dump.flows.length + dump.groups.length > 0);
    // A learn() target is not a jump; SessionAffinity is filled by ServiceLB.
    const unknown = flowsOutsideProfile(profile, dump.flows, version);
    assert.deepEqual(unknown, []);
    for (const g of dump.groups) {
      for (const b of g.buckets)
        for (const ref of jumpTargets(b.actions)) assert.ok(resolveTable(profile, ref, version), `group ${g.id}`);
    }
  });

  test(`${file}: every flow other than a table miss fits one of its table's patterns`, () => {
    const unexplained: string[] = [];
    for (const flow of dump.flows) {
      if (isTableMiss(flow)) continue;
      const table = resolveTable(profile, flow.table, version);
      if (!table || !table.patterns.some((p) => fits(profile, p, flow, version))) unexplained.push(flow.origin.text);
    }
    assert.deepEqual(unexplained, []);
  });
}
