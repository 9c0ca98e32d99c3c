/** A switch port in words: `local Pod coredns5-8ec607 (port 3)`, `gateway antrea-gw0`, `port 7 (usually the tunnel)`. */
import type { PortReading } from '../../analysis/fit/port-roles.ts';
import type { PortRoleKind } from '../../profiles/types.ts';

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

/** A reserved port: the profile's label for it (`LOCAL (the host)`), else what OpenFlow makes it. */
function reservedWords(p: PortReading & { readonly kind: 'reserved' }): string {
  return p.label ?? (p.role === 'bridge-local' ? 'the bridge’s LOCAL port' : p.name);
}

/** The port with its role: the profile's label for the role when it gives one, else the role's usual word. */
export function portWords(p: PortReading): string {
  if (p.kind === 'reserved') return reservedWords(p);
  const role = p.label ?? (p.role ? ROLE_WORDS[p.role] : '');
  if (p.roleFromNumber) return `port ${p.number} (usually the ${role})`;
  const who =
    p.name !== undefined
      ? `${role === '' ? 'port ' : `${role} `}${p.name}`
      : `${role === '' ? '' : `${role} `}port ${p.number}`;
  return p.name !== undefined && p.number !== undefined ? `${who} (port ${p.number})` : who;
}

/** `coredns5-8ec607 (port 3)`, `antrea-gw0`, `port 7`: the port without its role, for sentences that say the role. */
export function plainPortWords(p: PortReading): string {
  if (p.kind === 'reserved') return reservedWords(p);
  if (p.name === undefined) return `port ${p.number}`;
  return p.number === undefined ? p.name : `${p.name} (port ${p.number})`;
}
