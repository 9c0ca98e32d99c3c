/** OpenFlow port references: numbers, names from a port map, and the reserved ports. */

export type ReservedPortName =
  'IN_PORT' | 'TABLE' | 'NORMAL' | 'FLOOD' | 'ALL' | 'CONTROLLER' | 'LOCAL' | 'NONE' | 'ANY' | 'UNSET';

export type PortRef =
  | { readonly kind: 'number'; readonly number: number }
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'reserved'; readonly name: ReservedPortName };

/** OpenFlow 1.0 numbers of the reserved ports (OVS maps the 32-bit OF1.1+ numbers onto these). */
export const RESERVED_PORT_NUMBERS: Readonly<Record<ReservedPortName, number>> = {
  UNSET: 0xfff7,
  IN_PORT: 0xfff8,
  TABLE: 0xfff9,
  NORMAL: 0xfffa,
  FLOOD: 0xfffb,
  ALL: 0xfffc,
  CONTROLLER: 0xfffd,
  LOCAL: 0xfffe,
  NONE: 0xffff,
  ANY: 0xffff,
};

const RESERVED_BY_NUMBER = new Map<number, ReservedPortName>([
  [0xfff7, 'UNSET'],
  [0xfff8, 'IN_PORT'],
  [0xfff9, 'TABLE'],
  [0xfffa, 'NORMAL'],
  [0xfffb, 'FLOOD'],
  [0xfffc, 'ALL'],
  [0xfffd, 'CONTROLLER'],
  [0xfffe, 'LOCAL'],
  [0xffff, 'ANY'], // OFPP_NONE and OFPP_ANY share the number; OVS prints ANY
]);

/** Reserved port for an OF1.0 (16-bit) or OF1.1+ (32-bit, 0xffffff00 and up) number. */
export function reservedPortByNumber(n: number): ReservedPortName | undefined {
  if (n >= 0xffffff00 && n <= 0xffffffff) return RESERVED_BY_NUMBER.get(n - 0xffff0000);
  return RESERVED_BY_NUMBER.get(n);
}

export function reservedPortByName(name: string): ReservedPortName | undefined {
  const up = name.toUpperCase();
  return Object.hasOwn(RESERVED_PORT_NUMBERS, up) ? (up as ReservedPortName) : undefined;
}

/** Where a port name is turned into its number. */
export interface PortNumbers {
  number(name: string): number | undefined;
}

/** Port number ↔ name, from a `--names` dump, `ovs-ofctl show`, `dump-ports-desc` or a bundle's ovsports. */
export class PortMap implements PortNumbers {
  private readonly byName = new Map<string, number>();
  private readonly byNumber = new Map<number, string>();
  /** Ports whose description says they are down (`PORT_DOWN` config or `LINK_DOWN` state). */
  private readonly down = new Set<number>();

  set(number: number, name: string): void {
    this.byName.set(name, number);
    this.byNumber.set(number, name);
  }

  number(name: string): number | undefined {
    return this.byName.get(name);
  }

  name(number: number): string | undefined {
    return this.byNumber.get(number);
  }

  /** Takes every port of `other`, names and states; its entries win where the two disagree. */
  addAll(other: PortMap): void {
    for (const [n, name] of other.entries()) this.set(n, name);
    for (const n of other.down) this.down.add(n);
  }

  /** A copy, as this map is now: later changes to either leave the other as it is. */
  copy(): PortMap {
    const out = new PortMap();
    for (const [name, n] of this.byName) out.byName.set(name, n);
    for (const [n, name] of this.byNumber) out.byNumber.set(n, name);
    for (const n of this.down) out.down.add(n);
    return out;
  }

  setDown(number: number): void {
    this.down.add(number);
  }

  /** Whether the port is down: a fast-failover bucket watching it is not live. */
  isDown(number: number): boolean {
    return this.down.has(number);
  }

  get size(): number {
    return this.byName.size;
  }

  entries(): IterableIterator<[number, string]> {
    return this.byNumber.entries();
  }
}
