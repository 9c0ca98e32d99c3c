/**
 * `flowscope check` on a generated Antrea 2.x node (AntreaProxy, Services, NetworkPolicy tiers,
 * Egress: the bench generator, whose flows a real switch loads and dumps back as generated, see
 * bench-generate.test.ts) and on OpenShift SDN rule version 13: quiet as generated, and an
 * error naming the flow and the cause for each breakage planted into it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from './support/cli.ts';
import { generatedAntrea2Node } from './support/generated-node.ts';
import { skipUnlessOvs, withOvsSwitch } from './support/ovs.ts';
import { corpusDir } from './support/paths.ts';

const antrea2 = generatedAntrea2Node();
const v13 = readFileSync(join(corpusDir, 'openshift-sdn-expectedFlows-v13.txt'), 'utf8');

interface Finding {
  kind: string;
  severity: string;
  message: string;
  flows: { text: string }[];
}

async function errors(text: string): Promise<{ status: number; errors: Finding[] }> {
  const r = await runCli(['check', '--json', '-'], { stdin: text });
  const report = JSON.parse(r.stdout) as { findings: Finding[] };
  return { status: r.status, errors: report.findings.filter((f) => f.severity === 'error') };
}

/** The text without the lines that match. */
function without(text: string, pattern: RegExp): string {
  const lines = text.split('\n');
  const kept = lines.filter((l) => !pattern.test(l));
  assert.ok(kept.length < lines.length, `${pattern} removes a line`);
  return kept.join('\n');
}

function replaced(text: string, from: RegExp, to: string): string {
  const out = text.replace(from, to);
  assert.notEqual(out, text, `${from} changes the text`);
  return out;
}

test('as generated, the Antrea 2.x node and OpenShift SDN version 13 pass', async () => {
  for (const text of [antrea2, v13]) {
    const r = await errors(text);
    assert.deepEqual([r.status, r.errors], [0, []]);
  }
});

test('a Pod without its spoof-guard flows: an error naming its port and flows', async () => {
  const broken = without(antrea2, /table=[14], .*priority=200,(?:arp|ip),in_port=1,/);
  const r = await errors(broken);
  assert.equal(r.status, 1);
  assert.deepEqual(
    r.errors.map((f) => f.kind),
    ['no-spoof-guard'],
  );
  assert.match(r.errors[0]!.message, /^the Pod on port 1 has no spoof-guard flow/);
  assert.ok(
    r.errors[0]!.flows.some((f) => /table=3, .*in_port=1 /.test(f.text)),
    "names the Pod's classifier flow",
  );
});

test('a peer Node whose route was deleted: the ARP answer for its gateway has no route', async () => {
  const r = await errors(without(antrea2, /table=16, .*ip,nw_dst=10\.16\.3\.0\/24 /));
  assert.equal(r.status, 1);
  assert.deepEqual(
    r.errors.map((f) => f.kind),
    ['no-route'],
  );
  assert.match(r.errors[0]!.message, /^the bridge answers ARP for 10\.16\.3\.1, but no IP flow routes it/);
  assert.match(r.errors[0]!.flows[0]!.text, /arp_tpa=10\.16\.3\.1,/);
  // OpenShift SDN: ARP for the peer subnet still goes to its Node, IP does not.
  const os = await errors(without(v13, /table=90, priority=100, ip, nw_dst=10\.128\.2\.0\/23/));
  assert.deepEqual(
    os.errors.map((f) => [f.kind, f.message.replace(/:.*/, '')]),
    [['no-route', 'ARP for 10.128.2.0/23 is tunnelled to Node 10.0.123.45, but no IP flow routes 10.128.2.0/23 there']],
  );
});

test('a tunnel flow to an address that is no Node the dump knows', async () => {
  const r = await errors(replaced(antrea2, /set_field:192\.168\.0\.13->tun_dst/, 'set_field:192.168.9.13->tun_dst'));
  assert.equal(r.status, 1);
  assert.deepEqual(
    r.errors.map((f) => f.kind),
    ['unknown-tunnel-destination'],
  );
  assert.match(r.errors[0]!.message, /^1 flow tunnel to 192\.168\.9\.13, which no other flow names/);
  assert.match(r.errors[0]!.flows[0]!.text, /nw_dst=10\.16\.3\.0\/24 /);
  // OpenShift SDN: the IP route no longer goes where ARP and the accepted tunnel source say the Node is.
  const os = await errors(
    replaced(v13, /(table=90, .*)set_field:10\.0\.123\.45->tun_dst/, '$1set_field:10.0.123.46->tun_dst'),
  );
  assert.deepEqual(
    os.errors.map((f) => f.kind),
    ['no-route', 'unknown-tunnel-destination'],
  );
  assert.match(os.errors[0]!.flows[0]!.text, /table=50, /);
  assert.match(os.errors[1]!.flows[0]!.text, /table=90, /);
});

/** A dump line as an add-flows line: statistics dropped, table, cookie and timeout kept. */
function flowMod(line: string): string {
  const m =
    /^ cookie=(0x[0-9a-f]+), duration=[0-9.]+s, table=(\d+), n_packets=\d+, n_bytes=\d+, (hard_timeout=\d+, )?(priority=.*)$/.exec(
      line,
    );
  assert.ok(m, `not a dump-flows line: ${line}`);
  return `table=${m[2]},cookie=${m[1]},${m[3]?.replace(', ', ',') ?? ''}${m[4]}`;
}

test(
  "the generated Antrea 2.x node as a real switch holds and dumps it passes; without a Pod's spoof guard it fails",
  skipUnlessOvs,
  async () => {
    // Meter actions (on the dormant packet-in flows) need a meter on the switch; the Service groups
    // the flows use are created without buckets (the generator writes no Endpoints for them).
    const loadable = antrea2.split('\n').filter((l) => l.startsWith(' ') && !/\bmeter:/.test(l));
    const groups = [...new Set(loadable.flatMap((l) => [...l.matchAll(/\bgroup:(\d+)/g)].map((m) => m[1]!)))];
    const dump = async (lines: readonly string[]): Promise<string> =>
      withOvsSwitch({ protocols: ['OpenFlow13'] }, async (sw) => {
        await sw.addGroups(groups.map((g) => `group_id=${g},type=select`).join('\n'), 13);
        await sw.addFlows(lines.map(flowMod).join('\n'), 13);
        return sw.dumpFlows({ of: 13 });
      });
    const healthy = await errors(await dump(loadable));
    assert.deepEqual([healthy.status, healthy.errors], [0, []]);
    const broken = await errors(
      await dump(loadable.filter((l) => !/table=[14], .*priority=200,(?:arp|ip),in_port=1,/.test(l))),
    );
    assert.equal(broken.status, 1);
    assert.deepEqual(
      broken.errors.map((f) => [f.kind, f.message.replace(/ has no .*/, '')]),
      [['no-spoof-guard', 'the Pod on port 1']],
    );
  },
);
