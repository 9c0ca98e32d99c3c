/** The statistics of dump lines: read in every form ovs-ofctl prints them, and written as JSON. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDump } from '../src/syntax/reader.ts';
import { flowJson } from '../src/render/json.ts';

const one = (line: string) => {
  const r = parseDump(line, { file: 'stats.txt' });
  assert.deepEqual(r.diagnostics, []);
  assert.equal(r.flows.length, 1);
  return r.flows[0]!;
};

test('stats: the OpenFlow 1.3 print form, read in one pass', () => {
  const f = one(
    ' cookie=0x3010000000000, duration=275921.310s, table=16, n_packets=2148, n_bytes=768984, priority=210,ip actions=drop',
  );
  assert.equal(f.stats?.duration, '275921.310');
  assert.equal(f.stats?.packets, 2148n);
  assert.equal(f.stats?.bytes, 768984n);
  assert.equal(f.stats?.idleAge, undefined);
  assert.deepEqual(flowJson(f).stats, { duration: '275921.310', packets: 2148n, bytes: 768984n });
});

test('stats: the OpenFlow 1.0 form with ages, key by key', () => {
  const f = one(
    ' cookie=0x0, duration=12.5s, table=0, n_packets=3, n_bytes=180, idle_timeout=60, idle_age=7, hard_age=9, priority=5,ip actions=drop',
  );
  assert.equal(f.stats?.duration, '12.5');
  assert.equal(f.stats?.packets, 3n);
  assert.equal(f.stats?.idleAge, 7);
  assert.equal(f.stats?.hardAge, 9);
  assert.equal(f.idleTimeout, 60);
  assert.deepEqual(flowJson(f).stats, { duration: '12.5', packets: 3n, bytes: 180n, idleAge: 7, hardAge: 9 });
});

test('stats: unknown counters and unreadable durations, as test suites print them', () => {
  const f = one('duration=?s, n_packets=?, n_bytes=?, priority=5,ip actions=drop');
  assert.equal(f.stats?.duration, undefined);
  assert.equal(f.stats?.packets, null);
  assert.equal(f.stats?.bytes, null);
  assert.deepEqual(flowJson(f).stats, { packets: null, bytes: null });
});

test('stats: none for a line without any', () => {
  const f = one('priority=5,ip actions=drop');
  assert.equal(f.stats, undefined);
  assert.equal(flowJson(f).stats, undefined);
});
