/**
 * What a node's flows say about its Pods and its peer Nodes, checked against itself:
 * - a tunnel flow's destination should be a Node the dump knows from elsewhere (a tun_src it
 *   accepts, an address it matches, a destination another table also tunnels to);
 * - an address the bridge answers ARP for, or tunnels ARP towards, needs an IP route that goes
 *   the same way (a peer subnet whose route was deleted still answers ARP);
 * - a local Pod (a port the flows deliver to by its own MAC or IP) needs a spoof-guard flow
 *   (its port matched together with its source address) when other Pods have one.
 */
import type { Action } from '../../model/actions.ts';
import { fieldByName, type FieldDef } from '../../model/fields.ts';
import type { Flow, MatchField } from '../../model/flow.ts';
import type { Pipeline } from '../../model/pipeline.ts';
import { ones } from '../../model/values.ts';
import { formatIpv4Masked } from '../../syntax/field-value.ts';
import { flattenActions } from '../pattern-fit.ts';
import type { PortRoles } from '../port-roles.ts';
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

function entry(flow: Flow, field: FieldDef): MatchField | undefined {
  return flow.match.fields.find((e) => e.field === field);
}

function writes(flow: Flow, field: FieldDef): bigint | undefined {
  const a = flattenActions(flow.actions).find((x): x is Action & { kind: 'set_field' } => x.kind === 'set_field' && x.field === field && x.mask === ones(field.bits));
  return a?.value;
}

function inPort(flow: Flow): number | undefined {
  const e = flow.match.fields.find((x) => x.field.name === 'in_port' || x.field.name === 'in_port_oxm');
  return e ? Number(e.value) : undefined;
}

function ipText(v: bigint): string {
  return formatIpv4Masked(v, FULL32);
}

/** Tunnel destinations no other flow names: a Node the dump does not otherwise know. */
export function findUnknownTunnelDestinations(pipeline: Pipeline): Finding[] {
  const setters = new Map<bigint, Flow[]>();
  const known = new Set<bigint>();
  for (const flow of pipeline.flows) {
    const dst = writes(flow, F.tunDst);
    if (dst !== undefined) {
      const list = setters.get(dst);
      if (list) list.push(flow);
      else setters.set(dst, [flow]);
    }
    for (const e of flow.match.fields) {
      if (e.mask === FULL32 && (e.field === F.tunSrc || e.field === F.ipDst || e.field === F.ipSrc || e.field === F.arpTpa || e.field === F.arpSpa || e.field === F.tunDst)) known.add(e.value);
    }
  }
  // A destination two tables tunnel to (ARP and IP) is a Node too.
  for (const [dst, flows] of setters) if (new Set(flows.map((f) => JSON.stringify(f.table))).size > 1) known.add(dst);
  const strangers = [...setters.keys()].filter((d) => !known.has(d));
  // Without any Node the dump knows from elsewhere, there is nothing to compare with.
  if (strangers.length === setters.size) return [];
  return strangers.map((d) => {
    const flows = setters.get(d)!;
    return { kind: 'unknown-tunnel-destination', severity: 'error', table: flows[0]!.table, flows, destination: ipText(d), knownNodes: [...setters.keys()].filter((k) => known.has(k)).length };
  });
}

/** Whether a flow matching IPv4 destinations takes in every address of `prefix`. */
function covers(e: MatchField, value: bigint, mask: bigint): boolean {
  return (e.mask & mask) === e.mask && ((e.value ^ value) & e.mask) === 0n;
}

/** Addresses the bridge answers ARP for, or tunnels ARP towards, without an IP route the same way. */
export function findUnroutedPeers(pipeline: Pipeline): Finding[] {
  const tunnels = pipeline.flows.some((f) => writes(f, F.tunDst) !== undefined);
  if (!tunnels) return [];
  const ipRoutes = pipeline.flows.filter((f) => f.actions.length > 0 && entry(f, F.ipDst) !== undefined);
  const out: Finding[] = [];
  for (const flow of pipeline.flows) {
    const tpa = entry(flow, F.arpTpa);
    if (!tpa) continue;
    const tunnelled = writes(flow, F.tunDst);
    const answers = flattenActions(flow.actions).some((a) => a.kind === 'set_field' && a.field === F.arpOp && a.value === 2n);
    if (tunnelled === undefined && !(answers && tpa.mask === FULL32)) continue;
    const routed = ipRoutes.some((r) => {
      const dst = entry(r, F.ipDst)!;
      if (!covers(dst, tpa.value, tpa.mask)) return false;
      const via = writes(r, F.tunDst);
      // An ARP answer for an exact address may be for a local address the bridge routes itself.
      return tunnelled !== undefined ? via === tunnelled : via !== undefined || dst.mask === FULL32;
    });
    if (routed) continue;
    out.push({ kind: 'no-route', severity: 'error', table: flow.table, flows: [flow], address: formatIpv4Masked(tpa.value, tpa.mask), ...(tunnelled === undefined ? {} : { node: ipText(tunnelled) }) });
  }
  return out;
}

/** Local Pods whose port has no spoof-guard flow, when other Pods' ports have one. */
export function findPodsWithoutSpoofGuard(pipeline: Pipeline, roles: PortRoles): Finding[] {
  const guarded = new Set<number>();
  for (const flow of pipeline.flows) {
    const port = inPort(flow);
    if (port === undefined) continue;
    if ([F.ipSrc, F.ipv6Src, F.arpSpa].some((f) => entry(flow, f)?.mask === ones(f.bits))) guarded.add(port);
  }
  if (guarded.size === 0) return [];
  const inPorts = new Set(pipeline.flows.map(inPort).filter((p): p is number => p !== undefined));
  // A Pod's port: one that flows deliver to by a single MAC or IP (its own), writing the port number.
  const delivered = new Map<number, Flow>();
  for (const flow of pipeline.flows) {
    const byAddress = entry(flow, F.ethDst)?.mask === ones(48) || entry(flow, F.ipDst)?.mask === FULL32;
    if (!byAddress) continue;
    for (const a of flattenActions(flow.actions)) {
      const port = a.kind === 'set_field' && a.field.name.startsWith('reg') ? Number(a.value) : a.kind === 'output' && a.port.kind === 'number' ? a.port.number : undefined;
      if (port === undefined || !inPorts.has(port) || delivered.has(port)) continue;
      delivered.set(port, flow);
    }
  }
  const out: Finding[] = [];
  for (const [port, flow] of delivered) {
    if (guarded.has(port)) continue;
    const role = roles.identify(port).role;
    if (role !== undefined && role !== 'pod') continue;
    const own = pipeline.flows.filter((f) => inPort(f) === port);
    out.push({ kind: 'no-spoof-guard', severity: 'error', table: own[0]?.table ?? flow.table, flows: [...own, flow], port });
  }
  return out;
}
