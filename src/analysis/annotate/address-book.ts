/**
 * Who the addresses in a dump belong to, read from the dump itself and the profile:
 * - a source address (IP, ARP sender, MAC) matched together with an input port belongs to that
 *   port: the gateway, or a local Pod;
 * - a destination prefix whose flow writes a tunnel destination is a peer Node's subnet, and the
 *   tunnel destination that Node;
 * - a prefix holding the gateway or a local Pod is the local Pod subnet, or the cluster network
 *   when it also holds a peer Node's subnet;
 * - a destination prefix sent to the gateway (kube-proxy), or to a table the profile says takes
 *   only Service traffic, is a Service CIDR (a table's name proves nothing);
 * - an exact destination sent to a group is a Service address, unless it is a multicast group
 *   (a group that replicates to the group's receivers proves no Service);
 * - the profile's well-known addresses (virtual MAC and IPs, multicast), read as flows' addresses are.
 * Entries are found by hash, per family and prefix length, never by a scan: a dump of a large
 * cluster names tens of thousands of addresses, and every address of every flow is looked up.
 * Masks that are not prefixes are never tagged.
 */
import { flattenActions } from '../../model/actions.ts';
import type { Flow, Match, MatchField } from '../../model/flow.ts';
import { type FieldDef, fieldByName } from '../../model/fields.ts';
import { formatIpv4Masked, formatIpv6Masked } from '../../syntax/field-value.ts';
import { formatMac, ones, parseIpv4, parseIpv6, parseMac, prefixLength } from '../../model/values.ts';
import type { AddressRole, Profile } from '../../profiles/types.ts';
import { inVersion } from '../../profiles/versions.ts';
import { resolveTable } from '../fit/pattern-fit.ts';
import { jumpTargets } from '../../model/flow-exits.ts';
import type { PortRoles } from '../fit/port-roles.ts';

export type Family = 'mac' | 'ipv4' | 'ipv6';

/** 224.0.0.0/4 and ff00::/8. */
function isMulticast(family: 'ipv4' | 'ipv6', value: bigint): boolean {
  return family === 'ipv4' ? value >> 28n === 0xen : value >> 120n === 0xffn;
}

export type InferredRole =
  | 'local-pod'
  | 'gateway'
  | 'local-pod-subnet'
  | 'local-pods'
  | 'cluster-network'
  | 'peer-node-subnet'
  | 'peer-node'
  | 'service-cidr'
  | 'service';

export interface AddressEntry {
  readonly family: Family;
  readonly value: bigint;
  /** Prefix length; the family's width for a single address. */
  readonly prefix: number;
  readonly role: InferredRole | AddressRole;
  /** Words for the address: `local Pod coredns5-8ec607`, `peer Node subnet`. */
  readonly label: string;
  /** The peer Node a subnet is reached through. */
  readonly via?: string;
}

/** What is known of one address or prefix seen in a flow. */
export interface AddressTag {
  readonly address: string;
  readonly role: InferredRole | AddressRole;
  /** `local Pod coredns5-8ec607`, or `in peer Node subnet 10.10.1.0/24` for an address inside a known prefix. */
  readonly label: string;
}

const WIDTH: Readonly<Record<Family, number>> = { mac: 48, ipv4: 32, ipv6: 128 };

function familyOf(field: FieldDef): Family | undefined {
  return field.format === 'mac'
    ? 'mac'
    : field.format === 'ipv4'
      ? 'ipv4'
      : field.format === 'ipv6'
        ? 'ipv6'
        : undefined;
}

function text(family: Family, value: bigint, prefix: number): string {
  if (family === 'mac') return formatMac(value);
  const mask = ones(WIDTH[family]) ^ ones(WIDTH[family] - prefix);
  return family === 'ipv4' ? formatIpv4Masked(value, mask) : formatIpv6Masked(value, mask);
}

/** The bits a prefix of `prefix` bits keeps of a `family` value. */
function prefixMask(family: Family, prefix: number): bigint {
  return ones(WIDTH[family]) ^ ones(WIDTH[family] - prefix);
}

/** Hash key of a value: a number where it fits one exactly (hashing a number is the cheapest). */
function valueKey(family: Family, value: bigint): number | string {
  return family === 'ipv6' ? value.toString(16) : Number(value);
}

/** Whether prefix `outer` holds `value/prefix` (MAC addresses only hold themselves). */
function holds(outer: AddressEntry, family: Family, value: bigint, prefix: number): boolean {
  if (outer.family !== family) return false;
  if (family === 'mac') return outer.value === value && outer.prefix === prefix;
  if (outer.prefix > prefix) return false;
  const mask = prefixMask(family, outer.prefix);
  return (outer.value & mask) === (value & mask);
}

/** An address from a profile (`10.0.0.1`, `169.254.0.0/16`, a MAC), or undefined when it does not read. */
function profileAddress(kind: Family, address: string): { value: bigint; prefix: number } | undefined {
  const [addr = '', len] = address.split('/');
  const prefix = len === undefined ? WIDTH[kind] : Number(len);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > WIDTH[kind]) return undefined;
  const value = kind === 'mac' ? parseMac(addr) : kind === 'ipv4' ? parseIpv4(addr) : parseIpv6(addr);
  return value === undefined ? undefined : { value, prefix };
}

/**
 * Entries by family, prefix length and value. The narrowest prefix holding an address is found
 * by one lookup per prefix length in use, longest first.
 */
class AddressIndex {
  private readonly byLength = new Map<string, Map<number | string, AddressEntry>>();
  /** Prefix lengths in use per family, longest first. */
  private readonly lengths = new Map<Family, number[]>();

  private mapOf(family: Family, prefix: number): Map<number | string, AddressEntry> | undefined {
    return this.byLength.get(`${family}/${prefix}`);
  }

  get(family: Family, value: bigint, prefix: number): AddressEntry | undefined {
    const e = this.mapOf(family, prefix)?.get(valueKey(family, value & prefixMask(family, prefix)));
    // The exact value, host bits included, as the entry was written.
    return e && e.value === value ? e : undefined;
  }

  add(e: AddressEntry): void {
    let map = this.mapOf(e.family, e.prefix);
    if (!map) {
      this.byLength.set(`${e.family}/${e.prefix}`, (map = new Map()));
      const lengths = this.lengths.get(e.family) ?? [];
      lengths.push(e.prefix);
      lengths.sort((a, b) => b - a);
      this.lengths.set(e.family, lengths);
    }
    const key = valueKey(e.family, e.value & prefixMask(e.family, e.prefix));
    // The first entry of a prefix keeps it, as a scan in order would find it first.
    if (!map.has(key)) map.set(key, e);
  }

  /** The narrowest entry shorter than `prefix` that holds `value/prefix`. */
  holder(family: Family, value: bigint, prefix: number): AddressEntry | undefined {
    if (family === 'mac') return undefined;
    for (const length of this.lengths.get(family) ?? []) {
      if (length >= prefix) continue;
      const e = this.mapOf(family, length)!.get(valueKey(family, value & prefixMask(family, length)));
      if (e) return e;
    }
    return undefined;
  }
}

/** The storages of fields given by name: every flow of a dump is searched for them, a name is looked up once. */
function storagesOf(names: readonly string[]): string[] {
  return names.map((n) => fieldByName(n)!.storage);
}

/** The match's entry for a storage (as `matchField` finds it by the field's name). */
function entryIn(match: Match, storage: string): MatchField | undefined {
  for (const e of match.fields) if (e.field.storage === storage) return e;
  return undefined;
}

const ROLE_LABEL: Readonly<Record<InferredRole, string>> = {
  'local-pod': 'local Pod',
  gateway: 'gateway',
  'local-pod-subnet': 'local Pod subnet',
  'local-pods': 'subnet with local Pods',
  'cluster-network': 'cluster network',
  'peer-node-subnet': 'peer Node subnet',
  'peer-node': 'peer Node',
  'service-cidr': 'Service CIDR',
  service: 'Service address',
};

export class AddressBook {
  private readonly entries: AddressEntry[] = [];
  private readonly index = new AddressIndex();
  private readonly insideLabels = new Map<AddressEntry, string>();
  /** The input port, then the source fields whose addresses belong to it. */
  private readonly learnStorages = storagesOf(['in_port', 'nw_src', 'ipv6_src', 'arp_spa', 'eth_src', 'arp_sha']);
  private readonly destinationStorages = storagesOf(['nw_dst', 'ipv6_dst']);

  /** Addresses the profile names, then those the flows reveal. */
  constructor(flows: readonly Flow[], profile: Profile | undefined, release: string, ports: PortRoles) {
    for (const a of profile?.addresses ?? []) {
      if (!inVersion(a, release)) continue;
      const read = profileAddress(a.kind, a.address);
      if (read) this.add({ family: a.kind, ...read, role: a.role, label: a.name });
    }
    const local: AddressEntry[] = [];
    for (const flow of flows) this.learnFromFlow(flow, profile, release, ports, local);
    this.classifyLocalPrefixes(flows, local);
  }

  /**
   * Destination prefixes holding the gateway or a local Pod: one that also holds a peer Node's
   * subnet is the cluster network; the narrowest, when it is as long as a peer Node's subnet, is
   * the local Pod subnet; any other only says that local Pods live in it.
   */
  private classifyLocalPrefixes(flows: readonly Flow[], local: readonly AddressEntry[]): void {
    const candidates: AddressEntry[] = [];
    // Prefixes already weighed, found by hash rather than by a scan.
    const weighed = new AddressIndex();
    const storages = storagesOf(['nw_src', 'nw_dst', 'ipv6_src', 'ipv6_dst']);
    for (const flow of flows) {
      for (const storage of storages) {
        const e = entryIn(flow.match, storage);
        const family = e && familyOf(e.field);
        if (!e || !family || family === 'mac') continue;
        const prefix = prefixLength(e.mask, WIDTH[family]);
        if (
          prefix <= 0 ||
          prefix === WIDTH[family] ||
          this.find(family, e.value, prefix) ||
          weighed.get(family, e.value, prefix)
        )
          continue;
        const c: AddressEntry = { family, value: e.value, prefix, role: 'local-pods', label: ROLE_LABEL['local-pods'] };
        weighed.add(c);
        if (local.some((l) => holds(c, l.family, l.value, l.prefix))) candidates.push(c);
      }
    }
    const peers = this.entries.filter((e) => e.role === 'peer-node-subnet');
    const narrowest = Math.max(...candidates.map((c) => c.prefix));
    for (const c of candidates) {
      if (peers.some((p) => holds(c, p.family, p.value, p.prefix)))
        this.add({ ...c, role: 'cluster-network', label: ROLE_LABEL['cluster-network'] });
      else if (c.prefix === narrowest && peers.some((p) => p.family === c.family && p.prefix === c.prefix))
        this.add({ ...c, role: 'local-pod-subnet', label: ROLE_LABEL['local-pod-subnet'] });
      else this.add(c);
    }
  }

  private add(e: AddressEntry): void {
    if (this.find(e.family, e.value, e.prefix)) return;
    this.entries.push(e);
    this.index.add(e);
  }

  private find(family: Family, value: bigint, prefix: number): AddressEntry | undefined {
    return this.index.get(family, value, prefix);
  }

  private learnFromFlow(
    flow: Flow,
    profile: Profile | undefined,
    release: string,
    ports: PortRoles,
    local: AddressEntry[],
  ): void {
    const [inPortStorage, ...sources] = this.learnStorages;
    const inPort = entryIn(flow.match, inPortStorage!);
    if (inPort) {
      const id = ports.identify(inPort.port?.kind === 'name' ? inPort.port : Number(inPort.value));
      if (id.role === 'gateway' || id.role === 'pod') {
        const who = id.name ?? `port ${id.number}`;
        const label = id.role === 'gateway' ? `gateway ${who}` : `local Pod ${who}`;
        for (const storage of sources) {
          const e = entryIn(flow.match, storage);
          const family = e && familyOf(e.field);
          if (!e || !family || e.mask !== ones(WIDTH[family])) continue;
          const entry: AddressEntry = {
            family,
            value: e.value,
            prefix: WIDTH[family],
            role: id.role === 'gateway' ? 'gateway' : 'local-pod',
            label,
          };
          this.add(entry);
          if (family !== 'mac') local.push(entry);
        }
      }
    }
    const actions = flattenActions(flow.actions);
    for (const storage of this.destinationStorages) {
      const e = entryIn(flow.match, storage);
      const family = e && familyOf(e.field);
      if (!e || !family || family === 'mac') continue;
      const prefix = prefixLength(e.mask, WIDTH[family]);
      if (prefix < 0) continue;
      const tunnel = actions.find(
        (a) => a.kind === 'set_field' && (a.field.name === 'tun_dst' || a.field.name === 'tun_ipv6_dst'),
      );
      if (tunnel?.kind === 'set_field' && prefix < WIDTH[family]) {
        const node = tunnel.field.name === 'tun_dst' ? text('ipv4', tunnel.value, 32) : text('ipv6', tunnel.value, 128);
        this.add({
          family,
          value: e.value,
          prefix,
          role: 'peer-node-subnet',
          label: ROLE_LABEL['peer-node-subnet'],
          via: node,
        });
        const nodeFamily: Family = tunnel.field.name === 'tun_dst' ? 'ipv4' : 'ipv6';
        this.add({
          family: nodeFamily,
          value: tunnel.value,
          prefix: WIDTH[nodeFamily],
          role: 'peer-node',
          label: ROLE_LABEL['peer-node'],
        });
        continue;
      }
      if (prefix === WIDTH[family] && actions.some((a) => a.kind === 'group') && !isMulticast(family, e.value)) {
        this.add({ family, value: e.value, prefix, role: 'service', label: ROLE_LABEL.service });
        continue;
      }
      if (prefix < WIDTH[family] && this.toGatewayOrService(flow, profile, release, ports)) {
        this.add({ family, value: e.value, prefix, role: 'service-cidr', label: ROLE_LABEL['service-cidr'] });
      }
    }
  }

  /** The flow hands the packet to the gateway (output, or reg1 as the output port) or to a table that takes only Service traffic. */
  private toGatewayOrService(flow: Flow, profile: Profile | undefined, release: string, ports: PortRoles): boolean {
    for (const a of flattenActions(flow.actions)) {
      if (a.kind === 'output' && ports.identify(a.port).role === 'gateway') return true;
      if (a.kind === 'set_field' && a.field.name === 'reg1' && ports.identify(Number(a.value)).role === 'gateway')
        return true;
    }
    if (!profile) return false;
    return jumpTargets(flow.actions).some((t) => resolveTable(profile, t, release)?.servicesOnly === true);
  }

  /** What is known of an address or prefix: itself, else the narrowest known prefix holding it. */
  tag(field: FieldDef, value: bigint, mask: bigint): AddressTag | undefined {
    const found = this.entryOf(field, value, mask);
    if (!found) return undefined;
    const { family, prefix, entry } = found;
    return { address: text(family, value, prefix), role: entry.role, label: this.labelOf(found) };
  }

  /** The words of `tag` alone, without the address written out. */
  label(field: FieldDef, value: bigint, mask: bigint): string | undefined {
    const found = this.entryOf(field, value, mask);
    return found && this.labelOf(found);
  }

  /** The entry of an address or prefix itself (`same`), else the narrowest known prefix holding it. */
  private entryOf(
    field: FieldDef,
    value: bigint,
    mask: bigint,
  ): { family: Family; prefix: number; entry: AddressEntry; same: boolean } | undefined {
    const family = familyOf(field);
    if (!family) return undefined;
    const prefix = prefixLength(mask, WIDTH[family]);
    if (prefix < 0) return undefined;
    const same = this.find(family, value, prefix);
    if (same) return { family, prefix, entry: same, same: true };
    const best = this.index.holder(family, value, prefix);
    return best && { family, prefix, entry: best, same: false };
  }

  private labelOf(found: { readonly entry: AddressEntry; readonly same: boolean }): string {
    const e = found.entry;
    const via = e.via === undefined ? '' : ` via ${e.via}`;
    if (found.same) return e.label + via;
    // The words for an address inside a prefix are those of the prefix: made once per prefix.
    let inside = this.insideLabels.get(e);
    if (inside === undefined)
      this.insideLabels.set(e, (inside = `in ${e.label} ${text(e.family, e.value, e.prefix)}${via}`));
    return inside;
  }

  get size(): number {
    return this.entries.length;
  }

  list(): readonly AddressEntry[] {
    return this.entries;
  }
}
