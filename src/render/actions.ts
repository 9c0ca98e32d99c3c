/**
 * Action nodes → the text `ovs-ofctl -O <version>` prints after `actions=`. The spelling of a
 * field write depends on the OpenFlow version and on how it was written (reference
 * ovs-actions.md §2, OVS lib/ofp-actions.c encode_* and format_* functions).
 */
import type {
  Action,
  ActionOf,
  CtAction,
  LearnAction,
  LearnSpec,
  NatAction,
  SampleAction,
  Subfield,
} from '../model/actions.ts';
import { assertNever } from '../model/actions.ts';
import type { OfVersion } from '../model/openflow.ts';
import type { PortMap, PortRef } from '../model/ports.ts';
import { type TableRef, tableLabel } from '../model/tables.ts';
import { formatIpv4, formatIpv6, formatMac, ones } from '../model/values.ts';
import { formatFieldValue, formatPortNumber, fullMask, quotePortName } from '../syntax/field-value.ts';
import { formatSubfield, isWholeField } from '../syntax/subfield.ts';

export interface ActionFormatOptions {
  readonly of: OfVersion;
  readonly portNames?: PortMap;
}

/** `%#x`: `0` for zero, `0x…` otherwise. */
function hex(v: bigint | number): string {
  return v === 0n || v === 0 ? '0' : `0x${v.toString(16)}`;
}

function port(p: PortRef, o: ActionFormatOptions): string {
  if (p.kind === 'reserved') return p.name;
  if (p.kind === 'name') return quotePortName(p.name);
  return formatPortNumber(BigInt(p.number), o.portNames);
}

function table(t: TableRef): string {
  return t.kind === 'number' ? tableLabel(t) : quotePortName(t.name);
}

function outputTo(p: PortRef, o: ActionFormatOptions): string {
  const text = port(p, o);
  return p.kind === 'reserved' ? text : `output:${text}`;
}

/** NXAST_REG_LOAD pieces for a masked write: each contiguous run of mask bits, at most 64 bits. */
function loads(f: Subfield['field'], value: bigint, mask: bigint): string[] {
  const out: string[] = [];
  for (let i = 0; i < f.bits;) {
    if (((mask >> BigInt(i)) & 1n) === 0n) {
      i++;
      continue;
    }
    let j = i;
    while (j < f.bits && ((mask >> BigInt(j)) & 1n) === 1n && j - i < 64) j++;
    const bits = j - i;
    out.push(`load:${hex((value >> BigInt(i)) & ones(bits))}->${formatSubfield({ field: f, start: i, bits })}`);
    i = j;
  }
  return out;
}

/**
 * NXAST_REG_LOAD needs an NXM/OXM header; experimenter-OXM and variable-length fields (tunnel
 * metadata) travel as NXAST_REG_LOAD2, which prints as set_field in every version.
 */
function loadable(f: Subfield['field']): boolean {
  return !f.name.startsWith('tun_metadata') && /^(NXM_|OXM_)/.test(f.nxmNames[0] ?? '');
}

function setFieldText(a: ActionOf<'set_field'>, o: ActionFormatOptions): string {
  return `set_field:${formatFieldValue(a.field, a.value, a.mask, o.portNames)}->${a.field.name}`;
}

/** The OpenFlow 1.0/1.1 native action for a write, if that version has one. */
function legacyWrite(a: ActionOf<'set_field'>, of: OfVersion): string | undefined {
  // OVS 3.1 drops the mask when it encodes a masked set_field as a native action.
  const v = a.value;
  const native = a.written !== 'set_field' && a.written !== 'load';
  switch (a.field.name) {
    case 'eth_src':
      return `mod_dl_src:${formatMac(v)}`;
    case 'eth_dst':
      return `mod_dl_dst:${formatMac(v)}`;
    case 'ip_src':
      return `mod_nw_src:${formatIpv4(v)}`;
    case 'ip_dst':
      return `mod_nw_dst:${formatIpv4(v)}`;
    case 'ip_dscp':
      return `mod_nw_tos:${v << 2n}`;
    case 'nw_tos':
      return `mod_nw_tos:${v}`;
    case 'nw_ecn':
      return of === 11 ? `mod_nw_ecn:${v}` : undefined;
    case 'tcp_src':
    case 'udp_src':
      return `mod_tp_src:${v}`;
    case 'tcp_dst':
    case 'udp_dst':
      return `mod_tp_dst:${v}`;
    case 'sctp_src':
    case 'sctp_dst':
      return of === 11 ? `mod_tp_${a.field.name.slice(5)}:${v}` : undefined;
    case 'tun_id':
      if (!native) return undefined;
      return `${a.written === 'set_tunnel64' || v > 0xffffffffn ? 'set_tunnel64' : 'set_tunnel'}:${hex(v)}`;
    case 'mpls_label':
      return native ? `set_mpls_label(${v})` : undefined;
    case 'mpls_tc':
      return native ? `set_mpls_tc(${v})` : undefined;
    case 'vlan_vid':
      return `${of === 10 ? 'mod' : 'set'}_vlan_vid:${v & 0xfffn}`;
    case 'vlan_pcp':
      return `${of === 10 ? 'mod' : 'set'}_vlan_pcp:${v}`;
    case 'vlan_tci': {
      // A TCI write becomes VID + PCP writes when it sets the present bit, else a pop.
      const set = of === 10 ? 'mod' : 'set';
      return v & 0x1000n
        ? `${set}_vlan_vid:${v & 0xfffn},${set}_vlan_pcp:${v >> 13n}`
        : of === 10
          ? 'strip_vlan'
          : 'pop_vlan';
    }
    default:
      return undefined;
  }
}

function formatWrite(a: ActionOf<'set_field'>, o: ActionFormatOptions): string {
  const whole = a.mask === fullMask(a.field);
  if (o.of >= 15 || !loadable(a.field)) return setFieldText(a, o);
  if (a.written === 'load') return loads(a.field, a.value, a.mask).join(',');
  if (o.of >= 12)
    return whole || a.written !== 'set_field' ? setFieldText(a, o) : loads(a.field, a.value, a.mask).join(',');
  return legacyWrite(a, o.of) ?? loads(a.field, a.value, a.mask).join(',');
}

function formatController(a: ActionOf<'controller'>): string {
  if (a.reason === 'action' && a.id === 0 && !a.userdata && !a.pause && a.meterId === undefined)
    return `CONTROLLER:${a.maxLen}`;
  const parts: string[] = [];
  if (a.reason !== 'action') parts.push(`reason=${a.reason}`);
  if (a.maxLen !== 0xffff) parts.push(`max_len=${a.maxLen}`);
  if (a.id !== 0) parts.push(`id=${a.id}`);
  if (a.userdata) parts.push(`userdata=${a.userdata.map((b) => b.toString(16).padStart(2, '0')).join('.')}`);
  if (a.pause) parts.push('pause');
  if (a.meterId !== undefined) parts.push(`meter_id=${a.meterId}`);
  return `controller(${parts.join(',')})`;
}

function natAddress(family: 4 | 6, v: bigint, bracket: boolean): string {
  if (family === 4) return formatIpv4(v);
  return bracket ? `[${formatIpv6(v)}]` : formatIpv6(v);
}

function formatNat(a: NatAction): string {
  if (!a.direction) return 'nat';
  let s = a.direction;
  const r = a.range;
  if (r) {
    const bracket = r.portMin !== undefined;
    s += `=${natAddress(r.family, r.addrMin, bracket)}`;
    if (r.addrMax !== undefined) s += `-${natAddress(r.family, r.addrMax, bracket)}`;
    if (r.portMin !== undefined) s += `:${r.portMin}`;
    if (r.portMax !== undefined) s += `-${r.portMax}`;
  }
  const flags = (['persistent', 'hash', 'random'] as const).filter((f) => a[f]);
  return `nat(${[s, ...flags].join(',')})`;
}

const ALG_NAMES: ReadonlyMap<number, string> = new Map([
  [21, 'ftp'],
  [69, 'tftp'],
]);

function formatCt(a: CtAction, o: ActionFormatOptions): string {
  const parts: string[] = [];
  if (a.commit) parts.push('commit');
  if (a.force) parts.push('force');
  if (a.table) parts.push(`table=${table(a.table)}`);
  if (a.zone?.kind === 'field') parts.push(`zone=${formatSubfield(a.zone.src)}`);
  else if (a.zone && a.zone.value !== 0) parts.push(`zone=${a.zone.value}`);
  // A leading NAT prints outside the exec(...) envelope; everything else goes inside it.
  let rest = a.actions;
  const first = rest[0];
  if (first?.kind === 'nat') {
    parts.push(formatNat(first));
    rest = rest.slice(1);
  }
  if (rest.length > 0) parts.push(`exec(${formatList(rest, o)})`);
  if (a.alg !== undefined && a.alg !== 0) parts.push(`alg=${ALG_NAMES.get(a.alg) ?? String(a.alg)}`);
  return `ct(${parts.join(',')})`;
}

function formatLearnSpec(s: LearnSpec, o: ActionFormatOptions): string {
  switch (s.kind) {
    case 'match_field':
      return s.dst.field === s.src.field && s.dst.start === s.src.start
        ? formatSubfield(s.dst)
        : `${formatSubfield(s.dst)}=${formatSubfield(s.src)}`;
    case 'match_value':
      return isWholeField(s.dst)
        ? `${s.dst.field.name}=${formatFieldValue(s.dst.field, s.value, undefined, o.portNames)}`
        : `${formatSubfield(s.dst)}=${hex(s.value)}`;
    case 'load_field':
      return `load:${formatSubfield(s.src)}->${formatSubfield(s.dst)}`;
    case 'load_value':
      return `load:${hex(s.value)}->${formatSubfield(s.dst)}`;
    case 'output':
      return `output:${formatSubfield(s.src)}`;
  }
}

function formatLearn(a: LearnAction, o: ActionFormatOptions): string {
  const parts = [`table=${table(a.table)}`];
  if (a.idleTimeout) parts.push(`idle_timeout=${a.idleTimeout}`);
  if (a.hardTimeout) parts.push(`hard_timeout=${a.hardTimeout}`);
  if (a.finIdleTimeout) parts.push(`fin_idle_timeout=${a.finIdleTimeout}`);
  if (a.finHardTimeout) parts.push(`fin_hard_timeout=${a.finHardTimeout}`);
  if (a.priority !== undefined && a.priority !== 32768) parts.push(`priority=${a.priority}`);
  if (a.sendFlowRem) parts.push('send_flow_rem');
  if (a.deleteLearned) parts.push('delete_learned');
  if (a.cookie) parts.push(`cookie=${hex(a.cookie)}`);
  if (a.limit) parts.push(`limit=${a.limit}`);
  if (a.resultDst) parts.push(`result_dst=${formatSubfield(a.resultDst)}`);
  for (const s of a.specs) parts.push(formatLearnSpec(s, o));
  return `learn(${parts.join(',')})`;
}

function idOrField(v: SampleAction['obsDomain']): string {
  return v.kind === 'value' ? String(v.value) : formatSubfield(v.src);
}

function formatSample(a: SampleAction, o: ActionFormatOptions): string {
  let s = `sample(probability=${a.probability},collector_set_id=${a.collectorSetId},obs_domain_id=${idOrField(a.obsDomain)},obs_point_id=${idOrField(a.obsPoint)}`;
  if (a.samplingPort) s += `,sampling_port=${port(a.samplingPort, o)}`;
  if (a.direction) s += `,${a.direction}`;
  return `${s})`;
}

/** Note payloads travel in 6 + 8k bytes (NXAST_NOTE padding), so OVS prints them padded. */
function formatNote(bytes: readonly number[]): string {
  const len = bytes.length <= 6 ? 6 : 6 + Math.ceil((bytes.length - 6) / 8) * 8;
  const padded = [...bytes, ...Array<number>(len - bytes.length).fill(0)];
  return `note:${padded.map((b) => b.toString(16).padStart(2, '0')).join('.')}`;
}

function formatResubmit(a: ActionOf<'resubmit'>, o: ActionFormatOptions): string {
  if (a.port && !a.table && !a.ct) return `resubmit:${port(a.port, o)}`;
  return `resubmit(${a.port ? port(a.port, o) : ''},${a.table ? table(a.table) : ''}${a.ct ? ',ct' : ''})`;
}

function formatVlanPush(a: { readonly pushIfUntagged: boolean; readonly flowHasVlan: boolean }): string {
  return a.pushIfUntagged && !a.flowHasVlan ? 'push_vlan:0x8100,' : '';
}

/** One action's text, or undefined when the version drops it silently (OF1.0 instructions). */
function formatOne(a: Action, o: ActionFormatOptions): string | undefined {
  const { of } = o;
  switch (a.kind) {
    case 'output':
      return a.maxLen === undefined ? outputTo(a.port, o) : `output(port=${port(a.port, o)},max_len=${a.maxLen})`;
    case 'output_field':
      return `output:${formatSubfield(a.src)}`;
    case 'controller':
      return formatController(a);
    case 'enqueue':
      return of === 10
        ? `enqueue:${port(a.port, o)}:${a.queue}`
        : `set_queue:${a.queue},${outputTo(a.port, o)},pop_queue`;
    case 'group':
      return `group:${a.id}`;
    case 'set_field':
      return formatWrite(a, o);
    case 'move':
      return `move:${formatSubfield(a.src)}->${formatSubfield(a.dst)}`;
    case 'set_vlan_vid':
      if (of === 10) return `mod_vlan_vid:${a.vid}`;
      return formatVlanPush(a) + (of === 11 ? `set_vlan_vid:${a.vid}` : `set_field:${a.vid | 0x1000}->vlan_vid`);
    case 'set_vlan_pcp':
      if (of === 10) return `mod_vlan_pcp:${a.pcp}`;
      return formatVlanPush(a) + (of === 11 ? `set_vlan_pcp:${a.pcp}` : `set_field:${a.pcp}->vlan_pcp`);
    case 'strip_vlan':
      return of === 10 ? 'strip_vlan' : 'pop_vlan';
    case 'push_vlan':
      return `push_vlan:${hex(a.ethertype)}`;
    case 'push_mpls':
      return `push_mpls:${hex(a.ethertype)}`;
    case 'pop_mpls':
      return `pop_mpls:0x${a.ethertype.toString(16).padStart(4, '0')}`;
    case 'set_mpls_ttl':
      return `set_mpls_ttl(${a.ttl})`;
    case 'set_ip_ttl':
      return of === 10 ? `load:${hex(a.ttl)}->NXM_NX_IP_TTL[]` : `mod_nw_ttl:${a.ttl}`;
    case 'dec_ttl':
      return a.ids.length === 0 ? 'dec_ttl' : `dec_ttl(${a.ids.join(',')})`;
    case 'encap': {
      const h = a.header;
      if (h.kind !== 'nsh') return `encap(${h.kind})`;
      const props = [
        ...(h.mdType === undefined ? [] : [`md_type=${h.mdType}`]),
        ...h.tlvs.map((t) => `tlv(${hex(t.tlvClass)},${t.type},0x${t.value.toString(16).padStart(t.length * 2, '0')})`),
      ];
      return props.length === 0 ? 'encap(nsh)' : `encap(nsh(${props.join(',')}))`;
    }
    case 'decap':
      return a.packetType ? `decap(packet_type(ns=${a.packetType.ns},type=${hex(a.packetType.type)}))` : 'decap()';
    case 'set_queue':
      return `set_queue:${a.queue}`;
    case 'delete_field':
      return `delete_field:${a.field.name}`;
    case 'fin_timeout': {
      const parts = [
        ...(a.idleTimeout !== undefined ? [`idle_timeout=${a.idleTimeout}`] : []),
        ...(a.hardTimeout !== undefined ? [`hard_timeout=${a.hardTimeout}`] : []),
      ];
      return `fin_timeout(${parts.join(',')})`;
    }
    case 'stack_push':
      return `push:${formatSubfield(a.src)}`;
    case 'stack_pop':
      return `pop:${formatSubfield(a.dst)}`;
    case 'resubmit':
      return formatResubmit(a, o);
    case 'goto_table':
      return of === 10 ? `resubmit(,${table(a.table)})` : `goto_table:${table(a.table)}`;
    case 'ct':
      return formatCt(a, o);
    case 'nat':
      return formatNat(a);
    case 'learn':
      return formatLearn(a, o);
    case 'conjunction':
      return `conjunction(${a.id},${a.clause}/${a.nClauses})`;
    case 'note':
      return formatNote(a.bytes);
    case 'clone':
      return `clone(${formatList(a.actions, o)})`;
    case 'multipath':
      return `multipath(${a.fields},${a.basis},${a.algorithm},${a.nLinks},${a.arg},${formatSubfield(a.dst)})`;
    case 'bundle': {
      const members = `members:${a.members.map((m) => port(m, o)).join(',')}`;
      const head = `${a.fields},${a.basis},${a.algorithm},ofport`;
      return a.dst ? `bundle_load(${head},${formatSubfield(a.dst)},${members})` : `bundle(${head},${members})`;
    }
    case 'sample':
      return formatSample(a, o);
    case 'check_pkt_larger':
      return `check_pkt_larger(${a.length})->${formatSubfield(a.dst)}`;
    case 'meter':
      return `meter:${a.id}`;
    case 'clear_actions':
      return of === 10 ? undefined : 'clear_actions';
    case 'write_actions':
      return of === 10 || a.actions.length === 0 ? undefined : `write_actions(${formatList(a.actions, o)})`;
    case 'write_metadata':
      return `write_metadata:${hex(a.value)}${a.mask === ones(64) ? '' : `/${hex(a.mask)}`}`;
    case 'unroll_xlate':
      return `unroll_xlate(table=${a.table}, cookie=${a.cookie})`;
    case 'unknown':
      return a.text;
    case 'dec_mpls_ttl':
    case 'dec_nsh_ttl':
    case 'pop_queue':
    case 'ct_clear':
    case 'exit':
    case 'debug_recirc':
    case 'debug_slow':
      return a.kind;
    default:
      return assertNever(a);
  }
}

function formatList(actions: readonly Action[], o: ActionFormatOptions): string {
  const out: string[] = [];
  for (const a of actions) {
    const s = formatOne(a, o);
    if (s !== undefined && s !== '') out.push(s);
  }
  return out.join(',');
}

/**
 * The action list exactly as `ovs-ofctl -O <of> parse-flow` prints it (after `actions=`); `drop`
 * when empty. See `versionProblems` for actions the version cannot carry.
 */
export function formatActions(actions: readonly Action[], options: ActionFormatOptions): string {
  const text = formatList(actions, options);
  return text === '' ? 'drop' : text;
}

/** Kinds an OpenFlow version cannot encode at all (OVS refuses the flow). */
const UNSUPPORTED: Readonly<Partial<Record<OfVersion, readonly Action['kind'][]>>> = {
  10: ['meter', 'write_metadata', 'encap', 'decap', 'dec_nsh_ttl'],
  11: ['meter', 'encap', 'decap', 'dec_nsh_ttl'],
  12: ['meter', 'encap', 'decap', 'dec_nsh_ttl'],
};

/**
 * Messages for actions that `formatActions` cannot represent faithfully in `of`: actions the
 * version cannot carry, and OF1.0 instructions that OVS drops silently.
 */
export function versionProblems(actions: readonly Action[], of: OfVersion): string[] {
  const out: string[] = [];
  const visit = (list: readonly Action[]): void => {
    for (const a of list) {
      if (UNSUPPORTED[of]?.includes(a.kind)) out.push(`${a.kind} cannot be encoded in OpenFlow 1.${of - 10}`);
      if (of === 10 && (a.kind === 'write_actions' || a.kind === 'clear_actions')) {
        out.push(`${a.kind} is an OpenFlow 1.1+ instruction; OpenFlow 1.0 drops it`);
      }
      if (a.kind === 'clone' || a.kind === 'write_actions') visit(a.actions);
      if (a.kind === 'ct') visit(a.actions);
    }
  };
  visit(actions);
  return out;
}
