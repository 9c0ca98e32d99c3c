import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Action } from '../src/model/actions.ts';
import { fieldByName } from '../src/model/fields.ts';
import type { OfVersion } from '../src/model/openflow.ts';
import { PortMap } from '../src/model/ports.ts';
import { ProblemSink } from '../src/model/problems.ts';
import { formatActions, versionProblems } from '../src/render/actions.ts';
import { parseActions } from '../src/syntax/actions.ts';
import { buildMatch } from '../src/syntax/match.ts';
import { parseSubfield } from '../src/syntax/subfield.ts';
import { scanKeyValues } from '../src/syntax/tokens.ts';
import { corpusText, readJsonl, recordVersion } from './support/corpus.ts';
import { parseFlow, skipUnlessOvs } from './support/ovs.ts';

/** Offset of the action list: after `actions=` (or `action=`) at the start or after a separator. */
function actionsStart(line: string): number {
  const m = /(?:^|[\s,])actions?=/.exec(line);
  return m ? m.index + m[0].length : -1;
}

function afterActions(line: string): string {
  return line.slice(actionsStart(line));
}

interface Parsed {
  readonly actions: Action[];
  readonly sink: ProblemSink;
}

/** Parses a line's actions; `strictPorts` mimics `ovs-ofctl parse-flow`, which knows no port names. */
function parseLine(line: string, strictPorts = true): Parsed {
  const sink = new ProblemSink();
  const start = actionsStart(line);
  const actions = parseActions(line, start, line.length, { sink, ...(strictPorts ? { portMap: new PortMap() } : {}) });
  return { actions, sink };
}

function parse(text: string): Parsed {
  return parseLine(`actions=${text}`);
}

function roundTrip(text: string, of: OfVersion): string {
  const p = parse(text);
  assert.deepEqual(p.sink.problems, [], text);
  return formatActions(p.actions, { of });
}

function describeMiss(input: string, want: string, got: string, p: Parsed): string {
  return `${input}\n  want ${want}\n  got  ${got}${p.sink.problems.map((x) => `\n  ${x.severity}: ${x.message}`).join('')}`;
}

test('every accepted OVS test flow prints its actions exactly as OVS 3.1 printed them', () => {
  let total = 0;
  const misses: string[] = [];
  for (const r of readJsonl('ovs-tests-flows.jsonl')) {
    if (r.canonical === undefined || actionsStart(r.input) < 0) continue;
    total++;
    const p = parseLine(r.input);
    const got = formatActions(p.actions, { of: recordVersion(r) });
    const want = afterActions(r.canonical);
    if (got !== want || p.sink.hasErrors) misses.push(describeMiss(r.input, want, got, p));
  }
  assert.equal(total, 1472);
  assert.deepEqual(misses, []);
});

test('OVS canonical action text is a fixed point of parse and print', () => {
  for (const r of readJsonl('ovs-tests-flows.jsonl')) {
    if (r.canonical === undefined) continue;
    const p = parseLine(r.canonical);
    assert.equal(formatActions(p.actions, { of: recordVersion(r) }), afterActions(r.canonical), r.canonical);
  }
});

/** Errors OVS reports about the action list (as opposed to the match, the flow header or the switch). */
const ACTION_ERROR =
  /unknown action|output to unknown|truncate port|unknown field|unknown fields|unknown algorithm|member delimiter|"conjunction" actions|does not fit|bad hex digit|must be specified on resubmit|instruction ordering|must not be accompanied|cannot set CT fields/;

test('OVS test flows rejected for their actions are reported', () => {
  let checked = 0;
  const silent: string[] = [];
  for (const r of readJsonl('ovs-tests-flows.jsonl')) {
    if (r.error === undefined || !ACTION_ERROR.test(r.error) || actionsStart(r.input) < 0) continue;
    // Unknown reg16+ / xreg8+ fields come from OVS releases newer than 3.1; flowscope knows them.
    if (/NXOXM_ET_REG(1[6-9]|2\d|3[01])|OXM_OF_PKT_REG([89]|1\d)|XXREG[4-7]/.test(r.input)) continue;
    checked++;
    const p = parseLine(r.input);
    // Unknown action names are warnings by design (a newer switch may know them); all else is an error.
    const flagged = /unknown action/.test(r.error) ? p.sink.problems.length > 0 : p.sink.hasErrors;
    if (!flagged) silent.push(`${r.input} => ${r.error}`);
  }
  assert.ok(checked >= 25, `only ${checked} records checked`);
  assert.deepEqual(silent, []);
});

test('group bucket actions of OVS test groups are a fixed point of parse and print', () => {
  let buckets = 0;
  for (const r of readJsonl('ovs-tests-groups.jsonl')) {
    if (r.canonical === undefined) continue;
    for (const bucket of r.canonical.split(',bucket=').slice(1)) {
      const p = parseLine(bucket);
      assert.deepEqual(p.sink.problems, [], bucket);
      assert.equal(formatActions(p.actions, { of: recordVersion(r) }), afterActions(bucket), bucket);
      buckets++;
    }
  }
  assert.ok(buckets > 60, `${buckets} buckets`);
});

function dumpLines(file: string): string[] {
  return corpusText(file)
    .split('\n')
    .filter((l) => actionsStart(l) >= 0);
}

test('a real OpenShift SDN OpenFlow 1.3 dump and the Antrea OpenFlow 1.5 doc dump print back unchanged', () => {
  for (const [file, of] of [
    ['openshift-sdn-3.x-multitenant-real-dump.txt', 13],
    ['antrea-ovs-pipeline-doc-HEAD.flows.txt', 15],
  ] as const) {
    const lines = dumpLines(file);
    assert.ok(lines.length > 50, file);
    for (const line of lines) {
      const p = parseLine(line, false);
      assert.deepEqual(p.sink.problems, [], line);
      assert.equal(formatActions(p.actions, { of }), afterActions(line).trimEnd(), line);
    }
  }
});

test('Antrea and OpenShift pipeline flows parse without problems', () => {
  const files = [
    'antrea-pipeline_test-ipv4-encap.txt',
    'antrea-pipeline_test-ipv4-encap-egresstrafficshaping.txt',
    'antrea-pipeline_test-ipv4-externalnode.txt',
    'antrea-pipeline_test-ipv4-noencap-bridging.txt',
    'antrea-pipeline_test-ipv6-encap.txt',
    'openshift-sdn-expectedFlows-v12.txt',
    'openshift-sdn-expectedFlows-v13.txt',
  ];
  for (const file of files) {
    for (const line of dumpLines(file)) {
      const p = parseLine(line, false);
      assert.deepEqual(p.sink.problems, [], `${file}: ${line}`);
      assert.ok(
        p.actions.every((a) => a.kind !== 'unknown'),
        line,
      );
    }
  }
});

/** Flows whose action spelling differs between OpenFlow versions (reference ovs-actions.md §2). */
const SPELLING_CASES = [
  'ip,actions=set_field:0x2/0xf->reg0,set_field:0x5->reg1,load:0x5->NXM_NX_REG2[],load:0x1->NXM_NX_REG0[5]',
  'ipv6,actions=set_field:fe80::1->ipv6_dst,set_field:0x5/0xf0f->reg1',
  'tcp,actions=mod_dl_src:00:11:22:33:44:55,mod_nw_dst:1.1.1.1,mod_nw_tos:16,mod_nw_ecn:2,mod_nw_ttl:9,mod_tp_dst:80',
  'udp,actions=mod_tp_src:53,set_field:2->arp_op',
  'actions=set_tunnel:0x5,set_tunnel64:0x6,load:0x7->NXM_NX_TUN_ID[]',
  'actions=mod_vlan_vid:7,mod_vlan_pcp:2,output:1',
  'vlan_tci=0x1000/0x1000,actions=mod_vlan_vid:7,strip_vlan',
  'actions=enqueue:1:2,goto_table:3',
  'mpls,actions=set_mpls_label(5),set_mpls_tc(2),set_mpls_ttl(9),dec_mpls_ttl',
  'ip,actions=ct(commit,zone=NXM_NX_REG4[0..15],exec(set_field:0x1/0x1->ct_mark,set_field:0x5->ct_label,move:NXM_NX_REG0[]->NXM_NX_CT_MARK[]))',
  'tcp,actions=ct(alg=ftp,exec(set_field:1->ct_mark),nat(src=1.1.1.1-1.1.1.9:1000-2000,random),zone=5,table=3,force,commit)',
  'tcp6,actions=ct(commit,nat(dst=[fe80::1]-[fe80::9]:80-90,persistent)),ct(commit,nat(src=fe80::1))',
  'actions=learn(table=2,idle_timeout=10,priority=5,cookie=0x9,limit=8,eth_type=0x800,NXM_OF_ETH_DST[]=NXM_OF_ETH_SRC[],reg1[0..15]=0x5,load:in_port->reg1[16..31],load:0xa->NXM_NX_REG2[],output:NXM_OF_IN_PORT[])',
  'actions=note:01.02.03,controller(reason=no_match,max_len=10,id=2,userdata=01.02,pause),output(port=1,max_len=100),resubmit(1),resubmit(,2,ct)',
  'ip,actions=sample(probability=5,collector_set_id=1,obs_domain_id=2,obs_point_id=3,sampling_port=4,egress),check_pkt_larger(1500)->NXM_NX_REG0[0],clone(push:NXM_NX_REG0[0..3],pop:NXM_NX_REG1[0..3],exit)',
  'actions=multipath(symmetric_l4,1024,hrw,12,0,NXM_NX_REG0[0..3]),bundle_load(eth_src,50,hrw,ofport,NXM_NX_REG0[],members:1,2),dec_ttl(1,2),group:3',
];

test('action spelling matches real ovs-ofctl in OpenFlow 1.0, 1.1, 1.3 and 1.5', skipUnlessOvs, async () => {
  let compared = 0;
  for (const flow of SPELLING_CASES) {
    for (const of of [10, 11, 13, 15] as const) {
      const real = await parseFlow(flow, of);
      if (!real.ok) continue; // the version cannot carry the flow (e.g. set_field over OpenFlow 1.1)
      const sink = new ProblemSink();
      const start = actionsStart(flow);
      const match = buildMatch(scanKeyValues(flow, 0, flow.lastIndexOf('actions=')), { sink });
      const actions = parseActions(flow, start, flow.length, { sink, match });
      assert.deepEqual(sink.problems, [], flow);
      assert.equal(formatActions(actions, { of }), afterActions(real.canonical), `${flow} (OpenFlow1${of - 10})`);
      compared++;
    }
  }
  assert.ok(compared >= 45, `${compared} comparisons`);
});

test('field writes carry typed, whole-field values and their spelling', () => {
  const reg0 = fieldByName('reg0')!;
  const [load, setField, mod] = parse('load:0x1->NXM_NX_REG0[5],set_field:0x2/0xf->reg0,mod_nw_tos:16').actions;
  assert.deepEqual(load, { kind: 'set_field', field: reg0, value: 0x20n, mask: 0x20n, written: 'load' });
  assert.deepEqual(setField, { kind: 'set_field', field: reg0, value: 0x2n, mask: 0xfn, written: 'set_field' });
  assert.deepEqual(mod, {
    kind: 'set_field',
    field: fieldByName('ip_dscp')!,
    value: 4n,
    mask: 0x3fn,
    written: 'mod_nw_tos',
  });
  // The same write reads the same in every spelling once the version re-encodes it.
  assert.equal(formatActions([load!], { of: 15 }), 'set_field:0x20/0x20->reg0');
});

test('ct, nat and learn arguments are typed', () => {
  const [ct] = parse(
    'ct(commit,table=3,zone=NXM_NX_REG4[0..15],nat(dst=10.0.0.1-10.0.0.9:80-90,hash),exec(load:0x1->NXM_NX_CT_MARK[]))',
  ).actions;
  assert.ok(ct?.kind === 'ct');
  assert.deepEqual(ct.table, { kind: 'number', number: 3 });
  assert.deepEqual(ct.zone, { kind: 'field', src: { field: fieldByName('reg4')!, start: 0, bits: 16 } });
  assert.deepEqual(ct.actions[0], {
    kind: 'nat',
    direction: 'dst',
    range: { family: 4, addrMin: 0x0a000001n, addrMax: 0x0a000009n, portMin: 80, portMax: 90 },
    persistent: false,
    hash: true,
    random: false,
  });
  assert.equal(ct.actions[1]?.kind, 'set_field');

  const [learn] = parse(
    'learn(table=10,hard_timeout=300,NXM_OF_ETH_DST[]=NXM_OF_ETH_SRC[],ip_dst=10.0.0.1,load:NXM_NX_REG0[0..15]->NXM_NX_REG1[0..15],output:NXM_OF_IN_PORT[])',
  ).actions;
  assert.ok(learn?.kind === 'learn');
  assert.equal(learn.hardTimeout, 300);
  assert.deepEqual(
    learn.specs.map((s) => s.kind),
    ['match_field', 'match_value', 'load_field', 'output'],
  );
  assert.deepEqual(learn.specs[1], {
    kind: 'match_value',
    dst: { field: fieldByName('ip_dst')!, start: 0, bits: 32 },
    value: 0x0a000001n,
  });
});

test('bare ports are outputs; unknown actions are kept with a warning; bad arguments are errors', () => {
  assert.deepEqual(parse('1,LOCAL,in_port').actions, [
    { kind: 'output', port: { kind: 'number', number: 1 } },
    { kind: 'output', port: { kind: 'reserved', name: 'LOCAL' } },
    { kind: 'output', port: { kind: 'reserved', name: 'IN_PORT' } },
  ]);
  const unknown = parse('frobnicate(3),output:2');
  assert.deepEqual(unknown.actions[0], { kind: 'unknown', text: 'frobnicate(3)' });
  assert.deepEqual(
    unknown.sink.problems.map((p) => [p.severity, p.message, p.offset]),
    [['warning', 'unknown action frobnicate', 'actions='.length]],
  );
  const bad = parse('output:1,conjunction(1,3/2)');
  assert.ok(bad.sink.hasErrors);
  assert.equal(roundTrip('drop', 13), 'drop');
  assert.equal(roundTrip('', 10), 'drop');
});

test('subfield references accept names, aliases and NXM names, and check bit ranges', () => {
  assert.deepEqual(parseSubfield('reg1[16..31]'), {
    ok: true,
    subfield: { field: fieldByName('reg1')!, start: 16, bits: 16 },
  });
  assert.deepEqual(parseSubfield('NXM_OF_ETH_SRC[]'), {
    ok: true,
    subfield: { field: fieldByName('eth_src')!, start: 0, bits: 48 },
  });
  assert.deepEqual(parseSubfield('NXM_NX_REG0[3]'), {
    ok: true,
    subfield: { field: fieldByName('reg0')!, start: 3, bits: 1 },
  });
  assert.equal(parseSubfield('reg0[0..32]').ok, false);
  assert.equal(parseSubfield('nosuchfield[]').ok, false);
});

test('OpenFlow 1.0 drops instructions it cannot carry and says so', () => {
  const p = parseLine('actions=meter:1,output:2,clear_actions,write_actions(output:3),goto_table:4');
  assert.deepEqual(p.sink.problems, []);
  assert.equal(
    formatActions(p.actions, { of: 13 }),
    'meter:1,output:2,clear_actions,write_actions(output:3),goto_table:4',
  );
  assert.equal(formatActions(p.actions, { of: 10 }), 'meter:1,output:2,resubmit(,4)');
  assert.equal(versionProblems(p.actions, 10).length, 3);
  assert.deepEqual(versionProblems(p.actions, 13), []);
});

test('port names print from a port map and quote when OVS would', () => {
  const names = new PortMap();
  names.set(3, 'antrea-gw0');
  names.set(4, 'p1');
  const p = parseLine('actions=output:3,4,enqueue:4:1', false);
  assert.equal(formatActions(p.actions, { of: 10, portNames: names }), 'output:"antrea-gw0",output:p1,enqueue:p1:1');
});
