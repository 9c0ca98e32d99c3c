/**
 * Conjunctions matched to the NetworkPolicy rules they implement, by content: Antrea keeps no map
 * from conjunction id to rule in a support bundle, so each conjunction's dimensions are compared
 * with each rule of the agent's policy objects:
 * - its table says the direction (ingress, egress) and the kind (Antrea-native policy tables, the
 *   K8s NetworkPolicy tables; the default-rule tables hold the baseline tier);
 * - its address dimension (nw_src for ingress, nw_dst for egress) against the addresses of the
 *   rule's peer (its address groups' members and IP blocks);
 * - its Pod dimension (reg1, the output port, for ingress; nw_src/ipv6_src, or in_port, for
 *   egress) against the rule's applied-to members: their addresses (IPv4 and IPv6), and for ports
 *   the port the dump's anti-spoofing flows give each address, or whose name starts as the Pod's
 *   does (Antrea names a Pod's interface after the first characters of the Pod's name);
 * - its service dimension (tp_dst with the protocol) against the rule's services;
 * - for an Antrea-native rule, its action (Allow, Drop, Reject, Pass) against what the
 *   conjunction's action flow decides: the disposition it records, a deny mark, a jump on to the
 *   next tier's table, else an allow.
 * A rule matches where every dimension is the same set (`exact`), or the best overlap (`partial`);
 * each dimension's evidence says which values both hold and which only one does. Rules whose
 * applied-to members are on this node and that no conjunction implements, and conjunctions no
 * rule explains, are reported.
 */
import { append } from '../../model/append.ts';
import { flattenActions } from '../../model/actions.ts';
import type { Flow } from '../../model/flow.ts';
import { tableKey } from '../../model/pipeline.ts';
import type { PortMap } from '../../model/ports.ts';
import { compareSets, type SetComparison } from '../../model/set-comparison.ts';
import type { TableRef } from '../../model/tables.ts';
import { formatIpv4, formatIpv6, ones } from '../../model/values.ts';
import type { BitFieldDecoder } from '../annotate/bit-fields.ts';
import type { AnnotatedPipeline } from '../detect/profile-choice.ts';
import { findConjunctions, termMemberTexts } from './conjunctions.ts';
import type {
  ControlPlanePolicy,
  PolicyDirection,
  PolicyMember,
  PolicyObjects,
  PolicyPeer,
  PolicyRule,
} from '../../sources/antrea-policies.ts';
import type { Conjunction } from './conjunctions.ts';

/** The dimensions a rule's conjunction has, each compared on its own; the action is the conjunction's verdict. */
export type PolicyDimension = 'addresses' | 'pods' | 'services' | 'action';

/** What an Antrea-native rule does with the traffic it matches. */
export type RuleAction = 'Allow' | 'Drop' | 'Reject' | 'Pass';

const RULE_ACTIONS: readonly RuleAction[] = ['Allow', 'Drop', 'Reject', 'Pass'];

export interface DimensionEvidence {
  readonly dimension: PolicyDimension;
  /** The values the rule gives (first) against those the conjunction matches (second), as text. */
  readonly values: SetComparison<string>;
}

/** A rule of a policy, as reports name it. */
export interface RuleRef {
  readonly policy: ControlPlanePolicy;
  readonly rule: PolicyRule;
  /** 1-based, among the policy's rules of the same direction. */
  readonly index: number;
}

export interface PolicyMatch {
  readonly conjunction: Conjunction;
  readonly rule: RuleRef;
  readonly confidence: 'exact' | 'partial';
  readonly evidence: readonly DimensionEvidence[];
}

export interface PolicyMatching {
  readonly matches: readonly PolicyMatch[];
  /** Conjunctions of policy tables that no rule explains. */
  readonly unexplained: readonly Conjunction[];
  /** Rules applied to Pods of this node that no conjunction implements. */
  readonly unimplemented: readonly RuleRef[];
  /** The match of a conjunction (of this matching's, or one equal to it). */
  byConjunction(c: Conjunction): PolicyMatch | undefined;
  /** The match of the conjunction `id` of `table`. */
  byId(table: TableRef, id: number): PolicyMatch | undefined;
}

/** How a policy table tells its rules: direction, and whether Antrea-native or K8s NetworkPolicy. */
interface TableRole {
  readonly direction: PolicyDirection;
  readonly native: boolean;
  /** The default-rule tables, where the baseline tier's rules are. */
  readonly baseline: boolean;
}

/** The priority of Antrea's baseline tier, whose rules sit after the K8s NetworkPolicy tables. */
const BASELINE_TIER_PRIORITY = 253;

/** The role of a table by its name in the pipeline (`AntreaPolicyIngressRule`, `EgressRuleTable`, `IngressDefaultRule`). */
function tableRole(name: string | undefined): TableRole | undefined {
  if (name === undefined) return undefined;
  const direction = /ingress/i.test(name) ? 'In' : /egress/i.test(name) ? 'Out' : undefined;
  if (direction === undefined || !/rule|default/i.test(name)) return undefined;
  return { direction, native: /antreapolicy|default/i.test(name), baseline: /default/i.test(name) };
}

function isNative(p: ControlPlanePolicy): boolean {
  return p.type !== 'K8sNetworkPolicy';
}

/** The values a conjunction's dimension matches on `storages`, as text (`10.10.0.26`, `10.10.1.0/24`, `4`, `tcp/80`). */
function dimensionValues(c: Conjunction, storages: readonly string[]): string[] | undefined {
  for (const d of c.dimensions) {
    const values: string[] = [];
    let found = false;
    for (const t of d.terms) {
      if (t.kind !== 'set' || !storages.includes(t.field.storage)) continue;
      found = true;
      append(values, termMemberTexts(t, 'decimal').texts);
    }
    if (found) return values;
  }
  return undefined;
}

/** The service dimension: `tcp/80` for each port (a range as `tcp/8000-8080`), or the protocol alone. */
function serviceValues(c: Conjunction): string[] | undefined {
  for (const d of c.dimensions) {
    const out: string[] = [];
    for (const t of d.terms) {
      const proto = t.qualifier.fields.find((e) => e.field.storage === 'nw_proto');
      const name = proto === undefined ? undefined : PROTOCOL_NAMES[String(proto.value)];
      if (t.kind === 'set' && t.field.storage === 'tp_dst')
        for (const m of termMemberTexts(t, 'decimal').texts) out.push(`${name ?? 'tcp'}/${m}`);
      else if (t.kind === 'any' && name !== undefined) out.push(name);
    }
    if (out.length > 0) return out;
  }
  return undefined;
}

const PROTOCOL_NAMES: Readonly<Record<string, string>> = { '6': 'tcp', '17': 'udp', '132': 'sctp', '1': 'icmp' };

function compare(dimension: PolicyDimension, rule: readonly string[], flows: readonly string[]): DimensionEvidence {
  return { dimension, values: compareSets(rule, flows) };
}

/** An address as the reports write it: IPv6 in RFC 5952 form, so that an agent's and a flow's spelling agree. */
function addressKey(format: 'ipv4' | 'ipv6', value: bigint): string {
  return format === 'ipv6' ? formatIpv6(value) : formatIpv4(value);
}

/** Ports of the node's Pods: by address (anti-spoofing flows match a port with its Pod's IPv4 or IPv6 address), and the port names. */
export class NodePorts {
  private readonly byAddress = new Map<string, number>();
  private readonly names: PortMap;

  constructor(flows: readonly Flow[], names: PortMap) {
    this.names = names;
    for (const f of flows) {
      const port = f.match.fields.find((e) => e.field.storage === 'in_port' && e.mask === ones(e.field.bits));
      if (!port) continue;
      for (const e of f.match.fields) {
        if ((e.field.name === 'ip_src' || e.field.name === 'arp_spa') && e.mask === ones(32))
          this.byAddress.set(addressKey('ipv4', e.value), Number(port.value));
        else if (e.field.name === 'ipv6_src' && e.mask === ones(128))
          this.byAddress.set(addressKey('ipv6', e.value), Number(port.value));
      }
    }
  }

  /** The port of a Pod on this node: by one of its addresses, else by its interface name. */
  portOf(m: PolicyMember): number | undefined {
    for (const ip of m.ips) {
      const p = this.byAddress.get(ip);
      if (p !== undefined) return p;
    }
    const pod = m.pod?.split('/')[1];
    if (pod === undefined) return undefined;
    for (const [n, name] of this.names.entries())
      if (name.length > 8 && pod.startsWith(name.slice(0, name.lastIndexOf('-')))) return n;
    return undefined;
  }
}

function membersOf(groups: ReadonlyMap<string, readonly PolicyMember[]>, names: readonly string[]): PolicyMember[] {
  return names.flatMap((n) => groups.get(n) ?? []);
}

function peerAddresses(peer: PolicyPeer, objects: PolicyObjects): string[] {
  return [
    ...membersOf(objects.addressGroups, peer.addressGroups).flatMap((m) => m.ips),
    ...peer.ipBlocks.map((b) => (/\/(32|128)$/.test(b) ? b.replace(/\/\d+$/, '') : b)),
  ];
}

function appliedTo(policy: ControlPlanePolicy, rule: PolicyRule, objects: PolicyObjects): PolicyMember[] {
  return membersOf(
    objects.appliedToGroups,
    rule.appliedToGroups.length > 0 ? rule.appliedToGroups : policy.appliedToGroups,
  );
}

/** The services of a rule as the conjunction's service dimension writes them; named ports through the applied-to members' ports. */
function ruleServices(rule: PolicyRule, members: readonly PolicyMember[]): string[] {
  return rule.services.flatMap((s) => {
    const proto = s.protocol.toLowerCase();
    if (s.port === undefined) return [proto];
    if (typeof s.port === 'string')
      return members.flatMap((m) =>
        m.ports.filter((p) => p.name === s.port && p.protocol.toLowerCase() === proto).map((p) => `${proto}/${p.port}`),
      );
    return [s.endPort !== undefined && s.endPort !== s.port ? `${proto}/${s.port}-${s.endPort}` : `${proto}/${s.port}`];
  });
}

/** What a policy table and the node's flows tell the matching: table names, Pods' ports, and the profile's bit fields. */
export interface PolicyContext {
  readonly tableName: (ref: TableRef) => string | undefined;
  readonly ports: NodePorts;
  /** Reads the disposition and deny marks a conjunction's action flow writes; without it, the action is read from the flow's actions alone. */
  readonly bits?: BitFieldDecoder;
}

/** The evidence for `c` implementing `ref`: each dimension the conjunction or the rule has. */
function evidenceFor(
  c: Conjunction,
  ref: RuleRef,
  objects: PolicyObjects,
  context: PolicyContext,
): DimensionEvidence[] {
  const { rule, policy } = ref;
  const members = appliedTo(policy, rule, objects);
  const inbound = rule.direction === 'In';
  const peer = peerAddresses(inbound ? rule.from : rule.to, objects);
  const out: DimensionEvidence[] = [];
  const addresses = dimensionValues(c, [inbound ? 'nw_src' : 'nw_dst', inbound ? 'ipv6_src' : 'ipv6_dst']);
  if (addresses !== undefined || peer.length > 0) out.push(compare('addresses', peer, addresses ?? []));
  const ports = (): string[] => members.flatMap((m) => portOf(context.ports, m));
  // An egress rule's Pods are its sources: by address, or by the port they send from.
  const egressByAddress = inbound ? undefined : dimensionValues(c, ['nw_src', 'ipv6_src']);
  const egressByPort = inbound || egressByAddress !== undefined ? undefined : dimensionValues(c, ['in_port']);
  const podValues = inbound ? dimensionValues(c, ['reg1']) : (egressByAddress ?? egressByPort);
  const pods = inbound || egressByPort !== undefined ? ports() : members.flatMap((m) => m.ips);
  if (podValues !== undefined || pods.length > 0) out.push(compare('pods', pods, podValues ?? []));
  const services = ruleServices(rule, members);
  const flows = serviceValues(c);
  if (flows !== undefined || services.length > 0) out.push(compare('services', services, flows ?? []));
  const ruleAction = RULE_ACTIONS.find((a) => a.toLowerCase() === rule.action?.toLowerCase());
  const flowAction = ruleAction === undefined ? undefined : actionOf(c, context);
  if (ruleAction !== undefined && flowAction !== undefined) out.push(compare('action', [ruleAction], [flowAction]));
  return out;
}

function portOf(ports: NodePorts, m: PolicyMember): string[] {
  const p = ports.portOf(m);
  return p === undefined ? [] : [String(p)];
}

/**
 * What the conjunction's action flow does with the traffic: the disposition it records for the
 * agent (APDisposition), a deny mark (APDeny) or no action is a Drop; a jump on to another policy
 * rule table a Pass; anything else an Allow.
 */
function actionOf(c: Conjunction, context: PolicyContext): RuleAction | undefined {
  const flow = c.actionFlows[0];
  if (!flow) return undefined;
  const actions = flattenActions(flow.actions);
  let deny = false;
  for (const a of actions) {
    if (a.kind !== 'set_field') continue;
    for (const d of context.bits?.decode(a.field, a.value, a.mask) ?? []) {
      const named = RULE_ACTIONS.find((x) => x === d.valueName);
      if (d.name === 'APDisposition' && named) return named;
      if (/^(?:APDeny|CnpDeny)$/.test(d.name) && d.value !== 0n) deny = true;
    }
  }
  // Writes alone send the packet nowhere: OVS drops it.
  if (deny || actions.every((a) => a.kind === 'set_field' || a.kind === 'move' || a.kind === 'note')) return 'Drop';
  const jumps = actions.flatMap((a) =>
    a.kind === 'goto_table' || (a.kind === 'resubmit' && a.table) ? [a.table!] : [],
  );
  if (jumps.some((t) => tableRole(context.tableName(t)) !== undefined)) return 'Pass';
  return 'Allow';
}

const AGREEMENT_SCORE: Readonly<Record<SetComparison<string>['agreement'], number>> = {
  same: 2,
  overlap: 1,
  different: -1,
};

/** Agreement as a score: same sets count whole, overlaps half, a dimension with nothing in common against. */
function score(evidence: readonly DimensionEvidence[]): number {
  return evidence.reduce((n, e) => n + AGREEMENT_SCORE[e.values.agreement], 0);
}

/** Every rule of every policy, with its index among its policy's rules of that direction. */
function ruleRefs(objects: PolicyObjects): RuleRef[] {
  return objects.policies.flatMap((policy) => {
    const seen = { In: 0, Out: 0 };
    return policy.rules.map((rule) => ({ policy, rule, index: ++seen[rule.direction] }));
  });
}

/**
 * Each conjunction of a policy table matched to the rule that implements it, by what `context`
 * tells of the node's tables, Pods' ports and bit fields.
 */
export function matchPolicies(
  conjunctions: readonly Conjunction[],
  objects: PolicyObjects,
  context: PolicyContext,
): PolicyMatching {
  const { tableName, ports } = context;
  const refs = ruleRefs(objects);
  const matches: PolicyMatch[] = [];
  const unexplained: Conjunction[] = [];
  const taken = new Set<RuleRef>();
  for (const c of conjunctions) {
    const role = tableRole(tableName(c.table));
    if (!role || c.n === 0) continue;
    let best: { ref: RuleRef; evidence: DimensionEvidence[]; score: number } | undefined;
    for (const ref of refs) {
      if (ref.rule.direction !== role.direction || isNative(ref.policy) !== role.native) continue;
      if (role.native && (ref.policy.tierPriority === BASELINE_TIER_PRIORITY) !== role.baseline) continue;
      const evidence = evidenceFor(c, ref, objects, context);
      const s = score(evidence);
      // A rule no other conjunction took wins a tie: each rule has its own conjunction.
      if (!best || s > best.score || (s === best.score && taken.has(best.ref) && !taken.has(ref)))
        best = { ref, evidence, score: s };
    }
    const agreeing = best?.evidence.filter((e) => e.values.agreement !== 'different').length ?? 0;
    if (!best || agreeing === 0 || best.evidence.every((e) => e.values.agreement !== 'same')) {
      unexplained.push(c);
      continue;
    }
    taken.add(best.ref);
    const confidence = best.evidence.every((e) => e.values.agreement === 'same') ? 'exact' : 'partial';
    matches.push({ conjunction: c, rule: best.ref, confidence, evidence: best.evidence });
  }
  // A rule is expected here when it applies to a Pod of this node (its port is known).
  const local = (ref: RuleRef): boolean =>
    appliedTo(ref.policy, ref.rule, objects).some((m) => ports.portOf(m) !== undefined);
  const unimplemented = refs.filter((ref) => !taken.has(ref) && local(ref));
  // By table and id: a report of some ids holds conjunctions of their own, equal to these.
  const key = (table: TableRef, id: number): string => `${tableKey(table)}#${id}`;
  const byConj = new Map(matches.map((m) => [key(m.conjunction.table, m.conjunction.id), m]));
  return {
    matches,
    unexplained,
    unimplemented,
    byConjunction: (c) => byConj.get(key(c.table, c.id)),
    byId: (table, id) => byConj.get(key(table, id)),
  };
}

/**
 * The conjunctions of a pipeline read by its profile (all of them, or those given) matched to the
 * rules of a node's policy objects: tables named by the profile, Pods' ports from the pipeline's
 * anti-spoofing flows and port names, actions read through the profile's bit fields.
 */
export function matchPipelinePolicies(
  read: AnnotatedPipeline,
  objects: PolicyObjects,
  conjunctions: readonly Conjunction[] = findConjunctions(read.pipeline).conjunctions,
): PolicyMatching {
  const flows = [...read.pipeline.tables.values()].flatMap((t) => t.flows);
  return matchPolicies(conjunctions, objects, {
    tableName: (ref) => read.annotator.tableInfo(ref).name,
    ports: new NodePorts(flows, read.pipeline.ports),
    bits: read.annotator.bits,
  });
}
