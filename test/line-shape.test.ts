import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Action } from '../src/model/actions.ts';
import type { Flow, Match } from '../src/model/flow.ts';
import { eachPortRef } from '../src/model/port-refs.ts';
import { EMPTY_MATCH } from '../src/model/match.ts';
import { ProblemSink } from '../src/model/problems.ts';
import { cleanLineActions } from '../src/syntax/flow-line.ts';
import { fits, keepShape, LineShapes, shapeHash, shapePattern } from '../src/syntax/line-shape.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { shapedActions } from '../src/syntax/shaped-actions.ts';

// A dump line of the same shape as a clean line read before, but for some numbers, is read lazily
// when each of those numbers is one that decides nothing but itself and is within its range
// (line-shape.ts). These tests change every number of real and hand-made lines, one at a time, to
// values in and out of range and in other spellings, and check that the changed line after its
// clean original reads exactly as it does on its own: the same flow, the same diagnostics.

const STATS = ' cookie=0x3030000000000, duration=7.5s, table=11, n_packets=3, n_bytes=300, ';

const BODIES = [
  'priority=200,tcp,reg3=0xa13a45d,reg4=0x2324f/0x7ffff actions=ct(commit,table=12,zone=65520,nat(dst=10.19.164.93:12879),exec(load:0x1->NXM_NX_CT_MARK[4]))',
  'priority=200,tcp,nw_src=10.17.72.101,nw_dst=10.96.2.56,tp_dst=5432 actions=load:0x4fa2->NXM_NX_REG4[0..15],load:0->NXM_NX_REG4[26],set_field:0xa133105->reg3,load:0x2->NXM_NX_REG4[16..18],load:0x1->NXM_NX_REG0[9]',
  'priority=62996,conj_id=3395,ip actions=set_field:0xd43->reg5,ct(commit,table=15,zone=65520,exec(load:0xd43->NXM_NX_CT_LABEL[32..63]))',
  'priority=200,ct_state=-new,ct_label=0x105900000000/0xffffffff00000000,ip actions=goto_table:16',
  'priority=200,arp,arp_tpa=10.16.87.1,arp_op=1 actions=move:NXM_OF_ETH_SRC[]->NXM_OF_ETH_DST[],set_field:aa:bb:cc:dd:ee:ff->eth_src,set_field:2->arp_op,move:NXM_NX_ARP_SHA[]->NXM_NX_ARP_THA[],set_field:aa:bb:cc:dd:ee:ff->arp_sha,move:NXM_OF_ARP_SPA[]->NXM_OF_ARP_TPA[],set_field:10.16.87.1->arp_spa,IN_PORT',
  'priority=200,ip,nw_dst=10.18.129.0/24 actions=set_field:02:04:9d:12:8e:2c->eth_src,set_field:aa:bb:cc:dd:ee:ff->eth_dst,set_field:192.168.2.139->tun_dst,load:0x1->NXM_NX_REG0[4..7],goto_table:18',
  'priority=200,tcp,reg4=0x20000/0x70000,nw_dst=10.96.0.10,tp_dst=53 actions=load:0x2->NXM_NX_REG4[16..18],set_field:0x1->reg7,group:42',
  'priority=200,ip,nw_src=10.16.0.0/16 actions=conjunction(1356,2/3),conjunction(4141,1/2)',
  'priority=100,dl_type=0x0800,nw_proto=6,tp_src=80 actions=output:3',
  'priority=100,icmp6,icmp_type=135,nd_target=fe80::1 actions=drop',
  'priority=100,in_port=2,dl_vlan=10,vlan_pcp=3 actions=mod_vlan_vid:20,resubmit(,30)',
  'priority=100,ip,metadata=0x5,pkt_mark=0x7/0xff,nw_ttl=4 actions=set_field:0x3->metadata,load:0xff->NXM_NX_PKT_MARK[0..7],write_metadata:0x1/0x1,goto_table:9',
  'priority=100,udp,xreg1=0x100000002,tun_id=0x3e8 actions=set_field:0x5->tun_id,ct(zone=NXM_NX_REG5[0..15],table=20)',
  'priority=100,tcp6,ipv6_dst=fd00::1,tp_dst=8080 actions=ct(commit,nat(dst=[fd00::2]:80),table=20)',
  'priority=100,ip,nw_dst=10.0.0.1 actions=ct(commit,nat(src=10.0.0.5),table=4)',
  'priority=100,reg0=0x10000/0x10000,reg1=5 actions=conjunction(3,1/2)',
  'priority=100,ip,nw_dst=10.1.2.3 actions=load:0x5->NXM_NX_REG0[0..3],load:1->NXM_NX_REG0[31],group:7,note:01.02.03',
  'priority=190,tcp,reg4=0x30000/0x70000,nw_dst=10.96.7.61,tp_dst=53 actions=learn(table=9,hard_timeout=300,priority=200,delete_learned,cookie=0x3030000000974,eth_type=0x800,nw_proto=6,NXM_OF_TCP_DST[],NXM_OF_IP_DST[],NXM_OF_IP_SRC[],load:NXM_NX_REG4[0..15]->NXM_NX_REG4[0..15],load:0x2->NXM_NX_REG4[16..18]),goto_table:11',
  'priority=200,in_port=65279 actions=load:0x2->NXM_NX_REG0[0..15],load:0x1->NXM_NX_REG0[19],goto_table:2',
  'priority=200,ct_state=+new+trk,ip,in_port=7 actions=load:0x1->NXM_NX_PKT_MARK[0..7],output:7',
];

/** Values put in place of a number: in range, at and past the limits, and other spellings of them. */
const VALUES = [
  '0',
  '1',
  '2',
  '7',
  '8',
  '15',
  '16',
  '255',
  '256',
  '300',
  '65535',
  '65536',
  '4294967295',
  '4294967296',
  '18446744073709551615',
  '18446744073709551616',
  '0x0',
  '0x1',
  '0xf',
  '0x10',
  '0xff',
  '0x100',
  '0xffff',
  '0x10000',
  '0xffffffff',
  '0x100000000',
  '0xffffffffffffffff',
  '0x10000000000000000',
  '0xffffffffffffffffffffffffffffffff',
  '0x100000000000000000000000000000000',
  '00',
  '01',
  '08',
  '0X1',
  '0xA',
  '1a',
  '0x',
];

/** Each number of the text after the statistics: where it starts and ends. */
function numbers(text: string, from: number): (readonly [number, number])[] {
  const out: (readonly [number, number])[] = [];
  const word = /[A-Za-z0-9_]/;
  for (let i = from; i < text.length; i++) {
    if (!/[0-9]/.test(text[i]!) || word.test(text[i - 1]!)) continue;
    let e = i + 1;
    while (e < text.length && word.test(text[e]!)) e++;
    out.push([i, e]);
    i = e;
  }
  return out;
}

function plain(f: Flow | undefined): unknown {
  if (!f) return undefined;
  const { table, priority, cookie, match, actions, idleTimeout, hardTimeout, importance, flags, stats } = f;
  return { table, priority, cookie, match, actions, idleTimeout, hardTimeout, importance, flags, stats };
}

/** The changed line read after its clean original against the changed line read on its own. */
function compare(original: string, changed: string): boolean {
  const alone = parseDump(changed, { file: 'd' });
  const after = parseDump(`${original}\n${changed}`, { file: 'd' });
  const first = after.flows[0];
  assert.ok(first && first.outline === undefined, `the original reads clean at once: ${original}`);
  const second = after.flows.length === 2 ? after.flows[1] : undefined;
  assert.deepEqual(plain(second), plain(alone.flows[0]), changed);
  // Its actions asked for before its match, a flow of a shape reads both the same.
  const again = parseDump(`${original}\n${changed}`, { file: 'd' }).flows[1];
  if (again) {
    const { actions, match } = again;
    assert.deepEqual({ actions, match }, { actions: second!.actions, match: second!.match }, changed);
  }
  assert.deepEqual(
    after.diagnostics.map((d) => ({ ...d, line: d.line - 1 })),
    alone.diagnostics,
    changed,
  );
  return second?.outline !== undefined;
}

test('a number changed in a line of a known shape reads as the changed line does on its own', () => {
  let lazy = 0;
  let cases = 0;
  for (const body of BODIES) {
    const original = STATS + body;
    assert.deepEqual(parseDump(original, { file: 'd' }).diagnostics, [], original);
    for (const [s, e] of numbers(original, STATS.length + 'priority='.length + 3)) {
      for (const v of VALUES) {
        cases++;
        if (compare(original, original.slice(0, s) + v + original.slice(e))) lazy++;
      }
    }
  }
  // Many changes keep a line of its shape, many others do not; both are checked.
  assert.ok(lazy > 300 && lazy < cases - 300, `${lazy} of ${cases} changed lines read lazily`);
});

/**
 * The shape kept of `line` (STATS then a body) with `match` and `actions` as its own, found again
 * by its text; where its match starts and its `actions=` keyword.
 */
function onlyShape(line: string, match: Match, actions: readonly Action[]) {
  const from = line.indexOf(',', STATS.length) + 1;
  const keyword = line.indexOf(' actions=') + 1;
  const shapes = new LineShapes();
  keepShape(shapes, shapeHash(line, from, line.length), line, from, keyword, keyword + 8, line.length, match, actions);
  return { shape: shapes.find(line, from, line.length), from, keyword };
}

test("a shape's pattern takes the lines its character-by-character reading takes, numbers changed in and out of range", () => {
  let taken = 0;
  let cases = 0;
  for (const body of BODIES) {
    const line = STATS + body;
    const { shape, from } = onlyShape(line, EMPTY_MATCH, []);
    assert.ok(shape, body);
    const pattern = shapePattern(shape);
    for (const [s, e] of numbers(line, from)) {
      for (const v of VALUES) {
        const changed = line.slice(0, s) + v + line.slice(e);
        // In the text of a whole dump, the line followed by others.
        const text = `${changed}\n${line}`;
        pattern.lastIndex = from;
        const byPattern = pattern.test(text) && pattern.lastIndex === changed.length;
        assert.equal(byPattern, fits(shape, text, from, changed.length), `${pattern.source}: ${changed}`);
        cases++;
        if (byPattern) taken++;
      }
    }
  }
  assert.ok(taken > 300 && taken < cases - 300, `${taken} of ${cases} changed lines taken`);
});

test("the actions of a shape's lines made from the shape's are those each line reads on its own", () => {
  const read = (text: string, start: number, match: Match): readonly Action[] =>
    cleanLineActions(text, start, match, { sink: new ProblemSink() });
  let made = 0;
  let cases = 0;
  for (const body of BODIES) {
    const line = STATS + body;
    const own = parseDump(line, { file: 'd' }).flows[0]!;
    const { shape: found, from, keyword } = onlyShape(line, own.match, own.actions);
    const shape = found!;
    // The first lines of a shape have their actions read: its rebuild is worked out for the next.
    for (let i = 0; i < 3; i++) shapedActions(shape, line, keyword + 8, read);
    for (const [s, e] of numbers(line, from)) {
      for (const v of VALUES) {
        const changed = line.slice(0, s) + v + line.slice(e);
        if (!fits(shape, changed, from, changed.length)) continue;
        const actions = shapedActions(shape, changed, changed.indexOf(' actions=') + 9, read);
        cases++;
        if (actions === undefined) continue;
        made++;
        assert.deepEqual(actions, parseDump(changed, { file: 'd' }).flows[0]!.actions, changed);
      }
    }
  }
  // Most lines that fit a shape have their actions made; every one made is checked.
  assert.ok(made > 300 && made > cases * 0.8, `${made} of ${cases} lines' actions made`);
});

test('the numbers of the lines of a real dump, changed one at a time, read as on their own', () => {
  const dump = readFileSync(new URL('../../examples/antrea/dump-flows.of13.txt', import.meta.url), 'utf8');
  const lines = dump.split('\n').filter((l) => l.startsWith(' cookie=') && !l.includes('"'));
  let lazy = 0;
  for (const original of lines) {
    const from = original.indexOf('priority=');
    for (const [s, e] of numbers(original, from + 'priority='.length + 1)) {
      for (const v of ['0', '9', '256', '65536', '0x1', '0xfffff', '4294967296', '01']) {
        if (compare(original, original.slice(0, s) + v + original.slice(e))) lazy++;
      }
    }
  }
  assert.ok(lazy > 50, `${lazy} changed lines read lazily`);
});

test('a line of a known shape is read lazily, and its outline has the fields, masks and action kinds of its flow', () => {
  const lines = [
    'priority=200,tcp,reg3=0xa13a45d,reg4=0x2324f/0x7ffff actions=ct(commit,table=12,zone=65520,nat(dst=10.19.164.93:12879),exec(load:0x1->NXM_NX_CT_MARK[4]))',
    'priority=200,tcp,reg3=0xa11e558,reg4=0x251f5/0x7ffff actions=ct(commit,table=12,zone=65520,nat(dst=10.17.229.88:20981),exec(load:0x1->NXM_NX_CT_MARK[4]))',
    'priority=200,tcp,reg3=0xa11e558,reg4=0x251f5/0x7fff actions=ct(commit,table=12,zone=65520,nat(dst=10.17.229.88:20981),exec(load:0x1->NXM_NX_CT_MARK[4]))',
  ].map((b) => STATS + b);
  const { flows, diagnostics } = parseDump(lines.join('\n'), { file: 'd' });
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(
    flows.map((f) => f.outline !== undefined),
    [false, true, false],
    'another mask is another shape',
  );
  const f = flows[1]!;
  const outline = f.outline!;
  assert.equal(outline.shaped, true);
  assert.equal(flows[0]!.outline, undefined);
  const shape = (m: Flow['match']) => m.fields.map((e) => [e.field.name, e.mask, e.port]);
  assert.deepEqual(shape(outline.match), shape(f.match));
  assert.notDeepEqual(outline.match, f.match, 'the outline holds the first line’s values');
  assert.notEqual(outline.actions, 'conjunctions');
  assert.deepEqual(
    (outline.actions as Flow['actions']).map((a) => a.kind),
    f.actions.map((a) => a.kind),
  );
  assert.deepEqual(plain(f), plain(parseDump(lines[1]!, { file: 'd' }).flows[0]));
  // The storages whose values its numbers may change (the zone, the NAT address and port are none).
  assert.deepEqual([...outline.varying!].sort(), ['ct_mark', 'reg3', 'reg4']);
});

test('a lazily read flow of a shape is read again with the port names its line was read with', () => {
  const flow = (port: string) => `${STATS}priority=200,in_port=${port},reg3=0x1 actions=load:0x1->NXM_NX_REG0[0..3]`;
  const text = [
    ' 1(pod-a): addr:aa:55:aa:55:00:02',
    flow('pod-a'),
    flow('pod-a').replace('reg3=0x1', 'reg3=0x2'),
    ' 1(pod-b): addr:aa:55:aa:55:00:02',
    ' 2(pod-a): addr:aa:55:aa:55:00:03',
  ].join('\n');
  const { flows } = parseDump(text, { file: 'd' });
  assert.equal(flows.length, 2);
  assert.ok(flows[1]!.outline, 'the second line is of the first one’s shape');
  assert.deepEqual(
    flows.map((f) => f.match.fields.find((e) => e.field.name === 'in_port')?.value),
    [1n, 1n],
  );
});

test('lines of a shape that differ in their input port number are walked for each one’s port', () => {
  const flow = (port: number) =>
    `${STATS}priority=200,in_port=${port} actions=load:0x${port.toString(16)}->NXM_NX_REG1[],goto_table:2`;
  const { flows, diagnostics } = parseDump([3, 4, 65279, 65280].map(flow).join('\n'), { file: 'd' });
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(
    flows.map((f) => f.outline?.shaped === true),
    [false, true, true, false],
    'a reserved port number (from 0xff00) is no shape’s number',
  );
  assert.ok(flows[1]!.outline!.varying!.has('in_port'));
  const refs: unknown[] = [];
  eachPortRef(flows, [], (ref) => refs.push(ref));
  assert.deepEqual(
    refs,
    [3, 4, 65279, 65280].map((number) => ({ kind: 'number', number })),
  );
});

test("past a dump's first shapes, a shape is kept from the second line of its hash, and every line reads as on its own", () => {
  // 100 shapes, each of its own registers (a name is part of a shape), each on three lines that differ in a register's value.
  const lines: string[] = [];
  for (let s = 0; s < 100; s++) {
    const registers = [0, 1, 2, 3, 4, 5, 6, 7].filter((r) => (s + 1) & (1 << r));
    for (let v = 1; v <= 3; v++)
      lines.push(
        `${STATS}priority=200,${registers.map((r) => `reg${r}=0x${(v * 16 + r).toString(16)}`).join(',')},tcp,nw_dst=10.96.${s}.${v} actions=set_field:0x${v}->reg7,goto_table:12`,
      );
  }
  const { flows, diagnostics } = parseDump(lines.join('\n'), { file: 'd' });
  assert.deepEqual(diagnostics, []);
  const lazy = flows.map((f) => f.outline?.shaped === true);
  // The first 64 shapes are kept from their first line, the others from their second.
  for (let s = 0; s < 100; s++)
    assert.deepEqual(lazy.slice(3 * s, 3 * s + 3), s < 64 ? [false, true, true] : [false, false, true], `shape ${s}`);
  lines.forEach((line, i) => assert.deepEqual(plain(flows[i]), plain(parseDump(line, { file: 'd' }).flows[0]), line));
});
