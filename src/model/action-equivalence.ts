/**
 * The semantic form of an action list: the spellings Open vSwitch prints for one installed action
 * in different OpenFlow versions (reference ovs-actions.md §2) reduce to one canonical list, so
 * that dumps of the same switch in OpenFlow 1.0, 1.3 and 1.5 compare equal.
 *
 * Reductions:
 * - every constant field write (`load:`, `set_field:`, `mod_dl_*`, `mod_nw_*`, `mod_tp_*`,
 *   `set_tunnel[64]`, `mod_nw_ttl`, `set_mpls_*`) is one write of value/mask into the field's
 *   storage; consecutive writes into one field merge (the ≤ 64-bit `load:` pieces of a 128-bit
 *   write, `load:` of two bit ranges);
 * - `mod_vlan_vid`/`mod_vlan_pcp` on an untagged packet are `push_vlan:0x8100` plus the write,
 *   and every VLAN VID/PCP write is the same whatever its spelling;
 * - `enqueue:P:Q` is `set_queue:Q,output:P,pop_queue`;
 * - a final `resubmit(,N)` to a later table is `goto_table:N`, since OpenFlow 1.0 prints
 *   `goto_table` that way and cannot tell the two apart;
 * - `note:` payloads are compared zero-padded, as the switch stores them;
 * - ports and tables named with `--names` compare by number when the `Naming` knows them.
 */
import { type Action, type ActionOf, withoutRole } from './actions.ts';
import { type FieldDef, fieldByName } from './fields.ts';
import type { TableRef } from './tables.ts';
import { ones } from './values.ts';
import { type Naming, portKey, resolveTable, tableId } from './flow-key.ts';

/** One action of the canonical list: its comparison key and a node to show it with. */
export interface CanonicalAction {
  readonly key: string;
  /** The action as it is best shown (a merged write keeps the field it was written to). */
  readonly action: Action;
}

export interface EquivalenceContext {
  readonly naming: Naming;
  /** The table the flow is in; decides whether a final resubmit is a goto (absent inside nested lists). */
  readonly table?: TableRef;
}

const VLAN_VID = fieldByName('vlan_vid');
const VLAN_PCP = fieldByName('vlan_pcp');
const NW_TTL = fieldByName('nw_ttl');
const MPLS_TTL = fieldByName('mpls_ttl');
const NW_TOS = fieldByName('nw_tos');

function registryField(f: FieldDef | undefined, name: string): FieldDef {
  if (!f) throw new Error(`field registry lacks ${name}`);
  return f;
}

/** Where a write lands: the storage field, and the shift into it (ip_dscp is nw_tos bits 2–7). */
function writeTarget(f: FieldDef): { field: FieldDef; shift: bigint } {
  if (f.name === 'ip_dscp') return { field: registryField(NW_TOS, 'nw_tos'), shift: 2n };
  if (f.storage !== f.name) {
    const s = fieldByName(f.storage);
    // tcp_dst/udp_dst/sctp_dst are one storage; icmp_type (8 of tp_src's 16 bits) is not the same write.
    if (s && s.bits === f.bits) return { field: s, shift: 0n };
  }
  return { field: f, shift: 0n };
}

type SetField = ActionOf<'set_field'>;

function setField(field: FieldDef, value: bigint, mask = ones(field.bits)): SetField {
  return { kind: 'set_field', field, value: value & mask, mask, written: 'set_field' };
}

/** One action → the action(s) it is equivalent to, before merging. */
function expand(a: Action, ctx: EquivalenceContext): Action | Action[] {
  switch (a.kind) {
    case 'enqueue':
      return [{ kind: 'set_queue', queue: a.queue }, { kind: 'output', port: a.port }, { kind: 'pop_queue' }];
    case 'set_vlan_vid':
    case 'set_vlan_pcp': {
      const push: Action[] = a.pushIfUntagged && !a.flowHasVlan ? [{ kind: 'push_vlan', ethertype: 0x8100 }] : [];
      const write = a.kind === 'set_vlan_vid' ? vlanVid(a.vid) : vlanPcp(a.pcp);
      return [...push, write];
    }
    case 'set_field':
      if (a.field === VLAN_VID && a.mask === ones(13)) return [vlanVid(Number(a.value & 0xfffn))];
      if (a.field === VLAN_PCP && a.mask === ones(3)) return [vlanPcp(Number(a.value))];
      return a;
    case 'set_ip_ttl':
      return [setField(registryField(NW_TTL, 'nw_ttl'), BigInt(a.ttl))];
    case 'set_mpls_ttl':
      return [setField(registryField(MPLS_TTL, 'mpls_ttl'), BigInt(a.ttl))];
    case 'ct':
      return [{ ...a, actions: canonicalNodes(a.actions, nested(ctx)) }];
    case 'clone':
    case 'write_actions':
      return [{ ...a, actions: canonicalNodes(a.actions, nested(ctx)) }];
    default:
      withoutRole('respelled', a);
      return a;
  }
}

/** VLAN writes as the switch holds them: VID and PCP set on a tag that is (by then) present. */
function vlanVid(vid: number): Action {
  return { kind: 'set_vlan_vid', vid, pushIfUntagged: false, flowHasVlan: true };
}

function vlanPcp(pcp: number): Action {
  return { kind: 'set_vlan_pcp', pcp, pushIfUntagged: false, flowHasVlan: true };
}

function nested(ctx: EquivalenceContext): EquivalenceContext {
  return { naming: ctx.naming };
}

/** Consecutive writes into one storage are one write (a later write wins on shared bits). */
function mergeWrites(list: readonly Action[]): Action[] {
  const out: Action[] = [];
  for (const a of list) {
    const prev = out[out.length - 1];
    if (
      a.kind === 'set_field' &&
      prev?.kind === 'set_field' &&
      writeTarget(prev.field).field === writeTarget(a.field).field &&
      sameShift(prev, a)
    ) {
      out[out.length - 1] = { ...prev, value: (prev.value & ~a.mask) | a.value, mask: prev.mask | a.mask };
    } else out.push(a);
  }
  return out;
}

function sameShift(a: SetField, b: SetField): boolean {
  return a.field === b.field || writeTarget(a.field).shift === writeTarget(b.field).shift;
}

/** A final resubmit to a later table of the same packet is what OF1.0 prints for goto_table. */
function tailAsGoto(list: Action[], ctx: EquivalenceContext): Action[] {
  const last = list[list.length - 1];
  if (ctx.table === undefined || last?.kind !== 'resubmit' || last.port || last.ct || !last.table) return list;
  const target = resolveTable(last.table, ctx.naming);
  const here = resolveTable(ctx.table, ctx.naming);
  // goto_table only goes forward; with unresolved names the order is unknown, so give it the benefit.
  if (target.kind === 'number' && here.kind === 'number' && target.number <= here.number) return list;
  return [...list.slice(0, -1), { kind: 'goto_table', table: last.table }];
}

function canonicalNodes(actions: readonly Action[], ctx: EquivalenceContext): Action[] {
  const expanded: Action[] = [];
  for (const a of actions) {
    const e = expand(a, ctx);
    if (Array.isArray(e)) expanded.push(...e);
    else expanded.push(e);
  }
  return tailAsGoto(mergeWrites(expanded), ctx);
}

function hex(v: bigint): string {
  return v.toString(16);
}

/** Note payloads are padded with zeros to 6 + 8k bytes on the switch. */
function paddedNote(bytes: readonly number[]): string {
  const target = bytes.length <= 6 ? 6 : 6 + Math.ceil((bytes.length - 6) / 8) * 8;
  const padded = [...bytes, ...Array<number>(target - bytes.length).fill(0)];
  return padded.map((b) => b.toString(16).padStart(2, '0')).join('');
}

function isFieldDef(v: unknown): v is FieldDef {
  return typeof v === 'object' && v !== null && 'storage' in v && 'nxmNames' in v;
}

const PORT_KEYS = new Set(['port', 'samplingPort', 'watchPort']);

/** Stable text of any action node: ports and tables resolved, bigints in hex, fields by name. */
function genericKey(a: object, naming: Naming): string {
  return JSON.stringify(a, function (this: unknown, key: string, value: unknown): unknown {
    if (typeof value === 'bigint') return hex(value);
    if (isFieldDef(value)) return value.name;
    if (key === 'written' || key === 'actions') return undefined;
    if (typeof value === 'object' && value !== null && 'kind' in value) {
      if (PORT_KEYS.has(key)) return portKey(value as Parameters<typeof portKey>[0], naming);
      if (key === 'table') return tableId(value as Parameters<typeof tableId>[0], naming);
    }
    if (key === 'members' && Array.isArray(value))
      return value.map((p) => portKey(p as Parameters<typeof portKey>[0], naming));
    return value;
  });
}

function keyOf(a: Action, naming: Naming): string {
  switch (a.kind) {
    case 'set_field': {
      const t = writeTarget(a.field);
      return `set ${t.field.name}=${hex(a.value << t.shift)}/${hex(a.mask << t.shift)}`;
    }
    case 'output':
      return a.maxLen === undefined
        ? `output ${portKey(a.port, naming)}`
        : `output ${portKey(a.port, naming)} max_len=${a.maxLen}`;
    case 'goto_table':
      return `goto ${tableId(a.table, naming)}`;
    case 'resubmit':
      return `resubmit ${a.port ? portKey(a.port, naming) : ''},${a.table ? tableId(a.table, naming) : ''}${a.ct ? ',ct' : ''}`;
    case 'note':
      return `note ${paddedNote(a.bytes)}`;
    case 'ct': {
      const zone =
        a.zone === undefined ? '' : a.zone.kind === 'value' ? String(a.zone.value) : genericKey(a.zone.src, naming);
      const table = a.table ? tableId(a.table, naming) : '';
      return `ct ${a.commit ? 'commit,' : ''}${a.force ? 'force,' : ''}${table},${zone},${a.alg ?? ''}[${nestedKeys(a.actions, naming)}]`;
    }
    case 'clone':
    case 'write_actions':
      return `${a.kind}[${nestedKeys(a.actions, naming)}]`;
    case 'nat': {
      const r = a.range;
      const range = r
        ? `${r.family}:${hex(r.addrMin)}-${r.addrMax === undefined ? '' : hex(r.addrMax)}:${r.portMin ?? ''}-${r.portMax ?? ''}`
        : '';
      return `nat ${a.direction ?? ''}=${range}${a.persistent ? ',persistent' : ''}${a.hash ? ',hash' : ''}${a.random ? ',random' : ''}`;
    }
    default:
      withoutRole('keyed', a);
      return genericKey(a, naming);
  }
}

function nestedKeys(actions: readonly Action[], naming: Naming): string {
  let out = '';
  for (const a of actions) out += (out === '' ? '' : ';') + keyOf(a, naming);
  return out;
}

/** The canonical list of an action list, each action with its comparison key. */
export function canonicalActions(actions: readonly Action[], ctx: EquivalenceContext): CanonicalAction[] {
  return canonicalNodes(actions, ctx).map((action) => ({ key: keyOf(action, ctx.naming), action }));
}

/** One string that is equal for two action lists exactly when they are equivalent. */
export function actionsKey(actions: readonly Action[], ctx: EquivalenceContext): string {
  return canonicalNodes(actions, ctx)
    .map((a) => keyOf(a, ctx.naming))
    .join(';');
}

export function equivalentActions(a: readonly Action[], b: readonly Action[], ctx: EquivalenceContext): boolean {
  return actionsKey(a, ctx) === actionsKey(b, ctx);
}
