import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkPipeline, type Finding, type FindingKind, subjectOf } from '../src/analysis/check/check.ts';
import { type Flow, withActions } from '../src/model/flow.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import { profileById } from '../src/profiles/index.ts';
import type { Profile } from '../src/profiles/types.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { runCli } from './support/cli.ts';
import { skipUnlessOvs, withOvsSwitch } from './support/ovs.ts';
import { corpusDir, repoRoot } from './support/paths.ts';

const ANTREA = join(repoRoot, 'examples', 'antrea', 'dump-flows.of13.txt');
const antreaText = readFileSync(ANTREA, 'utf8');

function pipelineOf(text: string): Pipeline {
  const r = parseDump(text, { file: 'test' });
  assert.deepEqual(
    r.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  return new Pipeline(r.flows, r.groups, r.ports);
}

function check(text: string, profile?: Profile): Finding[] {
  return [...checkPipeline(pipelineOf(text), profile ? { profile } : {}).findings];
}

function ofKind(findings: readonly Finding[], kind: FindingKind): Finding[] {
  return findings.filter((f) => f.kind === kind);
}

/** The dump lines of the flows a finding names. */
function lines(f: Finding): number[] {
  return f.flows.map((x) => x.origin.line);
}

const antreaV1 = profileById('antrea-v1')!;

test('shadowing: a wider CIDR at a higher priority hides a narrower one, not the other way round', () => {
  const findings = check(
    [
      'table=0,priority=100,ip,nw_src=10.0.0.0/8 actions=output:1',
      'table=0,priority=50,ip,nw_src=10.1.2.0/24 actions=output:2',
      'table=0,priority=40,ip,nw_src=10.0.0.0/7 actions=output:3',
      'table=0,priority=100,ip,nw_src=10.1.0.0/16 actions=output:4',
    ].join('\n'),
  );
  const shadowed = ofKind(findings, 'shadowed');
  // Line 3 (/7) is wider than the /8 above it; line 4 is at the same priority, which OpenFlow leaves undefined.
  assert.deepEqual(shadowed.map(lines), [[2, 1]]);
  assert.equal(shadowed[0]!.severity, 'error');
});

test('shadowing: protocol keywords, masks and identical actions', () => {
  const findings = ofKind(
    check(
      [
        'table=0,priority=100,ip actions=goto_table:1',
        'table=0,priority=90,tcp,tp_dst=80 actions=goto_table:1',
        'table=1,priority=100,reg0=0x1/0x1 actions=output:1',
        'table=1,priority=90,reg0=0x3/0x3 actions=output:2',
        'table=1,priority=80,reg0=0x2/0x3 actions=output:3',
        'table=1,priority=70,arp actions=output:4',
        'table=0,priority=0 actions=load:0x3->NXM_NX_REG0[],goto_table:1',
      ].join('\n'),
    ),
    'shadowed',
  );
  // Errors come first: the reg0 flow would output elsewhere; the tcp flow does exactly what the ip flow does.
  assert.deepEqual(
    findings.map((f) => [lines(f), f.severity]),
    [
      [[4, 3], 'error'],
      [[2, 1], 'warning'],
    ],
  );
});

test(
  'shadowing agrees with a real switch: the packet of a shadowed flow goes where the covering flow sends it',
  skipUnlessOvs,
  async () => {
    const flows = [
      'table=0,priority=100,ip,nw_src=10.0.0.0/8 actions=output:1',
      'table=0,priority=50,ip,nw_src=10.1.2.0/24 actions=output:2',
    ];
    assert.deepEqual(ofKind(check(flows.join('\n')), 'shadowed').map(lines), [[2, 1]]);
    await withOvsSwitch(
      {
        ports: [
          { name: 'p1', ofport: 1 },
          { name: 'p2', ofport: 2 },
          { name: 'p3', ofport: 3 },
        ],
      },
      async (sw) => {
        await sw.addFlows(flows.join('\n') + '\n');
        const trace = await sw.trace('in_port=3,ip,nw_src=10.1.2.3,nw_dst=10.9.9.9');
        // The lookup in table 0 picks the /8 flow (ofproto/trace names the matching flow and its actions).
        assert.match(trace, /^ 0\. ip,nw_src=10\.0\.0\.0\/8, priority 100\n\s+output:1$/m);
      },
    );
  },
);

test('registers: a flow needing a bit no action sets never matches; moves and learned loads count as writes', () => {
  const findings = check(
    [
      'table=0,priority=10,in_port=1 actions=load:0x1->NXM_NX_REG0[0],goto_table:1',
      'table=0,priority=5 actions=move:NXM_OF_IN_PORT[]->NXM_NX_REG2[0..15],learn(table=2,NXM_OF_ETH_DST[]=NXM_OF_ETH_SRC[],load:0x1->NXM_NX_REG3[4]),goto_table:1',
      'table=1,priority=10,reg0=0x1/0x1 actions=output:1',
      'table=1,priority=20,reg0=0x2/0x2 actions=output:2',
      'table=1,priority=30,reg2=0x5 actions=output:3',
      'table=1,priority=40,reg3=0x10/0x10 actions=output:4',
      'table=1,priority=50,xxreg0=0x1/0x1 actions=output:5',
    ].join('\n'),
  );
  const unset = ofKind(findings, 'unset-register');
  assert.deepEqual(
    unset.map((f) => (f.kind === 'unset-register' ? [subjectOf(f).origin.line, f.slot, f.bits] : [])),
    // xxreg0 bit 0 is reg3 bit 0, which nothing sets (only reg3 bit 4 is learned).
    [
      [4, 'reg0', 2n],
      [7, 'reg3', 1n],
    ],
  );
});

test('conjunction problems come from the conjunction analysis', () => {
  const incomplete = ofKind(
    check(
      [
        'table=0,priority=10,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2)',
        'table=0,priority=10,conj_id=1,ip actions=output:1',
      ].join('\n'),
    ),
    'conjunction',
  );
  assert.ok(
    incomplete.some((f) => f.kind === 'conjunction' && f.problem.kind === 'empty-dimension' && f.severity === 'error'),
  );
  const complete = ofKind(
    check(
      [
        'table=0,priority=10,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2)',
        'table=0,priority=10,ip,nw_src=10.0.0.2 actions=conjunction(1,1/2)',
        'table=0,priority=10,ip,nw_dst=10.0.0.3 actions=conjunction(1,2/2)',
        'table=0,priority=10,ip,nw_dst=10.0.0.4 actions=conjunction(1,2/2)',
        'table=0,priority=10,conj_id=1,ip actions=output:1',
      ].join('\n'),
    ),
    'conjunction',
  );
  assert.deepEqual(complete, []);
});

test('jumps into empty tables: goto and ct lose the packet, resubmit does nothing; group buckets count', () => {
  const findings = ofKind(
    check(
      [
        'table=0,priority=10,ip actions=goto_table:5',
        'table=0,priority=5,arp actions=resubmit(,6),goto_table:1',
        'table=0,priority=0 actions=ct(table=7,zone=1)',
        'table=0,priority=1,ipv6 actions=group:1',
        'table=1,priority=0 actions=drop',
        'group_id=1,type=all,bucket=actions=resubmit(,8)',
      ].join('\n'),
    ),
    'empty-target',
  );
  const summary = findings.map((f) =>
    f.kind === 'empty-target' ? [f.via, f.target, f.severity, lines(f), f.buckets.length] : [],
  );
  assert.deepEqual(
    summary.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    [
      ['ct', { kind: 'number', number: 7 }, 'error', [3], 0],
      ['goto', { kind: 'number', number: 5 }, 'error', [1], 0],
      ['resubmit', { kind: 'number', number: 6 }, 'warning', [2], 0],
      ['resubmit', { kind: 'number', number: 8 }, 'warning', [], 1],
    ],
  );
  assert.deepEqual(ofKind(check('table=0 actions=goto_table:1\ntable=1 actions=drop'), 'empty-target'), []);
});

test('unreachable tables, and tables reached only through a group bucket', () => {
  const unreachable = ofKind(
    check('table=0 actions=goto_table:1\ntable=1 actions=output:1\ntable=7 actions=output:2\n'),
    'unreachable-table',
  );
  assert.deepEqual(
    unreachable.map((f) => f.table),
    [{ kind: 'number', number: 7 }],
  );
  const viaGroup = check(
    'table=0 actions=group:1\ntable=7 actions=output:2\ngroup_id=1,type=select,bucket=weight:1,actions=resubmit(,7)\n',
  );
  assert.deepEqual(ofKind(viaGroup, 'unreachable-table'), []);
});

test('actions after exit never run', () => {
  const findings = ofKind(
    check(
      'table=0,priority=2 actions=exit,output:1\ntable=0,priority=1 actions=output:1,exit\ntable=0,priority=3 actions=clone(exit,output:2),output:3',
    ),
    'dead-actions',
  );
  assert.deepEqual(findings.map(lines), [[1], [3]]);
});

const SPELLINGS = [
  'table=0,priority=5,tcp,tp_dst=80 actions=load:0x1->NXM_NX_REG0[]',
  'table=0,priority=5,ip,nw_proto=6,tcp_dst=80 actions=set_field:0x1->reg0',
] as const;

test('duplicates across OpenFlow spellings', () => {
  const [a, b] = SPELLINGS;
  const c = 'table=0,priority=5,ip,nw_proto=6,tcp_dst=80 actions=set_field:0x2->reg0';
  const same = ofKind(check([a, b].join('\n')), 'duplicate');
  assert.deepEqual(
    same.map((f) => [lines(f), f.severity]),
    [[[1, 2], 'warning']],
  );
  const different = ofKind(check([a, c].join('\n')), 'duplicate');
  assert.deepEqual(
    different.map((f) => [lines(f), f.severity]),
    [[[1, 2], 'error']],
  );
  assert.deepEqual(ofKind(check([a, 'table=0,priority=6,tcp,tp_dst=80 actions=drop'].join('\n')), 'duplicate'), []);
});

test('a real switch keeps one flow for the two spellings the check calls duplicates', skipUnlessOvs, async () => {
  await withOvsSwitch({}, async (sw) => {
    await sw.addFlows(`${SPELLINGS[0]}\n${SPELLINGS[1]}\n`, 13);
    const dump = await sw.dumpFlows({ of: 13, noStats: true });
    assert.equal(dump.split('\n').filter((l) => l.includes('priority=5')).length, 1);
  });
});

test('Antrea example: the flows for ports 11, 12 and 412 that do not exist, and the unreached AntreaPolicyIngressRule table', () => {
  const findings = check(antreaText, antreaV1);
  const unset = ofKind(findings, 'unset-register');
  // examples/README.md: the document's policy examples refer to ports 11, 12 and 412 through reg1.
  assert.deepEqual(
    unset.map((f) => f.flows[0]!.origin.text.match(/reg1=(0x[0-9a-f]+)/)?.[1]),
    ['0x19c', '0xb', '0xc'],
  );
  const unreachable = ofKind(findings, 'unreachable-table');
  assert.deepEqual(
    unreachable.map((f) => f.table),
    [{ kind: 'number', number: 85 }],
  );
  assert.doesNotMatch(antreaText, /goto_table:85\b|resubmit\(,85\)/);
  for (const kind of [
    'shadowed',
    'empty-target',
    'dead-actions',
    'duplicate',
    'no-table-miss',
    'missing-expected',
  ] as const) {
    assert.deepEqual(ofKind(findings, kind), [], kind);
  }
});

test('profile expectations: a missing miss flow and a missing established-connection flow', () => {
  const without = (pattern: RegExp): string =>
    antreaText
      .split('\n')
      .filter((l) => !pattern.test(l))
      .join('\n');
  // Table 50 (EgressRuleTable) documents a miss that goes on to EgressDefaultTable; table 0 one that drops.
  const noMiss = ofKind(check(without(/table=(?:50|0), .*priority=0 /), antreaV1), 'no-table-miss');
  assert.deepEqual(
    noMiss.map((f) => [f.table, f.severity]),
    [
      [{ kind: 'number', number: 50 }, 'error'],
      [{ kind: 'number', number: 0 }, 'warning'],
    ],
  );
  const noEst = ofKind(check(without(/table=45, .*ct_state=-new\+est/), antreaV1), 'missing-expected');
  assert.deepEqual(
    noEst.map((f) => f.table),
    [{ kind: 'number', number: 45 }],
  );
  // Without a profile nothing is expected.
  assert.deepEqual(ofKind(check(without(/table=45, .*ct_state=-new\+est/)), 'missing-expected'), []);
});

test('OpenShift SDN real dump: only the multicast table that no flow leads to in this state', async () => {
  const text = readFileSync(join(corpusDir, 'openshift-sdn-3.x-multitenant-real-dump.txt'), 'utf8');
  // Rule version 3: the note in table 253 reads 01.03.
  assert.match(text, /table=253, .*note:01\.03\./);
  const report = checkPipeline(pipelineOf(text), { profile: profileById('openshift-sdn')!, release: '3' });
  // Table 110 drops everything (no multicast namespace), so nothing reaches table 111; table 253 only holds the rule-version note.
  assert.match(text, /table=110, .*priority=0 actions=drop/);
  assert.deepEqual(
    report.findings.map((f) => [f.kind, f.table]),
    [['unreachable-table', { kind: 'number', number: 111 }]],
  );
  const cli = await runCli(['check', join(corpusDir, 'openshift-sdn-3.x-multitenant-real-dump.txt')]);
  assert.match(cli.stdout, /from the first table: its flow never sees a packet\n/);
});

test('CLI: text and JSON, exit 1 on errors, --fail-on', async () => {
  // The example's flows for ports that are not on the bridge are stale, not errors: it passes.
  const text = await runCli(['check', ANTREA, '--profile', 'antrea-v1']);
  assert.equal(text.status, 0, text.stdout);
  assert.match(
    text.stdout,
    /^profile antrea-v1 \(release 0\.13\), given with --profile: [^\n]*\n86 flows in 19 tables: 0 errors, 4 warnings, 0 notes \(2 by design, shown with --all\)\n/,
  );
  assert.match(
    text.stdout,
    /\nunset-register \(3\):\nwarning table 85 \(AntreaPolicyIngressRuleTable\): never matches: .*a flow left for something no longer on the bridge\n/,
  );
  assert.equal((await runCli(['check', ANTREA, '--profile', 'antrea-v1', '--fail-on', 'warning'])).status, 1);
  const json = await runCli(['check', ANTREA, '--profile', 'antrea-v1', '--json']);
  const parsed = JSON.parse(json.stdout) as {
    counts: { warning: number };
    hidden: number;
    findings: { kind: string; standing?: { kind: string }; flows: { line: number }[] }[];
  };
  assert.equal(json.status, 0);
  assert.equal(parsed.counts.warning, 4);
  assert.equal(parsed.hidden, 2);
  const stale = parsed.findings.filter((f) => f.kind === 'unset-register');
  assert.deepEqual(
    stale.map((f) => [f.flows.map((x) => x.line), f.standing?.kind]),
    [
      [[61], 'stale'],
      [[75], 'stale'],
      [[76], 'stale'],
    ],
  );
  const clean = 'table=0,priority=0 actions=goto_table:1\ntable=1,priority=0 actions=output:1\n';
  assert.equal((await runCli(['check', '-', '--profile', 'generic'], { stdin: clean })).status, 0);
  const warningOnly = 'table=0,priority=1 actions=exit,output:1\n';
  assert.equal((await runCli(['check', '-', '--profile', 'generic'], { stdin: warningOnly })).status, 0);
  assert.equal(
    (await runCli(['check', '-', '--profile', 'generic', '--fail-on', 'warning'], { stdin: warningOnly })).status,
    1,
  );
  // Notes: so named in the text, info in the JSON; --fail-on takes either name.
  const noteOnly =
    'table=0,priority=200,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2)\ntable=0,priority=200,tcp,tp_dst=80 actions=conjunction(1,2/2)\ntable=0,priority=190,conj_id=1,ip actions=output:1\ntable=0,priority=0 actions=drop\n';
  const notes = await runCli(['check', '-', '--profile', 'generic'], { stdin: noteOnly });
  assert.equal(notes.status, 0, notes.stderr);
  assert.match(notes.stdout, /: 0 errors, 0 warnings, 1 note\n\nconjunction \(1\):\nnote table 0: conjunction 1: /);
  for (const name of ['note', 'info'])
    assert.equal(
      (await runCli(['check', '-', '--profile', 'generic', '--fail-on', name], { stdin: noteOnly })).status,
      1,
      name,
    );
  const conj = await runCli(['conj', '-'], { stdin: noteOnly });
  assert.match(conj.stdout, /\n {2}note: conj_id flow at priority 190, clauses at 200/);
  const bad = await runCli(['check', '-', '--fail-on', 'notice'], { stdin: noteOnly });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /expected error, warning or note/);
});

test('register writes and loops of lines read by their shape are those of the same flows read in full', () => {
  const stats = (i: number, table: number): string =>
    ` cookie=0x1, duration=${100 + i}.5s, table=${table}, n_packets=${i}, n_bytes=${i * 60}, `;
  const bodies: string[] = [];
  // Lines of one shape but for their numbers: only line 17 sets reg5 bit 7.
  for (let i = 1; i <= 30; i++)
    bodies.push(
      `${stats(i, 0)}priority=100,tcp,reg3=0x${(0x100 + i).toString(16)} actions=set_field:0x${(i === 17 ? 0x80 : i % 4).toString(16)}->reg5,goto_table:1`,
    );
  bodies.push(
    `${stats(0, 0)}priority=0 actions=goto_table:1`,
    `${stats(0, 2)}priority=0 actions=move:NXM_OF_IN_PORT[]->NXM_NX_REG2[0..15],move:NXM_OF_IN_PORT[]->NXM_NX_REG3[0..15]`,
  );
  // Resubmits back to table 0, of one shape: each goes round.
  for (let i = 1; i <= 30; i++)
    bodies.push(`${stats(i, 1)}priority=${100 + i},reg2=0x${i.toString(16)} actions=resubmit(,0)`);
  bodies.push(
    `${stats(1, 1)}priority=90,reg5=0x80/0x80 actions=output:1`,
    `${stats(1, 1)}priority=91,reg5=0x100/0x100 actions=output:2`,
    `${stats(1, 1)}priority=92,reg5=0x2/0x2 actions=output:3`,
    `${stats(0, 1)}priority=0 actions=drop`,
  );
  const r = parseDump(bodies.join('\n'), { file: 'dump' });
  assert.deepEqual(r.diagnostics, []);
  assert.ok(r.flows.filter((f) => f.outline?.shaped).length >= 50, 'the lines of each shape are read by it');
  const summary = (flows: readonly Flow[]): string[] =>
    checkPipeline(new Pipeline(flows, [], r.ports)).findings.map((f) =>
      [f.kind, ...lines(f), ...(f.kind === 'unset-register' ? [f.slot, f.bits] : [])].join(' '),
    );
  const lazy = summary(r.flows);
  assert.deepEqual(lazy, ['forwarding-loop 62', 'unreachable-table 32', 'unset-register 64 reg5 256']);
  assert.deepEqual(lazy, summary(r.flows.map((f) => withActions(f, f.actions))));
});
