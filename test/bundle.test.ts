/** Antrea support bundles and sosreports built from real ovs-ofctl output, whole and damaged. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAgentInfo } from '../src/sources/agentinfo.ts';
import { openBundle, selectNode } from '../src/sources/bundle.ts';
import { readNode } from '../src/sources/node-dump.ts';
import { summarizeNode } from '../src/analysis/bundle/node-summary.ts';
import { nodeProblems } from '../src/render/bundle.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { checkPipeline } from '../src/analysis/check/check.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import { tableLabel } from '../src/model/tables.ts';
import {
  agentInfo,
  agentText,
  antreaAgentFiles,
  antreaProxyAgentFiles,
  example,
  tar,
  tarGz,
} from './support/bundle.ts';
import { runCli } from './support/cli.ts';
import { ANTREA, exampleFile } from './support/make-examples.ts';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'flowscope-bundle-'));
}

/** A bundle directory as `antctl supportbundle` leaves it: two good agents, one cut, one failed node. */
async function makeBundle(dir: string): Promise<void> {
  writeFileSync(join(dir, 'agent_node-a.tar.gz'), await tarGz(antreaAgentFiles('node-a')));
  writeFileSync(join(dir, 'agent_node-b.tar.gz'), await tarGz(antreaProxyAgentFiles('node-b')));
  const whole = await tarGz(antreaAgentFiles('node-c'));
  writeFileSync(join(dir, 'agent_node-c.tar.gz'), whole.subarray(0, Math.floor(whole.length * 0.7)));
  writeFileSync(join(dir, 'controller.tar.gz'), await tarGz([{ name: 'logs/controller.log', data: 'x' }]));
  writeFileSync(join(dir, 'failed_nodes'), 'node-d\n');
  writeFileSync(join(dir, 'clusterinfo'), 'apiVersion: v1\nkind: Node\n');
}

test('a bundle directory: one node per agent tarball, failed nodes reported, the cut one still read', async () => {
  const dir = tempDir();
  try {
    await makeBundle(dir);
    const bundle = await openBundle(dir);
    assert.deepEqual(
      bundle.nodes.map((n) => n.name),
      ['node-a', 'node-b', 'node-c'],
    );
    assert.deepEqual(bundle.problems, ['the bundle could not collect node node-d (failed_nodes)']);

    const a = readNode(selectNode(bundle, 'node-a'));
    assert.equal(a.flows.length, 86);
    assert.deepEqual(a.nodeProblems, []);
    assert.equal(a.agentInfo?.nodeName, 'node-a');
    assert.ok(a.policies.networkpolicies?.text.includes('allow-dns'));

    const b = readNode(selectNode(bundle, 'node-b'));
    assert.equal(b.flows.length, 70);
    assert.equal(b.groups.length, 3);

    const c = readNode(selectNode(bundle, 'node-c'));
    assert.ok(c.flows.length > 0 && c.flows.length < 86, `${c.flows.length} flows from the cut archive`);
    assert.ok(c.nodeProblems.some((p) => p.endsWith('agent_node-c.tar.gz is truncated (the gzip stream ends early)')));
    assert.ok(c.nodeProblems.some((p) => /agent_node-c\.tar\.gz:flows is cut short: \d+ of \d+ bytes/.test(p)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bundles of two days in one directory: a node name they share is refused, naming both', async () => {
  const dir = tempDir();
  try {
    for (const day of ['monday', 'tuesday']) {
      mkdirSync(join(dir, day));
      writeFileSync(join(dir, day, 'agent_node-a.tar.gz'), await tarGz(antreaAgentFiles('node-a')));
    }
    writeFileSync(join(dir, 'tuesday', 'agent_node-b.tar.gz'), await tarGz(antreaProxyAgentFiles('node-b')));
    const [monday, tuesday] = [join(dir, 'monday', 'agent_node-a.tar.gz'), join(dir, 'tuesday', 'agent_node-a.tar.gz')];
    const all = await runCli(['show', dir]);
    assert.equal(all.status, 2);
    assert.ok(all.stderr.includes(`holds 3 nodes (node-a at ${monday}, node-a at ${tuesday}, node-b)`), all.stderr);
    const shared = await runCli(['show', dir, '--node', 'node-a']);
    assert.equal(shared.status, 2);
    assert.ok(
      shared.stderr.includes(
        `holds 2 nodes named "node-a" (${monday}, ${tuesday}): give the one you mean instead of ${dir}`,
      ),
      shared.stderr,
    );
    assert.equal(shared.stdout, '');
    // Named by its own path, each is read.
    const one = await runCli(['show', tuesday, '-T', '0']);
    assert.equal(one.status, 0, one.stderr);
    // A name only one of them has is still chosen.
    const b = await runCli(['show', dir, '--node', 'node-b', '-T', '0']);
    assert.equal(b.status, 0, b.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ovsports makes port names and numbers interchangeable in a --names dump', async () => {
  const dir = tempDir();
  try {
    const archive = join(dir, 'agent_node-a.tar.gz');
    writeFileSync(archive, await tarGz(antreaAgentFiles('node-a')));
    const named = readNode(selectNode(await openBundle(archive), undefined));
    // The same switch dumped without names: the port numbers each flow must carry.
    const numbered = parseDump(example('antrea/dump-flows.of13.txt'), { file: 'numbered' });
    const inPort = (f: (typeof numbered.flows)[number]): bigint | undefined =>
      f.match.fields.find((m) => m.field.name === 'in_port')?.value;
    assert.equal(named.flows.length, numbered.flows.length);
    const withPorts = named.flows.filter((f) => inPort(f) !== undefined);
    assert.ok(withPorts.length >= 10);
    assert.deepEqual(named.flows.map(inPort), numbered.flows.map(inPort));
    assert.equal(named.ports.number('antrea-gw0'), 2);
    assert.equal(named.ports.name(3), 'coredns5-8ec607');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a tarball of the whole bundle and an in-Pod bundle_*.tar.gz are read in memory', async () => {
  const dir = tempDir();
  try {
    const whole = await tarGz([
      { name: 'support-bundles_20240502T100000Z/agent_node-a.tar.gz', data: await tarGz(antreaAgentFiles('node-a')) },
      {
        name: 'support-bundles_20240502T100000Z/agent_node-b.tar.gz',
        data: await tarGz(antreaProxyAgentFiles('node-b')),
      },
    ]);
    writeFileSync(join(dir, 'bundle.tar.gz'), whole);
    const bundle = await openBundle(join(dir, 'bundle.tar.gz'));
    assert.deepEqual(
      bundle.nodes.map((n) => [n.name, readNode(n).flows.length]),
      [
        ['node-a', 86],
        ['node-b', 70],
      ],
    );
    // Named bundle_<time>, the node comes from agentinfo.
    writeFileSync(join(dir, 'bundle_1714644000.tar.gz'), await tarGz(antreaAgentFiles('worker-7')));
    assert.deepEqual(
      (await openBundle(join(dir, 'bundle_1714644000.tar.gz'))).nodes.map((n) => n.name),
      ['worker-7'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the wrong file in a bundle is named, and the rest of the bundle is read', async () => {
  const dir = tempDir();
  try {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    writeFileSync(
      join(dir, 'agent_yaml.tar.gz'),
      await tarGz([
        { name: 'flows', data: agentInfo('yaml', {}) },
        { name: 'groups', data: agentText(example('antrea-proxy/dump-groups.of15.txt')) },
      ]),
    );
    writeFileSync(join(dir, 'agent_png.tar.gz'), await tarGz([{ name: 'flows', data: png }]));
    writeFileSync(join(dir, 'agent_good.tar.gz'), await tarGz(antreaAgentFiles('good')));
    const bundle = await openBundle(dir);
    const yaml = readNode(selectNode(bundle, 'yaml'));
    assert.deepEqual(yaml.nodeProblems, [`${dir}/agent_yaml.tar.gz:flows: not an ovs-ofctl dump: it looks like YAML`]);
    assert.equal(yaml.groups.length, 3, 'the other files of the node are still read');
    assert.equal(yaml.diagnostics.length, 0, 'no flood of per-line errors');
    const pngNode = readNode(selectNode(bundle, 'png'));
    assert.deepEqual(pngNode.nodeProblems, [
      `${dir}/agent_png.tar.gz:flows: not text (a PNG image)`,
      `${dir}/agent_png.tar.gz: no flows file`,
    ]);
    assert.equal(readNode(selectNode(bundle, 'good')).flows.length, 86);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('what is not a bundle is refused with the reason', async () => {
  const dir = tempDir();
  try {
    writeFileSync(join(dir, 'picture.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    await assert.rejects(openBundle(join(dir, 'picture.png')), {
      message: `${dir}/picture.png: not a support bundle (a PNG image); expected a bundle directory or a .tar.gz archive`,
    });
    writeFileSync(join(dir, 'sos.tar.xz'), Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 1, 2]));
    await assert.rejects(
      openBundle(join(dir, 'sos.tar.xz')),
      /xz-compressed data; flowscope reads directories, \.tar and \.tar\.gz archives/,
    );
    mkdirSync(join(dir, 'empty'));
    await assert.rejects(openBundle(join(dir, 'empty')), /no dumps found/);
    await assert.rejects(openBundle(join(dir, 'missing')), {
      message: `cannot read ${dir}/missing: no such file or directory`,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a sosreport: per bridge the newest OpenFlow version whose output holds flows', async () => {
  const dir = tempDir();
  try {
    const ovs = join(dir, 'sosreport-node1-2024-05-02', 'sos_commands', 'openvswitch');
    mkdirSync(ovs, { recursive: true });
    // br0 allows only OpenFlow 1.3: the other versions' files hold ovs-ofctl's complaint.
    const refused =
      'ovs-ofctl: br0: failed to connect to socket (Broken pipe)\n2024-05-02T10:00:00Z|00001|vconn|WARN|unix:/var/run/openvswitch/br0.mgmt: version negotiation failed (we support version 0x01, peer supports version 0x04)\n';
    writeFileSync(join(ovs, 'ovs-ofctl_dump-flows_br0'), refused);
    writeFileSync(join(ovs, 'ovs-ofctl_-O_OpenFlow15_dump-flows_br0'), refused);
    writeFileSync(join(ovs, 'ovs-ofctl_-O_OpenFlow13_dump-flows_br0'), example('openshift-sdn/dump-flows.of13.txt'));
    writeFileSync(join(ovs, 'ovs-ofctl_-O_OpenFlow13_show_br0'), example('openshift-sdn/show.of13.txt'));
    writeFileSync(
      join(ovs, 'ovs-ofctl_-O_OpenFlow13_dump-ports-desc_br0'),
      example('openshift-sdn/dump-ports-desc.of13.txt'),
    );
    writeFileSync(join(ovs, 'ovs-ofctl_dump-flows_br-ex'), refused.replace(/br0/g, 'br-ex'));
    const bundle = await openBundle(dir);
    assert.deepEqual(
      bundle.nodes.map((n) => n.name),
      ['br-ex', 'br0'],
    );
    const br0 = readNode(selectNode(bundle, 'br0'));
    assert.equal(br0.flows.length, 10);
    assert.deepEqual(br0.nodeProblems, []);
    assert.equal(br0.ports.name(1), 'vxlan0');
    assert.match(selectNode(bundle, 'br0').files.flows!.label, /ovs-ofctl_-O_OpenFlow13_dump-flows_br0$/);
    const brEx = readNode(selectNode(bundle, 'br-ex'));
    assert.equal(brEx.flows.length, 0);
    assert.match(
      brEx.nodeProblems[0]!,
      /^no flows for br-ex: .*ovs-ofctl_dump-flows_br-ex says: ovs-ofctl: br-ex: failed to connect/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('OpenShift debug-script directories: flows and ovs-show per node', async () => {
  const dir = tempDir();
  try {
    for (const node of ['master-0', 'worker-1']) {
      mkdirSync(join(dir, node));
      writeFileSync(join(dir, node, 'flows'), example('openshift-sdn/dump-flows.of13.names.txt'));
      writeFileSync(join(dir, node, 'ovs-show'), example('openshift-sdn/show.of13.txt'));
    }
    const bundle = await openBundle(dir);
    assert.deepEqual(
      bundle.nodes.map((n) => n.name),
      ['master-0', 'worker-1'],
    );
    const w = readNode(selectNode(bundle, 'worker-1'));
    assert.equal(w.flows.length, 10);
    assert.equal(w.ports.number('tun0'), 2);
    assert.throws(() => selectNode(bundle, undefined), {
      message: `${dir} holds 2 nodes (master-0, worker-1): choose one with --node NAME`,
    });
    assert.throws(() => selectNode(bundle, 'worker-9'), /no node "worker-9" \(nodes: master-0, worker-1\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('agentinfo: node, versions, bridge and flow counts', () => {
  const info = parseAgentInfo(agentInfo('k8s-node-1', { '0': 5, Classification: 7 }));
  assert.equal(info.nodeName, 'k8s-node-1');
  assert.equal(info.agentVersion, 'v1.2.0');
  assert.equal(info.ovsVersion, '2.17.7');
  assert.equal(info.bridgeName, 'br-int');
  assert.deepEqual(
    [...(info.flowTable ?? [])],
    [
      ['0', 5],
      ['Classification', 7],
    ],
  );
});

test('fewer flows than agentinfo counted is reported', async () => {
  const dir = tempDir();
  try {
    const files = antreaAgentFiles('n').map((f) =>
      f.name === 'agentinfo' ? { ...f, data: agentInfo('n', { Classification: 80, SpoofGuard: 20 }) } : f,
    );
    writeFileSync(join(dir, 'agent_n.tar.gz'), await tarGz(files));
    const n = readNode(selectNode(await openBundle(join(dir, 'agent_n.tar.gz')), undefined));
    assert.deepEqual(n.nodeProblems, [
      `${dir}/agent_n.tar.gz:flows: 86 flows, but agentinfo counted 100: the file may be incomplete`,
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('node summary: incomplete conjunctions, empty target tables, the bare default flow', () => {
  const flows = [
    'table=0, priority=200,in_port=2 actions=goto_table:10',
    'table=10, priority=100,ip,nw_src=10.0.0.1 actions=conjunction(7,1/2)',
    'table=10, priority=100,conj_id=7,ip actions=goto_table:20',
    'table=10, priority=0 actions=drop',
  ].join('\n');
  const s = summarizeNode(
    readNode({ name: 'n', origin: 'mem', files: { flows: { label: 'mem:flows', text: flows } }, problems: [] }),
  );
  assert.deepEqual(
    nodeProblems(s).map((p) => p.message),
    [
      'conjunction 7 in table 10 is incomplete: clause 2 of 2 has no flows',
      'table 20 has no flows, but 1 flow continues there',
    ],
  );
  const bare = summarizeNode(
    readNode({
      name: 'n',
      origin: 'mem',
      files: {
        flows: {
          label: 'f',
          text: 'cookie=0x0, duration=5.1s, table=0, n_packets=3, n_bytes=180, priority=0 actions=NORMAL',
        },
      },
      problems: [],
    }),
  );
  assert.deepEqual(
    nodeProblems(bare).map((p) => p.message),
    ['only the default NORMAL flow of OVS: the agent has not (re)installed its flows'],
  );
});

test('node summary and check name the same empty tables, a group bucket the only way there included', () => {
  const flows = [
    'table=0, priority=200,in_port=2 actions=group:1',
    'table=0, priority=100,in_port=3 actions=resubmit(,30)',
    'table=0, priority=0 actions=drop',
  ].join('\n');
  const groups = 'group_id=1,type=select,bucket=bucket_id:0,actions=resubmit(,20)';
  const node = readNode({
    name: 'n',
    origin: 'mem',
    files: { flows: { label: 'mem:flows', text: flows }, groups: { label: 'mem:groups', text: groups } },
    problems: [],
  });
  const summary = nodeProblems(summarizeNode(node)).map((p) => p.message);
  assert.deepEqual(summary, [
    'table 30 has no flows, but 1 flow continues there',
    'table 20 has no flows, but 1 group bucket continues there',
  ]);
  const check = checkPipeline(new Pipeline(node.flows, node.groups, node.ports)).findings;
  const empty = check.filter((f) => f.kind === 'empty-target').map((f) => (f.table ? tableLabel(f.table) : ''));
  // The check orders its findings by table.
  assert.deepEqual(empty, ['20', '30']);
});

test('node summary: a bucket that jumps by number to a table the dump holds by name finds its flows', () => {
  // Antrea 2.x writes group buckets with table numbers; a --names dump holds the table by name.
  const text = agentText(example('antrea-proxy/dump-flows.of15.names.no-stats.txt'));
  const named = readNode({
    name: 'n',
    origin: 'mem',
    files: {
      flows: { label: 'mem:flows', text },
      groups: { label: 'mem:groups', text: 'group_id=9,type=select,bucket=bucket_id:0,actions=resubmit(,70)' },
    },
    problems: [],
  });
  const messages = nodeProblems(summarizeNode(named)).map((p) => p.message);
  assert.ok(!messages.some((m) => m.startsWith('table 70 ')), messages.join('\n'));
  assert.ok(messages.includes('table L2Forwarding has no flows, but 3 flows continue there'), messages.join('\n'));
});

test('flowscope bundle lists nodes with counts, profile and problems; --json', async () => {
  const dir = tempDir();
  try {
    await makeBundle(dir);
    const r = await runCli(['bundle', dir]);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.equal(lines[0], `${dir}: 3 nodes`);
    assert.match(lines[1]!, /^NODE\s+FLOWS\s+GROUPS\s+PORTS\s+PROFILE\s+PROBLEMS$/);
    assert.match(lines[2]!, /^node-a\s+86\s+0\s+4\s+antrea-v1\b.*\s+-$/);
    assert.match(lines[3]!, /^node-b\s+70\s+3\s+4\s+antrea-proxy\b/);
    assert.match(r.stdout, /\nnode-c:\n {2}error: .*agent_node-c\.tar\.gz is truncated/);
    assert.match(r.stdout, /\nbundle:\n {2}warning: the bundle could not collect node node-d \(failed_nodes\)\n$/);

    const j = await runCli(['bundle', '--json', dir]);
    const json = JSON.parse(j.stdout) as {
      nodes: { name: string; flows: number; groups: number; profile?: { id: string } }[];
    };
    assert.deepEqual(
      json.nodes.map((n) => [n.name, n.groups]),
      [
        ['node-a', 0],
        ['node-b', 3],
        ['node-c', 0],
      ],
    );

    const bad = await runCli(['bundle', join(dir, 'clusterinfo')]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /clusterinfo: not a support bundle \(a text file\)/);

    // Every node read by the profile given (or one of --profile-file), instead of the detected one.
    const given = await runCli(['bundle', '--profile', 'antrea-proxy', dir]);
    assert.equal(given.status, 0, given.stderr);
    assert.match(given.stdout, /^node-a\s+86\s+0\s+4\s+antrea-proxy\b/m);
    const missing = await runCli(['bundle', '--profile-file', join(dir, 'none.yaml'), dir]);
    assert.deepEqual([missing.status, missing.stdout], [2, '']);
    assert.match(missing.stderr, /none\.yaml/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every command reads --bundle/--node, and a bundle given as its input', async () => {
  const dir = tempDir();
  try {
    await makeBundle(dir);
    const fmt = await runCli(['fmt', '--of', '15', '--bundle', dir, '--node', 'node-b']);
    assert.equal(fmt.status, 0, fmt.stderr);
    assert.equal(fmt.stdout.trim().split('\n').length, 70 + 3);
    const direct = await runCli(['fmt', join(dir, 'agent_node-a.tar.gz')]);
    assert.equal(direct.stdout.trim().split('\n').length, 86);
    const which = await runCli(['parse', '--bundle', dir]);
    assert.equal(which.status, 2);
    assert.match(which.stderr, /holds 3 nodes \(node-a, node-b, node-c\): choose one with --node NAME/);
    const cut = await runCli(['fmt', '--bundle', dir, '--node', 'node-c']);
    assert.equal(cut.status, 0);
    assert.match(cut.stderr, /warning: .*agent_node-c\.tar\.gz is truncated/);
    assert.ok(cut.stdout.trim().split('\n').length > 10);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The tarball of a bundle directory (`tar cz support-bundles_…`): two good agents, one cut, one failed node. */
async function bundleTarball(): Promise<Buffer> {
  const cut = await tarGz(antreaAgentFiles('node-c'));
  return tarGz([
    { name: 'support-bundles_20240502T100000Z/agent_node-a.tar.gz', data: await tarGz(antreaAgentFiles('node-a')) },
    {
      name: 'support-bundles_20240502T100000Z/agent_node-b.tar.gz',
      data: await tarGz(antreaProxyAgentFiles('node-b')),
    },
    {
      name: 'support-bundles_20240502T100000Z/agent_node-c.tar.gz',
      data: cut.subarray(0, Math.floor(cut.length * 0.7)),
    },
    { name: 'support-bundles_20240502T100000Z/failed_nodes', data: 'node-d\n' },
  ]);
}

test('a bundle piped to standard input reads as the same archive given as a file, named <stdin>', async () => {
  const dir = tempDir();
  try {
    const whole = await bundleTarball();
    const archives: [string, Buffer][] = [
      ['bundle.tar.gz', whole],
      // An agent's directory as `kubectl exec … -- tar c -C /var/log/antrea .` streams it.
      ['agent.tar', await tar(antreaAgentFiles('node-a').map((f) => ({ ...f, name: `./${f.name}` })))],
      ['cut.tar.gz', whole.subarray(0, Math.floor(whole.length * 0.6))],
    ];
    for (const [name, data] of archives) {
      const file = join(dir, name);
      writeFileSync(file, data);
      for (const args of [
        ['tables', '-'],
        ['tables', '-', '--node', 'node-a'],
        ['show', '-', '--node', 'node-c', '-T', '0'],
        ['parse', '-', '--node', 'node-b'],
        ['bundle', '-'],
        ['tables', '--bundle', '-', '--node', 'node-a'],
      ]) {
        const piped = await runCli(args, { stdin: data });
        const given = await runCli(args.map((a) => (a === '-' ? file : a)));
        const named = (text: string): string => text.split(file).join('<stdin>');
        assert.deepEqual(
          [piped.status, piped.stdout, piped.stderr],
          [given.status, named(given.stdout), named(given.stderr)],
          `${name}: ${args.join(' ')}`,
        );
      }
    }
    // What the comparison above covers, said outright.
    const pick = await runCli(['tables', '-'], { stdin: whole });
    assert.deepEqual(
      [pick.status, pick.stderr],
      [2, 'flowscope: error: <stdin> holds 3 nodes (node-a, node-b, node-c): choose one with --node NAME\n'],
    );
    const cutNode = await runCli(['fmt', '-', '--node', 'node-c'], { stdin: whole });
    assert.equal(cutNode.status, 0, cutNode.stderr);
    assert.match(cutNode.stderr, /^flowscope: warning: the bundle could not collect node node-d \(failed_nodes\)$/m);
    assert.match(
      cutNode.stderr,
      /^flowscope: warning: <stdin>:support-bundles_20240502T100000Z\/agent_node-c\.tar\.gz is truncated \(the gzip stream ends early\)$/m,
    );
    const cutWhole = await runCli(['bundle', '-'], { stdin: archives[2]![1] });
    assert.match(cutWhole.stdout, /^ {2}error: <stdin> is truncated \(the gzip stream ends early\)$/m);
    const agent = await runCli(['fmt', '-'], { stdin: archives[1]![1] });
    assert.deepEqual([agent.status, agent.stdout.trim().split('\n').length], [0, 86]);
    const notBundle = await runCli(['parse', '-', '--node', 'node-a'], {
      stdin: example('antrea/dump-flows.of13.txt'),
    });
    assert.deepEqual(
      [notBundle.status, notBundle.stderr],
      [2, 'flowscope: error: --node goes with --bundle (or a bundle given as input)\n'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('diff and verify take a bundle on standard input, its node chosen with --node', async () => {
  const whole = await bundleTarball();
  const saved = exampleFile(ANTREA, 'dump-flows.of13.names.txt');
  const same = await runCli(['diff', '-', saved, '--node', 'node-a'], { stdin: whole });
  assert.deepEqual(
    [same.status, same.stderr],
    [0, 'flowscope: warning: the bundle could not collect node node-d (failed_nodes)\n'],
    same.stdout,
  );
  const nodes = await runCli(['diff', '--bundle', '-', '--node', 'node-a', '--node', 'node-b'], { stdin: whole });
  assert.equal(nodes.status, 1, nodes.stderr);
  assert.match(nodes.stdout, /<stdin>\[node-a\]/);
  assert.match(nodes.stdout, /<stdin>\[node-b\]/);
  const verified = await runCli(['verify', '--expect', saved, '-', '--node', 'node-a'], { stdin: whole });
  assert.equal(verified.status, 0, verified.stderr + verified.stdout);
  const ports = await runCli(['parse', '--bundle', '-', '--node', 'node-a', '--ports', '-'], { stdin: whole });
  assert.deepEqual(
    [ports.status, ports.stderr],
    [2, 'flowscope: error: the flows and --ports cannot both come from standard input\n'],
  );
});
