#!/usr/bin/env node
// Runs every compiled test file with node's test runner, and says plainly whether the
// differential tests against a real Open vSwitch will run or be skipped.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const testDir = join(root, 'dist', 'test');

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...collect(p));
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const have = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd} || test -x /usr/sbin/${cmd}`]).status === 0;
const ovs = ['ovs-vswitchd', 'ovsdb-server', 'ovs-ofctl', 'ovs-appctl', 'ovsdb-tool', 'ovs-vsctl'].filter((c) => !have(c));
if (ovs.length === 0) {
  console.log('flowscope tests: Open vSwitch binaries found; differential tests against real OVS will run.');
} else {
  console.log(`flowscope tests: SKIPPING the differential tests against real Open vSwitch (missing: ${ovs.join(', ')}).`);
  console.log('flowscope tests: install them with `apt-get install -y openvswitch-switch` to run every test.');
}

const files = collect(testDir);
const args = ['--test', '--test-reporter=spec', ...(process.env.TEST_FILTER ? ['--test-name-pattern', process.env.TEST_FILTER] : []), ...files];
const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
process.exitCode = r.status ?? 1;
