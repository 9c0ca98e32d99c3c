/**
 * Probe packets for one flow: packets that enter the switch as real traffic does (by a port, with
 * that port's source addresses) and reach the flow. They are derived from what the flow matches:
 * - its header fields are set in the packet (a prefix or masked value by one address of it);
 * - for a conjunction's flow, one flow of each of its clauses adds its fields;
 * - a register or other metadata it matches is traced back to the flows (and select-group
 *   buckets) that write that value, whose own matches add their fields in turn, a few steps deep;
 *   a bucket is then asked for by the trace options;
 * - an IP packet of no given protocol is sent as TCP and as UDP (real traffic is either, and
 *   later tables may treat them apart), and a packet of no given type also as either over IPv4;
 * - ct_state becomes the state each conntrack recirculation resumes with;
 * - ports and source addresses come from the flows that match an in_port with them (anti-spoofing
 *   flows), and a destination MAC from the owner of the destination address, IPv4 or IPv6; in a
 *   pipeline whose flows match no in_port, packets enter by a port no flow outputs to.
 * Candidates are screened by tracing them through the pipeline that holds the flow: only those
 * whose path takes it are probes. Every list here is bounded: a probe is evidence, not a proof.
 */
import { type Action, flattenActions } from '../../model/actions.ts';
import { sentPorts } from '../../model/port-refs.ts';
import { type FieldDef, fieldByName } from '../../model/fields.ts';
import type { Flow, Group, MatchField } from '../../model/flow.ts';
import { ones } from '../../model/values.ts';
import { CT_STATE } from '../../model/ct-state.ts';
import { ETH_TYPE, FIELD, Packet } from '../trace/packet.ts';
import type { Tracer, TraceOptions, TraceResult } from '../trace/trace.ts';

/** A probe: the packet, how conntrack resumes it, the buckets it is sent through, and the fields it was derived from. */
export interface Probe {
  readonly packet: Packet;
  readonly ctNext: readonly bigint[];
  readonly groupBuckets: ReadonlyMap<number, number>;
  /** The header fields the flow (and those it was traced back through) asked for, with their masks: what the probe stands for. */
  readonly scope: readonly MatchField[];
}

/** What the probes of a flow must reach: the flow itself, or any flow that sends packets to a group. */
export type ProbeTarget =
  | { readonly kind: 'flow'; readonly flow: Flow }
  | { readonly kind: 'group'; readonly group: Group; readonly buckets: readonly number[] };

/** Fields a packet does not carry into the switch: the pipeline writes them, or conntrack. */
const METADATA =
  /^(?:x{0,2}reg\d+|metadata|conj_id|pkt_mark|recirc_id|dp_hash|skb_priority|actset_output|packet_type|tun_\w+|ct_\w+)$/;

function isMetadata(field: FieldDef): boolean {
  return METADATA.test(field.storage) || METADATA.test(field.name);
}

const ETH_SRC = fieldByName('eth_src')!;
const ETH_DST = fieldByName('eth_dst')!;

/** IPv4 and IPv6: the packet type, and the address fields a probe's MAC addresses are paired with. */
const FAMILIES = [
  { ethType: ETH_TYPE.ipv4, src: FIELD.ipSrc, dst: FIELD.ipDst },
  { ethType: ETH_TYPE.ipv6, src: FIELD.ipv6Src, dst: FIELD.ipv6Dst },
] as const;
type Family = (typeof FAMILIES)[number];

/** Fields that give a packet's source: they come with the port it enters by. */
const SOURCE_FIELDS = new Set(['dl_src', 'nw_src', 'arp_spa', 'arp_sha', 'ipv6_src']);

/** Field name → constraint; value within mask. */
type Constraints = Map<FieldDef, { readonly value: bigint; readonly mask: bigint }>;

interface Hints {
  readonly fields: Constraints;
  readonly buckets: Map<number, number>;
}

/** How many alternatives a traced-back field keeps, how deep the tracing back goes, how many hint sets a flow gets. */
const WRITERS_PER_FIELD = 4;
const BACK_DEPTH = 3;
const MAX_HINT_SETS = 24;
/** Recirculations a probe resumes with the same ct_state (Antrea's path has two or three). */
const CT_PASSES = 6;

/** Adds `e` to `c`, or says it contradicts what `c` holds. */
function addConstraint(c: Constraints, field: FieldDef, value: bigint, mask: bigint): boolean {
  const have = c.get(field);
  if (!have) {
    c.set(field, { value: value & mask, mask });
    return true;
  }
  const common = have.mask & mask;
  if (((have.value ^ value) & common) !== 0n) return false;
  c.set(field, { value: (have.value & have.mask) | (value & mask), mask: have.mask | mask });
  return true;
}

function merged(
  base: Hints,
  fields: readonly MatchField[],
  buckets: ReadonlyMap<number, number> = new Map(),
): Hints | undefined {
  const out: Hints = { fields: new Map(base.fields), buckets: new Map(base.buckets) };
  for (const e of fields) if (!addConstraint(out.fields, e.field, e.value, e.mask)) return undefined;
  for (const [g, b] of buckets) {
    const have = out.buckets.get(g);
    if (have !== undefined && have !== b) return undefined;
    out.buckets.set(g, b);
  }
  return out;
}

/** A place that writes a field: a flow, or a bucket of a group (reached through the flows that use the group). */
type Writer =
  | { readonly kind: 'flow'; readonly flow: Flow }
  | { readonly kind: 'bucket'; readonly group: number; readonly bucket: number };

function writes(actions: readonly Action[], field: FieldDef, value: bigint, mask: bigint): boolean {
  return flattenActions(actions).some(
    (a) =>
      a.kind === 'set_field' &&
      a.field === field &&
      (a.mask & mask) !== 0n &&
      ((a.value ^ value) & a.mask & mask) === 0n,
  );
}

/** The pipeline's flows and groups indexed for tracing values back to their writers. */
export class ProbeSource {
  private readonly flows: readonly Flow[];
  private readonly groups: readonly Group[];
  private readonly groupUsers = new Map<number, Flow[]>();
  /** Per port: the source fields its anti-spoofing flows give it (one entry per flow), or none. */
  private readonly entries: { readonly inPort: MatchField; readonly sources: readonly MatchField[] }[] = [];
  /** Per address family: MAC address per IP address, from the same flows, and IP address per MAC address. */
  private readonly macOf = new Map<Family, Map<bigint, bigint>>(FAMILIES.map((f) => [f, new Map()]));
  private readonly ipOf = new Map<Family, Map<bigint, bigint>>(FAMILIES.map((f) => [f, new Map()]));
  /** Every MAC address paired with an IP address: where a packet to an address of no known owner may be sent. */
  private readonly macs = new Set<bigint>();
  /** The port a packet enters by when no flow matches one (see entryPort), found when first needed. */
  private anyPort?: { readonly inPort: MatchField; readonly sources: readonly MatchField[] };
  private readonly tracer: Tracer;

  constructor(tracer: Tracer) {
    this.tracer = tracer;
    const pipeline = tracer.pipeline;
    this.flows = [...pipeline.tables.values()].flatMap((t) => t.flows);
    this.groups = [...pipeline.groups.values()];
    const seen = new Set<string>();
    for (const flow of this.flows) {
      for (const a of flattenActions(flow.actions)) {
        if (a.kind !== 'group') continue;
        const users = this.groupUsers.get(a.id) ?? [];
        users.push(flow);
        this.groupUsers.set(a.id, users);
      }
      const inPort = flow.match.fields.find((e) => e.field.storage === 'in_port' && e.mask === ones(e.field.bits));
      if (!inPort) continue;
      const sources = flow.match.fields.flatMap((e) => {
        // ARP's sender fields say what an IP packet's source fields say.
        const field = e.field.name === 'arp_spa' ? FIELD.ipSrc : e.field.name === 'arp_sha' ? ETH_SRC : e.field;
        return SOURCE_FIELDS.has(field.name) || SOURCE_FIELDS.has(field.printed)
          ? [{ field, value: e.value, mask: e.mask }]
          : [];
      });
      const mac = sources.find((e) => e.field === ETH_SRC && e.mask === ones(48));
      for (const family of FAMILIES) {
        const ip = sources.find((e) => e.field === family.src && e.mask === ones(family.src.bits));
        if (!ip || !mac) continue;
        this.macOf.get(family)!.set(ip.value, mac.value);
        this.ipOf.get(family)!.set(mac.value, ip.value);
        this.macs.add(mac.value);
      }
      const key = [String(inPort.value), ...sources.map((e) => `${e.field.name}=${e.value}/${e.mask}`).sort()].join(
        ',',
      );
      if (seen.has(key)) continue;
      seen.add(key);
      this.entries.push({ inPort, sources });
    }
    // Ports with source fields first: a packet from a known source is the likeliest to reach anything.
    this.entries.sort((a, b) => b.sources.length - a.sources.length);
  }

  /** Flows and buckets that write `value` (within `mask`) into `field`. */
  private writers(field: FieldDef, value: bigint, mask: bigint): Writer[] {
    const out: Writer[] = [];
    for (const flow of this.flows) {
      if (out.length >= WRITERS_PER_FIELD) break;
      if (writes(flow.actions, field, value, mask)) out.push({ kind: 'flow', flow });
    }
    for (const g of this.groups) {
      for (const b of g.buckets) {
        if (out.length >= 2 * WRITERS_PER_FIELD) break;
        if (writes(b.actions, field, value, mask))
          out.push({ kind: 'bucket', group: g.id, bucket: b.id ?? g.buckets.indexOf(b) });
      }
    }
    return out;
  }

  /** Hint sets for a match: its fields, with its metadata traced back through its writers. */
  private hintSets(fields: readonly MatchField[], base: Hints, depth: number): Hints[] {
    const start = merged(
      base,
      fields.filter((e) => !isMetadata(e.field) || e.field === FIELD.ctState),
    );
    if (!start) return [];
    let sets: Hints[] = [start];
    if (depth >= BACK_DEPTH) return sets;
    for (const e of fields) {
      if (
        !isMetadata(e.field) ||
        e.field === FIELD.ctState ||
        e.field.storage.startsWith('ct_') ||
        e.field.name === 'conj_id'
      )
        continue;
      const writers = this.writers(e.field, e.value, e.mask);
      if (writers.length === 0) continue;
      const next: Hints[] = [];
      for (const set of sets) {
        for (const w of writers) {
          if (next.length >= MAX_HINT_SETS) break;
          if (w.kind === 'flow') next.push(...this.flowHints(w.flow, set, depth + 1));
          else {
            const pinned = merged(set, [], new Map([[w.group, w.bucket]]));
            if (!pinned) continue;
            for (const user of (this.groupUsers.get(w.group) ?? []).slice(0, WRITERS_PER_FIELD))
              next.push(...this.flowHints(user, pinned, depth + 1));
          }
        }
      }
      // A value no writer can give keeps the sets as they were: the screening trace decides.
      if (next.length > 0) sets = next.slice(0, MAX_HINT_SETS);
    }
    return sets;
  }

  /** The hint sets of a target: the flow's (with its conjunction's clauses), or those of a group's users, a bucket asked for at a time. */
  private targetHints(target: ProbeTarget): Hints[] {
    const empty: Hints = { fields: new Map(), buckets: new Map() };
    if (target.kind === 'flow') return this.flowHints(target.flow, empty, 0);
    const users = (this.groupUsers.get(target.group.id) ?? []).slice(0, WRITERS_PER_FIELD);
    const perBucket = (target.buckets.length > 0 ? target.buckets : [undefined]).map((bucket) => {
      const base = bucket === undefined ? empty : { fields: new Map(), buckets: new Map([[target.group.id, bucket]]) };
      return users.flatMap((user) => this.flowHints(user, base, 0));
    });
    // Bucket by bucket in turn, so that a few probes already reach each.
    return interleave(perBucket).slice(0, MAX_HINT_SETS);
  }

  /**
   * A flow's hint sets: its match, or for a flow of a conjunction (a clause, or the `conj_id` flow),
   * one flow of each clause (a few combinations, the flow itself for its own clause).
   */
  private flowHints(flow: Flow, base: Hints, depth: number): Hints[] {
    const table = this.tracer.pipeline.table(flow.table)?.flows ?? [];
    const clauses = conjunctionClauses(flow, table);
    if (clauses.length === 0) return this.hintSets(flow.match.fields, base, depth);
    let combos: Flow[][] = [[]];
    for (const clause of clauses) {
      const choices = clause.includes(flow) ? [flow] : clause.slice(0, 3);
      combos = combos.flatMap((c) => choices.map((f) => [...c, f])).slice(0, MAX_HINT_SETS);
    }
    return combos
      .flatMap((c) =>
        this.hintSets(
          c.flatMap((f) => f.match.fields),
          base,
          depth,
        ),
      )
      .slice(0, MAX_HINT_SETS);
  }

  /**
   * Candidates for `target`: for each hint set and port a packet may enter by, the variants of one
   * packet (destination MACs it may be sent to); the first variant that reaches the target is the probe.
   */
  *candidates(target: ProbeTarget): Generator<Probe[]> {
    for (const hints of this.targetHints(target)) {
      const ctNext = ctStatesFor(hints.fields.get(FIELD.ctState));
      const headers = [...hints.fields].filter(([f]) => f !== FIELD.ctState);
      const scope = headers.map(([field, c]) => ({ field, value: c.value, mask: c.mask }));
      for (const entry of this.entriesFor(hints.fields)) {
        const fields = merged({ fields: new Map(), buckets: new Map() }, [...scope, entry.inPort, ...entry.sources]);
        if (!fields) continue;
        for (const protocol of protocolsFor(fields.fields)) {
          const carried = merged(fields, protocol);
          if (carried)
            yield this.packetsFor(carried.fields).map((packet) => ({
              packet,
              ctNext,
              groupBuckets: hints.buckets,
              scope,
            }));
        }
      }
    }
  }

  /**
   * The packets of a set of fields: each field given one value; an IP packet a TTL; the
   * destination MAC and address each other's owner's where the pipeline pairs them (a Pod's), else
   * the MAC of each known address (a router's, a Pod's), as the packet may be routed or switched.
   */
  private packetsFor(fields: Constraints): Packet[] {
    const packet = new Packet();
    const order = [...fields].sort(([a], [b]) => prerequisiteRank(a) - prerequisiteRank(b));
    for (const [field, c] of order) packet.set(field, pick(field, c.value, c.mask));
    const ethType = packet.get(FIELD.ethType);
    const family = FAMILIES.find((f) => f.ethType === ethType);
    if (!family) return [packet];
    if (packet.get(FIELD.nwTtl) === 0n) packet.set(FIELD.nwTtl, 64n);
    if (fields.has(ETH_DST)) {
      const owner = this.ipOf.get(family)!.get(packet.get(ETH_DST));
      if (owner !== undefined && !fields.has(family.dst)) packet.set(family.dst, owner);
      return [packet];
    }
    const owner = this.macOf.get(family)!.get(packet.get(family.dst));
    const macs = owner !== undefined ? [owner] : [...this.macs].filter((m) => m !== packet.get(ETH_SRC));
    return [
      ...macs.map((mac) => {
        const p = packet.clone();
        p.set(ETH_DST, mac);
        return p;
      }),
      packet,
    ];
  }

  /**
   * The ports a packet with these fields may enter by: the one it names, else every port with a
   * flow, sources agreeing; else, in a pipeline with no flow for any port, one port (anyPort).
   */
  private entriesFor(fields: Constraints): { readonly inPort: MatchField; readonly sources: readonly MatchField[] }[] {
    const inPort = [...fields].find(([f]) => f.storage === 'in_port');
    if (inPort)
      return this.entries
        .filter((e) => e.inPort.value === inPort[1].value)
        .concat({ inPort: { field: inPort[0], value: inPort[1].value, mask: inPort[1].mask }, sources: [] });
    if (this.entries.length > 0) return this.entries;
    this.anyPort ??= {
      inPort: { field: FIELD.inPort, value: entryPort(this.flows), mask: ones(FIELD.inPort.bits) },
      sources: [],
    };
    return [this.anyPort];
  }

  /** Traces the candidate: its trace, and whether its path takes the target. */
  reaches(probe: Probe, target: ProbeTarget): { readonly result: TraceResult; readonly reached: boolean } {
    const result = this.tracer.trace(probe.packet, probeOptions(probe));
    const took = result.passes.some((p) =>
      p.steps.some((s) => {
        if (target.kind === 'group')
          return (
            s.flow !== undefined &&
            flattenActions(s.flow.actions).some((a) => a.kind === 'group' && a.id === target.group.id)
          );
        return s.flow === target.flow || (s.conjunction?.components.includes(target.flow) ?? false);
      }),
    );
    return { result, reached: took };
  }
}

/**
 * The port a probe enters by in a pipeline whose flows match no in_port: the lowest number no flow
 * outputs to, so that no output the probe reaches goes back to the port it came in by (OVS skips
 * those).
 */
function entryPort(flows: readonly Flow[]): bigint {
  const outputs = new Set<number>();
  for (const flow of flows)
    for (const a of flattenActions(flow.actions))
      for (const p of sentPorts(a)) if (p.kind === 'number') outputs.add(p.number);
  let port = 1;
  while (outputs.has(port)) port++;
  return BigInt(port);
}

/** The options a probe is traced with, through either pipeline. */
export function probeOptions(probe: Probe): TraceOptions {
  return { ctNext: probe.ctNext, ...(probe.groupBuckets.size > 0 ? { groupBuckets: probe.groupBuckets } : {}) };
}

/** The clause flows of the conjunction `flow` takes part in (as a clause or as its `conj_id` flow), by clause; none for other flows. */
function conjunctionClauses(flow: Flow, table: readonly Flow[]): Flow[][] {
  const conj = flow.match.fields.find((e) => e.field.name === 'conj_id');
  const ids = conj ? [Number(conj.value)] : flow.actions.flatMap((a) => (a.kind === 'conjunction' ? [a.id] : []));
  if (ids.length === 0) return [];
  const id = ids[0]!;
  const clauses: Flow[][] = [];
  for (const f of table) {
    for (const a of f.actions) {
      if (a.kind !== 'conjunction' || a.id !== id) continue;
      (clauses[a.clause - 1] ??= []).push(f);
    }
  }
  return clauses.filter((c) => c !== undefined);
}

/** Transport protocols a probe of a flow that leaves it open is sent with: real traffic is TCP or UDP, not bare IP. */
const CARRIED = [6n, 17n];

/**
 * The protocols a probe with these fields is sent with, each a set of fields to add: for an IP
 * packet of no given protocol, TCP and UDP (a rule of plain IP covers both, and later tables may
 * treat them apart); for a packet of no given type whose fields need none, TCP and UDP over IPv4
 * and the packet as it is; else the packet as it is.
 */
function protocolsFor(fields: Constraints): MatchField[][] {
  const given = (field: FieldDef): boolean => (fields.get(field)?.mask ?? 0n) !== 0n;
  const over = (ethType: bigint): MatchField[][] =>
    CARRIED.map((proto) => [
      { field: FIELD.ethType, value: ethType, mask: ones(16) },
      { field: FIELD.nwProto, value: proto, mask: ones(8) },
    ]);
  if (given(FIELD.nwProto)) return [[]];
  if (!given(FIELD.ethType)) {
    const open = [...fields.keys()].every(
      (f) => f.prerequisite === 'none' || f.prerequisite === 'ethernet' || f.prerequisite === 'vlan',
    );
    return open ? [...over(ETH_TYPE.ipv4), []] : [[]];
  }
  const ethType = fields.get(FIELD.ethType)!.value;
  return ethType === ETH_TYPE.ipv4 || ethType === ETH_TYPE.ipv6 ? over(ethType) : [[]];
}

/** The ct_state every recirculation resumes with: what the flow asks for, tracked; new unless it asks otherwise. */
function ctStatesFor(c: { readonly value: bigint; readonly mask: bigint } | undefined): bigint[] {
  if (!c) return [];
  let state = (c.value & c.mask) | CT_STATE.trk;
  const decided = CT_STATE.new | CT_STATE.est | CT_STATE.rel | CT_STATE.inv;
  if ((state & decided) === 0n) state |= (c.mask & CT_STATE.new) !== 0n ? CT_STATE.est : CT_STATE.new;
  return Array<bigint>(CT_PASSES).fill(state);
}

/** One value within the constraint: for an address block, its first host rather than the network address. */
function pick(field: FieldDef, value: bigint, mask: bigint): bigint {
  const full = ones(field.bits);
  if (mask === full) return value;
  const host = (field.format === 'ipv4' || field.format === 'ipv6') && (mask & 1n) === 0n ? 1n : 0n;
  return (value & mask) | (host & ~mask & full);
}

/** Ethernet type before the protocol before the rest, so that each field finds its prerequisites set. */
function prerequisiteRank(f: FieldDef): number {
  if (f === FIELD.ethType) return 0;
  if (f === FIELD.nwProto) return 1;
  return 2;
}

/** The lists' elements taken one from each in turn. */
function interleave<T>(lists: readonly T[][]): T[] {
  const out: T[] = [];
  for (let i = 0; lists.some((l) => i < l.length); i++) for (const l of lists) if (i < l.length) out.push(l[i]!);
  return out;
}
