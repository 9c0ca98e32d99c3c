/**
 * What a switch port is in a pipeline (gateway, tunnel, local Pod…), from the profile's port
 * roles and the port's name. A port known only by number gets a role from the profile's usual
 * numbers only when the dump names no ports at all, and then it is said to be a usual number.
 */
import { type PortMap, type PortRef, reservedPortByNumber } from '../model/ports.ts';
import type { PortRole, PortRoleKind, Profile } from '../profiles/types.ts';
import { inVersion } from '../profiles/versions.ts';

export interface PortIdentity {
  /** As the user knows it: the name when known, else the number. */
  readonly name?: string;
  readonly number?: number;
  readonly role?: PortRoleKind;
  /** The role follows only from the port's number, which the pipeline usually gives that role. */
  readonly roleFromNumber?: boolean;
}

const ROLE_WORDS: Readonly<Record<PortRoleKind, string>> = {
  gateway: 'gateway',
  tunnel: 'tunnel',
  uplink: 'uplink',
  host: 'host interface',
  'bridge-local': 'bridge port',
  pod: 'local Pod',
  'traffic-control': 'traffic-control port',
  other: '',
};

function fitsName(r: PortRole, name: string): boolean {
  return (r.names ?? []).includes(name) || (r.namePattern !== undefined && new RegExp(`^(?:${r.namePattern})$`).test(name));
}

/**
 * A port as a reference: a number OpenFlow reserves (`in_port=65534` is how a match on LOCAL
 * prints) is that reserved port, so a match and an action on one port read alike.
 */
function asRef(port: PortRef | number): PortRef {
  if (typeof port !== 'number') return port;
  const reserved = reservedPortByNumber(port);
  return reserved ? { kind: 'reserved', name: reserved } : { kind: 'number', number: port };
}

function reservedWords(name: string): string {
  return name === 'LOCAL' ? 'the bridge’s LOCAL port' : name;
}

export class PortRoles {
  private readonly roles: readonly PortRole[];
  private readonly ports: PortMap;

  constructor(profile: Profile | undefined, release: string, ports: PortMap) {
    this.roles = (profile?.ports ?? []).filter((r) => inVersion(r, release));
    this.ports = ports;
  }

  identify(port: PortRef | number): PortIdentity {
    const ref = asRef(port);
    if (ref.kind === 'reserved') {
      return { name: ref.name, ...(ref.name === 'LOCAL' ? { role: 'bridge-local' as const } : {}) };
    }
    const number = ref.kind === 'number' ? ref.number : this.ports.number(ref.name);
    const name = ref.kind === 'name' ? ref.name : this.ports.name(ref.number);
    const base = { ...(name !== undefined ? { name } : {}), ...(number !== undefined ? { number } : {}) };
    if (name !== undefined) {
      const byName = this.roles.find((r) => fitsName(r, name));
      return byName ? { ...base, role: byName.role } : base;
    }
    if (this.ports.size === 0 && number !== undefined) {
      const byNumber = this.roles.find((r) => (r.numbers ?? []).includes(number));
      if (byNumber) return { ...base, role: byNumber.role, roleFromNumber: true };
    }
    return base;
  }

  /** `coredns5-8ec607 (port 3)`, `antrea-gw0`, `port 7`: the port without its role, for sentences that say the role. */
  plainWords(port: PortRef | number): string {
    const ref = asRef(port);
    if (ref.kind === 'reserved') return reservedWords(ref.name);
    const id = this.identify(ref);
    if (id.name === undefined) return `port ${id.number}`;
    return id.number === undefined ? id.name : `${id.name} (port ${id.number})`;
  }

  /** `local Pod coredns5-8ec607 (port 3)`, `gateway antrea-gw0`, `port 7 (usually the tunnel)`. */
  words(port: PortRef | number): string {
    const ref = asRef(port);
    if (ref.kind === 'reserved') return reservedWords(ref.name);
    const id = this.identify(ref);
    const role = id.role ? ROLE_WORDS[id.role] : '';
    if (id.roleFromNumber) return `port ${id.number} (usually the ${role})`;
    const who = id.name !== undefined ? `${role === '' ? 'port ' : `${role} `}${id.name}` : `${role === '' ? '' : `${role} `}port ${id.number}`;
    return id.name !== undefined && id.number !== undefined ? `${who} (port ${id.number})` : who;
  }
}
