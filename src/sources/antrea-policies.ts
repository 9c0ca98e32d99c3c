/**
 * The agent's view of its NetworkPolicies in an Antrea support bundle: `networkpolicies`,
 * `addressgroups` and `appliedtogroups`, control-plane objects (controlplane/v1beta2) that the
 * agent writes with Go's yaml.v2 (pkg/support/dump.go): keys are the Go field names lower-cased
 * (`objectmeta`, `groupmembers`, `appliedtogroups`, `sourceref`), an IP address a list of its
 * bytes (16 for IPv4 too), a port an IntOrString (`{type, intval, strval}`). The same objects as
 * antctl prints them (`-o yaml`: camelCase keys, addresses as text) read the same: keys are
 * compared lower-cased and addresses taken in either form. Read with the `yaml` library: a
 * support bundle's YAML nests lists in maps several levels deep, which no line reader follows.
 */
import { formatIpv6, parseIpv6 } from '../model/values.ts';
import { yamlLibrary } from '../syntax/yaml-library.ts';
import type { NodeFile } from './node.ts';

export interface PolicyPort {
  readonly port: number;
  readonly name?: string;
  readonly protocol: string;
}

/** A member of an address or applied-to group: a Pod (as `namespace/name`), its addresses and named ports. */
export interface PolicyMember {
  readonly pod?: string;
  readonly ips: readonly string[];
  readonly ports: readonly PolicyPort[];
}

export interface PolicyPeer {
  readonly addressGroups: readonly string[];
  /** CIDRs, as `10.10.1.0/24`. */
  readonly ipBlocks: readonly string[];
}

export interface PolicyService {
  /** TCP, UDP or SCTP (TCP when the object leaves it out); ICMP and IGMP services are kept by name. */
  readonly protocol: string;
  readonly port?: number | string;
  readonly endPort?: number;
}

export type PolicyDirection = 'In' | 'Out';

export interface PolicyRule {
  readonly direction: PolicyDirection;
  readonly from: PolicyPeer;
  readonly to: PolicyPeer;
  readonly services: readonly PolicyService[];
  readonly priority: number;
  /** Allow, Drop, Reject or Pass; absent for a K8s NetworkPolicy's (which allow). */
  readonly action?: string;
  readonly appliedToGroups: readonly string[];
  readonly name?: string;
}

/** K8sNetworkPolicy, AntreaNetworkPolicy, AntreaClusterNetworkPolicy (and the admin policy kinds of later releases). */
export interface ControlPlanePolicy {
  readonly type: string;
  readonly namespace?: string;
  readonly name: string;
  readonly rules: readonly PolicyRule[];
  readonly appliedToGroups: readonly string[];
  readonly priority?: number;
  readonly tierPriority?: number;
}

export interface PolicyObjects {
  readonly policies: readonly ControlPlanePolicy[];
  readonly addressGroups: ReadonlyMap<string, readonly PolicyMember[]>;
  readonly appliedToGroups: ReadonlyMap<string, readonly PolicyMember[]>;
  /** What could not be read, one sentence each, naming the file. */
  readonly problems: readonly string[];
}

type Obj = Record<string, unknown>;

/** The object with its keys lower-cased, so that yaml.v2's keys and antctl's camelCase ones read alike. */
function lower(v: unknown): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return {};
  return Object.fromEntries(Object.entries(v as Obj).map(([k, x]) => [k.toLowerCase(), x]));
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;
}

function strings(v: unknown): string[] {
  return list(v).flatMap((x) => (typeof x === 'string' ? [x] : []));
}

/**
 * An address as text: from its bytes (an IPv4 address in 16 bytes, `::ffff:a.b.c.d`, too), or as
 * written; IPv6 in RFC 5952 form, as OVS prints it, so that the agent's spelling meets the flows'.
 */
export function addressText(v: unknown): string | undefined {
  if (typeof v === 'string') {
    if (/^[\d.]+$/.test(v)) return v;
    if (!v.includes(':')) return bytesAddress([...Buffer.from(v, 'base64')]);
    const v6 = parseIpv6(v);
    return v6 === undefined ? v : formatIpv6(v6);
  }
  if (Array.isArray(v) && v.every((b) => typeof b === 'number')) return bytesAddress(v as number[]);
  return undefined;
}

function bytesAddress(b: readonly number[]): string | undefined {
  const v4 =
    b.length === 4
      ? b
      : b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 255 && b[11] === 255
        ? b.slice(12)
        : undefined;
  if (v4) return v4.join('.');
  if (b.length !== 16 || !b.every((x) => Number.isInteger(x) && x >= 0 && x <= 255)) return undefined;
  return formatIpv6(b.reduce((n, x) => (n << 8n) | BigInt(x), 0n));
}

function member(v: unknown): PolicyMember {
  const m = lower(v);
  const pod = lower(m.pod);
  const name = text(pod.name);
  const ports = list(m.ports).flatMap((p): PolicyPort[] => {
    const o = lower(p);
    const port = Number(o.port);
    return Number.isInteger(port) && port > 0
      ? [{ port, ...(text(o.name) ? { name: text(o.name)! } : {}), protocol: text(o.protocol) ?? 'TCP' }]
      : [];
  });
  return {
    ...(name ? { pod: `${text(pod.namespace) ?? 'default'}/${name}` } : {}),
    ips: list(m.ips).flatMap((ip) => addressText(ip) ?? []),
    ports,
  };
}

function peer(v: unknown): PolicyPeer {
  const p = lower(v);
  return {
    addressGroups: strings(p.addressgroups),
    ipBlocks: list(p.ipblocks).flatMap((b) => {
      const cidr = lower(lower(b).cidr);
      const ip = addressText(cidr.ip);
      return ip === undefined ? [] : [`${ip}/${Number(cidr.prefixlength ?? (ip.includes(':') ? 128 : 32))}`];
    }),
  };
}

/** An IntOrString as yaml.v2 writes it (`{type, intval, strval}`), or a plain number or name. */
function portOf(v: unknown): number | string | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return /^\d+$/.test(v) ? Number(v) : v;
  const o = lower(v);
  if (o.type === 1 || o.type === '1') return text(o.strval);
  return typeof o.intval === 'number' ? o.intval : undefined;
}

function service(v: unknown): PolicyService {
  const s = lower(v);
  const port = portOf(s.port);
  const end = Number(s.endport);
  return {
    protocol: text(s.protocol) ?? 'TCP',
    ...(port === undefined ? {} : { port }),
    ...(Number.isInteger(end) && end > 0 ? { endPort: end } : {}),
  };
}

function rule(v: unknown): PolicyRule {
  const r = lower(v);
  const action = text(r.action);
  const name = text(r.name);
  return {
    direction: r.direction === 'Out' ? 'Out' : 'In',
    from: peer(r.from),
    to: peer(r.to),
    services: list(r.services).map(service),
    priority: Number(r.priority ?? 0) || 0,
    ...(action ? { action } : {}),
    appliedToGroups: strings(r.appliedtogroups),
    ...(name ? { name } : {}),
  };
}

function policy(v: unknown): ControlPlanePolicy | undefined {
  const p = lower(v);
  const meta = lower(p.objectmeta ?? p.metadata);
  const ref = lower(p.sourceref);
  const name = text(ref.name) ?? text(meta.name);
  if (name === undefined) return undefined;
  const namespace = text(ref.namespace) ?? text(meta.namespace);
  const priority = Number(p.priority);
  const tier = Number(p.tierpriority);
  return {
    type: text(ref.type) ?? 'K8sNetworkPolicy',
    ...(namespace ? { namespace } : {}),
    name,
    rules: list(p.rules).map(rule),
    appliedToGroups: strings(p.appliedtogroups),
    ...(p.priority !== undefined && p.priority !== null && Number.isFinite(priority) ? { priority } : {}),
    ...(p.tierpriority !== undefined && p.tierpriority !== null && Number.isFinite(tier) ? { tierPriority: tier } : {}),
  };
}

/** The items of a file: a YAML list of objects (yaml.v2 writes a slice so), or a List object's `items`. */
function items(file: NodeFile, problems: string[]): unknown[] {
  const { parse } = yamlLibrary();
  let doc: unknown;
  try {
    doc = parse(file.text, { uniqueKeys: false });
  } catch (err) {
    problems.push(`${file.label}: not YAML (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
    return [];
  }
  if (doc === null || doc === undefined) return [];
  if (Array.isArray(doc)) return doc;
  const o = lower(doc);
  if (Array.isArray(o.items)) return o.items;
  problems.push(`${file.label}: expected a list of objects`);
  return [];
}

function groups(file: NodeFile | undefined, problems: string[]): Map<string, PolicyMember[]> {
  const out = new Map<string, PolicyMember[]>();
  if (!file) return out;
  for (const g of items(file, problems)) {
    const o = lower(g);
    const name = text(lower(o.objectmeta ?? o.metadata).name);
    if (name !== undefined) out.set(name, list(o.groupmembers).map(member));
  }
  return out;
}

/** The policy objects of a bundle's node; undefined when it has none of the three files. */
export function readPolicyObjects(files: {
  readonly networkpolicies?: NodeFile;
  readonly addressgroups?: NodeFile;
  readonly appliedtogroups?: NodeFile;
}): PolicyObjects | undefined {
  if (!files.networkpolicies) return undefined;
  const problems: string[] = [];
  const policies = items(files.networkpolicies, problems).flatMap((p) => policy(p) ?? []);
  return {
    policies,
    addressGroups: groups(files.addressgroups, problems),
    appliedToGroups: groups(files.appliedtogroups, problems),
    problems,
  };
}
