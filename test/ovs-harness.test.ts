import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { alive, OvsSwitch, parseFlow, skipUnlessOvs, withOvsSwitch } from './support/ovs.ts';

test('harness starts a dummy switch, loads, dumps, traces and stops', skipUnlessOvs, async () => {
  const sw = await OvsSwitch.start({
    bridge: 'br-test',
    ports: [
      { name: 'p1', ofport: 7 },
      { name: 'antrea-gw0', ofport: 2 },
    ],
    tableNames: { 0: 'Classifier', 3: 'Output' },
    datapathId: '00000000000000a1',
  });
  const pidFiles = ['ovs-vswitchd.pid', 'ovsdb-server.pid'].map((f) => join(sw.dir, f));
  const pids = pidFiles.map((f) => Number(readFileSync(f, 'utf8').trim()));
  try {
    await sw.addFlows(
      [
        '# comment lines are allowed in add-flows files',
        'table=0,priority=200,in_port=p1 actions=set_field:0x2/0xf->reg0,goto_table:3',
        'table=3,priority=10,reg0=0x2/0xf actions=output:"antrea-gw0"',
        '',
      ].join('\n'),
      13,
    );
    await sw.addGroups('group_id=1,type=select,bucket=bucket_id:0,actions=output:7\n', 15);

    const plain = await sw.dumpFlows();
    assert.match(plain, /^NXST_FLOW reply \(xid=0x[0-9a-f]+\):\n/);
    assert.equal(plain.split('\n').filter((l) => l.startsWith(' cookie=')).length, 2);
    assert.match(plain, /priority=200,in_port=7 actions=load:0x2->NXM_NX_REG0\[0\.\.3\],resubmit\(,3\)/);

    const named = await sw.dumpFlows({ of: 15, names: true, noStats: true });
    assert.equal(
      named,
      [
        ' table=Classifier, priority=200,in_port=p1 actions=set_field:0x2/0xf->reg0,goto_table:Output',
        ' table=Output, priority=10,reg0=0x2/0xf actions=output:"antrea-gw0"',
        '',
      ].join('\n'),
    );

    assert.match(await sw.dumpGroups({ of: 15 }), /group_id=1,type=select,bucket=bucket_id:0,actions=output:7/);
    const show = await sw.show();
    assert.match(show, /dpid:00000000000000a1/);
    assert.match(show, / 7\(p1\): addr:/);
    assert.match(show, / 2\(antrea-gw0\): addr:/);

    // Datapath port numbers differ from OpenFlow ones, so check the OpenFlow part of the trace.
    const trace = await sw.trace('in_port=7');
    assert.match(trace, /\n 3\. reg0=0x2\/0xf, priority 10\n {4}output:2\n/);
    assert.match(trace, /\nDatapath actions: \d+\n/);
  } finally {
    await sw.stop();
  }
  assert.equal(existsSync(sw.dir), false);
  assert.equal(pids.length, 2);
  for (const pid of pids) assert.equal(alive(pid), false);
});

test('harness cleans up when the test body throws', skipUnlessOvs, async () => {
  let dir = '';
  await assert.rejects(
    withOvsSwitch({}, async (sw) => {
      dir = sw.dir;
      await sw.addFlows('priority=1,not_a_field=3 actions=drop\n');
    }),
    /not_a_field/,
  );
  assert.notEqual(dir, '');
  assert.equal(existsSync(dir), false);
});

test('a test run stopped by a signal still stops its switches', { ...skipUnlessOvs, timeout: 120_000 }, async () => {
  // A process that starts a switch, says where it is, and waits to be stopped.
  const harness = new URL('./support/ovs.js', import.meta.url).href;
  const script = `import { OvsSwitch } from ${JSON.stringify(harness)};
    const sw = await OvsSwitch.start({});
    console.log(sw.dir);
    setInterval(() => {}, 1000);`;
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
    const dir = chunk.toString().trim();
    const pids = ['ovs-vswitchd.pid', 'ovsdb-server.pid'].map((f) => Number(readFileSync(join(dir, f), 'utf8').trim()));
    assert.ok(pids.every(alive), `${sig}: both daemons run before the signal`);
    const exited = once(child, 'exit');
    child.kill(sig);
    const [code, signal] = (await exited) as [number | null, string | null];
    // SIGKILL is sent before the run ends, but a loaded machine may take a while to end its target.
    const outlived = await stillAliveAfter(pids, 20_000);
    const dirLeft = existsSync(dir);
    // Whatever is asserted below, nothing outlives this test.
    for (const pid of outlived) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    // It ends as the signal ends a process, its daemons and directory gone with it.
    assert.deepEqual([code, signal], [null, sig]);
    assert.deepEqual(outlived, [], `${sig}: daemons outlived the run`);
    assert.equal(dirLeft, false);
  }
});

/** The processes of `pids` still alive once all have ended or `ms` have passed, checked every 50 ms. */
async function stillAliveAfter(pids: readonly number[], ms: number): Promise<number[]> {
  for (let waited = 0; waited < ms && pids.some(alive); waited += 50) await delay(50);
  return pids.filter(alive);
}

test('parse-flow reports OVS errors without throwing', skipUnlessOvs, async () => {
  assert.deepEqual(await parseFlow('in_port=1,actions=goto_table:2', 13), {
    ok: true,
    protocol: 'OXM-OpenFlow13',
    message: 'OFPT_FLOW_MOD (OF1.3) (xid=0x1)',
    canonical: 'in_port=1 actions=goto_table:2',
  });
  // parse-flow has no port map, so port names are unknown to it.
  assert.deepEqual(await parseFlow('in_port=foo actions=drop'), {
    ok: false,
    error: 'foo: invalid or unknown port for in_port',
  });
});
