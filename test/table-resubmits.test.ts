/**
 * `resubmit:NAME` as Antrea's flow formatter writes a resubmit to a table: read as that table
 * where NAME is no port of the dump and one of its tables, whatever profile reads the dump; a
 * port stays a port.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDump } from '../src/syntax/reader.ts';
import { runCli } from './support/cli.ts';
import { corpusDir } from './support/paths.ts';

const LISTING = [
  'table=Entry, priority=20,ip,nw_dst=10.0.0.9 actions=clone(resubmit:Next),output:3',
  'table=Entry, priority=10,ip actions=resubmit:Next',
  'table=Entry, priority=5,arp actions=resubmit:uplink',
  'table=Entry, priority=0 actions=drop',
  'table=Next, priority=0 actions=output:2',
].join('\n');

test('resubmit:NAME of a table the dump has, and no port, is a resubmit to that table, nested ones too', () => {
  const d = parseDump(LISTING, { file: 'listing' });
  assert.deepEqual(d.diagnostics, []);
  const [cloned, plain, port] = d.flows;
  assert.deepEqual(plain!.actions, [{ kind: 'resubmit', table: { kind: 'name', name: 'Next' }, ct: false }]);
  assert.deepEqual(cloned!.actions[0], {
    kind: 'clone',
    actions: [{ kind: 'resubmit', table: { kind: 'name', name: 'Next' }, ct: false }],
  });
  // No table is called uplink: it stays the port resubmit OVS reads.
  assert.deepEqual(port!.actions, [{ kind: 'resubmit', port: { kind: 'name', name: 'uplink' }, ct: false }]);
  // A port the dump knows by that name wins, as it does in OVS.
  for (const text of [
    ` 2(Next): addr:aa:bb:cc:dd:ee:01\n${LISTING}`,
    `${LISTING}\n 2(Next): addr:aa:bb:cc:dd:ee:01\n`,
  ]) {
    const a = parseDump(text, { file: 'listing' }).flows[1]!.actions[0]!;
    assert.ok(a.kind === 'resubmit' && a.table === undefined && a.port !== undefined, JSON.stringify(a));
  }
});

test('a dump whose table names no profile knows traces resubmit:NAME into the table NAME', async () => {
  const r = await runCli(['trace', '-', 'in_port=1,ip,nw_dst=10.0.0.1'], { stdin: LISTING });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Entry\. ip, priority 10\n\s+resubmit\(,Next\)\nNext\. priority 0\n\s+output:2\n/m);
  assert.match(r.stdout, /Verdict: output to port 2/);
});

test("Antrea's pipeline-test listings: the multicast flow of PipelineIPClassifier continues in MulticastEgressRule, and says so", async () => {
  const text = readFileSync(join(corpusDir, 'antrea-pipeline_test-ipv4-encap.txt'), 'utf8');
  assert.match(text, /actions=resubmit:MulticastEgressRule/);
  const r = await runCli(['show', '-', '-T', 'PipelineIPClassifier'], { stdin: text });
  assert.equal(r.status, 0, r.stderr);
  assert.match(
    r.stdout,
    /\[210\] IPv4 multicast is handled by the multicast sub-pipeline \(MulticastEgressRule\)\.\n\s+IPv4, to 224\.0\.0\.0\/4 \(IPv4 multicast\): resubmit to MulticastEgressRule\n/,
  );
  const g = await runCli(['graph', '-'], { stdin: text });
  assert.match(g.stdout, /"table:PipelineIPClassifier" -> "table:MulticastEgressRule"/);
});
