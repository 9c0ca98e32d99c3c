/**
 * The NetworkPolicies behind the conjunctions of the generated Antrea 2.x pipeline
 * (antrea2-pipeline.ts), as the agent's control-plane objects, written the way the agent's support
 * bundle writes them (pkg/support/dump.go: Go's yaml.v2 over controlplane/v1beta2 objects): keys
 * are Go field names lower-cased, embedded TypeMeta/ObjectMeta are keys of their own, sequences
 * are not indented under their key, an address is the list of its 16 bytes, a port an IntOrString.
 */
import { stringify } from 'yaml';
import { GATEWAY, PODS, TC_TAP, TUNNEL, V6 } from './antrea2-pipeline.ts';

const [CLIENT, WEB, DB] = PODS as [(typeof PODS)[0], (typeof PODS)[0], (typeof PODS)[0]];

/** The Pods' names, as their interface names begin (Antrea names an interface after the Pod). */
const POD_NAMES: Readonly<Record<string, string>> = {
  [CLIENT.name]: 'client-6d8f9-x2k4p',
  [WEB.name]: 'web-7975b-4m2nq',
  [DB.name]: 'db-755c6-9ptl7',
};

function ipBytes(ip: string): number[] {
  if (ip.includes(':')) {
    const [head = '', tail = ''] = ip.split('::');
    const words = (t: string): number[] => (t === '' ? [] : t.split(':').map((w) => parseInt(w, 16)));
    const all = [...words(head), ...Array<number>(8 - words(head).length - words(tail).length).fill(0), ...words(tail)];
    return all.flatMap((w) => [w >> 8, w & 0xff]);
  }
  return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, ...ip.split('.').map(Number)];
}

/** Which addresses group members carry: IPv4 (the default), both families, or IPv6 alone; `named`: whether members name their Pod. */
export interface MemberShape {
  readonly family?: 'ipv4' | 'dual' | 'ipv6';
  readonly named?: boolean;
}

function meta(name: string, namespace = ''): Record<string, unknown> {
  return {
    name,
    generatename: '',
    namespace,
    selflink: '',
    uid: '',
    resourceversion: '',
    generation: 0,
    labels: {},
    annotations: {},
    ownerreferences: [],
    finalizers: [],
    managedfields: [],
  };
}

function member(pod: (typeof PODS)[0], shape: MemberShape): Record<string, unknown> {
  const family = shape.family ?? 'ipv4';
  const ips = [...(family === 'ipv6' ? [] : [pod.ip]), ...(family === 'ipv4' ? [] : [V6[pod.name]!])];
  return {
    pod: shape.named === false ? null : { name: POD_NAMES[pod.name], namespace: 'prod' },
    externalentity: null,
    ips: ips.map(ipBytes),
    ports: [],
    node: null,
  };
}

function group(name: string, pods: readonly (typeof PODS)[0][], shape: MemberShape): Record<string, unknown> {
  return {
    typemeta: { kind: '', apiversion: '' },
    objectmeta: meta(name),
    groupmembers: pods.map((p) => member(p, shape)),
  };
}

interface RuleSpec {
  readonly direction: 'In' | 'Out';
  readonly peerGroups?: readonly string[];
  readonly ipBlocks?: readonly string[];
  readonly services?: readonly { protocol: string; port: number }[];
  readonly action?: string;
  readonly appliedTo: string;
  readonly name?: string;
}

function peer(groups: readonly string[] = [], blocks: readonly string[] = []): Record<string, unknown> {
  return {
    addressgroups: groups,
    ipblocks: blocks.map((b) => {
      const [ip, len] = b.split('/') as [string, string];
      return { cidr: { ip: ipBytes(ip), prefixlength: Number(len) }, except: [] };
    }),
    fqdns: [],
    toservices: [],
  };
}

function rule(r: RuleSpec, index: number, native: boolean): Record<string, unknown> {
  const there = peer(r.peerGroups, r.ipBlocks);
  return {
    direction: r.direction,
    from: r.direction === 'In' ? there : peer(),
    to: r.direction === 'Out' ? there : peer(),
    services: (r.services ?? []).map((s) => ({
      protocol: s.protocol,
      port: { type: 0, intval: s.port, strval: '' },
      endport: null,
    })),
    priority: index,
    action: native ? (r.action ?? 'Allow') : null,
    enablelogging: false,
    appliedtogroups: native ? [r.appliedTo] : [],
    name: r.name ?? '',
  };
}

interface PolicySpec {
  readonly uid: string;
  readonly type: 'K8sNetworkPolicy' | 'AntreaClusterNetworkPolicy';
  readonly name: string;
  readonly namespace?: string;
  readonly tierPriority?: number;
  readonly priority?: number;
  readonly rules: readonly RuleSpec[];
}

/** One policy per rule group of the pipeline; the conjunction each rule became is noted beside it. */
export const ANTREA2_POLICIES: readonly PolicySpec[] = [
  {
    uid: 'p-emergency',
    type: 'AntreaClusterNetworkPolicy',
    name: 'emergency-quarantine',
    tierPriority: 50,
    priority: 1,
    rules: [{ direction: 'Out', ipBlocks: ['10.10.1.66/32'], action: 'Drop', appliedTo: 'atg-client' }],
  }, // 31
  {
    uid: 'p-secops',
    type: 'AntreaClusterNetworkPolicy',
    name: 'secops-postgres',
    tierPriority: 100,
    priority: 2,
    rules: [{ direction: 'Out', services: [{ protocol: 'TCP', port: 5432 }], action: 'Pass', appliedTo: 'atg-web' }],
  }, // 32
  {
    uid: 'p-app',
    type: 'AntreaClusterNetworkPolicy',
    name: 'app-web',
    tierPriority: 250,
    priority: 5,
    rules: [
      {
        direction: 'In',
        peerGroups: ['ag-client'],
        services: [{ protocol: 'TCP', port: 80 }],
        action: 'Allow',
        appliedTo: 'atg-web',
        name: 'allow-client-http',
      }, // 6
      { direction: 'In', action: 'Drop', appliedTo: 'atg-web', name: 'deny-rest' }, // 4
      {
        direction: 'Out',
        peerGroups: ['ag-db'],
        services: [{ protocol: 'TCP', port: 3306 }],
        action: 'Allow',
        appliedTo: 'atg-web',
        name: 'allow-mysql',
      }, // 7
      {
        direction: 'Out',
        services: [{ protocol: 'TCP', port: 22 }],
        action: 'Reject',
        appliedTo: 'atg-client',
        name: 'reject-ssh',
      }, // 8
    ],
  },
  {
    uid: 'p-platform',
    type: 'AntreaClusterNetworkPolicy',
    name: 'platform-remote-db',
    tierPriority: 200,
    priority: 1,
    rules: [{ direction: 'In', ipBlocks: ['10.10.1.0/24'], action: 'Drop', appliedTo: 'atg-db' }],
  }, // 40 (logged)
  {
    uid: 'p-baseline',
    type: 'AntreaClusterNetworkPolicy',
    name: 'baseline-dns',
    tierPriority: 253,
    priority: 1,
    rules: [{ direction: 'Out', services: [{ protocol: 'UDP', port: 53 }], action: 'Drop', appliedTo: 'atg-client' }],
  }, // 33
  {
    uid: 'p-web-in',
    type: 'K8sNetworkPolicy',
    name: 'web-ingress',
    namespace: 'prod',
    rules: [
      { direction: 'In', peerGroups: ['ag-client'], services: [{ protocol: 'TCP', port: 80 }], appliedTo: 'atg-web' },
    ],
  }, // 3
  {
    uid: 'p-web-out',
    type: 'K8sNetworkPolicy',
    name: 'web-egress',
    namespace: 'prod',
    rules: [
      { direction: 'Out', peerGroups: ['ag-db'], services: [{ protocol: 'TCP', port: 3306 }], appliedTo: 'atg-web' },
    ],
  }, // 2
];

/** Each rule's conjunction in the pipeline, in the order of ANTREA2_POLICIES' rules. */
export const ANTREA2_RULE_CONJUNCTIONS: readonly number[] = [31, 32, 6, 4, 7, 8, 40, 33, 3, 2];

function policy(p: PolicySpec): Record<string, unknown> {
  const native = p.type !== 'K8sNetworkPolicy';
  return {
    typemeta: { kind: '', apiversion: '' },
    objectmeta: meta(p.uid),
    rules: p.rules.map((r, i) => rule(r, i, native)),
    appliedtogroups: native ? [] : [...new Set(p.rules.map((r) => r.appliedTo))],
    priority: p.priority ?? null,
    tierpriority: p.tierPriority ?? null,
    sourceref: { type: p.type, namespace: p.namespace ?? '', name: p.name, uid: p.uid },
  };
}

/** yaml.v2's layout: block sequences level with their key. */
function yamlV2(v: unknown): string {
  return stringify(v, { indentSeq: false, lineWidth: 0 });
}

/** The three files, as the agent writes them. */
export function antrea2PolicyFiles(
  policies: readonly PolicySpec[] = ANTREA2_POLICIES,
  shape: MemberShape = {},
): { networkpolicies: string; addressgroups: string; appliedtogroups: string } {
  return {
    networkpolicies: yamlV2(policies.map(policy)),
    addressgroups: yamlV2([
      group('ag-client', [CLIENT], shape),
      group('ag-db', [DB], shape),
      group('ag-web', [WEB], shape),
    ]),
    appliedtogroups: yamlV2([
      group('atg-client', [CLIENT], shape),
      group('atg-db', [DB], shape),
      group('atg-web', [WEB], shape),
    ]),
  };
}

/** The bridge's ports as `ovs-ofctl dump-ports-desc` prints them, for the bundle's `ovsports`. */
export function antrea2PortsDesc(): string {
  return [TUNNEL, GATEWAY, TC_TAP, ...PODS]
    .map(
      (p, i) =>
        ` ${p.port}(${p.name}): addr:02:00:00:00:00:${(i + 1).toString(16).padStart(2, '0')}\n     config:     0\n     state:      0\n     speed: 0 Mbps now, 0 Mbps max`,
    )
    .join('\n');
}
