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
import {
  actionsOutline,
  type Flow,
  type Match,
  type MatchField,
  matchOutline,
  onlyConjunctions,
} from '../../model/flow.ts';
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

/** Whose an address is, as far as the dump and the profile tell (render/words/address.ts says it). */
export type AddressOwner =
  /** One of the profile's well-known addresses, by the profile's name for it. */
  | { readonly kind: 'profile'; readonly role: AddressRole; readonly name: string }
  /** The address of the port its packets come in on: the gateway's, or a local Pod's. */
  | { readonly kind: 'port'; readonly role: 'gateway' | 'local-pod'; readonly port: PortName }
  | { readonly kind: 'role'; readonly role: Exclude<InferredRole, 'gateway' | 'local-pod'> };

/** A port as the address book knows it: by name when the dump or the port map gives one, else by number. */
export type PortName = { readonly name: string } | { readonly number: number };

/**
 * What an address is known as: its owner, the peer Node a subnet is reached through, and for an
 * address inside a known prefix (`inside`), that prefix written out.
 */
export type AddressLabel = AddressOwner & { readonly via?: string; readonly inside?: string };

export interface AddressEntry {
  readonly family: Family;
  readonly value: bigint;
  /** Prefix length; the family's width for a single address. */
  readonly prefix: number;
  readonly role: InferredRole | AddressRole;
  /** What the address itself is known as (`local Pod coredns5-8ec607`, `peer Node subnet via …` in words). */
  readonly label: AddressLabel;
}

/** What is known of one address or prefix seen in a flow. */
export interface AddressTag {
  readonly address: string;
  readonly role: InferredRole | AddressRole;
  /** Its entry's label, or for an address inside a known prefix that prefix's, with `inside`. */
  readonly label: AddressLabel;
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

/** The storages of IP addresses whose prefixes may hold local Pods. */
const PREFIX_STORAGES = storagesOf(['nw_src', 'nw_dst', 'ipv6_src', 'ipv6_dst']);

/** Whether the match holds an IP prefix (neither empty nor a single address) of one of the storages. */
function hasPrefix(match: Match, storages: readonly string[]): boolean {
  for (const storage of storages) {
    const e = entryIn(match, storage);
    const family = e && familyOf(e.field);
    if (!e || !family || family === 'mac') continue;
    const prefix = prefixLength(e.mask, WIDTH[family]);
    if (prefix > 0 && prefix < WIDTH[family]) return true;
  }
  return false;
}

/** An entry known by its role alone. */
function byRole(
  family: Family,
  value: bigint,
  prefix: number,
  role: Exclude<InferredRole, 'gateway' | 'local-pod'>,
  via?: string,
): AddressEntry {
  return { family, value, prefix, role, label: { kind: 'role', role, ...(via !== undefined ? { via } : {}) } };
}

export class AddressBook {
  private readonly entries: AddressEntry[] = [];
  private readonly index = new AddressIndex();
  private readonly insideLabels = new Map<AddressEntry, AddressLabel>();
  /** The input port, then the source fields whose addresses belong to it. */
  private readonly learnStorages = storagesOf(['in_port', 'nw_src', 'ipv6_src', 'arp_spa', 'eth_src', 'arp_sha']);
  private readonly destinationStorages = storagesOf(['nw_dst', 'ipv6_dst']);

  /** Addresses the profile names, then those the flows reveal. */
  constructor(flows: readonly Flow[], profile: Profile | undefined, release: string, ports: PortRoles) {
    for (const a of profile?.addresses ?? []) {
      if (!inVersion(a, release)) continue;
      const read = profileAddress(a.kind, a.address);
      if (read)
        this.add({ family: a.kind, ...read, role: a.role, label: { kind: 'profile', role: a.role, name: a.name } });
    }
    const local: AddressEntry[] = [];
    // Whether a flow can tell anything is known from its outline (the fields, masks and kinds of
    // actions it shares with other flows): most flows of a dump are passed over without reading
    // their match and actions.
    const prefixed: Flow[] = [];
    // Flow after flow shares the last one's outline, whose masks say whether it holds a prefix, and
    // with its actions' outline, whether it can teach anything (see teaches).
    let lastMatch: Match | undefined;
    let prefix = false;
    let taughtMatch: Match | undefined;
    let taughtActions: Flow['outlineActions'];
    let teaches = false;
    for (const flow of flows) {
      const match = matchOutline(flow);
      const actions = flow.outlineActions ?? flow.actions;
      if (match !== taughtMatch || actions !== taughtActions) {
        taughtMatch = match;
        taughtActions = actions;
        teaches = this.teaches(match, flow);
      }
      if (teaches) this.learnFromFlow(flow, profile, release, ports, local);
      if (match !== lastMatch) {
        lastMatch = match;
        prefix = hasPrefix(match, PREFIX_STORAGES);
      }
      if (prefix) prefixed.push(flow);
    }
    this.classifyLocalPrefixes(prefixed, local);
  }

  /**
   * Whether learnFromFlow can learn anything from a flow whose match has the fields and masks of
   * `match`: it matches an input port, or a destination prefix (a single address only when it
   * goes to a group). Read of the outline of its actions alone, as of `match`.
   */
  private teaches(match: Match, flow: Flow): boolean {
    const [inPortStorage] = this.learnStorages;
    if (entryIn(match, inPortStorage!)) return true;
    if (onlyConjunctions(flow)) return false;
    for (const storage of this.destinationStorages) {
      const e = entryIn(match, storage);
      const family = e && familyOf(e.field);
      if (!e || !family || family === 'mac') continue;
      const prefix = prefixLength(e.mask, WIDTH[family]);
      if (
        prefix >= 0 &&
        (prefix < WIDTH[family] || flattenActions(actionsOutline(flow)).some((a) => a.kind === 'group'))
      )
        return true;
    }
    return false;
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
    for (const flow of flows) {
      for (const storage of PREFIX_STORAGES) {
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
        const c = byRole(family, e.value, prefix, 'local-pods');
        weighed.add(c);
        if (local.some((l) => holds(c, l.family, l.value, l.prefix))) candidates.push(c);
      }
    }
    const peers = this.entries.filter((e) => e.role === 'peer-node-subnet');
    const narrowest = Math.max(...candidates.map((c) => c.prefix));
    for (const c of candidates) {
      if (peers.some((p) => holds(c, p.family, p.value, p.prefix)))
        this.add(byRole(c.family, c.value, c.prefix, 'cluster-network'));
      else if (c.prefix === narrowest && peers.some((p) => p.family === c.family && p.prefix === c.prefix))
        this.add(byRole(c.family, c.value, c.prefix, 'local-pod-subnet'));
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
        const role = id.role === 'gateway' ? 'gateway' : 'local-pod';
        const label: AddressLabel = {
          kind: 'port',
          role,
          port: id.name !== undefined ? { name: id.name } : { number: id.number! },
        };
        for (const storage of sources) {
          const e = entryIn(flow.match, storage);
          const family = e && familyOf(e.field);
          if (!e || !family || e.mask !== ones(WIDTH[family])) continue;
          const entry: AddressEntry = { family, value: e.value, prefix: WIDTH[family], role, label };
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
        this.add(byRole(family, e.value, prefix, 'peer-node-subnet', node));
        const nodeFamily: Family = tunnel.field.name === 'tun_dst' ? 'ipv4' : 'ipv6';
        this.add(byRole(nodeFamily, tunnel.value, WIDTH[nodeFamily], 'peer-node'));
        continue;
      }
      if (prefix === WIDTH[family] && actions.some((a) => a.kind === 'group') && !isMulticast(family, e.value)) {
        this.add(byRole(family, e.value, prefix, 'service'));
        continue;
      }
      if (prefix < WIDTH[family] && this.toGatewayOrService(flow, profile, release, ports)) {
        this.add(byRole(family, e.value, prefix, 'service-cidr'));
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

  /** The label of `tag` alone, without the address written out. */
  label(field: FieldDef, value: bigint, mask: bigint): AddressLabel | undefined {
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

  private labelOf(found: { readonly entry: AddressEntry; readonly same: boolean }): AddressLabel {
    const e = found.entry;
    if (found.same) return e.label;
    // The label of an address inside a prefix is the prefix's: made once per prefix.
    let inside = this.insideLabels.get(e);
    if (inside === undefined)
      this.insideLabels.set(e, (inside = { ...e.label, inside: text(e.family, e.value, e.prefix) }));
    return inside;
  }

  get size(): number {
    return this.entries.length;
  }

  list(): readonly AddressEntry[] {
    return this.entries;
  }
}
