import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDump } from '../bench/generate.ts';
import { detectProfile, detectRelease } from '../src/analysis/detect/detect-profile.ts';
import { resolveTable } from '../src/analysis/fit/pattern-fit.ts';
import { withActions } from '../src/model/flow.ts';
import { PROFILES, profileById } from '../src/profiles/index.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { corpusDir, repoRoot } from './support/paths.ts';
import { detectionReasonText } from '../src/render/words/profile.ts';

/** Detection's reasons, each in its sentence. */
const said = (reasons: readonly Parameters<typeof detectionReasonText>[0][]): string[] =>
  reasons.map(detectionReasonText);

function detectText(text: string, file: string): ReturnType<typeof detectProfile> {
  const dump = parseDump(text, { file });
  return detectProfile(dump.flows, dump.groups, dump.ports);
}

function detectFile(path: string): ReturnType<typeof detectProfile> {
  return detectText(readFileSync(path, 'utf8'), path);
}

/** Each corpus listing, the profile it documents, and the release range (where the listing pins one). */
const CORPUS: readonly { file: string; profile: string; release?: string }[] = [
  { file: 'antrea-ovs-pipeline-doc-v1.0.0.flows.txt', profile: 'antrea-v1' },
  { file: 'antrea-ovs-pipeline-doc-HEAD.flows.txt', profile: 'antrea' },
  { file: 'antrea-ovs-pipeline-doc-HEAD.groups.txt', profile: 'antrea' },
  { file: 'antrea-pipeline_test-ipv4-encap.txt', profile: 'antrea' },
  { file: 'antrea-pipeline_test-ipv4-encap-egresstrafficshaping.txt', profile: 'antrea' },
  { file: 'antrea-pipeline_test-ipv4-externalnode.txt', profile: 'antrea' },
  { file: 'antrea-pipeline_test-ipv4-noencap-bridging.txt', profile: 'antrea' },
  { file: 'antrea-pipeline_test-ipv6-encap.txt', profile: 'antrea' },
  { file: 'openshift-sdn-3.x-multitenant-real-dump.txt', profile: 'openshift-sdn', release: '3' },
  { file: 'openshift-sdn-expectedFlows-v12.txt', profile: 'openshift-sdn', release: '12' },
  { file: 'openshift-sdn-expectedFlows-v13.txt', profile: 'openshift-sdn', release: '13' },
];

test('the corpus listings are detected as the pipelines they document, with reasons', () => {
  assert.deepEqual(
    readdirSync(corpusDir)
      .filter((f) => f.endsWith('.txt'))
      .sort(),
    CORPUS.map((c) => c.file).sort(),
    'every text listing of the corpus is covered',
  );
  for (const { file, profile, release } of CORPUS) {
    const d = detectFile(join(corpusDir, file));
    assert.equal(d.profile.id, profile, `${file}: ${said(d.reasons).join('; ')}`);
    assert.equal(d.candidates[0]?.id, profile);
    assert.ok(d.candidates[1]!.score < d.score, `${file}: ${profile} wins outright`);
    assert.ok(d.reasons.length >= 2, file);
    if (release) assert.deepEqual(d.release?.range, { since: release, until: release }, file);
  }
});

test('OpenShift SDN: the table-253 note gives the rule version, and the reasons say so', () => {
  const d = detectFile(join(corpusDir, 'openshift-sdn-3.x-multitenant-real-dump.txt'));
  assert.equal(d.release?.release, '3');
  assert.ok(said(d.reasons).includes('table 253 holds the note 01.03.00.00.00.00 (+12)'), said(d.reasons).join('\n'));
  assert.ok(said(d.reasons).includes('table 253 holds the note 01.03.00.00.00.00, which points to release 3'));
  // The fake OVS writes the short note `00.0D`; its bytes read the same.
  const v13 = detectFile(join(corpusDir, 'openshift-sdn-expectedFlows-v13.txt'));
  assert.ok(said(v13.reasons).includes('table 253 holds the note 00.0d (+12)'), said(v13.reasons).join('\n'));
});

test('OpenShift SDN without the note: the table set narrows the rule version', () => {
  const withoutNote = (file: string): ReturnType<typeof detectProfile> =>
    detectText(
      readFileSync(join(corpusDir, file), 'utf8')
        .split('\n')
        .filter((l) => !l.includes('table=253'))
        .join('\n'),
      file,
    );
  // Tables 27 and 31 exist only from 13 on; 21 with 99 means 11 or 12.
  const v13 = withoutNote('openshift-sdn-expectedFlows-v13.txt');
  assert.equal(v13.profile.id, 'openshift-sdn');
  assert.deepEqual(v13.release?.range, { since: '13', until: '13' });
  const v12 = withoutNote('openshift-sdn-expectedFlows-v12.txt');
  assert.deepEqual(v12.release?.range, { since: '11', until: '12' });
  assert.equal(v12.release?.release, '12');
  assert.ok(
    said(v12.reasons).includes('table 21 is used, which points to releases 3–12'),
    said(v12.reasons).join('\n'),
  );
  // The 3.x dump: table 21 and no table 99 keep it before 11.
  const v3 = withoutNote('openshift-sdn-3.x-multitenant-real-dump.txt');
  assert.ok(Number(v3.release?.range.since) <= 3 && Number(v3.release?.range.until) <= 10, JSON.stringify(v3.release));
});

/** The example pipelines and the profile each one was built from. */
const EXAMPLES: readonly { dir: string; profile: string }[] = [
  { dir: 'antrea', profile: 'antrea-v1' },
  { dir: 'antrea-proxy', profile: 'antrea-proxy' },
  { dir: 'openshift-sdn', profile: 'openshift-sdn' },
];

test('every example dump is detected as the pipeline it was built from', () => {
  let checked = 0;
  for (const { dir, profile } of EXAMPLES) {
    const base = join(repoRoot, 'examples', dir);
    for (const f of readdirSync(base).filter((n) => /^(dump-flows|dump-groups|flows|groups)/.test(n))) {
      const d = detectFile(join(base, f));
      assert.equal(d.profile.id, profile, `${dir}/${f}: ${d.candidates.map((c) => `${c.id} ${c.score}`).join(', ')}`);
      assert.ok(d.reasons.length > 0);
      checked++;
    }
  }
  assert.ok(checked >= 25, `${checked} dumps`);
});

test('releases follow what the flows use: the table 71 of 0.13, whole-value ct_mark before 1.5, the FromLocal bit of 2.0', () => {
  // The example follows the design document with L3DecTTL in table 71; from 1.0 on table 71 is SNAT.
  const antrea = detectFile(join(repoRoot, 'examples', 'antrea', 'dump-flows.of13.txt'));
  assert.deepEqual(antrea.release?.range, { since: '0.13', until: '0.13' }, said(antrea.reasons).join('\n'));
  assert.ok(said(antrea.reasons).includes('release 0.13 explains all the 86 flows'), said(antrea.reasons).join('\n'));
  // ct_mark=0x21 and load:0x21->NXM_NX_CT_MARK[]: 1.5 set single bits instead.
  const proxy = detectFile(join(repoRoot, 'examples', 'antrea-proxy', 'dump-flows.of13.txt'));
  assert.deepEqual(proxy.release?.range, { since: '1.4', until: '1.4' }, said(proxy.reasons).join('\n'));
  assert.ok(
    said(proxy.reasons).includes('other releases lack names for register or mark bits in use, which release 1.4 has'),
    said(proxy.reasons).join('\n'),
  );
  // reg4[28] (FromLocal) arrived in 2.0, the first release to ship the rewritten pipeline document;
  // its ConntrackCommit flow (ct_mark bit 5, not bit 4 and -snat) is that of 2.5 and later.
  const doc = detectFile(join(corpusDir, 'antrea-ovs-pipeline-doc-HEAD.flows.txt'));
  assert.deepEqual(doc.release?.range, { since: '2.5' }, said(doc.reasons).join('\n'));
  // Its EgressMark listing keeps the flows of 1.14 and before (ct_state=+new+trk): said, and outweighed.
  assert.ok(
    said(doc.reasons).includes(
      'a flow matching ct_state=+new+trk that does set:pkt_mark, which points to releases up to 1.14, but the rest of the dump outweighs it',
    ),
    said(doc.reasons).join('\n'),
  );
  const before25 = detectText(
    readFileSync(join(corpusDir, 'antrea-ovs-pipeline-doc-HEAD.flows.txt'), 'utf8').replace(
      'ct_state=+new+trk,ct_mark=0x0/0x20,ip',
      'ct_state=+new-snat+trk,ct_mark=0/0x10,ip',
    ),
    'doc',
  );
  assert.deepEqual(before25.release?.range, { since: '2.0', until: '2.4' }, said(before25.reasons).join('\n'));
});

test('the dumps of one example read as the same profile and release, with table names or numbers', () => {
  for (const dir of ['antrea', 'antrea-proxy', 'openshift-sdn']) {
    const files = readdirSync(join(repoRoot, 'examples', dir)).filter((f) => f.startsWith('dump-flows.'));
    const seen = files.map((f) => {
      const d = detectFile(join(repoRoot, 'examples', dir, f));
      return `${f}: ${d.profile.id} ${d.release?.release}`;
    });
    assert.ok(files.length >= 4 && files.some((f) => f.includes('.names.')), dir);
    const first = seen[0]!.split(': ')[1];
    assert.deepEqual(
      seen,
      files.map((f) => `${f}: ${first}`),
      dir,
    );
  }
  // The name L3DecTTL is a table of 0.13 only, as table 71 with dec_ttl flows is: 1.x cannot explain those flows.
  const named = detectFile(join(repoRoot, 'examples', 'antrea', 'dump-flows.of13.names.txt'));
  assert.deepEqual(named.release?.range, { since: '0.13', until: '0.13' }, said(named.reasons).join('\n'));
  assert.ok(said(named.reasons).includes('release 0.13 explains all the 86 flows'), said(named.reasons).join('\n'));
});

test('a table name counts only in the releases that have its table', () => {
  const v1 = profileById('antrea-v1')!;
  assert.equal(resolveTable(v1, { kind: 'name', name: 'L3DecTTL' }, '0.13')?.number, 71);
  assert.equal(resolveTable(v1, { kind: 'name', name: 'L3DecTTL' }, '1.2'), undefined);
  assert.equal(resolveTable(v1, { kind: 'name', name: 'SNAT' }, '1.2')?.name, 'SNATTable');
  assert.equal(resolveTable(v1, { kind: 'name', name: 'SNAT' }, '0.13'), undefined);
});

test('the centralized SNAT example reads as a layout with egress routing in table 100 (rule versions 4–10)', () => {
  const d = detectFile(join(repoRoot, 'examples', 'openshift-sdn', 'dump-flows.of13.names.txt'));
  assert.deepEqual(d.release?.range, { since: '4', until: '10' });
  assert.ok(said(d.reasons).includes('a port named vxlan0 (+3)'), said(d.reasons).join('\n'));
});

test('plain OVS pipelines from the OVS test suite are generic, file by file', () => {
  const bySource = new Map<string, string[]>();
  for (const line of readFileSync(join(corpusDir, 'ovs-tests-flows.jsonl'), 'utf8').trim().split('\n')) {
    const rec = JSON.parse(line) as { input: string; canonical?: string; source: string };
    if (rec.canonical === undefined) continue;
    const file = rec.source.split(':')[0]!;
    bySource.set(file, [...(bySource.get(file) ?? []), rec.input]);
  }
  assert.ok(bySource.size > 10);
  for (const [file, lines] of bySource) {
    const d = detectText(lines.join('\n'), file);
    assert.equal(d.profile.id, 'generic', `${file}: ${said(d.reasons).join('; ')}`);
    assert.equal(d.release, undefined);
    assert.match(said(d.reasons).at(-1)!, /^next best: /);
  }
});

test('a port map alone is enough to tell OpenShift SDN, and nothing at all falls back to generic', () => {
  const ports = detectFile(join(repoRoot, 'examples', 'openshift-sdn', 'show.of13.txt'));
  assert.equal(ports.profile.id, 'openshift-sdn');
  const empty = detectText('', 'empty');
  assert.equal(empty.profile.id, 'generic');
  assert.equal(empty.candidates.length, PROFILES.length);
});

test('a given profile can be restricted to, and its release found on its own', () => {
  const dump = parseDump(readFileSync(join(corpusDir, 'openshift-sdn-expectedFlows-v12.txt'), 'utf8'), { file: 'v12' });
  const generic = profileById('generic')!;
  const only = detectProfile(dump.flows, dump.groups, dump.ports, { profiles: [generic] });
  assert.equal(only.profile, generic);
  assert.deepEqual(only.candidates, [{ id: 'generic', score: 6 }]);
  assert.equal(detectRelease(profileById('openshift-sdn')!, dump.flows, dump.groups, dump.ports)?.release, '12');
  assert.equal(detectRelease(generic, dump.flows, dump.groups, dump.ports), undefined);
});

test('detection finds the same in lazily read flows as in the same flows read whole', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-detect-'));
  try {
    const synthetic = join(dir, 'dump.txt');
    writeDump(synthetic, { flows: 3000, seed: 7 });
    const files = [
      synthetic,
      ...readdirSync(corpusDir)
        .filter((n) => n.endsWith('.txt'))
        .map((n) => join(corpusDir, n)),
      ...readdirSync(join(repoRoot, 'examples'), { recursive: true, encoding: 'utf8' })
        .filter((n) => /dump-flows.*\.txt$/.test(n))
        .map((n) => join(repoRoot, 'examples', n)),
    ];
    let outlined = 0;
    for (const file of files) {
      const dump = parseDump(readFileSync(file, 'utf8'), { file });
      outlined += dump.flows.filter((f) => f.outline !== undefined).length;
      const whole = dump.flows.map((f) => withActions(f, f.actions));
      const lazy = detectProfile(dump.flows, dump.groups, dump.ports);
      const read = detectProfile(whole, dump.groups, dump.ports);
      assert.deepEqual(said(lazy.reasons), said(read.reasons), file);
      assert.deepEqual(lazy.candidates, read.candidates, file);
    }
    assert.ok(outlined > 2000, `${outlined} flows read lazily`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a flow signal is found in a lazily read flow whose outline holds another value where the signal looks', () => {
  const line = (address: string): string =>
    ` cookie=0x0, duration=1.0s, table=0, n_packets=0, n_bytes=0, priority=100,ip,in_port=2,nw_dst=${address} actions=ct(table=1,zone=64001,nat)`;
  const text = [1, 2, 3, 4, 5, 6]
    .map((n) => line(`10.0.0.${n}`))
    .concat(line('169.254.169.1'))
    .join('\n');
  const dump = parseDump(text, { file: 'gateway' });
  // Read by its shape, the telling flow's outline holds the first line's address.
  assert.ok(dump.flows.at(-1)!.outline !== undefined);
  const lazy = detectProfile(dump.flows, dump.groups, dump.ports);
  assert.equal(lazy.profile.id, 'ovn-kubernetes-gateway');
  assert.ok(
    said(lazy.reasons).includes('a flow in table 0 matching ip,nw_dst=169.254.169.1 that does ct(nat) (+6)'),
    said(lazy.reasons).join('\n'),
  );
});
