import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { matchKey } from '../src/model/match.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { corpusDir } from './support/paths.ts';

// The reader shares the match and the action list of lines that repeat them verbatim. These tests
// check that sharing never changes what a line reads as, nor which diagnostics it gets.

const actionText = (text: string): string => text.slice(text.indexOf('actions=') + 'actions='.length);

test('flows of a real dump that repeat an action list share one list, equal to what each line says', () => {
  const text = readFileSync(join(corpusDir, 'antrea-ovs-pipeline-doc-HEAD.flows.txt'), 'utf8');
  const { flows, diagnostics } = parseDump(text, { file: 'doc' });
  assert.deepEqual(diagnostics, []);
  const byText = new Map<string, (typeof flows)[number][]>();
  for (const f of flows) byText.set(actionText(f.origin.text), [...(byText.get(actionText(f.origin.text)) ?? []), f]);
  const repeated = [...byText.values()].filter((fs) => fs.length > 1);
  assert.ok(repeated.length > 5, 'the pipeline document repeats action lists');
  for (const fs of repeated) {
    // Lists whose reading depends on the match (VLAN writes, mod_tp_*) are read per flow.
    if (/vlan|mod_tp/.test(actionText(fs[0]!.origin.text))) continue;
    for (const f of fs) assert.equal(f.actions, fs[0]!.actions, f.origin.text);
  }
  const gotos = flows.filter((f) => actionText(f.origin.text) === 'goto_table:ConntrackCommit');
  assert.equal(gotos.length, 7);
  for (const f of gotos)
    assert.deepEqual(f.actions, [{ kind: 'goto_table', table: { kind: 'name', name: 'ConntrackCommit' } }]);
});

test('a repeated line with a problem reports it on every line, at that line', () => {
  const line = 'priority=10,ip,nw_src=10.0.0.1,nw_src=10.0.0.2 actions=drop';
  const { flows, diagnostics } = parseDump([line, line, 'priority=10,ip,nw_src=10.0.0.2 actions=drop'].join('\n'), {
    file: 'f',
  });
  assert.equal(flows.length, 3);
  // ovs-ofctl accepts the repeated field with a warning; the last value wins.
  const column = line.lastIndexOf('nw_src') + 1;
  assert.deepEqual(
    diagnostics.map((d) => [d.line, d.column, d.severity, d.message]),
    [
      [1, column, 'warning', 'field nw_src set multiple times'],
      [2, column, 'warning', 'field nw_src set multiple times'],
    ],
  );
  assert.equal(matchKey(flows[0]!.match), matchKey(flows[2]!.match));
});

test('a repeated bad action list is an error on each line', () => {
  const bad = 'priority=1 actions=conjunction(7,3/2)';
  const { flows, diagnostics, badLines } = parseDump([bad, 'priority=2 actions=conjunction(7,1/2)', bad].join('\n'), {
    file: 'f',
  });
  assert.equal(flows.length, 1);
  assert.equal(badLines, 2);
  assert.deepEqual(
    diagnostics.map((d) => [d.line, d.message]),
    [
      [1, 'clause index must be positive and no greater than the number of clauses'],
      [3, 'clause index must be positive and no greater than the number of clauses'],
    ],
  );
});

test('the same action text reads differently when the match decides (a VLAN write on a tagged flow)', () => {
  const { flows } = parseDump(
    ['priority=1,dl_vlan=5 actions=mod_vlan_vid:3', 'priority=1,ip actions=mod_vlan_vid:3'].join('\n'),
    { file: 'f' },
  );
  assert.deepEqual(
    flows.map((f) => f.actions),
    [
      [{ kind: 'set_vlan_vid', vid: 3, pushIfUntagged: true, flowHasVlan: true }],
      [{ kind: 'set_vlan_vid', vid: 3, pushIfUntagged: true, flowHasVlan: false }],
    ],
  );
});

test('a line read again after the dump describes its ports uses the port numbers', () => {
  const line = 'priority=1,in_port=p1 actions=output:p1';
  const text = [
    line,
    'OFPT_FEATURES_REPLY (xid=0x2): dpid:0000000000000001',
    ' 1(p1): addr:aa:bb:cc:dd:ee:01',
    line,
  ].join('\n');
  const { flows, diagnostics } = parseDump(text, { file: 'f' });
  assert.deepEqual(diagnostics, []);
  const inPort = flows.map((f) => f.match.fields.find((m) => m.field.name === 'in_port'));
  // Without a port map the name is kept and the number is unknown (0); with it, port 1.
  assert.deepEqual(
    inPort.map((m) => m?.value),
    [0n, 1n],
  );
  assert.deepEqual(
    inPort.map((m) => m?.port),
    [
      { kind: 'name', name: 'p1' },
      { kind: 'name', name: 'p1' },
    ],
  );
});

test('every flow of the real dumps reads as its line read alone', () => {
  for (const name of [
    'antrea-ovs-pipeline-doc-HEAD.flows.txt',
    'antrea-pipeline_test-ipv4-encap.txt',
    'openshift-sdn-3.x-multitenant-real-dump.txt',
  ]) {
    const text = readFileSync(join(corpusDir, name), 'utf8');
    const whole = parseDump(text, { file: name });
    assert.ok(whole.flows.length > 40, name);
    for (const flow of whole.flows) {
      // resubmit:NAME reads as a table only beside the dump's tables of that name.
      if (/resubmit:[A-Za-z]/.test(flow.origin.text)) continue;
      const alone = parseDump(flow.origin.text, { file: name, portMap: whole.ports });
      assert.deepEqual(
        alone.flows.map((f) => [f.match, f.actions]),
        [[flow.match, flow.actions]],
        flow.origin.text,
      );
    }
  }
});

test('matches that differ only in their last address each hold their own address', () => {
  const lines = [
    'priority=1,ip,nw_src=10.0.0.1 actions=drop',
    'priority=2,ip,nw_src=10.0.0.2 actions=drop',
    'priority=3,arp,arp_spa=10.0.0.3 actions=drop',
    'priority=4,ip,nw_src=10.0.0.4/31 actions=drop',
  ];
  const { flows, diagnostics } = parseDump(lines.join('\n'), { file: 'f' });
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(
    flows.map((f) => f.match.fields.map((m) => `${m.field.name}=${m.value.toString(16)}/${m.mask.toString(16)}`)),
    [
      ['eth_type=800/ffff', 'ip_src=a000001/ffffffff'],
      ['eth_type=800/ffff', 'ip_src=a000002/ffffffff'],
      // ARP's sender address lives where the IPv4 source does, under its own name.
      ['eth_type=806/ffff', 'arp_spa=a000003/ffffffff'],
      ['eth_type=800/ffff', 'ip_src=a000004/fffffffe'],
    ],
  );
});
