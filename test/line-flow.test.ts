import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Flow, lineSpan } from '../src/model/flow.ts';
import { parseDump } from '../src/syntax/reader.ts';

// Dump lines whose match and actions the reader has met before are read lazily (LineFlow): their
// match, actions and statistics are made when first asked for. These tests check that such a flow
// reads exactly as the same line read on its own (at once), and that no diagnostic is lost.

const stats = (i: number): string =>
  ` cookie=0x${(0x3020000 + (i % 3)).toString(16)}, duration=${1000 + i}.5${i}s, table=${12 + (i % 2)}, n_packets=${i * 1000}, n_bytes=${i * 123456789}, `;

const bodies = [
  'priority=200,ip,nw_src=10.16.0.1 actions=conjunction(7,1/2)',
  'priority=200,ip,nw_src=10.16.0.2 actions=conjunction(7,1/2)',
  'priority=200,ip,nw_src=10.16.0.3 actions=conjunction(7,1/2),conjunction(8,1/3)',
  'priority=200,ip,nw_src=10.16.0.4 actions=conjunction(7,1/2),conjunction(8,1/3),conjunction(9,1/3),conjunction(10,1/2),conjunction(11,1/2),conjunction(12,1/2)',
  'priority=200,ip,nw_src=10.16.0.5 actions=conjunction(7,1/2),conjunction(8,1/3),conjunction(9,1/3),conjunction(10,1/2),conjunction(11,1/2),conjunction(13,1/2)',
  'priority=190,conj_id=7,ip actions=goto_table:14',
  'priority=190,conj_id=7,ip actions=goto_table:14',
  'priority=0 actions=goto_table:14',
  'priority=0 actions=goto_table:14',
  'priority=200,tcp,nw_dst=10.96.0.1,tp_dst=443 actions=ct(commit,table=14,zone=65520)',
  'priority=200,tcp,nw_dst=10.96.0.1,tp_dst=443 actions=ct(commit,table=14,zone=65520)',
  'priority=200,in_port=5,ip,nw_src=10.16.0.9 actions=output:7',
  'priority=200,in_port=5,ip,nw_src=10.16.0.10 actions=output:7',
];

/** What a flow says, as plain data: a lazy flow and a flow read at once compare equal. */
function plain(f: Flow): unknown {
  const { table, priority, cookie, match, actions, idleTimeout, hardTimeout, importance, flags, stats, origin } = f;
  return {
    table,
    priority,
    cookie,
    match,
    actions,
    idleTimeout,
    hardTimeout,
    importance,
    flags,
    stats,
    origin: { ...origin },
  };
}

test('a lazily read flow is what its line reads as on its own', () => {
  const lines = bodies.map((b, i) => stats(i) + b);
  const { flows, diagnostics } = parseDump(lines.join('\n'), { file: 'dump' });
  assert.deepEqual(diagnostics, []);
  assert.equal(flows.length, lines.length);
  const lazy = flows.filter((f) => f.outline !== undefined);
  assert.ok(lazy.length >= 6, `lines met before are read lazily (${lazy.length})`);
  flows.forEach((f, i) => {
    const alone = parseDump(lines[i]!, { file: 'dump' }).flows[0]!;
    assert.equal(alone.outline, undefined, 'a line met for the first time is read at once');
    assert.deepEqual(plain(f), { ...(plain(alone) as object), origin: { ...alone.origin, line: i + 1 } }, lines[i]);
  });
});

test('a flow tells where its line lies as its origin does, lazily read or not', () => {
  const lines = bodies.map((b, i) => stats(i) + b);
  const { flows } = parseDump(['# a dump', ...lines, 'priority=5 actions=drop'].join('\n'), { file: 'dump' });
  assert.ok(flows.some((f) => f.lineInto !== undefined) && flows.some((f) => f.lineInto === undefined));
  for (const f of flows) {
    const span = lineSpan(f, { text: '', start: 0, end: 0, statsEnd: -1 });
    assert.equal(span.text.slice(span.start, span.end), f.origin.text);
    assert.equal(span.statsEnd, f.origin.statsEnd ?? 0, f.origin.text);
  }
});

test('an outline holds the fields, masks and ports of the flow it outlines', () => {
  const lines = bodies.map((b, i) => stats(i) + b);
  const { flows } = parseDump(lines.join('\n'), { file: 'dump' });
  for (const f of flows) {
    if (!f.outline) continue;
    const shape = (fields: Flow['match']['fields']) => fields.map((e) => [e.field.storage, e.mask, e.port]);
    assert.deepEqual(shape(f.outline.match.fields), shape(f.match.fields), f.origin.text);
    if (f.outline.actions === 'conjunctions') assert.ok(f.actions.every((a) => a.kind === 'conjunction'));
    else
      assert.deepEqual(
        f.outline.actions.map((a) => a.kind),
        f.actions.map((a) => a.kind),
      );
  }
});

test('timeouts and ages printed before the priority are read lazily as on their own, bad ones reported', () => {
  const body = (i: number) => `priority=200,ip,nw_src=10.16.0.${i} actions=conjunction(7,1/2)`;
  const keys = [
    '',
    'hard_timeout=300, ',
    'idle_timeout=10, hard_timeout=300, importance=7, idle_age=5, hard_age=4294967295, ',
    'idle_age=0, ',
    'idle_timeout=10, idle_age=12, hard_age=3, ',
    'hard_timeout=65536, ',
    'idle_age=5, hard_timeout=300, ',
    'hard_timeout=0x1f, ',
  ];
  const lines = keys.map((k, i) => `${stats(i)}${k}${body(i + 1)}`);
  const dump = parseDump(lines.join('\n'), { file: 'dump' });
  // An out-of-range timeout is an error there as on its own line.
  assert.deepEqual(
    dump.diagnostics.map((d) => [d.line, d.column]),
    parseDump(lines[5]!, { file: 'dump' }).diagnostics.map((d) => [6, d.column]),
  );
  const lazy = dump.flows.filter((f) => f.outline !== undefined).map((f) => f.origin.line);
  assert.deepEqual(lazy, [2, 3, 4, 5], 'keys in the order and form ovs-ofctl prints them');
  for (const f of dump.flows) {
    const alone = parseDump(f.origin.text, { file: 'dump' }).flows[0]!;
    assert.deepEqual(plain(f), { ...(plain(alone) as object), origin: { ...alone.origin, line: f.origin.line } });
  }
  assert.deepEqual(
    [dump.flows[2]!.idleTimeout, dump.flows[2]!.hardTimeout, dump.flows[2]!.importance, dump.flows[2]!.stats],
    [10, 300, 7, { duration: '1002.52', packets: 2000n, bytes: 246913578n, idleAge: 5, hardAge: 4294967295 }],
  );
});

test('a line of a known shape with a bad value is reported, not read lazily', () => {
  const lines = [
    stats(1) + 'priority=200,ip,nw_src=10.16.0.1 actions=conjunction(7,1/2)',
    stats(2) + 'priority=200,ip,nw_src=10.16.0.300 actions=conjunction(7,1/2)',
    stats(3) + 'priority=200,ip,nw_src=10.16.0.3 actions=conjunction(7,3/2)',
    stats(4) + 'priority=200,ip,nw_src=10.16.0.4 actions=conjunction(7,1/2)',
  ];
  const { flows, diagnostics, badLines } = parseDump(lines.join('\n'), { file: 'dump' });
  assert.equal(badLines, 2);
  assert.deepEqual(
    diagnostics.map((d) => d.line),
    [2, 3],
  );
  assert.deepEqual(
    flows.map((f) => f.origin.line),
    [1, 4],
  );
  assert.notEqual(flows[1]!.outline, undefined);
});

test('conjunction lists beyond the common form read lazily as on their own, bad ones reported', () => {
  const lists = [
    'conjunction(4294967295,1/2)',
    'conjunction(7,10/12),conjunction(8,64/64)',
    'conjunction(07,01/2)',
    'conjunction(4294967296,1/2)',
    'conjunction(7,3/2)',
    'conjunction(7,1/65)',
    'conjunction(7,0/2)',
  ];
  // A first clean line makes the match a known template; each list then follows on its own line.
  const lines = [`${stats(0)}priority=200,ip,nw_src=10.16.0.1 actions=conjunction(7,1/2)`].concat(
    lists.map((l, i) => `${stats(i + 1)}priority=200,ip,nw_src=10.16.0.${i + 2} actions=${l}`),
  );
  const dump = parseDump(lines.join('\n'), { file: 'dump' });
  assert.deepEqual(
    dump.diagnostics.map((d) => d.line),
    [5, 6, 7, 8],
  );
  assert.deepEqual(
    dump.flows.map((f) => f.origin.line),
    [1, 2, 3, 4],
  );
  for (const f of dump.flows.slice(1)) {
    assert.equal(f.outline?.actions, 'conjunctions', f.origin.text);
    const alone = parseDump(f.origin.text, { file: 'dump' }).flows[0]!;
    assert.deepEqual(plain(f), { ...(plain(alone) as object), origin: { ...alone.origin, line: f.origin.line } });
  }
});

test('statistics in any number form the reader takes are read back the same from a lazily read line', () => {
  const body = 'priority=200,ip,nw_src=10.16.0.1 actions=conjunction(7,1/2)';
  const lines = [
    ` cookie=0x1, duration=1.5s, table=12, n_packets=0, n_bytes=0, ${body}`,
    `cookie=0X1F, duration=12s, table=012, n_packets=0x10, n_bytes=0XfF, ${body}`,
    ` cookie=77, duration=0.001s, table=255, n_packets=999999999999999, n_bytes=123456789012345, ${body}`,
  ];
  const dump = parseDump(lines.join('\n'), { file: 'dump' });
  assert.deepEqual(dump.diagnostics, []);
  assert.deepEqual(
    dump.flows.map((f) => [f.outline !== undefined, f.cookie, f.table, f.stats]),
    [
      [false, 1n, { kind: 'number', number: 12 }, { duration: '1.5', packets: 0n, bytes: 0n }],
      [true, 31n, { kind: 'number', number: 12 }, { duration: '12', packets: 16n, bytes: 255n }],
      [
        true,
        77n,
        { kind: 'number', number: 0 },
        { duration: '0.001', packets: 999999999999999n, bytes: 123456789012345n },
      ],
    ],
  );
});

test('lines are read lazily wherever they lie: within the whole text, between CRLF line ends, beside continued lines', () => {
  const lines = bodies.map((b, i) => stats(i) + b);
  // A line continued by a backslash, in the middle: the lines around it keep their numbers.
  const continued = [...lines.slice(0, 7), `${stats(7)}priority=0 \\`, '   actions=goto_table:14', ...lines.slice(8)];
  const read = (text: string) => parseDump(text, { file: 'dump' });
  const plainFlows = (flows: readonly Flow[]) => flows.map(plain);
  const lf = read(lines.join('\n') + '\n');
  assert.ok(lf.flows.filter((f) => f.outline !== undefined).length >= 6);
  const crlf = read(lines.join('\r\n') + '\r\n');
  assert.ok(crlf.flows.filter((f) => f.outline !== undefined).length >= 6, 'lines split from a CRLF text too');
  assert.deepEqual(plainFlows(crlf.flows), plainFlows(lf.flows));
  const joined = read(continued.join('\n'));
  assert.deepEqual(joined.diagnostics, []);
  assert.deepEqual(
    joined.flows.map((f) => f.origin.line),
    lines.map((_, i) => (i < 8 ? i + 1 : i + 2)),
  );
  assert.deepEqual(
    joined.flows.map((f) => f.origin.text),
    lines.map((l, i) => (i === 7 ? `${stats(7)}priority=0 actions=goto_table:14` : l)),
  );
});

test('a lazily read flow tells its counters are both 0 only when its line prints them so', () => {
  const body = 'priority=200,ip,nw_src=10.16.0.1 actions=conjunction(7,1/2)';
  const counters = [
    'n_packets=0, n_bytes=0',
    'n_packets=0, n_bytes=0',
    'n_packets=0x0, n_bytes=0',
    'n_packets=1, n_bytes=0',
  ];
  const lines = counters.map((c, i) => ` cookie=0x1, duration=${i}.5s, table=12, ${c}, ${body}`);
  const { flows, diagnostics } = parseDump(lines.join('\n'), { file: 'dump' });
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(
    flows.map((f) => [f.outline !== undefined, f.zeroCounters === true, f.stats?.packets, f.stats?.bytes]),
    [
      [false, false, 0n, 0n],
      [true, true, 0n, 0n],
      [true, false, 0n, 0n],
      [true, false, 1n, 0n],
    ],
  );
});

test('a long conjunction list after a match of a known shape is read lazily as on its own, a bad one reported', () => {
  const list = (ids: number[], clause = '1/2') => ids.map((id) => `conjunction(${id},${clause})`).join(',');
  const bodies = [
    `priority=200,reg1=0x5 actions=${list([11, 12, 13, 14, 15, 16])}`,
    `priority=200,reg1=0xa7 actions=${list([21, 22, 23, 24, 25, 26, 27, 28])}`,
    `priority=200,reg1=0x1f actions=${list([31, 32, 33, 34, 35, 36], '3/2')}`,
    `priority=200,reg1=0x5/0xff actions=${list([41, 42, 43, 44, 45, 46])}`,
    `priority=200,ip,nw_src=10.16.0.0/16 actions=${list([51, 52, 53, 54, 55, 56])}`,
    `priority=200,ip,nw_src=10.17.128.0/16 actions=${list([61, 62, 63, 64, 65, 66, 67])}`,
  ];
  const lines = bodies.map((b, i) => stats(i) + b);
  const dump = parseDump(lines.join('\n'), { file: 'dump' });
  assert.deepEqual(
    dump.diagnostics.map((d) => ({ ...d, line: d.line - 2 })),
    parseDump(lines[2]!, { file: 'dump' }).diagnostics,
  );
  assert.deepEqual(
    dump.flows.map((f) => [f.origin.line, f.outline?.shaped === true]),
    [
      [1, false],
      [2, true],
      [4, false],
      [5, false],
      [6, true],
    ],
    'another mask is another shape',
  );
  for (const f of dump.flows) {
    const alone = parseDump(f.origin.text, { file: 'dump' }).flows[0]!;
    assert.deepEqual(plain(f), { ...(plain(alone) as object), origin: { ...alone.origin, line: f.origin.line } });
    if (!f.outline?.shaped) continue;
    assert.equal(f.outline.actions, 'conjunctions');
    const told: number[] = [];
    assert.ok(f.eachConjunction?.((id) => told.push(id)));
    assert.deepEqual(
      told,
      f.actions.map((a) => (a.kind === 'conjunction' ? a.id : -1)),
    );
  }
});

test('a lazily read flow tells the conj_id its line prints without making its match', () => {
  const bodies = [
    'priority=190,conj_id=7,ip actions=goto_table:14',
    'priority=190,conj_id=4294967295,ip actions=goto_table:14',
    'priority=190,ip,conj_id=12 actions=goto_table:14',
    'priority=190,ip,conj_id=13 actions=goto_table:14',
    'priority=190,ip,nw_src=10.1.1.1 actions=goto_table:14',
    'priority=190,ip,nw_src=10.1.1.2 actions=goto_table:14',
  ];
  const { flows, diagnostics } = parseDump(bodies.map((b, i) => stats(i) + b).join('\n'), { file: 'dump' });
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(
    flows.map((f) => [f.outline !== undefined, f.printedConjId?.()]),
    [
      [false, undefined],
      [true, 4294967295],
      [false, undefined],
      [true, 13],
      [false, undefined],
      [true, undefined],
    ],
  );
});
