/**
 * What a switch port is in a pipeline (gateway, tunnel, local Pod…), from the profile's port
 * roles and the port's name, or from what the flows write for packets entering on it. A port known
 * only by number otherwise gets a role from the profile's usual numbers only when the dump names
 * no ports at all, and then it is said to be a usual number.
 */
import type { Action } from '../../model/actions.ts';
import { actionsOutline, type Flow, type MatchField, matchOutline, onlyConjunctions } from '../../model/flow.ts';
import { type PortMap, type PortRef, reservedPortByNumber } from '../../model/ports.ts';
import type { PortRole, PortRoleKind, Profile } from '../../profiles/types.ts';
import { inVersion } from '../../profiles/versions.ts';
import { parsePattern } from './pattern-fit.ts';

export interface PortIdentity {
  /** As the user knows it: the name when known, else the number. */
  readonly name?: string;
  readonly number?: number;
  readonly role?: PortRoleKind;
  /** The role follows only from the port's number, which the pipeline usually gives that role. */
  readonly roleFromNumber?: boolean;
}

/**
 * A port as a report names it (render/words/port.ts says it): a port OpenFlow reserves, or a
 * switch port with its identity; with the profile's label for its role when it gives one
 * (`patch port to br-int`, or `LOCAL (the host)` for a reserved port).
 */
export type PortReading =
  | {
      readonly kind: 'reserved';
      readonly name: string;
      /** LOCAL, the bridge's own port, where the pipeline is known. */
      readonly role?: 'bridge-local';
      readonly label?: string;
    }
  | ({ readonly kind: 'port'; readonly label?: string } & PortIdentity);

function fitsName(r: PortRole, name: string): boolean {
  return (
    (r.names ?? []).includes(name) || (r.namePattern !== undefined && new RegExp(`^(?:${r.namePattern})$`).test(name))
  );
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

/**
 * Port numbers whose role the flows show: a flow matching `in_port=P` that writes a role's mark
 * (the gateway's source mark) makes P that role's port, so a Node that kept the port numbers of
 * an older release is read right. A port two roles claim is left to its name and number.
 */
function rolesFromFlows(roles: readonly PortRole[], flows: readonly Flow[]): Map<number, PortRoleKind> {
  const marks = roles.flatMap((r) => {
    if (r.mark === undefined) return [];
    const entry = parsePattern(r.mark).match.fields[0];
    return entry ? [{ role: r.role, entry }] : [];
  });
  const found = new Map<number, PortRoleKind | undefined>();
  if (marks.length === 0) return new Map();
  const isInPort = (e: MatchField): boolean =>
    e.field.format === 'port' && e.field.name === 'in_port' && e.port === undefined;
  // Whether a list writes some role's mark bits, whatever the values: an outline's writes have the
  // flow's fields and masks, so most flows are passed over without reading their match and actions.
  const writesMark = (actions: readonly Action[]): boolean =>
    actions.some(
      (a) =>
        a.kind === 'set_field' &&
        marks.some((m) => a.field.storage === m.entry.field.storage && (a.mask & m.entry.mask) === m.entry.mask),
    );
  // Indexed, as flowsByTable's loop is: an iterator allocates a result for each flow.
  for (let i = 0; i < flows.length; i++) {
    const f = flows[i]!;
    if (onlyConjunctions(f) || !matchOutline(f).fields.some(isInPort) || !writesMark(actionsOutline(f))) continue;
    const inPort = f.match.fields.find(isInPort);
    if (!inPort) continue;
    for (const a of f.actions) {
      if (a.kind !== 'set_field') continue;
      for (const m of marks) {
        if (
          a.field.storage !== m.entry.field.storage ||
          (a.mask & m.entry.mask) !== m.entry.mask ||
          (a.value & m.entry.mask) !== m.entry.value
        )
          continue;
        const port = Number(inPort.value);
        found.set(port, found.has(port) && found.get(port) !== m.role ? undefined : m.role);
      }
    }
  }
  return new Map([...found].filter((e): e is [number, PortRoleKind] => e[1] !== undefined));
}

export class PortRoles {
  private readonly roles: readonly PortRole[];
  private readonly ports: PortMap;
  private readonly shown: ReadonlyMap<number, PortRoleKind>;

  /** `flows`: the dump's flows (a sample will do), whose writes may show which port has which role. */
  constructor(profile: Profile | undefined, release: string, ports: PortMap, flows: readonly Flow[] = []) {
    this.roles = (profile?.ports ?? []).filter((r) => inVersion(r, release));
    this.ports = ports;
    this.shown = rolesFromFlows(this.roles, flows);
  }

  /** The profile's label for the port's role (`patch port to br-int`), when it gives one. */
  private roleLabel(id: PortIdentity): string | undefined {
    return this.roles.find(
      (r) =>
        r.role === id.role &&
        r.label !== undefined &&
        (id.name !== undefined ? fitsName(r, id.name) : (r.numbers ?? []).includes(id.number ?? -1)),
    )?.label;
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
      if (byName) return { ...base, role: byName.role };
    }
    const shown = number === undefined ? undefined : this.shown.get(number);
    if (shown !== undefined) return { ...base, role: shown };
    if (name !== undefined) return base;
    if (this.ports.size === 0 && number !== undefined) {
      const byNumber = this.roles.find((r) => (r.numbers ?? []).includes(number));
      if (byNumber) return { ...base, role: byNumber.role, roleFromNumber: true };
    }
    return base;
  }

  /** The port as reports name it: who it is, and the profile's label for its role. */
  reading(port: PortRef | number): PortReading {
    const ref = asRef(port);
    if (ref.kind === 'reserved') {
      const label = this.roles.find((r) => r.label !== undefined && (r.names ?? []).includes(ref.name))?.label;
      return {
        kind: 'reserved',
        name: ref.name,
        ...(ref.name === 'LOCAL' ? { role: 'bridge-local' as const } : {}),
        ...(label !== undefined ? { label } : {}),
      };
    }
    const id = this.identify(ref);
    const label = this.roleLabel(id);
    return { kind: 'port', ...id, ...(label !== undefined ? { label } : {}) };
  }
}
