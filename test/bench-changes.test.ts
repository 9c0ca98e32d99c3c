import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeDump, type DumpParameters } from '../bench/generate.ts';
import { tracePackets } from '../bench/packets.ts';
import { skipUnlessOvs } from './support/ovs.ts';

const FLOW_LINE =
  /^ cookie=(0x[0-9a-f]+), duration=[0-9.]+s, table=(\d+), n_packets=\d+, n_bytes=\d+, (hard_timeout=\d+, )?priority=(\d+)(,[^ ]*)? actions=(.*)$/;

function flowLines(p: DumpParameters): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-bench-test-'));
  try {
    const path = join(dir, 'dump.txt');
    writeDump(path, p);
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith(' '));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Flows by `table priority match` (what a switch keys them by), with their actions. */
function byKey(lines: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of lines) {
    const m = FLOW_LINE.exec(line);
    assert.ok(m, `not a dump-flows line: ${line}`);
    const key = `table=${m[2]},priority=${m[4]}${m[5] ?? ''}`;
    assert.ok(!out.has(key), `${key} twice`);
    out.set(key, m[6]!);
  }
  return out;
}

const base = flowLines({ flows: 4000, seed: 5 });
const later = flowLines({ flows: 4000, seed: 5, changes: 40 });
const before = byKey(base);
const after = byKey(later);

test('the changed dump is the same for the same parameters and differs from the base', () => {
  assert.deepEqual(flowLines({ flows: 4000, seed: 5, changes: 40 }), later);
  assert.notDeepEqual(later, base);
});

test('exactly the requested number of flows are removed, added and changed', () => {
  const removed = [...before.keys()].filter((k) => !after.has(k));
  const added = [...after.keys()].filter((k) => !before.has(k));
  const changed = [...before].filter(([k, actions]) => after.has(k) && after.get(k) !== actions);
  assert.equal(removed.length, 40);
  assert.equal(added.length, 40);
  assert.equal(changed.length, 40);
  assert.ok(
    added.every((k) => /,priority=100\b/.test(k)),
    'added flows have a priority of their own',
  );
  for (const [k, actions] of changed) {
    const now = after.get(k)!;
    assert.ok(
      /^load:0x[0-9a-f]+->NXM_NX_REG2\[0\.\.15\],/.test(now) && now.endsWith(`,${actions}`),
      `${k}: ${actions} became ${now}`,
    );
  }
});

test('flow order and statistics differ as between two dumps of one switch', () => {
  // The flows both dumps hold alike, statistics left out, in the order each dump lists them.
  const order = (lines: readonly string[]): string[] =>
    lines.flatMap((l) => {
      const m = FLOW_LINE.exec(l)!;
      const key = `table=${m[2]},priority=${m[4]}${m[5] ?? ''}`;
      return before.get(key) === after.get(key)
        ? [l.replace(/duration=[0-9.]+s, |n_packets=\d+, n_bytes=\d+, /g, '')]
        : [];
    });
  assert.notDeepEqual(order(later), order(base));
  assert.deepEqual([...order(later)].sort(), [...order(base)].sort());
  const durations = (lines: readonly string[]): Set<string> =>
    new Set(lines.map((l) => /duration=[0-9.]+s/.exec(l)![0]));
  const earlier = durations(base);
  const common = [...durations(later)].filter((d) => earlier.has(d));
  assert.ok(common.length < later.length / 10, `${common.length} durations in common`);
});

test('added and changed flows read back from ovs-ofctl exactly as generated', skipUnlessOvs, () => {
  const fresh = later.filter((l) => {
    const m = FLOW_LINE.exec(l)!;
    const key = `table=${m[2]},priority=${m[4]}${m[5] ?? ''}`;
    return before.get(key) !== m[6];
  });
  assert.equal(fresh.length, 80);
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-bench-test-'));
  try {
    const input = join(dir, 'flows.in');
    writeFileSync(
      input,
      `${fresh.map((l) => l.replace(FLOW_LINE, 'table=$2,cookie=$1,$3priority=$4$5 actions=$6').replace(', priority', ',priority')).join('\n')}\n`,
    );
    const out = execFileSync('ovs-ofctl', ['-O', 'OpenFlow13', 'parse-flows', input], { encoding: 'utf8' });
    const printed = out.split('\n').filter((l) => l.startsWith('OFPT_FLOW_MOD'));
    assert.equal(printed.length, fresh.length);
    printed.forEach((mod, i) => {
      const canonical = mod.replace(/^.*?: ADD (?:table:\d+ )?/, '').replace(/ cookie:0x[0-9a-f]+| hard:\d+/g, '');
      assert.equal(fresh[i]!.replace(/^.*?, (?:hard_timeout=\d+, )?priority=/, 'priority='), canonical);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('trace packets come from Pods the dump has, or from the tunnel for one', () => {
  const packets = tracePackets({ flows: 4000, seed: 5 }, 200);
  assert.deepEqual(tracePackets({ flows: 4000, seed: 5 }, 200), packets);
  // SpoofGuard (table 4) admits a local Pod's packets by port, MAC and address.
  const spoofGuard = new Set(
    base.flatMap(
      (l) => /table=4, .*priority=200,ip,(in_port=\d+,dl_src=[0-9a-f:]+,nw_src=[0-9.]+) /.exec(l)?.[1] ?? [],
    ),
  );
  const podIps = new Set([...spoofGuard].map((s) => /nw_src=(.*)$/.exec(s)![1]!));
  let fromPods = 0;
  for (const p of packets) {
    if (p.startsWith('in_port=32768,')) {
      assert.ok(podIps.has(/nw_dst=([0-9.]+)/.exec(p)![1]!), p);
      continue;
    }
    const [, port, mac] = /^in_port=(\d+),dl_src=([0-9a-f:]+),/.exec(p)!;
    const src = /nw_src=([0-9.]+)/.exec(p)![1];
    assert.ok(spoofGuard.has(`in_port=${port},dl_src=${mac},nw_src=${src}`), p);
    fromPods++;
  }
  assert.ok(fromPods > 50 && fromPods < 150, `${fromPods} of 200 from local Pods`);
});
