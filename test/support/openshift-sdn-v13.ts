/**
 * An OpenShift SDN node at rule version 13 as it runs with a plugin: the setup and node flows of
 * openshift/sdn's own expected flows (ovscontroller_test.go at master, in the corpus), plus what
 * the plugin of that release adds for the node's namespace (VNID 42, the Pod 10.128.0.2 on port
 * 3): the multitenant plugin's catch-all in table 27 and VNID checks in table 80; or the
 * networkpolicy plugin's egress (27) and ingress (80) policies, here a policy that allows every
 * peer beside the isolation drop of the Pod it selects, as networkpolicy.go installs them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SdnPlugin } from './openshift-sdn-v7.ts';
import { corpusDir } from './paths.ts';

const VNID = 42;
const POD = '10.128.0.2';

function pluginFlows(plugin: SdnPlugin): string[] {
  if (plugin === 'multitenant') {
    return [
      'table=27, priority=500, actions=goto_table:30',
      'table=80, priority=200, reg0=0, actions=output:NXM_NX_REG2[]',
      'table=80, priority=200, reg1=0, actions=output:NXM_NX_REG2[]',
      `table=80, priority=100, reg0=${VNID}, reg1=${VNID}, actions=output:NXM_NX_REG2[]`,
    ];
  }
  return [
    'table=27, priority=200, ip, ct_state=+rpl, actions=goto_table:30',
    `table=27, priority=150, reg0=${VNID}, actions=goto_table:30`,
    `table=27, priority=100, reg0=${VNID}, ip, nw_src=${POD}, actions=drop`,
    'table=80, priority=200, ip, ct_state=+rpl, actions=output:NXM_NX_REG2[]',
    `table=80, priority=150, reg1=${VNID}, actions=output:NXM_NX_REG2[]`,
    `table=80, priority=100, reg1=${VNID}, ip, nw_dst=${POD}, actions=drop`,
  ];
}

/** The flows, one add-flows line each; the rule-version note says which plugin wrote them. */
export function openshiftV13Flows(plugin: SdnPlugin): string {
  const setup = readFileSync(join(corpusDir, 'openshift-sdn-expectedFlows-v13.txt'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) =>
      l
        .trim()
        .replace(/^cookie=0, /, '')
        .replace(/note:00\.0D$/, `note:0${plugin === 'networkpolicy' ? 2 : 1}.0D`),
    );
  return [...setup, ...pluginFlows(plugin)].join('\n') + '\n';
}
