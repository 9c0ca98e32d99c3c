/**
 * What a node's flows say about its Pods and its peer Nodes, checked against itself:
 * - a tunnel flow's destination should be a Node the dump knows from elsewhere (a tun_src it
 *   accepts, an address it matches, a destination another table also tunnels to);
 * - an address the bridge answers ARP for, or tunnels ARP towards, needs an IP route that goes
 *   the same way (a peer subnet whose route was deleted still answers ARP);
 * - a local Pod (a port the flows deliver to by its own MAC or IP) needs a spoof-guard flow
 *   (its port matched together with its source address) when other Pods have one.
 */
import { type Action, flattenActions } from '../../model/actions.ts';
import { sentPorts } from '../../model/port-refs.ts';
import { pushTo } from '../../model/append.ts';
import { fieldByName, type FieldDef } from '../../model/fields.ts';
import {
  actionsOutline,
  addressEntry,
  type Flow,
  type Match,
  type MatchField,
  NO_ADDRESS_OUTLINE,
  onlyConjunctions,
  withAddress,
} from '../../model/flow.ts';
import { type Pipeline, tableKey } from '../../model/pipeline.ts';
import { ones } from '../../model/values.ts';
import { formatIpv4Masked } from '../../syntax/field-value.ts';
import type { PortRoles } from '../fit/port-roles.ts';
import type { Finding } from './finding.ts';

const F = {
  tunDst: fieldByName('tun_dst')!,
  tunSrc: fieldByName('tun_src')!,
  ipSrc: fieldByName('ip_src')!,
  ipDst: fieldByName('ip_dst')!,
  arpSpa: fieldByName('arp_spa')!,
  arpTpa: fieldByName('arp_tpa')!,
  arpOp: fieldByName('arp_op')!,
  ethDst: fieldByName('eth_dst')!,
  ethSrc: fieldByName('eth_src')!,
  ipv6Src: fieldByName('ipv6_src')!,
} as const;

const FULL32 = ones(32);
const FULL48 = ones(48);
const FULL128 = ones(128);

function isInPort(f: FieldDef): boolean {
  return f.name === 'in_port' || f.name === 'in_port_oxm';
}

function writes(actions: readonly Action[], field: FieldDef): bigint | undefined {
  const full = ones(field.bits);
  // Indexed, as in findPerFlow: asked of every flow.
  for (let i = 0; i < actions.length; i++) {
    const a = actions[i]!;
    if (a.kind === 'set_field' && a.field === field && a.mask === full) return a.value;
  }
  return undefined;
}

/**
 * A list of actions as a flow's outline gives them (see actionsOutline), flattened, and whether
 * NodeFacts reads a value the flow's own list writes: a tunnel destination or an ARP op, of any
 * flow; a port register, of a flow that delivers.
 */
interface OutlineReading {
  readonly outline: readonly Action[];
  readonly listed: readonly Action[];
  readonly readsAlways: boolean;
  readonly readsWhenDelivering: boolean;
}

function outlineReading(outline: readonly Action[]): OutlineReading {
  const listed = flattenActions(outline);
  let readsAlways = false;
  let readsWhenDelivering = false;
  for (let i = 0; i < listed.length; i++) {
    const a = listed[i]!;
    if (a.kind !== 'set_field') continue;
    if (a.field === F.tunDst || a.field === F.arpOp) readsAlways = true;
    else if (a.field.name.startsWith('reg')) readsWhenDelivering = true;
  }
  return { outline, listed, readsAlways, readsWhenDelivering };
}

function ipText(v: bigint): string {
  return formatIpv4Masked(v, FULL32);
}

/** An IPv4 address or mask as a number: a map hashes numbers much faster than bigints. */
const ipv4 = Number;

/**
 * The flows that route IPv4 destinations: a route backs an ARP answer when it goes through a
 * tunnel, or names one exact address (which may be a local address the bridge routes itself). The
 * exact addresses routed nowhere are a set of numbers (a policy table's clause flows name thousands);
 * the tunnelled routes are by destination mask, then by the masked address: a prefix is routed by
 * the routes of every mask within its own (few masks, each one map lookup), not by a walk over
 * every route.
 */
class RouteIndex {
  private readonly exact = new Set<number>();
  /** Per mask and masked address, the tunnel destinations of the routes. */
  private readonly tunnelled = new Map<number, { readonly mask: bigint; readonly byValue: Map<number, Set<bigint>> }>();

  add(dst: MatchField, via: bigint | undefined): void {
    if (via === undefined) {
      // A route to a prefix that neither tunnels nor names one address makes no answer good.
      if (dst.mask === FULL32) this.exact.add(ipv4(dst.value));
      return;
    }
    let byMask = this.tunnelled.get(ipv4(dst.mask));
    if (!byMask) this.tunnelled.set(ipv4(dst.mask), (byMask = { mask: dst.mask, byValue: new Map() }));
    const key = ipv4(dst.value & dst.mask);
    let vias = byMask.byValue.get(key);
    if (!vias) byMask.byValue.set(key, (vias = new Set()));
    vias.add(via);
  }

  /** A route to one address (as a number) that tunnels nowhere: a clause flow's IP destination. */
  addAddress(address: number): void {
    this.exact.add(address);
  }

  /** Whether a route takes in every address of `value/mask`: through the tunnel to `via` when given. */
  routes(value: bigint, mask: bigint, via: bigint | undefined): boolean {
    if (via === undefined && mask === FULL32 && this.exact.has(ipv4(value))) return true;
    for (const { mask: routeMask, byValue } of this.tunnelled.values()) {
      if ((routeMask & mask) !== routeMask) continue;
      const vias = byValue.get(ipv4(value & routeMask));
      if (vias && (via === undefined || vias.has(via))) return true;
    }
    return false;
  }
}

/** An ARP flow the bridge answers for one address, or tunnels towards a Node. */
interface ArpFlow {
  readonly flow: Flow;
  readonly tpa: MatchField;
  readonly tunnelled: bigint | undefined;
}

/** Looks for the `pending` addresses among those `flows` name exactly (see namedDestinations), moving each found into `named`. */
function lookForNamed(flows: readonly Flow[], pending: Set<bigint>, named: Set<bigint>): void {
  // Indexed, as in findPerFlow.
  for (let k = 0; k < flows.length && pending.size > 0; k++) {
    const flow = flows[k]!;
    const entry = addressEntry(flow);
    const fields = entry === NO_ADDRESS_OUTLINE ? flow.match.fields : flow.outlineMatch!.fields;
    for (let i = 0; i < fields.length; i++) {
      const e = fields[i]!;
      const f = e.field;
      // Fields compared before masks: a bigint comparison costs more than a reference one.
      if (
        (f === F.tunSrc || f === F.ipDst || f === F.ipSrc || f === F.arpTpa || f === F.arpSpa || f === F.tunDst) &&
        e.mask === FULL32
      ) {
        const value = i === entry ? BigInt(flow.outlineAddress!) : e.value;
        if (pending.delete(value)) named.add(value);
      }
    }
  }
}

/**
 * What NodeFacts reads of a clause flow, whose actions deliver nowhere, from its outline match:
 * the input port it matches, whether it also matches an exact source address, and its IP
 * destination entry, by position (the entry of the flow's own address may be that one).
 */
interface ClauseReading {
  readonly port: number | undefined;
  readonly sourcePinned: boolean;
  readonly ipDst: MatchField | undefined;
  readonly ipDstAt: number;
}

/** What a clause flow of this outline match tells, as NodeFacts.read finds it; null for one of neither an input port nor an IP destination. */
function readClauseMatch(match: Match): ClauseReading | null {
  let port: number | undefined;
  let ipDstAt = -1;
  let sourcePinned = false;
  const { fields } = match;
  for (let i = 0; i < fields.length; i++) {
    const e = fields[i]!;
    if (isInPort(e.field)) port ??= Number(e.value);
    else if (e.field === F.ipDst && ipDstAt < 0) ipDstAt = i;
    sourcePinned ||= isSourcePinned(e);
  }
  if (port === undefined && ipDstAt < 0) return null;
  return { port, sourcePinned, ipDst: fields[ipDstAt], ipDstAt };
}

/** Whether the entry matches one exact source address. */
function isSourcePinned(e: MatchField): boolean {
  const f = e.field;
  return ((f === F.ipSrc || f === F.arpSpa) && e.mask === FULL32) || (f === F.ipv6Src && e.mask === FULL128);
}

/**
 * What the flows say of tunnels, addresses and ports, gathered in one pass: on a dump of a
 * million flows, each walk over them all costs more than the checks themselves.
 */
export class NodeFacts {
  /** Flows writing each tunnel destination, in dump order. */
  readonly tunnelSetters = new Map<bigint, Flow[]>();
  readonly arpFlows: ArpFlow[] = [];
  readonly routes = new RouteIndex();
  /** Ports matched together with an exact source address. */
  readonly guarded = new Set<number>();
  /** The flows matching each in_port, in dump order. */
  readonly byInPort = new Map<number, Flow[]>();
  /** For each port a flow delivers to by one MAC or IP (writing the port number), the first such flow. */
  private readonly deliveries = new Map<number, Flow>();

  /** The reading of the actions of the last flow read (see outlineReading). */
  private outlineReading: OutlineReading | undefined;

  /** Per outline match of lazily read clause flows: what it tells (null: nothing). */
  private readonly clauseReadings = new Map<Match, ClauseReading | null>();

  private readonly pipeline: Pipeline;

  constructor(pipeline: Pipeline) {
    this.pipeline = pipeline;
    // Indexed, as in findPerFlow.
    const { flows } = pipeline;
    // Clause flows of one outline match mostly come one after another.
    let lastMatch: Match | undefined;
    let reading: ClauseReading | null = null;
    for (let i = 0; i < flows.length; i++) {
      const flow = flows[i]!;
      if (flow.outlineActions !== 'conjunctions') {
        this.read(flow);
        continue;
      }
      const match = flow.outlineMatch!;
      if (match !== lastMatch) {
        lastMatch = match;
        reading = this.clauseReading(match);
      }
      // A clause flow tells its input port and IP destination alone: most of a policy table's name neither.
      if (reading === null) continue;
      // A line of a shape is read whole; any other outline tells its own address.
      if (flow.outlineVarying !== undefined) this.read(flow);
      else this.readClause(flow, reading);
    }
  }

  private clauseReading(match: Match): ClauseReading | null {
    let reading = this.clauseReadings.get(match);
    if (reading === undefined) this.clauseReadings.set(match, (reading = readClauseMatch(match)));
    return reading;
  }

  /**
   * What read tells of a clause flow read by an outline of its address (see ClauseReading), told
   * without making its match: its own address is asked for only where the outline's IP destination
   * holds it (see Flow.outlineEntry). Most such flows of a policy table match no input port.
   */
  private readClause(flow: Flow, reading: ClauseReading): void {
    const { ipDst } = reading;
    if (reading.port !== undefined) this.notePort(flow, reading.port, reading.sourcePinned);
    if (ipDst === undefined) return;
    if (reading.ipDstAt !== flow.outlineEntry) this.routes.add(ipDst, undefined);
    else if (ipDst.mask === FULL32) this.routes.addAddress(flow.outlineAddress!);
  }

  /** A flow's input port (undefined: none), and whether the flow matches an exact source address with it. */
  private notePort(flow: Flow, port: number | undefined, sourcePinned: boolean): void {
    if (port === undefined) return;
    pushTo(this.byInPort, port, flow);
    if (sourcePinned) this.guarded.add(port);
  }

  /**
   * The tunnel destinations some flow also names exactly (as a tunnel source, an IP or ARP
   * address, or a tunnel destination matched): Nodes the dump knows from elsewhere. Looked for
   * once the destinations are known, in walks that stop when all are found: first over the flows
   * that act, among which a Node's own flows lie, then, if some are still not found, over all,
   * policy tables' clause flows included.
   */
  namedDestinations(): Set<bigint> {
    const pending = new Set(this.tunnelSetters.keys());
    const named = new Set<bigint>();
    for (const t of this.pipeline.tables.values()) lookForNamed(t.acting, pending, named);
    lookForNamed(this.pipeline.flows, pending, named);
    return named;
  }

  private read(flow: Flow): void {
    let ipDst: MatchField | undefined;
    let arpTpa: MatchField | undefined;
    let ethDst: MatchField | undefined;
    let port: number | undefined;
    let sourcePinned = false;
    const entry = addressEntry(flow);
    const fields = entry === NO_ADDRESS_OUTLINE ? flow.match.fields : flow.outlineMatch!.fields;
    for (let i = 0; i < fields.length; i++) {
      const e = fields[i]!;
      const f = e.field;
      if (isInPort(f)) port ??= Number(e.value);
      else if (f === F.ipDst) ipDst ??= i === entry ? withAddress(e, flow.outlineAddress!) : e;
      else if (f === F.arpTpa) arpTpa ??= i === entry ? withAddress(e, flow.outlineAddress!) : e;
      else if (f === F.ethDst) ethDst ??= e;
      if (isSourcePinned(e)) sourcePinned = true;
    }
    this.notePort(flow, port, sourcePinned);
    // Conjunction actions alone set nothing and deliver nowhere: a clause flow is its match alone.
    if (onlyConjunctions(flow)) {
      if (ipDst) this.routes.add(ipDst, undefined);
      return;
    }
    const delivers = ethDst?.mask === FULL48 || ipDst?.mask === FULL32;
    // The outline's kinds, fields, masks and ports are the flow's (see actionsOutline): a lazily
    // read flow's own list is made only when a value it writes is read. Flows of one outline
    // mostly come one after another: the last one's reading is kept.
    const outline = actionsOutline(flow);
    let reading = this.outlineReading;
    if (reading?.outline !== outline) this.outlineReading = reading = outlineReading(outline);
    const actions =
      reading.readsAlways || (delivers && reading.readsWhenDelivering) ? flattenActions(flow.actions) : reading.listed;
    const via = writes(actions, F.tunDst);
    if (via !== undefined) pushTo(this.tunnelSetters, via, flow);
    if (ipDst && flow.actions.length > 0) this.routes.add(ipDst, via);
    if (
      arpTpa &&
      (via !== undefined ||
        (arpTpa.mask === FULL32 &&
          actions.some((a) => a.kind === 'set_field' && a.field === F.arpOp && a.value === 2n)))
    )
      this.arpFlows.push({ flow, tpa: arpTpa, tunnelled: via });
    if (delivers) {
      for (let i = 0; i < actions.length; i++) {
        const a = actions[i]!;
        // A bundle that picks among several ports delivers to none of them in particular.
        const sent = sentPorts(a);
        const only = sent.length === 1 ? sent[0] : undefined;
        const to =
          a.kind === 'set_field' && a.field.name.startsWith('reg')
            ? Number(a.value)
            : only?.kind === 'number'
              ? only.number
              : undefined;
        if (to !== undefined && !this.deliveries.has(to)) this.deliveries.set(to, flow);
      }
    }
  }

  /** Ports flows deliver to by a single MAC or IP (a Pod's own) that some flow takes packets in from, with the first such flow. */
  *delivered(): Iterable<[number, Flow]> {
    for (const entry of this.deliveries) if (this.byInPort.has(entry[0])) yield entry;
  }
}

/** Tunnel destinations no other flow names: a Node the dump does not otherwise know. */
export function findUnknownTunnelDestinations(facts: NodeFacts): Finding[] {
  const setters = facts.tunnelSetters;
  const named = facts.namedDestinations();
  const known = new Set<bigint>();
  for (const [dst, flows] of setters) {
    // A destination two tables tunnel to (ARP and IP) is a Node too.
    if (named.has(dst) || new Set(flows.map((f) => tableKey(f.table))).size > 1) known.add(dst);
  }
  // Without any Node the dump knows from elsewhere, there is nothing to compare with.
  if (known.size === 0) return [];
  return [...setters]
    .filter(([d]) => !known.has(d))
    .map(([d, flows]) => ({
      kind: 'unknown-tunnel-destination',
      severity: 'error',
      table: flows[0]!.table,
      flows,
      destination: ipText(d),
      knownNodes: known.size,
    }));
}

/** Addresses the bridge answers ARP for, or tunnels ARP towards, without an IP route the same way. */
export function findUnroutedPeers(facts: NodeFacts): Finding[] {
  if (facts.tunnelSetters.size === 0) return [];
  return facts.arpFlows
    .filter(({ tpa, tunnelled }) => !facts.routes.routes(tpa.value, tpa.mask, tunnelled))
    .map(({ flow, tpa, tunnelled }) => ({
      kind: 'no-route',
      severity: 'error',
      table: flow.table,
      flows: [flow],
      address: formatIpv4Masked(tpa.value, tpa.mask),
      ...(tunnelled === undefined ? {} : { node: ipText(tunnelled) }),
    }));
}

/** Local Pods whose port has no spoof-guard flow, when other Pods' ports have one. */
export function findPodsWithoutSpoofGuard(facts: NodeFacts, roles: PortRoles): Finding[] {
  if (facts.guarded.size === 0) return [];
  const out: Finding[] = [];
  for (const [port, flow] of facts.delivered()) {
    if (facts.guarded.has(port)) continue;
    const role = roles.identify(port).role;
    if (role !== undefined && role !== 'pod') continue;
    const own = facts.byInPort.get(port) ?? [];
    out.push({
      kind: 'no-spoof-guard',
      severity: 'error',
      table: own[0]?.table ?? flow.table,
      flows: [...own, flow],
      port,
    });
  }
  return out;
}
