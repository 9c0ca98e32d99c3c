/**
 * Checks that a flow's actions fit its match and that its fields exist in the Open vSwitch
 * release the corpus of dumps comes from. ovs-ofctl refuses such flows; a dump from a real
 * switch never holds them, but hand-written add-flows files and pasted listings may. They are
 * reported as warnings: the flow is still read, so nothing the user gave is lost.
 */
import { type Action, withoutRole } from '../model/actions.ts';
import { type FieldDef, fieldByName } from '../model/fields.ts';
import type { Match } from '../model/flow.ts';
import type { ProblemSink } from '../model/problems.ts';
import { matchAllows } from './match.ts';

const IP = 0x0800n;
const IPV6 = 0x86ddn;
/** ip_frag bit set for the second and later fragments, which carry no L4 header. */
const FRAG_LATER = 0x2n;
const CT_VALID = fieldByName('ct_nw_proto')!;
const ETH_TYPE = fieldByName('eth_type')!;
const PACKET_TYPE = fieldByName('packet_type')!;
const ETH_TYPES = { mpls: 0x8847n, mpls_mc: 0x8848n, nsh: 0x894fn } as const;
const REFUSED = 'ovs-ofctl refuses this flow';

function ethType(match: Match): bigint | undefined {
  const f = match.fields.find((m) => m.field.storage === 'eth_type');
  return f && f.mask === 0xffffn ? f.value : undefined;
}

function laterFragmentsOnly(match: Match): boolean {
  const f = match.fields.find((m) => m.field.storage === 'ip_frag');
  return f !== undefined && (f.mask & FRAG_LATER) !== 0n && (f.value & FRAG_LATER) !== 0n;
}

/** The match with one field replaced (or removed when `value` is undefined). */
function withField(match: Match, field: FieldDef, value: bigint | undefined, mask: bigint): Match {
  const rest = match.fields.filter((m) => m.field.storage !== field.storage);
  return { fields: value === undefined ? rest : [...rest, { field, value, mask }] };
}

export class FlowChecker {
  /** The packet's protocol as the actions so far leave it (push_mpls, encap… change it). */
  private match: Match;
  /** Set after an action whose result cannot be known offline (decap): later checks would guess. */
  private unknownProtocol = false;
  private readonly sink: ProblemSink;
  private readonly offset: number;
  private readonly length: number;

  constructor(match: Match, sink: ProblemSink, at: { offset: number; length: number }) {
    this.match = match;
    this.sink = sink;
    this.offset = at.offset;
    this.length = at.length;
  }

  private warn(message: string): void {
    this.sink.warning(message, this.offset, this.length);
  }

  /** A field used by the match or the actions that this release of OVS may not know. */
  private release(field: FieldDef): void {
    if (field.since) this.warn(`${field.name} exists only in Open vSwitch ${field.since} and later`);
  }

  /** A field the actions read or write must be allowed by the match's protocol. */
  private prerequisite(field: FieldDef, verb: 'write' | 'read', match: Match = this.match): void {
    this.release(field);
    if (field.prerequisite === 'none' || this.unknownProtocol) return;
    if (!matchAllows(match, field))
      this.warn(`${verb} of ${field.name} needs a match on its protocol (${field.prerequisite}); ${REFUSED}`);
    else if (
      verb === 'write' &&
      (field.storage === 'tp_src' || field.storage === 'tp_dst') &&
      laterFragmentsOnly(match)
    ) {
      this.warn(`write of ${field.name} in later IP fragments, which have no L4 header; ${REFUSED}`);
    }
  }

  checkMatch(): void {
    for (const m of this.match.fields) {
      this.release(m.field);
      if (m.field.datapathOnly)
        this.warn(`${m.field.name} can be matched only in datapath flows, not in OpenFlow; ${REFUSED}`);
    }
  }

  /**
   * Checks the actions in order. Returns whether any of them is of a kind that is checked at all:
   * when none is, the same list needs no checking on any other flow either.
   */
  checkActions(actions: readonly Action[]): boolean {
    let checked = false;
    for (const a of actions) if (this.action(a)) checked = true;
    return checked;
  }

  /** Checks one action; false when actions of its kind are never checked. */
  private action(a: Action): boolean {
    switch (a.kind) {
      case 'set_field':
        // OpenFlow 1.0's own mod_* actions are accepted on any packet (they do nothing there).
        if (!a.written.startsWith('mod_')) this.prerequisite(a.field, 'write');
        break;
      case 'move':
        this.prerequisite(a.src.field, 'read');
        this.prerequisite(a.dst.field, 'write');
        break;
      case 'output_field':
      case 'stack_push':
        this.prerequisite(a.src.field, 'read');
        break;
      case 'stack_pop':
      case 'check_pkt_larger':
      case 'multipath':
        this.prerequisite(a.dst.field, 'write');
        break;
      case 'push_mpls':
      case 'pop_mpls':
        this.match = withField(this.match, ETH_TYPE, BigInt(a.ethertype), 0xffffn);
        break;
      case 'encap':
        if (a.header.kind === 'ethernet') {
          // The encapsulated packet's type becomes the Ethernet type of the new frame.
          const pt = this.match.fields.find((m) => m.field === PACKET_TYPE);
          const inner = pt && pt.value >> 16n === 1n ? pt.value & 0xffffn : undefined;
          this.match = withField(withField(this.match, PACKET_TYPE, undefined, 0n), ETH_TYPE, inner, 0xffffn);
        } else {
          this.match = withField(this.match, PACKET_TYPE, (1n << 16n) | ETH_TYPES[a.header.kind], 0xffffffffn);
        }
        break;
      case 'decap':
        this.unknownProtocol = true;
        break;
      case 'resubmit':
        if (a.ct && !matchAllows(this.match, CT_VALID))
          this.warn(`resubmit with ct needs a match on an established conntrack state; ${REFUSED}`);
        break;
      case 'ct': {
        if (this.unknownProtocol) break;
        const et = ethType(this.match);
        if (et !== IP && et !== IPV6) this.warn(`ct needs a match on ip or ipv6; ${REFUSED}`);
        for (const inner of a.actions) {
          if (
            inner.kind === 'nat' &&
            inner.range &&
            et !== undefined &&
            et !== (inner.range.family === 4 ? IP : IPV6)
          ) {
            this.warn(
              `nat to an IPv${inner.range.family} address needs a match on ${inner.range.family === 4 ? 'ip' : 'ipv6'}; ${REFUSED}`,
            );
          }
        }
        break;
      }
      case 'learn':
        for (const s of a.specs) if ('src' in s) this.prerequisite(s.src.field, 'read');
        break;
      case 'clone':
      case 'write_actions':
        this.checkActions(a.actions);
        break;
      case 'debug_recirc':
      case 'debug_slow':
        this.warn(`${a.kind} is an internal debugging action; ${REFUSED}`);
        break;
      default:
        withoutRole('prerequisite', a);
        return false;
    }
    return true;
  }
}
