import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { diffDumps } from '../src/analysis/diff/diff.ts';
import type { Flow } from '../src/model/flow.ts';
import { parseDump, type ParseResult } from '../src/syntax/reader.ts';
import { SameLines } from '../src/syntax/same-lines.ts';
import { repoRoot } from './support/paths.ts';

// A dump read after another with shared lines reads a line that says after its statistics what a
// line of the first says as that line's flow (with its own statistics, table and cookie), without
// parsing it. These tests check that such a dump reads exactly as when read on its own: the same
// flows, the same diagnostics, and the same differences from the first.

/** What a flow says, as plain data. */
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

/** Both dumps read with shared lines, and the second also read on its own. */
function readBoth(before: string, after: string): { a: ParseResult; b: ParseResult; alone: ParseResult } {
  const lines = new SameLines();
  const a = parseDump(before, { file: 'before', sameLines: { lines, role: 'keep' } });
  const b = parseDump(after, { file: 'after', sameLines: { lines, role: 'find' } });
  return { a, b, alone: parseDump(after, { file: 'after' }) };
}

function assertReadAlike(b: ParseResult, alone: ParseResult): void {
  assert.deepEqual(b.diagnostics, alone.diagnostics);
  assert.equal(b.badLines, alone.badLines);
  assert.deepEqual(b.flows.map(plain), alone.flows.map(plain));
}

const stats = (n: number, table = 10): string =>
  ` cookie=0x${n}, duration=${n}.5s, table=${table}, n_packets=${n * 3}, n_bytes=${n * 180}, `;

test('a line said before is that flow again, with its own statistics, table and cookie', () => {
  const before = [
    `${stats(1)}priority=200,ip,nw_src=10.0.0.1 actions=conjunction(1,1/2)`,
    `${stats(1)}priority=200,ip,nw_src=10.0.0.2 actions=conjunction(1,1/2)`,
    `${stats(1, 11)}idle_timeout=60, idle_age=4, priority=5,tcp actions=drop`,
    `${stats(1, 12)}send_flow_rem priority=7,udp,tp_dst=53 actions=output:3`,
  ].join('\n');
  const after = [
    `${stats(2, 12)}send_flow_rem priority=7,udp,tp_dst=53 actions=output:3`,
    `${stats(3, 14)}idle_timeout=60, idle_age=4, priority=5,tcp actions=drop`,
    `${stats(4)}priority=200,ip,nw_src=10.0.0.2 actions=conjunction(1,1/2)`,
    `${stats(5)}priority=200,ip,nw_src=10.0.0.3 actions=conjunction(1,1/2)`,
  ].join('\n');
  const { a, b, alone } = readBoth(before, after);
  assertReadAlike(b, alone);
  assert.deepEqual(
    b.flows.map((f) => f.sameLine && a.flows.indexOf(f.sameLine.flow)),
    [3, 2, 1, undefined],
  );
  assert.deepEqual(
    b.flows.map((f) => f.sameLine?.index),
    [3, 2, 1, undefined],
  );
});

test('lines with diagnostics are read and reported in both dumps', () => {
  const lines = [
    `${stats(1)}priority=200,ip,nw_src=10.0.0.300 actions=drop`,
    `${stats(1)}priority=200,tcp,tp_dst=80 actions=output:NOPE,drop`,
    `${stats(1)}priority=200,ip actions=load:0x1->NXM_NX_REG0[0..40]`,
    `${stats(1)}priority=100,ip,nw_dst=10.0.0.1,nw_dst=10.0.0.2 actions=output:1`,
    `${stats(1)}priority=100,ip actions=output:1`,
  ];
  const { a, b, alone } = readBoth(lines.join('\n'), [...lines].reverse().join('\n'));
  assert.equal(a.diagnostics.length, 4, 'the lines are reported in the first dump');
  assert.ok(a.diagnostics.some((d) => d.severity === 'warning'));
  assert.equal(b.diagnostics.length, a.diagnostics.length);
  assertReadAlike(b, alone);
  // The clean line is found; the one with a warning is read again, and warned of again.
  assert.deepEqual(
    b.flows.map((f) => f.sameLine !== undefined),
    [true, false],
  );
});

test('lines read with port names are neither kept nor found', () => {
  const show = ['OFPT_FEATURES_REPLY (xid=0x2): dpid:0000000000000001', ' 3(gw0): addr:aa:bb:cc:dd:ee:ff'];
  const line = `${stats(1)}priority=100,in_port=gw0 actions=output:gw0`;
  const plainLine = `${stats(1)}priority=100,ip actions=drop`;
  // Ports named before the flows: nothing kept.
  let { b, alone } = readBoth([...show, line, plainLine].join('\n'), [line, plainLine].join('\n'));
  assertReadAlike(b, alone);
  assert.ok(b.flows.every((f) => f.sameLine === undefined));
  // Ports named before the second dump's flows: nothing found.
  ({ b, alone } = readBoth([line, plainLine].join('\n'), [...show, line, plainLine].join('\n')));
  assertReadAlike(b, alone);
  assert.ok(b.flows.every((f) => f.sameLine === undefined));
});

test('a line whose text after the statistics sets its table or counters again is read in full', () => {
  const line = (n: number): string => `${stats(n)}table=5,n_packets=7,priority=100,ip actions=drop`;
  const { b, alone } = readBoth(line(1), line(2));
  assertReadAlike(b, alone);
  assert.equal(b.flows[0]!.table.kind === 'number' && b.flows[0]!.table.number, 5);
  assert.equal(b.flows[0]!.sameLine, undefined);
});

test('a line the first dump holds twice is not found: the diff pairs its copies in order', () => {
  const header = 'OFPST_FLOW reply (OF1.3) (xid=0x2):';
  const line = (n: number, cookie: number): string =>
    ` cookie=0x${cookie}, duration=${n}.5s, table=0, n_packets=${n}, n_bytes=${n * 60}, priority=100,ip,nw_dst=10.0.0.1 actions=output:1`;
  const before = [header, line(1, 1), header, line(2, 2)].join('\n');
  const after = [header, line(3, 2)].join('\n');
  const { a, b, alone } = readBoth(before, after);
  assertReadAlike(b, alone);
  assert.equal(b.flows[0]!.sameLine, undefined);
  const d = diffDumps(a, b, { cookies: true });
  assert.deepEqual(
    d.tables[0]!.removed.map((f) => f.origin.line),
    [2],
  );
});

test('the first dump holding a line once, the second twice: the first copy in its table pairs', () => {
  const line = (n: number, table: number): string => `${stats(n, table)}priority=100,ip actions=drop`;
  const { a, b, alone } = readBoth(
    [line(1, 3), `${stats(1)}priority=1 actions=drop`].join('\n'),
    [line(2, 4), line(3, 3), line(4, 3)].join('\n'),
  );
  assertReadAlike(b, alone);
  assert.ok(b.flows.every((f) => f.sameLine !== undefined));
  const d = diffDumps(a, b);
  const table = (n: number) => d.tables.find((t) => t.table.kind === 'number' && t.table.number === n)!;
  assert.deepEqual(
    table(3).added.map((f) => f.origin.line),
    [3],
  );
  assert.deepEqual(
    table(4).added.map((f) => f.origin.line),
    [1],
  );
  assert.equal(table(10).removed.length, 1);
});

test('examples: every dump compared with every other reads and diffs as without shared lines', () => {
  for (const name of ['antrea', 'antrea-proxy', 'openshift-sdn']) {
    const dir = join(repoRoot, 'examples', name);
    const dumps = readdirSync(dir)
      .filter((f) => f.startsWith('dump-flows') || f === 'flows.txt')
      .map((f) => ({ file: f, text: readFileSync(join(dir, f), 'utf8') }));
    for (const x of dumps) {
      for (const y of dumps) {
        const { a, b, alone } = readBoth(x.text, y.text);
        assertReadAlike(b, alone);
        const shared = diffDumps(a, b);
        const separate = diffDumps(parseDump(x.text, { file: 'before' }), alone);
        assert.deepEqual(JSON.parse(JSON.stringify(shared, replacer)), JSON.parse(JSON.stringify(separate, replacer)));
        if (x.file === y.file && a.flows.some((f) => f.origin.statsEnd))
          assert.ok(
            b.flows.some((f) => f.sameLine !== undefined),
            `${name}/${y.file} read as ${x.file}`,
          );
      }
    }
  }
});

/** Flows as plain data, bigints as text: a comparison's structure, whatever kind of object each flow is. */
function replacer(key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (key === 'sameLine') return undefined;
  if (value !== null && typeof value === 'object' && 'origin' in value && 'match' in value) return plain(value as Flow);
  return value;
}
