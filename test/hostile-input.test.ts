// Input crafted to hurt: words that name what every object inherits, nesting as deep as the
// text allows, and shapes that made the readers quadratic. Each case checks the answer; the
// work is bounded by construction (a nesting limit, single passes) and the fuzz runner times it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDump } from '../src/syntax/reader.ts';
import { MAX_ACTION_NESTING } from '../src/syntax/actions.ts';
import { parseAgentInfo } from '../src/sources/agentinfo.ts';
import { sosNodes } from '../src/sources/sos.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import { Tracer } from '../src/analysis/trace/trace.ts';
import { PacketSpecError } from '../src/analysis/trace/packet.ts';
import { packetSpecProblemText } from '../src/render/words/packet-spec.ts';
import { runCli } from './support/cli.ts';

const INHERITED = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

test('words every object inherits are no group type, ct alg, protocol, ct_state flag or bundle file', async () => {
  for (const word of INHERITED) {
    const group = parseDump(`group_id=1,type=${word},bucket=output:1`, { file: 'g' });
    assert.equal(group.groups.length, 0, word);
    assert.deepEqual(
      group.diagnostics.map((d) => d.message),
      [`${word}: unknown group type`],
    );
    const ct = parseDump(`priority=1,tcp actions=ct(commit,alg=${word})`, { file: 'f' });
    assert.equal(ct.flows.length, 0, word);
    assert.deepEqual(
      ct.diagnostics.map((d) => d.message),
      [`${word}: unknown alg`],
    );
    const tracer = new Tracer(
      new Pipeline(parseDump('priority=0 actions=drop', { file: 'p' }).flows, [], parseDump('', { file: 'p' }).ports),
    );
    assert.throws(
      () => tracer.parsePacket(`in_port=1,${word}`),
      (err: unknown) =>
        err instanceof PacketSpecError && /unknown field|not a field/i.test(packetSpecProblemText(err.problem)),
      word,
    );
    const r = await runCli(['trace', '-', '--ct-next', word, 'in_port=1'], { stdin: 'priority=0 actions=drop\n' });
    assert.equal(r.status, 2, word);
    assert.match(r.stderr, new RegExp(`${word}: unknown ct_state flag`));
  }
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-proto-'));
  try {
    mkdirSync(join(dir, 'node1'));
    writeFileSync(join(dir, 'node1', 'flows'), ' cookie=0x0, table=0, priority=0 actions=drop\n');
    for (const word of INHERITED) writeFileSync(join(dir, 'node1', word), 'x=1\n');
    const r = await runCli(['fmt', '--bundle', dir]);
    assert.deepEqual([r.status, r.stdout, r.stderr], [0, 'priority=0 actions=drop\n', '']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const nested = (n: number, inner = 'drop'): string =>
  `priority=1 actions=${'clone('.repeat(n)}${inner}${')'.repeat(n)}`;

test('actions nest as deep as OVS allows them, no deeper, with a positioned diagnostic', async () => {
  const deepest = parseDump(nested(MAX_ACTION_NESTING - 1, 'output:1'), { file: 'f' });
  assert.deepEqual([deepest.flows.length, deepest.diagnostics.length], [1, 0]);
  for (const n of [MAX_ACTION_NESTING, 1500, 40000]) {
    const r = parseDump(nested(n), { file: 'f' });
    assert.equal(r.flows.length, 0);
    assert.deepEqual(
      r.diagnostics.map((d) => [d.message, d.line]),
      [['Action nested too deeply', 1]],
    );
  }
  const ct = parseDump(`priority=1,ip actions=${'ct(commit,exec('.repeat(40000)}${'))'.repeat(40000)}`, { file: 'f' });
  assert.equal(ct.flows.length, 0);
  assert.ok(ct.diagnostics.some((d) => d.message === 'Action nested too deeply'));
  // The deepest the parser accepts prints as JSON and as text.
  const json = await runCli(['parse', '-'], { stdin: `${nested(MAX_ACTION_NESTING - 1, 'output:1')}\n` });
  assert.equal(json.status, 0, json.stderr);
  assert.equal(JSON.stringify(JSON.parse(json.stdout)).split('"clone"').length - 1, MAX_ACTION_NESTING - 1);
  const text = await runCli(['fmt', '-'], { stdin: `${nested(1500)}\n` });
  assert.equal(text.status, 2);
  assert.match(text.stderr, /^<stdin>:1:\d+: error: Action nested too deeply\n/);
});

test('a line of 300,000 backslash continuations points each diagnostic at its physical line', () => {
  const parts = Array.from({ length: 300000 }, () => 'ip,\\');
  const text = `priority=1,${parts.join('\n')}\nbogus=1 actions=drop\n`;
  const r = parseDump(text, { file: 'f' });
  const bogus = r.diagnostics.find((d) => d.message.includes('bogus'));
  assert.ok(
    bogus,
    r.diagnostics
      .slice(0, 3)
      .map((d) => d.message)
      .join('\n'),
  );
  assert.deepEqual([bogus.line, bogus.column, bogus.lineText], [300001, 1, 'bogus=1 actions=drop']);
});

test('a long action list full of quotes still finds its keywords outside them', () => {
  // Port names in quotes that hold what looks like the keywords.
  const outputs = 'output:"p actions=1 priority=9",'.repeat(30000);
  const r = parseDump(`priority=7,ip,${'reg0=1,'.repeat(10)}actions=${outputs}output:2`, { file: 'f' });
  assert.equal(r.flows.length, 1, r.diagnostics[0]?.message);
  assert.equal(r.flows[0]!.priority, 7);
  assert.equal(r.flows[0]!.actions.length, 30001);
});

test('a sosreport of blank lines and an agentinfo of 130,000 lines are read in one pass', () => {
  const blank = Buffer.from('\n'.repeat(200000));
  const nodes = sosNodes(
    new Map([
      [
        'sos_commands/openvswitch/ovs-ofctl_dump-flows_br0',
        Buffer.from(' cookie=0x0, table=0, priority=0 actions=drop\n'),
      ],
      ['sos_commands/openvswitch/ovs-ofctl_dump-groups_br0', blank],
      ['sos_commands/openvswitch/ovs-ofctl_show_br0', blank],
    ]),
    'sos',
  );
  assert.deepEqual(
    nodes.map((n) => [n.name, Object.keys(n.files).sort()]),
    [['br0', ['flows']]],
  );
  const info = parseAgentInfo(`nodeRef:\n  name: worker-1\n${'  x: y\n'.repeat(130000)}`);
  assert.equal(info.nodeName, 'worker-1');
});

test('check on a dump with a 2 MB flow shows the start of it, and the report is bounded', async () => {
  const huge = ` cookie=0x0, table=0, priority=5,ip actions=exit,${'set_field:1->reg0,'.repeat(120000)}output:2\n`;
  const r = await runCli(['check', '--fail-on', 'error', '-'], { stdin: huge + huge });
  assert.ok(r.stdout.length < 20000, `${r.stdout.length} bytes`);
  assert.match(r.stdout, /^dead-actions \(\d+\):$/m);
  assert.match(r.stdout, /…/);
});
