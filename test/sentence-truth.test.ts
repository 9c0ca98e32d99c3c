/**
 * Sentences are true of the flow they explain, whatever the profile: a next table is said only
 * where the flow goes, an address gets a role only from what the flows prove, no placeholder is
 * left empty, and the bridge's LOCAL port reads the same in a match and in an action.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Annotator, type FlowAnnotation } from '../src/analysis/annotate/annotate.ts';
import { addressLabelText } from '../src/render/words/address.ts';
import { explanationText, outputTargetText } from '../src/render/words/explanation.ts';
import { flowWords } from '../src/render/words/flow.ts';
import { Pipeline } from '../src/model/pipeline.ts';
import { profileById } from '../src/profiles/index.ts';
import type { Profile } from '../src/profiles/types.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { corpusDir } from './support/paths.ts';

const openshift = profileById('openshift-sdn')!;

function annotate(text: string, profile: Profile | undefined, release?: string): FlowAnnotation[] {
  const d = parseDump(text, { file: 'flows.txt' });
  assert.deepEqual(d.diagnostics, []);
  const p = new Pipeline(d.flows, d.groups, d.ports);
  return new Annotator(p, { ...(profile ? { profile } : {}), ...(release ? { release } : {}) })
    .annotatePipeline(p)
    .flatMap((t) => t.flows);
}

function meaning(a: FlowAnnotation | undefined): string {
  const e = a?.explanation;
  assert.ok(e, 'explained');
  return e.kind === 'unknown' ? `? ${explanationText(e)}` : explanationText(e);
}

function sentence(a: FlowAnnotation | undefined): string {
  assert.ok(a, 'annotated');
  return flowWords(a.flow, a.wording).sentence;
}

test('a miss flow that departs from the documented miss says what it does, and that the documentation differs', () => {
  const flows = annotate(
    [
      'table=30, priority=0 actions=drop',
      'table=31, priority=0,ip actions=goto_table:99',
      'table=70, priority=0 actions=goto_table:80',
      'table=99, priority=0 actions=goto_table:100',
    ].join('\n') + '\n',
    openshift,
    '13',
  );
  // ConntrackCommit is documented to continue in Routing; this one drops.
  assert.equal(
    meaning(flows[0]),
    'Packets no other flow of ConntrackCommit matches: drop it. This differs from the documented miss (goto Routing).',
  );
  // ToLocalPod's documented miss is a drop; this one continues, and the sentence names where it really goes.
  assert.equal(
    meaning(flows[2]),
    'Packets no other flow of ToLocalPod matches: go to Isolation. This differs from the documented miss (drop).',
  );
  // Where flow and documentation agree, the documented words stand.
  assert.equal(
    meaning(flows[3]),
    'Packets no other flow of EgressPreliminaries matches continue in EgressNetworkPolicy.',
  );
});

test('a pattern whose sentence names the next table never explains a flow that goes nowhere', () => {
  const [toPod, dropped] = annotate(
    'table=0, priority=100,ip actions=goto_table:20\ntable=0, priority=100,arp actions=drop\n',
    openshift,
    '13',
  );
  assert.match(meaning(toPod), /source check in FromPod\.$/);
  // The documented pattern for ARP from a Pod continues in FromPod; this flow drops, so that sentence is not said.
  assert.doesNotMatch(meaning(dropped), /continue|goes to|FromPod/);
  assert.equal(sentence(dropped), 'ARP: drop it');
});

test('the cluster network is not the Service CIDR: a prefix sent to a table named after Services proves nothing', () => {
  const flows = annotate(readFileSync(join(corpusDir, 'openshift-sdn-expectedFlows-v13.txt'), 'utf8'), openshift, '13');
  const roles = new Map<string, Set<string>>();
  for (const a of flows)
    for (const u of a.addresses)
      (roles.get(u.address) ?? roles.set(u.address, new Set()).get(u.address)!).add(addressLabelText(u.label));
  // Table 0 sends Pod traffic for 10.128.0.0/14 back from the host to FromPodViaService: not a Service.
  assert.deepEqual([...roles.get('10.128.0.0/14')!], ['cluster network']);
  // Routing sends 172.30.0.0/16 to ToService, whose flows only hand traffic to the host.
  assert.deepEqual([...roles.get('172.30.0.0/16')!], ['Service CIDR']);
  // The same prefix with a jump to a table of no Service role stays unlabelled.
  const alone = annotate(
    'table=0, priority=300,ip,in_port=2,nw_src=10.128.0.0/23,nw_dst=10.128.0.0/14 actions=goto_table:25\n',
    openshift,
    '13',
  );
  assert.deepEqual(
    alone[0]!.addresses.filter((u) => u.field === 'nw_dst'),
    [],
  );
});

test('no empty placeholder reaches a sentence: a ct action without a zone works in the default zone', () => {
  const [ct] = annotate('table=0, priority=1000,ip,ct_state=-trk actions=ct(table=0)\n', openshift, '13');
  assert.equal(
    meaning(ct),
    'IP packets not yet tracked go through conntrack in the default zone and come back to Classifier with their connection state.',
  );
  assert.match(sentence(ct), /send it through conntrack in the default zone, then continue in Classifier/);
  const [commit] = annotate('table=101, priority=100,ip,reg0=0x25 actions=ct(commit),group:37\n', openshift, '13');
  assert.match(sentence(commit), /commit the connection to conntrack in the default zone, hand it to group 37/);
});

test('no empty placeholder reaches a sentence: an absent value is said in the words the template gives, else the pattern does not fit', () => {
  const profile: Profile = {
    ...openshift,
    tables: [
      {
        number: 0,
        name: 'Only',
        purpose: 'test table',
        miss: { action: 'drop' },
        next: [],
        patterns: [
          { match: 'tcp', meaning: 'TCP to {nw_dst} port {tp_dst|any port} leaves on {output}.' },
          { match: '', priority: { max: 2 }, meaning: 'Traffic to {nw_dst}{ipv6_dst} is sent on.' },
        ],
      },
    ],
  };
  const [withPort, anyPort, noOutput, v6, neither] = annotate(
    [
      'table=0, priority=5,tcp,nw_dst=10.0.0.1,tp_dst=80 actions=output:3',
      'table=0, priority=4,tcp,nw_dst=10.0.0.1 actions=output:3',
      'table=0, priority=3,tcp,nw_dst=10.0.0.1 actions=drop',
      'table=0, priority=2,udp6,ipv6_dst=fe80::1 actions=output:3',
      'table=0, priority=1,udp actions=output:3',
    ].join('\n') + '\n',
    profile,
    '13',
  );
  assert.equal(meaning(withPort), 'TCP to 10.0.0.1 port 80 leaves on port 3.');
  assert.equal(meaning(anyPort), 'TCP to 10.0.0.1 port any port leaves on port 3.');
  assert.equal(meaning(noOutput), '? no pattern of table Only fits');
  assert.equal(meaning(v6), 'Traffic to fe80::1 is sent on.');
  assert.equal(meaning(neither), '? no pattern of table Only fits');
});

test('in_port=LOCAL and the LOCAL action both read as the bridge’s LOCAL port, by name or by number, in every profile', () => {
  const text =
    [
      'table=0, priority=100,in_port=LOCAL,ip actions=output:LOCAL',
      'table=0, priority=90,in_port=65534,arp actions=LOCAL',
    ].join('\n') + '\n';
  for (const profile of [undefined, openshift, profileById('antrea')!]) {
    for (const a of annotate(text, profile)) {
      assert.match(
        sentence(a),
        /^(IPv4|ARP), arriving on the bridge’s LOCAL port: send it to the bridge’s LOCAL port$/,
        profile?.id,
      );
      assert.deepEqual(
        a.ports.map((p) => outputTargetText(p.port)),
        ['the bridge’s LOCAL port', 'the bridge’s LOCAL port'],
      );
    }
  }
});
