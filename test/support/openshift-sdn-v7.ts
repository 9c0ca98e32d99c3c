/**
 * An OpenShift SDN node's br0 flows at rule version 7, as openshift/sdn's node controller of that
 * release writes them (pkg/network/node/ovscontroller.go at 2dd07976d, "setup sdn repo", 2019,
 * with multitenant.go and networkpolicy.go of the same commit): SetupOVS, two peers' HostSubnet
 * rules, two Pods, a Service, an egress IP on the second peer, an egress firewall and multicast. The multitenant
 * plugin of that release works without conntrack (no table 25, per-Service flows in table 60);
 * the networkpolicy plugin tracks connections. The flows are written here as add-flows lines for
 * `ovs-ofctl -O OpenFlow13`, with the values of one imagined node.
 */

export type SdnPlugin = 'multitenant' | 'networkpolicy';

const CLUSTER = '10.128.0.0/14';
const SERVICES = '172.30.0.0/16';
const LOCAL = '10.129.0.0/23';
const GATEWAY = '10.129.0.1';
const NODE_IP = '192.168.1.10';
/** Peer Nodes with their HostSubnets; the second holds VNID 18's egress IP. */
const PEERS = [
  { ip: '192.168.1.11', subnet: '10.128.0.0/23', cookie: '0x5c2e11d0' },
  { ip: '192.168.1.12', subnet: '10.130.0.0/23', cookie: '0x3b9f04a2' },
];
const EGRESS_NODE = PEERS[1]!.ip;
const VXLAN_PORT = 4789;
/** Pods: port, address, VNID. */
const PODS = [
  { port: 3, ip: '10.129.0.5', vnid: 18 },
  { port: 4, ip: '10.129.0.6', vnid: 0 },
];

/** `0a:58:` and the address's bytes, as the SDN gives Pods their MAC. */
function podMac(ip: string): string {
  return ['0a', '58', ...ip.split('.').map((b) => Number(b).toString(16).padStart(2, '0'))].join(':');
}

/** The flows, one add-flows line each. */
export function openshiftV7Flows(plugin: SdnPlugin): string {
  const ct = plugin === 'networkpolicy';
  const pluginId = plugin === 'networkpolicy' ? 2 : 1;
  const f: string[] = [];
  // Table 0: classification by input port.
  if (ct) f.push('table=0, priority=300, ip, ct_state=-trk, actions=ct(table=0)');
  f.push(
    `table=0, priority=200, in_port=1, arp, nw_src=${CLUSTER}, nw_dst=${LOCAL}, actions=move:NXM_NX_TUN_ID[0..31]->NXM_NX_REG0[],goto_table:10`,
  );
  f.push(
    `table=0, priority=200, in_port=1, ip, nw_src=${CLUSTER}, actions=move:NXM_NX_TUN_ID[0..31]->NXM_NX_REG0[],goto_table:10`,
  );
  f.push(
    `table=0, priority=200, in_port=1, ip, nw_dst=${CLUSTER}, actions=move:NXM_NX_TUN_ID[0..31]->NXM_NX_REG0[],goto_table:10`,
  );
  f.push('table=0, priority=150, in_port=1, actions=drop');
  if (ct) {
    f.push(`table=0, priority=400, in_port=2, ip, nw_src=${GATEWAY}, actions=goto_table:30`);
    f.push(`table=0, priority=300, in_port=2, ip, nw_src=${LOCAL}, nw_dst=${CLUSTER}, actions=goto_table:25`);
  }
  f.push('table=0, priority=250, in_port=2, ip, nw_dst=224.0.0.0/4, actions=drop');
  f.push(`table=0, priority=200, in_port=2, arp, nw_src=${GATEWAY}, nw_dst=${CLUSTER}, actions=goto_table:30`);
  f.push('table=0, priority=200, in_port=2, ip, actions=goto_table:30');
  f.push('table=0, priority=150, in_port=2, actions=drop');
  f.push('table=0, priority=100, arp, actions=goto_table:20');
  f.push('table=0, priority=100, ip, actions=goto_table:20');
  f.push('table=0, priority=0, actions=drop');
  // Table 10: tunnel traffic only from nodes with a HostSubnet.
  for (const peer of PEERS)
    f.push(`table=10, priority=100, cookie=${peer.cookie}, tun_src=${peer.ip}, actions=goto_table:30`);
  f.push('table=10, priority=0, actions=drop');
  // Tables 20, 21, 25: from Pods.
  f.push(`table=20, priority=300, udp, udp_dst=${VXLAN_PORT}, actions=drop`);
  for (const p of PODS) {
    f.push(
      `table=20, priority=100, in_port=${p.port}, arp, nw_src=${p.ip}, arp_sha=${podMac(p.ip)}/00:00:ff:ff:ff:ff, actions=load:${p.vnid}->NXM_NX_REG0[], goto_table:21`,
    );
    f.push(
      `table=20, priority=100, in_port=${p.port}, ip, nw_src=${p.ip}, actions=load:${p.vnid}->NXM_NX_REG0[], goto_table:21`,
    );
    if (ct) f.push(`table=25, priority=100, ip, nw_src=${p.ip}, actions=load:${p.vnid}->NXM_NX_REG0[], goto_table:30`);
  }
  f.push('table=20, priority=0, actions=drop');
  if (ct) f.push(`table=21, priority=200, ip, nw_dst=${CLUSTER}, actions=ct(commit,table=30)`);
  f.push('table=21, priority=0, actions=goto_table:30');
  if (ct) f.push('table=25, priority=0, actions=drop');
  // Table 30: routing.
  f.push(`table=30, priority=300, arp, nw_dst=${GATEWAY}, actions=output:2`);
  f.push(`table=30, priority=200, arp, nw_dst=${LOCAL}, actions=goto_table:40`);
  f.push(`table=30, priority=100, arp, nw_dst=${CLUSTER}, actions=goto_table:50`);
  f.push(`table=30, priority=300, ip, nw_dst=${GATEWAY}, actions=output:2`);
  f.push(`table=30, priority=100, ip, nw_dst=${SERVICES}, actions=goto_table:60`);
  if (ct) f.push(`table=30, priority=300, ip, nw_dst=${LOCAL}, ct_state=+rpl, actions=ct(nat,table=70)`);
  f.push(`table=30, priority=200, ip, nw_dst=${LOCAL}, actions=goto_table:70`);
  f.push(`table=30, priority=100, ip, nw_dst=${CLUSTER}, actions=goto_table:90`);
  f.push('table=30, priority=75, ip, nw_dst=169.254.0.0/16, actions=drop');
  f.push('table=30, priority=50, in_port=1, ip, nw_dst=224.0.0.0/4, actions=goto_table:120');
  f.push('table=30, priority=25, ip, nw_dst=224.0.0.0/4, actions=goto_table:110');
  f.push('table=30, priority=0, ip, actions=goto_table:100');
  f.push('table=30, priority=0, arp, actions=drop');
  // Tables 40, 50: ARP to local Pods and to the peer.
  for (const p of PODS) f.push(`table=40, priority=100, arp, nw_dst=${p.ip}, actions=output:${p.port}`);
  f.push('table=40, priority=0, actions=drop');
  for (const peer of PEERS)
    f.push(
      `table=50, priority=100, cookie=${peer.cookie}, arp, nw_dst=${peer.subnet}, actions=move:NXM_NX_REG0[]->NXM_NX_TUN_ID[0..31],set_field:${peer.ip}->tun_dst,output:1`,
    );
  f.push('table=50, priority=0, actions=drop');
  // Table 60: Services; without conntrack, one flow per Service port and one for later fragments.
  if (ct) f.push('table=60, priority=200, actions=output:2');
  else {
    f.push('table=60, priority=200, reg0=0, actions=output:2');
    f.push(
      'table=60, priority=100, ip, nw_dst=172.30.44.10, ip_frag=later, actions=load:18->NXM_NX_REG1[], load:2->NXM_NX_REG2[], goto_table:80',
    );
    f.push(
      'table=60, priority=100, tcp, nw_dst=172.30.44.10, tp_dst=8080, actions=load:18->NXM_NX_REG1[], load:2->NXM_NX_REG2[], goto_table:80',
    );
  }
  f.push('table=60, priority=0, actions=drop');
  // Tables 70, 80: to local Pods, through the isolation check.
  for (const p of PODS)
    f.push(
      `table=70, priority=100, ip, nw_dst=${p.ip}, actions=load:${p.vnid}->NXM_NX_REG1[], load:${p.port}->NXM_NX_REG2[], goto_table:80`,
    );
  f.push('table=70, priority=0, actions=drop');
  f.push(`table=80, priority=300, ip, nw_src=${GATEWAY}/32, actions=output:NXM_NX_REG2[]`);
  if (ct) {
    f.push('table=80, priority=200, ip, ct_state=+rpl, actions=output:NXM_NX_REG2[]');
    f.push('table=80, priority=150, reg1=18, ip, nw_src=10.129.0.6, tcp, tp_dst=8080, actions=output:NXM_NX_REG2[]');
    f.push('table=80, priority=100, reg1=18, ip, nw_dst=10.129.0.5, actions=drop');
    f.push('table=80, priority=50, reg1=0, actions=output:NXM_NX_REG2[]');
  } else {
    f.push('table=80, priority=200, reg0=0, actions=output:NXM_NX_REG2[]');
    f.push('table=80, priority=200, reg1=0, actions=output:NXM_NX_REG2[]');
    f.push('table=80, priority=100, reg0=18, reg1=18, actions=output:NXM_NX_REG2[]');
  }
  f.push('table=80, priority=0, actions=drop');
  // Table 90: IP to the peer.
  for (const peer of PEERS)
    f.push(
      `table=90, priority=100, cookie=${peer.cookie}, ip, nw_dst=${peer.subnet}, actions=move:NXM_NX_REG0[]->NXM_NX_TUN_ID[0..31],set_field:${peer.ip}->tun_dst,output:1`,
    );
  f.push('table=90, priority=0, actions=drop');
  // Table 100: egress routing; VNID 18's egress IP is on another node.
  f.push(`table=100, priority=300,udp,udp_dst=${VXLAN_PORT},actions=drop`);
  f.push(`table=100, priority=200,tcp,tcp_dst=53,nw_dst=${NODE_IP},actions=output:2`);
  f.push(`table=100, priority=200,udp,udp_dst=53,nw_dst=${NODE_IP},actions=output:2`);
  f.push(
    `table=100, priority=100, reg0=18, ip, actions=move:NXM_NX_REG0[]->NXM_NX_TUN_ID[0..31],set_field:${EGRESS_NODE}->tun_dst,output:1`,
  );
  f.push('table=100, priority=0, actions=goto_table:101');
  // Table 101: VNID 18's egress firewall (allow one network, deny the rest).
  f.push('table=101, reg0=18, priority=2, ip, nw_dst=192.168.0.0/16, actions=output:2');
  f.push('table=101, reg0=18, priority=1, ip, actions=drop');
  f.push('table=101, priority=0, actions=output:2');
  // Tables 110, 111, 120: multicast, enabled for VNID 18.
  f.push('table=110, reg0=18, actions=goto_table:111');
  f.push('table=110, priority=0, actions=drop');
  f.push(
    `table=111, priority=100, actions=move:NXM_NX_REG0[]->NXM_NX_TUN_ID[0..31],${PEERS.map((peer) => `set_field:${peer.ip}->tun_dst,output:1`).join(',')},goto_table:120`,
  );
  f.push('table=120, priority=100, reg0=18, actions=output:3');
  f.push('table=120, priority=0, actions=drop');
  f.push(`table=253, actions=note:${pluginId.toString(16).padStart(2, '0')}.07`);
  return f.join('\n') + '\n';
}

/** The bridge as the SDN sets it up, with the two Pods' veths. */
export const OPENSHIFT_V7_BRIDGE = {
  bridge: 'br0',
  protocols: ['OpenFlow13'],
  ports: [
    { name: 'vxlan0', ofport: 1 },
    { name: 'tun0', ofport: 2 },
    { name: 'veth1a2b3c4d', ofport: 3 },
    { name: 'veth5e6f7a8b', ofport: 4 },
  ],
} as const;
