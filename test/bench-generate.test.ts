import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flowModOf, writeDump } from '../bench/generate.ts';
import { skipUnlessOvs, withOvsSwitch } from './support/ovs.ts';

const FLOW_LINE =
  /^ cookie=(0x[0-9a-f]+), duration=[0-9.]+s, table=(\d+), n_packets=\d+, n_bytes=\d+, (hard_timeout=\d+, )?(priority=.*)$/;

function generate(flows: number, seed: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-bench-test-'));
  try {
    const path = join(dir, 'dump.txt');
    writeDump(path, { flows, seed });
    return readFileSync(path, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const dump = generate(4000, 7);
const flowLines = dump.split('\n').filter((l) => l.startsWith(' '));

/** `priority=…,<match> actions=…` of a dump line. */
const body = (line: string): string => FLOW_LINE.exec(line)?.[4] ?? line;

test('the same seed gives the same dump; another seed a different one', () => {
  assert.equal(generate(4000, 7), dump);
  assert.notEqual(generate(4000, 8), dump);
});

test('the dump is a chunked OpenFlow 1.3 reply of about the requested size', () => {
  const lines = dump.split('\n');
  assert.equal(lines.pop(), '', 'ends with a newline');
  const headers = lines.filter((l) => !l.startsWith(' '));
  assert.ok(headers.length > 1, 'several multipart chunks');
  assert.equal(lines[0], headers[0]);
  assert.ok(headers.slice(0, -1).every((h) => h === 'OFPST_FLOW reply (OF1.3) (xid=0x2): flags=[more]'));
  assert.equal(headers.at(-1), 'OFPST_FLOW reply (OF1.3) (xid=0x2):');
  assert.ok(flowLines.every((l) => FLOW_LINE.test(l)));
  assert.ok(flowLines.length >= 4000 && flowLines.length < 6000, `${flowLines.length} flows`);
  const tables = flowLines.map((l) => Number(FLOW_LINE.exec(l)?.[2]));
  assert.deepEqual(
    tables,
    [...tables].sort((a, b) => a - b),
    'grouped by table in ascending order',
  );
});

test('no two flows share table, priority and match (a switch keeps only one)', () => {
  const keys = flowLines.map((l) => {
    const m = FLOW_LINE.exec(l)!;
    return `${m[2]} ${m[4]!.replace(/ actions=.*$/, '')}`;
  });
  assert.equal(new Set(keys).size, keys.length);
});

test('NetworkPolicy conjunctions dominate and every one can complete', () => {
  // (table, priority, id) → dimensions seen and their declared count; (table, id) of conj_id flows.
  const dims = new Map<string, { n: Set<number>; k: Set<number> }>();
  const actionFlows = new Set<string>();
  let clauseFlows = 0;
  for (const line of flowLines) {
    const m = FLOW_LINE.exec(line)!;
    const table = m[2]!;
    const text = m[4]!;
    const conjId = /conj_id=(\d+)/.exec(text);
    if (conjId) actionFlows.add(`${table}/${conjId[1]}`);
    const priority = /^priority=(\d+)/.exec(text)![1]!;
    const conjunctions = [...text.matchAll(/conjunction\((\d+),(\d+)\/(\d+)\)/g)];
    if (conjunctions.length > 0) clauseFlows++;
    for (const [, id, k, n] of conjunctions) {
      const key = `${table}/${priority}/${id}`;
      const entry = dims.get(key) ?? { n: new Set(), k: new Set() };
      entry.n.add(Number(n));
      entry.k.add(Number(k));
      dims.set(key, entry);
    }
  }
  assert.ok(clauseFlows / flowLines.length > 0.5, `clause flows are ${clauseFlows} of ${flowLines.length}`);
  assert.ok(dims.size > 10);
  for (const [key, { n, k }] of dims) {
    assert.equal(n.size, 1, `${key}: one clause count`);
    const [count] = [...n];
    assert.deepEqual(
      [...k].sort(),
      Array.from({ length: count! }, (_, i) => i + 1),
      `${key}: every dimension present`,
    );
    const [table, , id] = key.split('/');
    assert.ok(actionFlows.has(`${table}/${id}`), `${key}: has a conj_id flow`);
  }
});

test('every flow reads back from ovs-ofctl exactly as generated', skipUnlessOvs, () => {
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-bench-test-'));
  try {
    const input = join(dir, 'flows.in');
    writeFileSync(input, `${flowLines.map(flowModOf).join('\n')}\n`);
    const out = execFileSync('ovs-ofctl', ['-O', 'OpenFlow13', 'parse-flows', input], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    const printed = out.split('\n').filter((l) => l.startsWith('OFPT_FLOW_MOD'));
    assert.equal(printed.length, flowLines.length);
    printed.forEach((mod, i) => {
      // Flow-mod print form: `ADD [table:N ]<match> cookie:0x… [hard:N] actions=…`.
      const canonical = mod.replace(/^.*?: ADD (?:table:\d+ )?/, '').replace(/ cookie:0x[0-9a-f]+| hard:\d+/g, '');
      assert.equal(body(flowLines[i]!), canonical);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('flows loaded into a real switch dump back as the same lines', skipUnlessOvs, async () => {
  // Group and meter actions need those objects to exist; the rest loads as is.
  const loadable = flowLines.filter((l) => !/\bgroup:|\bmeter:/.test(l));
  const stripStats = (l: string): string =>
    l.replace(/duration=[0-9.]+s, /, '').replace(/n_packets=\d+, n_bytes=\d+, /, '');
  const dumped = await withOvsSwitch({ protocols: ['OpenFlow13'] }, async (sw) => {
    await sw.addFlows(loadable.map(flowModOf).join('\n'), 13);
    return sw.dumpFlows({ of: 13 });
  });
  const real = dumped.split('\n').filter((l) => l.startsWith(' '));
  assert.deepEqual(real.map(stripStats).sort(), loadable.map(stripStats).sort());
  assert.match(dumped.split('\n')[0]!, /^OFPST_FLOW reply \(OF1\.3\) \(xid=0x[0-9a-f]+\): flags=\[more\]$/);
});
