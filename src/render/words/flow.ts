/**
 * Generic words for every match field and every action, used when no profile knows better.
 * What a profile can add (table names, port names, address roles, named register bits,
 * conntrack zone names) comes in through a `Wording`, so these words stay pipeline-neutral.
 */
import { CT_STATE } from '../../model/ct-state.ts';
import type { Action, CtAction, LearnAction, NatAction, Subfield } from '../../model/actions.ts';
import { assertNever, severalConjunctions } from '../../model/actions.ts';
import { type FieldDef, fieldByName } from '../../model/fields.ts';
import type { Flow, Match, MatchField } from '../../model/flow.ts';
import type { PortRef } from '../../model/ports.ts';
import type { Wording } from '../../analysis/annotate/wording.ts';
import { maskedBits, stateWords as namedStateWords } from './bits.ts';
import { portWords } from './port.ts';
import { formatIpv4, formatIpv6, ones } from '../../model/values.ts';
import { formatFieldValue, formatFlags, formatFrag, fullMask } from '../../syntax/field-value.ts';
import { ETH_TYPE, IP_PROTO } from '../../syntax/match.ts';
import { addressLabelText } from './address.ts';
import { shortSubfield, subfieldWords, tableNameWords, zoneWords } from './names.ts';

// ---------------------------------------------------------------------------------------------
// Field nouns and values

const NOUNS: Readonly<Record<string, string>> = {
  in_port: 'input port',
  eth_src: 'source MAC',
  eth_dst: 'destination MAC',
  eth_type: 'EtherType',
  nw_src: 'source IP',
  nw_dst: 'destination IP',
  ipv6_src: 'source IPv6 address',
  ipv6_dst: 'destination IPv6 address',
  nw_proto: 'IP protocol',
  nw_ttl: 'IP TTL',
  nw_tos: 'IP TOS',
  nw_ecn: 'IP ECN bits',
  tp_src: 'source port',
  tp_dst: 'destination port',
  arp_sha: 'ARP sender MAC',
  arp_tha: 'ARP target MAC',
  tun_id: 'tunnel key',
  tun_src: 'tunnel source',
  tun_dst: 'tunnel destination',
  tun_ipv6_src: 'tunnel IPv6 source',
  tun_ipv6_dst: 'tunnel IPv6 destination',
  pkt_mark: 'packet mark',
  ct_mark: 'connection mark',
  ct_label: 'connection label',
  ct_zone: 'conntrack zone',
  vlan_tci: 'VLAN TCI',
  metadata: 'metadata',
};

/** ARP fields share storage with IP fields; their nouns differ. */
const ARP_NOUNS: Readonly<Record<string, string>> = {
  arp_op: 'ARP opcode',
  arp_spa: 'ARP sender IP',
  arp_tpa: 'ARP target IP',
};

/** What a field holds, in words (`source MAC`, `reg0`). */
export function fieldNoun(field: FieldDef): string {
  return ARP_NOUNS[field.name] ?? NOUNS[field.storage] ?? NOUNS[field.name] ?? field.name;
}

/** The value in the field's own syntax, with the role of an address when known. */
function valueWords(field: FieldDef, value: bigint, mask: bigint, w: Wording): string {
  if (field.format === 'port' && mask === ones(field.bits)) return portWords(w.port(value));
  const text = formatFieldValue(field, value, mask);
  const role =
    field.format === 'ipv4' || field.format === 'ipv6' || field.format === 'mac'
      ? w.addressRole(field, value, mask)
      : undefined;
  return role === undefined ? text : `${text} (${addressLabelText(role)})`;
}

/** Words for a value written to or matched in a field that carries pipeline state. */
function stateWords(field: FieldDef, value: bigint, mask: bigint, w: Wording): string {
  const named = w.bits(field, value, mask);
  return named ? namedStateWords(named) : maskedBits(field, value, mask);
}

// ---------------------------------------------------------------------------------------------
// Matches

const CT_WORDS: readonly (readonly [bigint, string, string])[] = [
  [CT_STATE.new, 'new', 'new'],
  [CT_STATE.est, 'established', 'established'],
  [CT_STATE.rel, 'related', 'related'],
  [CT_STATE.snat, 'source-NATed', 'source-NATed'],
  [CT_STATE.dnat, 'destination-NATed', 'destination-NATed'],
];
const { trk: TRK, inv: INV, rpl: RPL } = CT_STATE;

/** `+est+trk` → `an established connection`; `-new+trk` → `a connection that is not new`. */
export function describeCtState(value: bigint, mask: bigint): string {
  const on = (bit: bigint): boolean => (mask & bit) !== 0n && (value & bit) !== 0n;
  const off = (bit: bigint): boolean => (mask & bit) !== 0n && (value & bit) === 0n;
  if (off(TRK)) return 'not yet tracked by conntrack';
  if (on(INV)) return 'a packet conntrack finds invalid';
  const pos = CT_WORDS.filter(([bit]) => on(bit)).map(([, word]) => word);
  const neg = CT_WORDS.filter(([bit]) => off(bit)).map(([, , word]) => word);
  const head =
    pos.length === 0
      ? on(TRK) || off(INV) || neg.length > 0 || on(RPL) || off(RPL)
        ? 'a connection'
        : 'any connection state'
      : `${/^[aeiou]/.test(pos[0]!) ? 'an' : 'a'} ${pos.join(', ')} connection`;
  const parts = [head];
  if (neg.length > 0) parts.push(`that is not ${neg.join(' or ')}`);
  if (on(RPL)) parts.push('(reply direction)');
  if (off(RPL)) parts.push('(original direction)');
  if (off(INV) && !on(TRK)) parts.push('(valid)');
  return parts.join(' ');
}

const PROTOCOLS: readonly (readonly [bigint, bigint | undefined, string])[] = [
  [ETH_TYPE.ip, IP_PROTO.tcp, 'TCP'],
  [ETH_TYPE.ip, IP_PROTO.udp, 'UDP'],
  [ETH_TYPE.ip, IP_PROTO.icmp, 'ICMP'],
  [ETH_TYPE.ip, IP_PROTO.sctp, 'SCTP'],
  [ETH_TYPE.ipv6, IP_PROTO.tcp, 'TCP over IPv6'],
  [ETH_TYPE.ipv6, IP_PROTO.udp, 'UDP over IPv6'],
  [ETH_TYPE.ipv6, IP_PROTO.icmpv6, 'ICMPv6'],
  [ETH_TYPE.ipv6, IP_PROTO.sctp, 'SCTP over IPv6'],
  [ETH_TYPE.ip, undefined, 'IPv4'],
  [ETH_TYPE.ipv6, undefined, 'IPv6'],
  [ETH_TYPE.arp, undefined, 'ARP'],
  [ETH_TYPE.rarp, undefined, 'RARP'],
  [ETH_TYPE.mpls, undefined, 'MPLS'],
  [ETH_TYPE.mplsm, undefined, 'multicast MPLS'],
  [ETH_TYPE.nsh, undefined, 'NSH'],
];

/** The protocol a match selects (`TCP`, `IPv4`, `ARP`), and whether nw_proto was folded into it. */
function protocolWords(match: Match): { words?: string; protoFolded: boolean } {
  const type = match.fields.find((e) => e.field.storage === 'eth_type')?.value;
  if (type === undefined) return { protoFolded: false };
  const proto = match.fields.find((e) => e.field.storage === 'nw_proto' && e.field.name === 'nw_proto')?.value;
  // Entries read by index, not destructured: destructuring steps an iterator until the code is optimised.
  const withProto = PROTOCOLS.find((x) => x[0] === type && x[1] !== undefined && x[1] === proto);
  if (withProto) return { words: withProto[2], protoFolded: true };
  const plain = PROTOCOLS.find((x) => x[0] === type && x[1] === undefined);
  return { words: plain?.[2] ?? `EtherType 0x${type.toString(16).padStart(4, '0')}`, protoFolded: false };
}

const TRANSPORT: Readonly<Record<string, string>> = { tcp: 'TCP', udp: 'UDP', sctp: 'SCTP' };

/** One match entry in words (the protocol entries are described by `describeMatch`). */
export function describeMatchField(e: MatchField, w: Wording): string {
  const { field, value, mask } = e;
  const exact = mask === fullMask(field) || mask === ones(field.bits);
  const v = (): string => valueWords(field, value, mask, w);
  switch (field.storage) {
    case 'in_port':
      return `arriving on ${portWords(e.port?.kind === 'name' ? w.port(e.port) : w.port(value))}`;
    case 'eth_src':
      return `from MAC ${v()}`;
    case 'eth_dst':
      return `to MAC ${v()}`;
    case 'nw_src':
      return field.name === 'arp_spa' ? `ARP sender ${v()}` : `from ${v()}`;
    case 'nw_dst':
      return field.name === 'arp_tpa' ? `ARP target ${v()}` : `to ${v()}`;
    case 'ipv6_src':
      return `from ${v()}`;
    case 'ipv6_dst':
      return `to ${v()}`;
    case 'arp_sha':
      return field.name === 'nd_sll' ? `neighbour source MAC ${v()}` : `ARP sender MAC ${v()}`;
    case 'arp_tha':
      return field.name === 'nd_tll' ? `neighbour target MAC ${v()}` : `ARP target MAC ${v()}`;
    case 'nw_proto':
      if (field.name === 'arp_op')
        return value === 1n ? 'ARP request' : value === 2n ? 'ARP reply' : `ARP opcode ${value}`;
      return `IP protocol ${value}`;
    case 'tp_src':
    case 'tp_dst': {
      const dir = field.storage === 'tp_src' ? 'from' : 'to';
      const proto = TRANSPORT[field.name.split('_')[0]!];
      if (field.name.startsWith('icmp'))
        return `${field.name.startsWith('icmpv6') ? 'ICMPv6' : 'ICMP'} ${field.storage === 'tp_src' ? 'type' : 'code'} ${value}`;
      if (exact) return `${dir} ${proto ?? ''} port ${value}`.replace('  ', ' ');
      return `${dir} ${proto ?? ''} ports ${value}–${value | (ones(16) ^ mask)}`.replace('  ', ' ');
    }
    case 'ct_state':
      return describeCtState(value, mask);
    case 'ct_zone':
      return `in conntrack ${zoneWords(w.zone(Number(value)))}`;
    case 'ct_mark':
    case 'ct_label':
    case 'pkt_mark':
    case 'metadata':
      return `${fieldNoun(field)} ${stateWords(field, value, mask, w)}`;
    case 'conj_id':
      return `conjunction ${value} complete`;
    case 'tun_id':
      return `tunnel key ${formatFieldValue(field, value, mask)}`;
    case 'tun_src':
    case 'tun_ipv6_src':
      return `tunnelled from ${v()}`;
    case 'tun_dst':
    case 'tun_ipv6_dst':
      return `tunnelled to ${v()}`;
    case 'vlan_tci':
      if (field.name === 'vlan_tci' && mask === 0x1000n) return value === 0n ? 'without a VLAN tag' : 'with a VLAN tag';
      if (field.name === 'vlan_tci' && value === 0n && exact) return 'without a VLAN tag';
      return `${field.name === 'vlan_tci' ? 'VLAN TCI' : field.name.includes('pcp') ? 'VLAN priority' : 'VLAN'} ${formatFieldValue(field, value, mask)}`;
    case 'nw_ttl':
      return `TTL ${value}`;
    case 'nw_tos':
      return field.name === 'ip_dscp' ? `DSCP ${value}` : `TOS ${value}`;
    case 'nw_ecn':
      return `ECN ${value}`;
    case 'ip_frag':
      return `fragments: ${formatFrag(value, mask)}`;
    case 'tcp_flags':
      return `TCP flags ${formatFlags(field, value, mask, fullMask(field))}`;
    case 'recirc_id':
      return `recirculation ${value}`;
    case 'dp_hash':
      return `datapath hash ${formatFieldValue(field, value, mask)}`;
    case 'actset_output':
      return `action set output ${portWords(w.port(value))}`;
    case 'packet_type':
      return `packet type ${formatFieldValue(field, value, mask)}`;
    default:
      if (/^x{0,2}reg\d+$/.test(field.name)) return stateWords(field, value, mask, w);
      if (field.presence && mask === 0n) return `carrying ${field.name}`;
      return `${field.name} ${exact ? '=' : 'matches'} ${formatFieldValue(field, value, exact ? undefined : mask)}`;
  }
}

/** The match as a list of conditions: the protocol first, then each field in match order. */
export function describeMatch(match: Match, w: Wording, memo?: WordsMemo): string[] {
  return matchWords(match, w, memo, -1).conditions;
}

/** describeMatch's conditions, leaving out entry `hole` (-1: none), and where it would stand among them. */
function matchWords(
  match: Match,
  w: Wording,
  memo: WordsMemo | undefined,
  hole: number,
): { conditions: string[]; at: number } {
  const { words, protoFolded } = protocolWords(match);
  const out = words === undefined ? [] : [words];
  const known = memo?.of(w);
  let at = -1;
  for (let i = 0; i < match.fields.length; i++) {
    const e = match.fields[i]!;
    if (i === hole) at = out.length;
    if (i === hole || e.field.storage === 'eth_type') continue;
    if (protoFolded && e.field.name === 'nw_proto') continue;
    let said = known?.fields.get(e);
    if (said === undefined) {
      said =
        known === undefined
          ? describeMatchField(e, w)
          : isAddressEntry(e)
            ? memo!.addressWords(e, w)
            : valueSaid(known, e, w);
      known?.fields.set(e, said);
    }
    out.push(said);
  }
  return { conditions: out, at };
}

// ---------------------------------------------------------------------------------------------
// Actions

function outputWords(port: PortRef, w: Wording): string {
  if (port.kind === 'reserved') {
    switch (port.name) {
      case 'NORMAL':
        return 'switch it like a normal L2 switch would (NORMAL)';
      case 'IN_PORT':
        return 'send it back out the port it came in on';
      case 'CONTROLLER':
        return 'send it to the controller';
      case 'LOCAL':
        return 'send it to the bridge’s LOCAL port';
      case 'FLOOD':
        return 'flood it out every port but the input port';
      case 'ALL':
        return 'send it out every port but the input port';
      case 'TABLE':
        return 'run it through the flow tables';
      default:
        return `output to ${port.name}`;
    }
  }
  return `send it out ${portWords(w.port(port))}`;
}

function natWords(a: NatAction): string {
  if (a.direction === undefined) return 'apply the connection’s existing NAT';
  const r = a.range;
  const addr = (v: bigint): string => (r?.family === 6 ? formatIpv6(v) : formatIpv4(v));
  const range =
    r === undefined
      ? ''
      : ` to ${addr(r.addrMin)}${r.addrMax !== undefined ? `–${addr(r.addrMax)}` : ''}${r.portMin !== undefined ? ` port ${r.portMin}${r.portMax !== undefined ? `–${r.portMax}` : ''}` : ''}`;
  return `${a.direction === 'src' ? 'source' : 'destination'}-NAT${range}`;
}

function ctWords(a: CtAction, w: Wording): string {
  const zone =
    a.zone === undefined
      ? 'the default zone'
      : a.zone.kind === 'value'
        ? zoneWords(w.zone(a.zone.value))
        : `the zone in ${subfieldWords(w.subfield(a.zone.src))}`;
  const nat = a.actions.filter((x) => x.kind === 'nat').map(natWords);
  const exec = a.actions.filter((x) => x.kind !== 'nat').map((x) => describeAction(x, w).replace(/^set /, ''));
  const what = a.commit
    ? `${a.force ? 'force-commit' : 'commit'} the connection to conntrack in ${zone}`
    : `send it through conntrack in ${zone}`;
  const parts = [what + (nat.length > 0 ? ` and ${nat.join(', ')}` : '')];
  if (exec.length > 0) parts.push(`setting ${exec.join(' and ')}`);
  if (a.alg !== undefined)
    parts.push(`with the ${a.alg === 21 ? 'FTP' : a.alg === 69 ? 'TFTP' : `port ${a.alg}`} helper`);
  if (a.table) parts.push(`then continue in ${tableNameWords(w.table(a.table))}`);
  return parts.join(', ');
}

function learnWords(a: LearnAction, w: Wording): string {
  const keys = a.specs
    .filter((s) => s.kind === 'match_field' || s.kind === 'match_value')
    .map((s) => shortSubfield(s.dst));
  const timeouts = [
    a.idleTimeout ? `idle timeout ${a.idleTimeout}s` : '',
    a.hardTimeout ? `hard timeout ${a.hardTimeout}s` : '',
  ].filter((s) => s !== '');
  return `learn a flow into ${tableNameWords(w.table(a.table))}${keys.length ? ` keyed on ${keys.join(', ')}` : ''}${timeouts.length ? ` (${timeouts.join(', ')})` : ''}`;
}

function writeWords(field: FieldDef, value: bigint, mask: bigint, w: Wording): string {
  const whole = mask === ones(field.bits) || mask === fullMask(field);
  const named = w.bits(field, value, mask);
  if (named !== undefined) return `set ${namedStateWords(named)}`;
  if (/^x{0,2}reg\d+$/.test(field.name) || !whole) return `set ${maskedBits(field, value, mask)}`;
  return `set the ${fieldNoun(field)} to ${valueWords(field, value, mask, w)}`;
}

function subfieldNoun(sf: Subfield, w: Wording): string {
  const whole = sf.start === 0 && sf.bits === sf.field.bits;
  const named = w.subfield(sf);
  if (named.name !== undefined || !whole) return subfieldWords(named);
  return fieldNoun(sf.field) === sf.field.name ? sf.field.name : `the ${fieldNoun(sf.field)}`;
}

/** One action in words. */
export function describeAction(a: Action, w: Wording): string {
  switch (a.kind) {
    case 'output':
      return outputWords(a.port, w);
    case 'output_field':
      return `send it out the port in ${subfieldWords(w.subfield(a.src))}`;
    case 'controller':
      return `send it to the controller${a.reason !== 'action' ? ` (reason ${a.reason})` : ''}${a.userdata ? ' with user data' : ''}${a.pause ? ', pausing the pipeline' : ''}`;
    case 'enqueue':
      return `send it out ${portWords(w.port(a.port))} on queue ${a.queue}`;
    case 'group':
      return `hand it to group ${a.id}`;
    case 'set_field':
      return writeWords(a.field, a.value, a.mask, w);
    case 'move':
      return `copy ${subfieldNoun(a.src, w)} into ${subfieldNoun(a.dst, w)}`;
    case 'set_vlan_vid':
      return `set VLAN ${a.vid}${a.pushIfUntagged ? ' (tagging untagged packets)' : ''}`;
    case 'set_vlan_pcp':
      return `set VLAN priority ${a.pcp}`;
    case 'strip_vlan':
      return 'remove the VLAN tag';
    case 'push_vlan':
      return `push a VLAN tag (EtherType 0x${a.ethertype.toString(16)})`;
    case 'push_mpls':
      return `push an MPLS label (EtherType 0x${a.ethertype.toString(16)})`;
    case 'pop_mpls':
      return `pop the MPLS label (inner EtherType 0x${a.ethertype.toString(16)})`;
    case 'set_mpls_ttl':
      return `set the MPLS TTL to ${a.ttl}`;
    case 'dec_mpls_ttl':
      return 'decrement the MPLS TTL';
    case 'set_ip_ttl':
      return `set the IP TTL to ${a.ttl}`;
    case 'dec_ttl':
      return 'decrement the IP TTL';
    case 'encap':
      return `encapsulate in ${a.header.kind}`;
    case 'decap':
      return 'remove the outer header';
    case 'dec_nsh_ttl':
      return 'decrement the NSH TTL';
    case 'set_queue':
      return `use output queue ${a.queue}`;
    case 'pop_queue':
      return 'restore the output queue';
    case 'delete_field':
      return `delete ${a.field.name}`;
    case 'fin_timeout':
      return 'shorten the flow’s timeouts once TCP FIN or RST is seen';
    case 'stack_push':
      return `push ${subfieldWords(w.subfield(a.src))} on the stack`;
    case 'stack_pop':
      return `pop the stack into ${subfieldWords(w.subfield(a.dst))}`;
    case 'resubmit': {
      const from = a.port ? ` as if it came in on ${portWords(w.port(a.port))}` : '';
      const to = a.table ? ` to ${tableNameWords(w.table(a.table))}` : '';
      return `resubmit${to}${from}${a.ct ? ' with the original connection tuple' : ''}`;
    }
    case 'goto_table':
      return `go to ${tableNameWords(w.table(a.table))}`;
    case 'ct':
      return ctWords(a, w);
    case 'nat':
      return natWords(a);
    case 'ct_clear':
      return 'clear its conntrack state';
    case 'learn':
      return learnWords(a, w);
    case 'conjunction':
      return `satisfy clause ${a.clause} of ${a.nClauses} of conjunction ${a.id}`;
    case 'note':
      return `carry a note (${a.bytes.length} bytes)`;
    case 'clone':
      return `on a copy: ${describeActions(a.actions, w).join(', ')}`;
    case 'exit':
      return 'stop processing actions';
    case 'multipath':
      return `choose one of ${a.nLinks} links into ${subfieldWords(w.subfield(a.dst))} by hashing`;
    case 'bundle':
      return a.dst
        ? `choose one of ${a.members.length} ports into ${subfieldWords(w.subfield(a.dst))}`
        : `send it out one of ${a.members.length} ports`;
    case 'sample':
      return `sample it (probability ${a.probability}/65535)`;
    case 'check_pkt_larger':
      return `set ${subfieldWords(w.subfield(a.dst))} when the packet is longer than ${a.length} bytes`;
    case 'meter':
      return `rate-limit it with meter ${a.id}`;
    case 'clear_actions':
      return 'clear the action set';
    case 'write_actions':
      return `add to the action set: ${describeActions(a.actions, w).join(', ')}`;
    case 'write_metadata':
      return `set ${maskedBits(fieldByName('metadata')!, a.value, a.mask)}`;
    case 'unroll_xlate':
      return `(internal) return from table ${a.table}`;
    case 'debug_recirc':
      return 'recirculate (debugging)';
    case 'debug_slow':
      return 'use the slow path (debugging)';
    case 'unknown':
      return a.text;
    default:
      return assertNever(a);
  }
}

/** The actions in words, in order, each said by `say`; a flow without actions drops the packet. */
export function describeActions(
  actions: readonly Action[],
  w: Wording,
  say: (a: Action, w: Wording) => string = describeAction,
): string[] {
  if (actions.length === 0) return ['drop it'];
  return actions.map((a) => say(a, w));
}

/** Words said in one wording: of shared match entries and action lists. */
interface SaidIn {
  readonly fields: WeakMap<MatchField, string>;
  readonly actions: WeakMap<readonly Action[], readonly string[]>;
  /** Action lists' words as a sentence says them after its conditions. */
  readonly sentenceActions: WeakMap<readonly Action[], string>;
  /** Conditions of outlines (see outlineConditions), by outline match and the entry that holds the flow's own address. */
  readonly outlines: WeakMap<Match, Map<number, OutlineConditions>>;
  /**
   * Words of match entries without a named port, by field, mask and value: the lines of a shape are
   * read again each into entries of their own, whose values most often other lines hold too.
   */
  readonly values: ValuesSaid;
  /** Words of writes of a value (set_field), by field, mask and value, as `values`: each such line's actions are read again too. */
  readonly writes: ValuesSaid;
}

/** Words by field, mask and value (see SaidIn.values). */
type ValuesSaid = Map<FieldDef, Map<bigint, Map<bigint, string>>>;

/** The words said in `said` of values of `field` under `mask`, by value. */
function byValueIn(said: ValuesSaid, field: FieldDef, mask: bigint): Map<bigint, string> {
  let byMask = said.get(field);
  if (byMask === undefined) said.set(field, (byMask = new Map()));
  let byValue = byMask.get(mask);
  if (byValue === undefined) byMask.set(mask, (byValue = new Map()));
  return byValue;
}

/** describeMatchField of an entry without a named port, said once per field, mask and value in the wording. */
function valueSaid(known: SaidIn, e: MatchField, w: Wording): string {
  if (e.port !== undefined) return describeMatchField(e, w);
  const byValue = byValueIn(known.values, e.field, e.mask);
  let said = byValue.get(e.value);
  if (said === undefined) byValue.set(e.value, (said = describeMatchField(e, w)));
  return said;
}

/** Words of entries holding one IPv4 address, by field and address. */
type AddressesSaid = Map<FieldDef, Map<number, string>>;

/** An outline's conditions in words, around the one of its entry that each flow gives an address of its own. */
interface OutlineConditions {
  readonly before: readonly string[];
  readonly after: readonly string[];
  /** The conditions before the entry's as a sentence says them, each followed by `, `; those after, each led by `, `. */
  readonly beforeText: string;
  readonly afterText: string;
}

/**
 * Words already said, during one report, of match entries and action lists that flows share (the
 * reader shares those a dump repeats): a report of thousands of policy flows says each list once.
 * So are those of an IPv4 address in entries of its own: a dump names each of its addresses in
 * many flows, of many tables, and only the roles of addresses (which tables share) are read for
 * them. What a `Wording` says of a value does not change while a report is written.
 */
export class WordsMemo {
  private readonly byWording = new WeakMap<Wording, SaidIn>();
  private readonly byRoles = new WeakMap<Wording['addressRole'], AddressesSaid>();
  /**
   * The last outline, action list and address field said, with their words: flow after flow of a
   * policy table shares them, and comparing a few references costs less than the maps' lookups.
   */
  private lastOutline: { match: Match; entry: number; w: Wording; around: OutlineConditions | undefined } | undefined;
  // The last action list's in fields of their own, not an object: flow after flow of a policy table
  // has a list other than the last one's, and each object made would be a few stores more.
  private lastList: readonly Action[] | undefined = undefined;
  private lastListWording: Wording | undefined = undefined;
  private lastListText = '';
  private lastAddresses: { roles: Wording['addressRole']; field: FieldDef; byValue: Map<number, string> } | undefined;
  /** The words of conjunction actions (see severalConjunctionsText), whatever the wording: they name no table, field nor port. */
  private readonly conjunctions = new Map<Action, string>();

  of(w: Wording): SaidIn {
    let known = this.byWording.get(w);
    if (!known)
      this.byWording.set(
        w,
        (known = {
          fields: new WeakMap(),
          actions: new WeakMap(),
          sentenceActions: new WeakMap(),
          outlines: new WeakMap(),
          values: new Map(),
          writes: new Map(),
        }),
      );
    return known;
  }

  /** describeMatchField of an entry holding one IPv4 address (see isAddressEntry), said once per address. */
  addressWords(e: MatchField, w: Wording): string {
    return this.ipv4Words(e.field, Number(e.value), e.mask, w, e);
  }

  /** The words of an entry of `field` holding `address` alone (`entry`, else one made only when not said before). */
  private ipv4Words(field: FieldDef, address: number, mask: bigint, w: Wording, entry?: MatchField): string {
    const byValue = this.addressesSaid(field, w);
    let said = byValue.get(address);
    if (said === undefined)
      byValue.set(address, (said = describeMatchField(entry ?? { field, value: BigInt(address), mask }, w)));
    return said;
  }

  /** The words said of addresses in entries of `field` alone, by address, under the address roles of `w`. */
  private addressesSaid(field: FieldDef, w: Wording): Map<number, string> {
    const roles = w.addressRole;
    const last = this.lastAddresses;
    if (last !== undefined && last.field === field && last.roles === roles) return last.byValue;
    let byField = this.byRoles.get(roles);
    if (byField === undefined) this.byRoles.set(roles, (byField = new Map()));
    let byValue = byField.get(field);
    if (byValue === undefined) byField.set(field, (byValue = new Map()));
    this.lastAddresses = { roles, field, byValue };
    return byValue;
  }

  /**
   * The conditions of a lazily read flow whose match is its outline's but for the address of one
   * IPv4 entry (see FlowOutline): the outline's words around that entry are said once, the
   * address's once per address, and the flow's match is not made. Undefined for any other flow.
   */
  outlineConditions(flow: WordedFlow, w: Wording): string[] | undefined {
    const around = this.outlineAround(flow, w);
    return around && [...around.before, this.outlineAddress(flow, w), ...around.after];
  }

  /**
   * A flow's conditions and actions as one sentence (flowWords' `sentence`), said from the words
   * of its outline and of its action list, each joined once: of a report's thousands of policy
   * flows, each differs from many others only in its address.
   */
  sentence(flow: WordedFlow, w: Wording): string {
    const around = this.outlineAround(flow, w);
    const conditions =
      around === undefined
        ? conditionsText(describeMatch(flow.match, w, this))
        : around.beforeText + this.outlineAddress(flow, w) + around.afterText;
    const list = flow.actions;
    const shaped = flow.outlineVarying === undefined ? undefined : flow.outlineActions;
    return (
      conditions +
      (shaped === undefined || shaped === 'conjunctions' || shaped === list || list === this.lastList
        ? this.sentenceActions(list, w)
        : this.shapedActionsText(list, shaped, w))
    );
  }

  /**
   * `: ` and the words of the actions of a line of a shape, which are its shape's (the objects
   * themselves, see shaped-actions.ts) but where the numbers of its places differ: those it shares
   * are said as the shape's are, once, the others anew (few other lines share them).
   */
  private shapedActionsText(list: readonly Action[], shape: readonly Action[], w: Wording): string {
    if (list.length !== shape.length || list.length === 0)
      return `: ${describeActions(list, w, this.sayAction).join(', ')}`;
    const own = this.actionWords(shape, w);
    let text = ':';
    for (let i = 0; i < list.length; i++) {
      const a = list[i]!;
      const words = a === shape[i] ? own[i]! : this.sayAction(a, w);
      text += i === 0 ? ` ${words}` : `, ${words}`;
    }
    return text;
  }

  /** The action list's words as a sentence says them after its conditions (`: ` and the words joined), said once per list. */
  private sentenceActions(list: readonly Action[], w: Wording): string {
    if (list === this.lastList && w === this.lastListWording) return this.lastListText;
    let text: string;
    // Said anew: few other flows share such a list.
    if (severalConjunctions(list)) text = this.severalConjunctionsText(list, w);
    else {
      const known = this.of(w).sentenceActions;
      const said = known.get(list);
      if (said === undefined) known.set(list, (text = `: ${this.actionWords(list, w).join(', ')}`));
      else text = said;
    }
    this.lastList = list;
    this.lastListWording = w;
    this.lastListText = text;
    return text;
  }

  /**
   * `: ` and the words of a list of several conjunctions, joined in one pass: each conjunction's
   * words are said once, as the reader makes one action per conjunction and clause, which the
   * lists of many flows share.
   */
  private severalConjunctionsText(list: readonly Action[], w: Wording): string {
    let text = ':';
    for (let i = 0; i < list.length; i++) {
      const a = list[i]!;
      let words = a.kind === 'conjunction' ? this.conjunctions.get(a) : undefined;
      if (words === undefined) {
        words = describeAction(a, w);
        if (a.kind === 'conjunction') this.conjunctions.set(a, words);
      }
      text += i === 0 ? ` ${words}` : `, ${words}`;
    }
    return text;
  }

  /** describeActions of a list, said once per list (but a list of several conjunctions, each time). */
  actionWords(list: readonly Action[], w: Wording): readonly string[] {
    if (severalConjunctions(list)) return describeActions(list, w);
    const known = this.of(w).actions;
    let actions = known.get(list);
    // Each write of a value said once per field, mask and value (see SaidIn.writes).
    if (actions === undefined) known.set(list, (actions = describeActions(list, w, this.sayAction)));
    return actions;
  }

  /** describeAction, a write of a value said once per field, mask and value (see writeSaid). */
  private readonly sayAction = (a: Action, w: Wording): string =>
    a.kind === 'set_field' ? this.writeSaid(a.field, a.value, a.mask, w) : describeAction(a, w);

  /** writeWords of a write, said once per field, mask and value in the wording. */
  private writeSaid(field: FieldDef, value: bigint, mask: bigint, w: Wording): string {
    const byValue = byValueIn(this.of(w).writes, field, mask);
    let said = byValue.get(value);
    if (said === undefined) byValue.set(value, (said = writeWords(field, value, mask, w)));
    return said;
  }

  /**
   * The words of an outline around its address entry, for a lazily read flow whose match is its
   * outline's but for the address of one IPv4 entry (see FlowOutline); undefined for any other flow.
   */
  private outlineAround(flow: WordedFlow, w: Wording): OutlineConditions | undefined {
    const entry = flow.outlineEntry;
    const match = flow.outlineMatch;
    if (entry === undefined || entry < 0 || match === undefined) return undefined;
    const last = this.lastOutline;
    if (last !== undefined && last.match === match && last.entry === entry && last.w === w) return last.around;
    const e = match.fields[entry];
    let around: OutlineConditions | undefined;
    if (e !== undefined && isAddressEntry(e)) {
      const known = this.of(w);
      let byEntry = known.outlines.get(match);
      if (byEntry === undefined) known.outlines.set(match, (byEntry = new Map()));
      around = byEntry.get(entry);
      if (around === undefined) byEntry.set(entry, (around = this.around(match, entry, w)));
    }
    this.lastOutline = { match, entry, w, around };
    return around;
  }

  /** The words of the address entry of an outline that outlineAround said the words around. */
  private outlineAddress(flow: WordedFlow, w: Wording): string {
    const e = flow.outlineMatch!.fields[flow.outlineEntry!]!;
    return this.ipv4Words(e.field, flow.outlineAddress!, e.mask, w);
  }

  /** describeMatch of `match` in two parts, before and after entry `entry` (which it leaves out). */
  private around(match: Match, entry: number, w: Wording): OutlineConditions {
    const { conditions, at } = matchWords(match, w, this, entry);
    const before = conditions.slice(0, at);
    const after = conditions.slice(at);
    return {
      before,
      after,
      beforeText: before.map((c) => `${c}, `).join(''),
      afterText: after.map((c) => `, ${c}`).join(''),
    };
  }
}

/**
 * What the words of a flow read of it: its match and actions, and a lazily read flow's outline
 * (see Flow), told by its accessors without making the outline.
 */
type WordedFlow = Pick<
  Flow,
  'match' | 'actions' | 'outlineMatch' | 'outlineEntry' | 'outlineAddress' | 'outlineVarying' | 'outlineActions'
>;

/** Conditions as a sentence says them: joined, or `every packet` for none. */
function conditionsText(conditions: readonly string[]): string {
  return conditions.length > 0 ? conditions.join(', ') : 'every packet';
}

const IPV4_ONES = ones(32);

/**
 * Whether a match entry holds one IPv4 address: its words follow from its field, the address and
 * the address's role alone (see describeMatchField).
 */
function isAddressEntry(e: MatchField): boolean {
  return e.field.format === 'ipv4' && e.mask === IPV4_ONES && e.port === undefined;
}

/** A flow's conditions and actions in words, and the two as one plain sentence. */
export function flowWords(
  flow: WordedFlow,
  w: Wording,
  memo?: WordsMemo,
): { readonly conditions: readonly string[]; readonly actions: readonly string[]; readonly sentence: string } {
  const conditions = memo?.outlineConditions(flow, w) ?? describeMatch(flow.match, w, memo);
  const actions = memo ? memo.actionWords(flow.actions, w) : describeActions(flow.actions, w);
  return { conditions, actions, sentence: `${conditionsText(conditions)}: ${actions.join(', ')}` };
}
