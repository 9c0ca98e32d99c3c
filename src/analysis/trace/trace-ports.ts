/**
 * Port numbers as a trace uses them. A `--names` dump read without `ovs-ofctl show` output names
 * its ports and hides their numbers; the switch matched them by number all the same. Each port
 * the flows name without a number gets a stand-in number for the trace, so that a packet naming
 * the port matches the flows that name it, as it would on the switch, and no others. A stand-in
 * is never shown: the port prints by its name.
 */
import type { Pipeline } from '../../model/pipeline.ts';
import { PortMap, type PortNumbers } from '../../model/ports.ts';
import { eachPortRef } from '../../model/port-refs.ts';

/** A port a packet leaves by: its number, or its name when the dump gives no number for it. */
export type OutputPort = number | string;

/** Stand-ins count down from the top of the OpenFlow 1.0 range, below the reserved ports: switches number ports from 1 up. */
const FIRST_STAND_IN = 0xfeff;

export class TracePorts {
  /** The ports the dump (or --ports) gives numbers for: the switch's port list as far as it is known. */
  readonly known: PortMap;
  /** Every port by number, stand-ins included: for printing. */
  readonly names = new PortMap();
  /** The way a packet names its port: by a number, a known name, or a name the flows use. */
  readonly forPackets: PortNumbers = {
    number: (name) => this.known.number(name) ?? (this.flowNames().has(name) ? this.number(name) : undefined),
  };
  private readonly pipeline: Pipeline;
  private readonly standIns = new Map<string, number>();
  private next = FIRST_STAND_IN;
  private named: ReadonlySet<string> | undefined;

  constructor(pipeline: Pipeline) {
    this.pipeline = pipeline;
    this.known = pipeline.ports;
    for (const [n, name] of this.known.entries()) this.names.set(n, name);
  }

  /** The number of a port the flows name: its own, else its stand-in. */
  number(name: string): number {
    const n = this.known.number(name) ?? this.standIns.get(name);
    if (n !== undefined) return n;
    while (this.known.name(this.next) !== undefined) this.next--;
    const standIn = this.next--;
    this.standIns.set(name, standIn);
    this.names.set(standIn, name);
    return standIn;
  }

  isStandIn(n: number): boolean {
    return this.known.name(n) === undefined && this.names.name(n) !== undefined;
  }

  /** A port as a packet leaves by it. */
  outputPort(n: number): OutputPort {
    return this.isStandIn(n) ? this.names.name(n)! : n;
  }

  /** Names the flows and groups use for ports, read on first need: only a packet naming an unknown port needs them. */
  private flowNames(): ReadonlySet<string> {
    if (this.named) return this.named;
    const names = new Set<string>();
    eachPortRef(this.pipeline.flows, this.pipeline.groups.values(), (ref) => {
      if (ref.kind === 'name') names.add(ref.name);
    });
    return (this.named = names);
  }
}
