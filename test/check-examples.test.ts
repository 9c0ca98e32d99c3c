/**
 * Every bundled example passes `flowscope check`, and the packets examples/README.md lists for it
 * trace where that file says they go.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from './support/cli.ts';
import { repoRoot } from './support/paths.ts';

const EXAMPLES = join(repoRoot, 'examples');
const readme = readFileSync(join(EXAMPLES, 'README.md'), 'utf8').replace(/\n\s*/g, ' ');

const DUMPS: readonly { dump: string; groups?: string }[] = [
  { dump: 'antrea/dump-flows.of13.txt' },
  { dump: 'antrea/dump-flows.of10.names.txt' },
  { dump: 'antrea-proxy/dump-flows.of15.txt', groups: 'antrea-proxy/dump-groups.of15.txt' },
  { dump: 'antrea-proxy/dump-flows.of13.txt', groups: 'antrea-proxy/dump-groups.of13.txt' },
  { dump: 'openshift-sdn/dump-flows.of13.txt' },
];

test('every bundled example passes check, without errors', async () => {
  for (const { dump, groups } of DUMPS) {
    const r = await runCli([
      'check',
      '--json',
      join(EXAMPLES, dump),
      ...(groups ? ['--groups', join(EXAMPLES, groups)] : []),
    ]);
    assert.equal(r.status, 0, `${dump}: ${r.stdout.slice(0, 400)}`);
    const report = JSON.parse(r.stdout) as { counts: { error: number } };
    assert.equal(report.counts.error, 0, dump);
  }
});

/** A packet examples/README.md lists, with the words it uses for where it goes, and the verdict trace gives. */
const PACKETS: readonly {
  dump: string;
  groups?: string;
  bucket?: number;
  packet: string;
  readme: string;
  verdict: RegExp;
  nat?: string;
}[] = [
  {
    dump: 'antrea/dump-flows.of13.txt',
    packet:
      'in_port=3,tcp,dl_src=12:9e:a6:47:d0:70,dl_dst=aa:bb:cc:dd:ee:ff,nw_src=10.10.0.2,nw_dst=10.10.1.5,nw_ttl=64,tp_dst=80',
    readme: 'leaves by port 1, the tunnel',
    verdict: /^Verdict: output to port 1 from /m,
  },
  {
    dump: 'antrea/dump-flows.of13.txt',
    packet: 'in_port=1,tcp,dl_dst=12:9e:a6:47:d0:70,nw_src=10.10.1.5,nw_dst=10.10.0.2,nw_ttl=64,tp_dst=443',
    readme: 'is dropped in IngressDefaultTable (table 100)',
    verdict: /^Verdict: dropped in IngressDefaultTable \(table 100\): The Pod on port 3 is isolated for ingress/m,
  },
  ...[
    [0, '10.10.0.2:80'],
    [1, '10.10.10.3:80'],
  ].map(([bucket, endpoint]) => ({
    dump: 'antrea-proxy/dump-flows.of15.txt',
    groups: 'antrea-proxy/dump-groups.of15.txt',
    bucket: bucket as number,
    packet: 'in_port=19,tcp,dl_src=6e:c7:01:a0:a9:23,nw_src=10.10.0.18,nw_dst=10.101.112.140,tp_dst=80',
    readme: `${endpoint} with \`--bucket ${bucket}\``,
    verdict: /^Verdict: dropped in AntreaPolicyEgressRuleTable \(table 45\): no flow matched/m,
    nat: endpoint as string,
  })),
  {
    dump: 'antrea-proxy/dump-flows.of15.txt',
    groups: 'antrea-proxy/dump-groups.of15.txt',
    bucket: 2,
    packet: 'in_port=19,tcp,dl_src=6e:c7:01:a0:a9:23,nw_src=10.10.0.18,nw_dst=10.107.100.231,tp_dst=443',
    readme: 'reaches 10.10.0.4:9153 with `--bucket 2`',
    verdict: /^Verdict: dropped in AntreaPolicyEgressRuleTable \(table 45\): no flow matched/m,
    nat: '10.10.0.4:9153',
  },
  {
    dump: 'openshift-sdn/dump-flows.of13.txt',
    packet: 'in_port=6,tcp,nw_src=10.128.0.112,nw_dst=8.8.8.8,tp_dst=443',
    readme: 'leaves by port 1, tunnelled to the gateway node 192.168.0.20',
    verdict: /^Verdict: output to port 1 from EgressRoutingPre11 \(table 100\): .* 192\.168\.0\.20\.$/m,
  },
  {
    dump: 'openshift-sdn/dump-flows.of13.txt',
    packet: 'in_port=9,tcp,nw_src=10.128.0.96,nw_dst=8.8.8.8,tp_dst=443',
    readme: 'leaves by port 2, tun0',
    verdict: /^Verdict: output to port 2 from /m,
  },
];

test('the packets examples/README.md lists trace where it says', async () => {
  for (const p of PACKETS) {
    assert.ok(readme.includes(`\`${p.packet}\``), `examples/README.md lists ${p.packet}`);
    assert.ok(readme.includes(p.readme), `examples/README.md says "${p.readme}"`);
    const args = [
      'trace',
      join(EXAMPLES, p.dump),
      ...(p.groups ? ['--groups', join(EXAMPLES, p.groups)] : []),
      ...(p.bucket === undefined ? [] : ['--bucket', String(p.bucket)]),
      p.packet,
    ];
    const r = await runCli(args);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, p.verdict, p.packet);
    // A Service packet reaches its endpoint: the DNAT of the bucket's endpoint, no loop.
    if (p.nat) assert.match(r.stdout, new RegExp(`nat\\(dst=${p.nat.replace(/\./g, '\\.')}\\)`), p.packet);
  }
});
