/**
 * Reading a profile from YAML: defaults, releases and bigints as written, extends with per-table
 * overrides, anchors and merge keys, and each kind of mistake as a problem at its line and column.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadProfileFile, parseProfileText, profileById } from '../src/profiles/index.ts';
import { repoRoot } from './support/paths.ts';

const MINIMAL = `id: mine
title: My pipeline
product: In-house SDN
description: Two tables.
tableNaming: number
tables:
  - number: 0
    name: Classifier
    purpose: Sorts packets by input port.
    miss: { action: drop }
    next: [Forward]
    patterns:
      - match: in_port=1
        meaning: Packets from the uplink continue in {next}.
  - number: 1
    name: Forward
    purpose: Forwards.
    miss: { action: normal }
    next: []
    patterns: []
bitFields:
  - { field: reg0, start: 0, end: 3, name: Source, meaning: where the packet came from, format: enum,
      values: [{ value: 0x1, name: Uplink, meaning: from the uplink }] }
`;

test('profile files: a complete profile reads with its defaults, releases as written and values as bigints', () => {
  const r = parseProfileText(`${MINIMAL}versions: { since: 1.10 }\n`, 'mine.yaml');
  assert.deepEqual(r.problems, []);
  const p = r.profile!;
  assert.deepEqual(p.versions, { since: '1.10' });
  assert.deepEqual(p.ctZones, []);
  assert.deepEqual(p.detect, []);
  assert.equal(p.bitFields[0]!.values![0]!.value, 1n);
  assert.deepEqual(
    p.tables.map((t) => [t.number, t.name, t.miss]),
    [
      [0, 'Classifier', { action: 'drop' }],
      [1, 'Forward', { action: 'normal' }],
    ],
  );
});

test('profile files: extends keeps the base, replaces the keys given, overrides tables by name and from', () => {
  const text = `id: antrea-v1-mine
extends: antrea-v1
title: A variant
tables:
  - ClassifierTable
  - name: SpoofGuardTable
    next: [ConntrackTable]
    aliases: null
  - name: MyRules
    from: EgressRuleTable
    number: 51
  - name: Brand new
    purpose: Its own.
    miss: { action: none }
`;
  const r = parseProfileText(text, 'variant.yaml');
  assert.deepEqual(r.problems, []);
  const base = profileById('antrea-v1')!;
  const p = r.profile!;
  assert.equal(r.extends, 'antrea-v1');
  assert.equal(p.title, 'A variant');
  assert.equal(p.description, base.description);
  assert.equal(p.bitFields, base.bitFields);
  assert.deepEqual(
    p.tables.map((t) => t.name),
    ['ClassifierTable', 'SpoofGuardTable', 'MyRules', 'Brand new'],
  );
  const spoof = p.tables[1]!;
  const baseSpoof = base.tables.find((t) => t.name === 'SpoofGuardTable')!;
  assert.deepEqual(spoof.next, ['ConntrackTable']);
  assert.equal(spoof.aliases, undefined);
  assert.equal(spoof.patterns, baseSpoof.patterns);
  const mine = p.tables[2]!;
  const egress = base.tables.find((t) => t.name === 'EgressRuleTable')!;
  assert.equal(mine.number, 51);
  assert.equal(mine.patterns, egress.patterns);
  assert.deepEqual(p.tables[3], {
    name: 'Brand new',
    purpose: 'Its own.',
    miss: { action: 'none' },
    next: [],
    patterns: [],
  });
});

test('profile files: anchors, merge keys and spliced lists are read as YAML means them', () => {
  const shared =
    'shared:\n  common: &common [{ match: ip, meaning: "IP packets continue in {next}." }]\n  base: &base { purpose: Shared., miss: { action: drop } }\n';
  const third =
    '  - <<: *base\n    number: 2\n    name: Third\n    patterns: [{ match: tcp, meaning: TCP. }, *common]\n';
  const text = MINIMAL.replace('tables:\n', `${shared}tables:\n`).replace('bitFields:\n', `${third}bitFields:\n`);
  const r = parseProfileText(text, 'anchors.yaml');
  assert.deepEqual(r.problems, []);
  const table = r.profile!.tables[2]!;
  assert.equal(table.purpose, 'Shared.');
  assert.deepEqual(table.miss, { action: 'drop' });
  assert.deepEqual(
    table.patterns.map((p) => p.match),
    ['tcp', 'ip'],
  );
});

test('profile files: each kind of mistake is a problem at its line and column, and nothing throws', () => {
  const problem = (text: string): string[] =>
    parseProfileText(text, 'bad.yaml').problems.map(
      (p) => `${p.file}:${p.line}:${p.col}: ${p.path ? `${p.path}: ` : ''}${p.message}`,
    );
  // An unknown key, named at the key.
  assert.deepEqual(problem(MINIMAL.replace('    purpose: Forwards.', '    purpose: Forwards.\n    purpouse: typo')), [
    'bad.yaml:18:5: tables[1].purpouse: unknown key purpouse (known here: name, from, number, aliases, purpose, miss, next, stage, requires, servicesOnly, expectedWith, patterns, since, until)',
  ]);
  // A value outside its set, at the value; the miss's own kind of mistake, not every alternative's.
  assert.deepEqual(problem(MINIMAL.replace('{ action: normal }', '{ action: flood }')), [
    'bad.yaml:18:11: tables[1].miss: expected action: drop, action: next, action: normal, action: controller, action: none, action: goto, action: custom',
  ]);
  assert.deepEqual(problem(MINIMAL.replace('{ action: normal }', '{ action: goto }')), [
    'bad.yaml:18:11: tables[1].miss: table is missing',
  ]);
  // A missing key of a pattern, at its mapping.
  assert.deepEqual(problem(MINIMAL.replace('        meaning: Packets from the uplink continue in {next}.\n', '')), [
    'bad.yaml:13:9: tables[0].patterns[0]: meaning is missing',
  ]);
  // A wrong type, and a release that is no release.
  assert.deepEqual(problem(`${MINIMAL}ctZones: [{ zone: big, name: Z, meaning: z }]\nversions: { until: 1.x }\n`), [
    'bad.yaml:24:19: ctZones[0].zone: expected a integer, found a string',
    'bad.yaml:25:20: versions.until: "1.x" does not have the form ^[0-9]+(\\.[0-9]+)*$',
  ]);
  // A missing key of the profile once nothing supplies it.
  assert.deepEqual(problem(MINIMAL.replace('title: My pipeline\n', '')), [
    'bad.yaml:1:1: the profile lacks title (and extends none that gives it)',
  ]);
  // extends and from that name nothing.
  assert.deepEqual(problem('id: x\nextends: nowhere\n'), ['bad.yaml:2:10: extends: no profile nowhere to extend']);
  assert.deepEqual(problem('id: x\nextends: generic\ntables:\n  - Nowhere\n  - { name: T, from: Gone }\n'), [
    'bad.yaml:4:5: tables[0]: generic has no table Nowhere',
    'bad.yaml:5:22: tables[1].from: generic has no table Gone',
  ]);
  // YAML that does not parse, and a file that is not there.
  assert.match(problem('id: [x\n')[0]!, /^bad\.yaml:2:1: /);
  assert.deepEqual(problem(''), ['bad.yaml:1:1: expected a mapping, found nothing']);
  const missing = loadProfileFile(join(repoRoot, 'no-such-profile.yaml'));
  assert.equal(missing.profile, undefined);
  assert.match(missing.problems[0]!.message, /^cannot read the profile: no such file/);
});

test('profile files: the example profile of docs/profiles.md reads without a problem', () => {
  const doc = readFileSync(join(repoRoot, 'docs', 'profiles.md'), 'utf8');
  const example = /## A small profile\n\n```yaml\n([\s\S]*?)```/.exec(doc)![1]!;
  const r = parseProfileText(example, 'docs/profiles.md');
  assert.deepEqual(r.problems, []);
  assert.deepEqual(
    r.profile!.tables.map((t) => t.name),
    ['Classifier', 'Forward'],
  );
  assert.equal(r.profile!.bitFields[0]!.values![1]!.value, 2n);
});
