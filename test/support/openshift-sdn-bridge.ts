/**
 * An OpenShift SDN node's flows loaded into a real Open vSwitch bridge br0: the ports the SDN
 * gives br0 (vxlan0, tun0) and a veth for every other port number the flows use, and the egress
 * IP groups the flows send to (group id = VNID, one bucket tunnelling to the Node that holds the
 * IP, as egressip.go sets them).
 */
import { OPENSHIFT_V7_BRIDGE } from './openshift-sdn-v7.ts';
import { type OvsSwitch, type OvsSwitchOptions, withOvsSwitch } from './ovs.ts';

export function sdnBridgeFor(text: string): OvsSwitchOptions {
  const used = new Set<number>();
  for (const m of text.matchAll(/(?:in_port=|output:)(\d+)/g)) used.add(Number(m[1]));
  for (const m of text.matchAll(/load:(?:0x)?([0-9a-f]+)->NXM_NX_REG2\[\]/g))
    used.add(Number.parseInt(m[1]!, m[0].includes('0x') ? 16 : 10));
  const ports: { name: string; ofport: number }[] = OPENSHIFT_V7_BRIDGE.ports.filter((p) => p.ofport <= 2);
  for (const n of [...used].sort((a, b) => a - b))
    if (n > 2 && n < 0xff00) ports.push({ name: `veth${n.toString(16).padStart(8, '0')}`, ofport: n });
  return { bridge: 'br0', protocols: ['OpenFlow13'], ports };
}

/** Runs `fn` on a switch loaded with the node's flows and the egress groups they send to. */
export async function withSdnNode<T>(text: string, fn: (sw: OvsSwitch) => Promise<T>): Promise<T> {
  return withOvsSwitch(sdnBridgeFor(text), async (sw) => {
    const groups = [...new Set([...text.matchAll(/group:(\d+)/g)].map((m) => m[1]))];
    if (groups.length > 0)
      await sw.addGroups(
        groups
          .map(
            (g) =>
              `group_id=${g},type=select,bucket=actions=move:NXM_NX_REG0[]->NXM_NX_TUN_ID[0..31],set_field:192.168.1.12->tun_dst,output:1`,
          )
          .join('\n') + '\n',
        13,
      );
    await sw.addFlows(text, 13);
    return fn(sw);
  });
}
