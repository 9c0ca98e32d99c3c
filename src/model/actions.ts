/**
 * Typed action nodes: one variant per action Open vSwitch can print (ovs-actions(7)).
 * Values are bigint bits, fields are FieldDef references, ports PortRef, tables TableRef,
 * so analysis never re-parses action text.
 */
import type { FieldDef } from './fields.ts';
import type { PortRef } from './ports.ts';
import type { TableRef } from './tables.ts';

/** `NAME[a..b]`: `bits` bits of `field` starting at bit `start` (bit 0 = least significant). */
export interface Subfield {
  readonly field: FieldDef;
  readonly start: number;
  readonly bits: number;
}

/**
 * How a field write was spelled on input. OVS keeps this with the action and re-encodes it per
 * OpenFlow version, so the printed form depends on it (reference ovs-actions.md §2).
 */
export type FieldWriteSpelling =
  | 'set_field'
  | 'load'
  | 'mod_dl_src'
  | 'mod_dl_dst'
  | 'mod_nw_src'
  | 'mod_nw_dst'
  | 'mod_nw_tos'
  | 'mod_nw_ecn'
  | 'mod_tp_src'
  | 'mod_tp_dst'
  | 'set_tunnel'
  | 'set_tunnel64'
  | 'set_mpls_label'
  | 'set_mpls_tc';

export type ControllerReason = 'no_match' | 'action' | 'invalid_ttl' | 'action_set' | 'group' | 'packet_out';

export interface NatRange {
  readonly family: 4 | 6;
  readonly addrMin: bigint;
  readonly addrMax?: bigint;
  readonly portMin?: number;
  readonly portMax?: number;
}

export interface NatAction {
  readonly kind: 'nat';
  /** Absent for a bare `nat` (apply the existing mapping). */
  readonly direction?: 'src' | 'dst';
  readonly range?: NatRange;
  readonly persistent: boolean;
  readonly hash: boolean;
  readonly random: boolean;
}

/** `learn` spec entries: what the learned flow matches on and does. */
export type LearnSpec =
  /** Match `dst` on the current value of `src` (`FIELD[]` alone means dst = src). */
  | { readonly kind: 'match_field'; readonly dst: Subfield; readonly src: Subfield }
  /** Match `dst` on a constant. */
  | { readonly kind: 'match_value'; readonly dst: Subfield; readonly value: bigint }
  | { readonly kind: 'load_field'; readonly dst: Subfield; readonly src: Subfield }
  | { readonly kind: 'load_value'; readonly dst: Subfield; readonly value: bigint }
  | { readonly kind: 'output'; readonly src: Subfield };

export interface LearnAction {
  readonly kind: 'learn';
  readonly table: TableRef;
  readonly idleTimeout?: number;
  readonly hardTimeout?: number;
  readonly finIdleTimeout?: number;
  readonly finHardTimeout?: number;
  readonly priority?: number;
  readonly sendFlowRem: boolean;
  readonly deleteLearned: boolean;
  readonly cookie?: bigint;
  readonly limit?: number;
  readonly resultDst?: Subfield;
  readonly specs: readonly LearnSpec[];
}

export interface CtAction {
  readonly kind: 'ct';
  readonly commit: boolean;
  readonly force: boolean;
  readonly table?: TableRef;
  readonly zone?:
    { readonly kind: 'value'; readonly value: number } | { readonly kind: 'field'; readonly src: Subfield };
  /** `nat(...)` and the `exec(...)` actions, in the order OVS keeps them. */
  readonly actions: readonly Action[];
  /** Application-layer gateway by its well-known port (21 ftp, 69 tftp). */
  readonly alg?: number;
}

export interface SampleAction {
  readonly kind: 'sample';
  readonly probability: number;
  readonly collectorSetId: number;
  readonly obsDomain:
    { readonly kind: 'value'; readonly value: number } | { readonly kind: 'field'; readonly src: Subfield };
  readonly obsPoint:
    { readonly kind: 'value'; readonly value: number } | { readonly kind: 'field'; readonly src: Subfield };
  readonly samplingPort?: PortRef;
  readonly direction?: 'ingress' | 'egress';
}

export type BundleAlgorithm = 'active_backup' | 'hrw';
export type MultipathAlgorithm = 'modulo_n' | 'hash_threshold' | 'hrw' | 'iter_hash';
/** Hash field sets of `bundle`, `multipath` (lib/flow.c `flow_hash_fields`). */
export type HashFields =
  'eth_src' | 'symmetric_l4' | 'symmetric_l3l4' | 'symmetric_l3l4+udp' | 'nw_src' | 'nw_dst' | 'symmetric_l3';

export type EncapHeader =
  | { readonly kind: 'ethernet' }
  | { readonly kind: 'mpls' | 'mpls_mc' }
  /** `encap(nsh)` without properties leaves md_type to the datapath default (1). */
  | { readonly kind: 'nsh'; readonly mdType?: number; readonly tlvs: readonly NshTlv[] };

export interface NshTlv {
  readonly tlvClass: number;
  readonly type: number;
  readonly value: bigint;
  readonly length: number;
}

export type Action =
  | { readonly kind: 'output'; readonly port: PortRef; readonly maxLen?: number }
  | { readonly kind: 'output_field'; readonly src: Subfield }
  | {
      readonly kind: 'controller';
      readonly maxLen: number;
      readonly reason: ControllerReason;
      readonly id: number;
      readonly userdata?: readonly number[];
      readonly pause: boolean;
      readonly meterId?: number;
    }
  | { readonly kind: 'enqueue'; readonly port: PortRef; readonly queue: number }
  | { readonly kind: 'group'; readonly id: number }
  /** Any write of a constant into a field; value and mask are aligned to the whole field. */
  | {
      readonly kind: 'set_field';
      readonly field: FieldDef;
      readonly value: bigint;
      readonly mask: bigint;
      readonly written: FieldWriteSpelling;
    }
  | { readonly kind: 'move'; readonly src: Subfield; readonly dst: Subfield }
  /** `mod_vlan_vid` (pushes a tag on an untagged packet) or `set_vlan_vid` (does not). */
  | {
      readonly kind: 'set_vlan_vid';
      readonly vid: number;
      readonly pushIfUntagged: boolean;
      readonly flowHasVlan: boolean;
    }
  | {
      readonly kind: 'set_vlan_pcp';
      readonly pcp: number;
      readonly pushIfUntagged: boolean;
      readonly flowHasVlan: boolean;
    }
  | { readonly kind: 'strip_vlan' }
  | { readonly kind: 'push_vlan'; readonly ethertype: number }
  | { readonly kind: 'push_mpls'; readonly ethertype: number }
  | { readonly kind: 'pop_mpls'; readonly ethertype: number }
  | { readonly kind: 'set_mpls_ttl'; readonly ttl: number }
  | { readonly kind: 'dec_mpls_ttl' }
  | { readonly kind: 'set_ip_ttl'; readonly ttl: number }
  /** `dec_ttl`; `ids` are the controller ids for the invalid-TTL packet-in (empty = [0]). */
  | { readonly kind: 'dec_ttl'; readonly ids: readonly number[] }
  | { readonly kind: 'encap'; readonly header: EncapHeader }
  /** `decap()`; packet_type absent = the default (Ethernet-in-anything). */
  | { readonly kind: 'decap'; readonly packetType?: { readonly ns: number; readonly type: number } }
  | { readonly kind: 'dec_nsh_ttl' }
  | { readonly kind: 'set_queue'; readonly queue: number }
  | { readonly kind: 'pop_queue' }
  | { readonly kind: 'delete_field'; readonly field: FieldDef }
  | { readonly kind: 'fin_timeout'; readonly idleTimeout?: number; readonly hardTimeout?: number }
  | { readonly kind: 'stack_push'; readonly src: Subfield }
  | { readonly kind: 'stack_pop'; readonly dst: Subfield }
  | { readonly kind: 'resubmit'; readonly port?: PortRef; readonly table?: TableRef; readonly ct: boolean }
  | { readonly kind: 'goto_table'; readonly table: TableRef }
  | CtAction
  | NatAction
  | { readonly kind: 'ct_clear' }
  | LearnAction
  | { readonly kind: 'conjunction'; readonly id: number; readonly clause: number; readonly nClauses: number }
  | { readonly kind: 'note'; readonly bytes: readonly number[] }
  | { readonly kind: 'clone'; readonly actions: readonly Action[] }
  | { readonly kind: 'exit' }
  | {
      readonly kind: 'multipath';
      readonly fields: HashFields;
      readonly basis: number;
      readonly algorithm: MultipathAlgorithm;
      /** Number of links (OVS prints `max_link + 1`). */
      readonly nLinks: number;
      readonly arg: number;
      readonly dst: Subfield;
    }
  /** `bundle(...)` chooses an output port; `bundle_load(...)` (with `dst`) stores it instead. */
  | {
      readonly kind: 'bundle';
      readonly fields: HashFields;
      readonly basis: number;
      readonly algorithm: BundleAlgorithm;
      readonly members: readonly PortRef[];
      readonly dst?: Subfield;
    }
  | SampleAction
  | { readonly kind: 'check_pkt_larger'; readonly length: number; readonly dst: Subfield }
  | { readonly kind: 'meter'; readonly id: number }
  | { readonly kind: 'clear_actions' }
  | { readonly kind: 'write_actions'; readonly actions: readonly Action[] }
  | { readonly kind: 'write_metadata'; readonly value: bigint; readonly mask: bigint }
  | { readonly kind: 'unroll_xlate'; readonly table: number; readonly cookie: bigint }
  | { readonly kind: 'debug_recirc' }
  | { readonly kind: 'debug_slow' }
  /** Text the parser did not understand, kept verbatim. */
  | { readonly kind: 'unknown'; readonly text: string };

export type ActionKind = Action['kind'];

/** The action node of one kind. */
export type ActionOf<K extends ActionKind> = Extract<Action, { readonly kind: K }>;

/**
 * One entry per action kind. A table of this type, or a switch over `Action['kind']` ending in
 * `assertNever`, stops compiling when a kind is added without its entry: every layer that gives
 * actions a meaning (parser, printer, description, trace, check) says what the new kind does.
 */
export type PerActionKind<T> = { readonly [K in ActionKind]: T };

/** The end of an exhaustive switch: reached only by a kind the switch forgot, which tsc refuses. */
export function assertNever(a: never): never {
  throw new Error(`action kind ${(a as { readonly kind?: unknown }).kind as string} has no entry here`);
}

/**
 * What a kind takes part in besides its parser, printer, description, trace step and check facts:
 * - `exit`: it continues in a table, hands the packet to a group or ends in a sink (`actionExits`);
 * - `port`: it names a port (`model/port-refs.ts`);
 * - `sends`: it sends the packet out a port it names, or picks one of the ports it names (`sentPorts`, same file);
 * - `respelled`: the switch holds it in another spelling (`expand` in `model/action-equivalence.ts`);
 * - `keyed`: it is compared by a key of its own, not by its fields (`keyOf`, same file);
 * - `prerequisite`: it needs a match on the packet's protocol or changes it (`syntax/consistency.ts`);
 * - `set-final`: it ends an action set (`finalRank` in `analysis/trace/action-set.ts`);
 * - `set-slot`: an action set runs only the last one written, in its kind's place (`SLOT`, same file);
 * - `set-write`: an action set runs every one written, in order, after the slots (`writesField`, same file).
 */
export type ActionRole =
  'exit' | 'port' | 'sends' | 'respelled' | 'keyed' | 'prerequisite' | 'set-final' | 'set-slot' | 'set-write';

type RolesOf<T extends PerActionKind<ActionRole>> = T;

/**
 * The roles of each kind (`never`: none). A kind added to `Action` needs its entry here, and each
 * switch over the kinds of a role (ending in `withoutRole`) then refuses to compile until it has a
 * case for every kind given that role.
 */
export type ActionRoles = RolesOf<{
  output: 'exit' | 'port' | 'sends' | 'keyed' | 'set-final';
  output_field: 'exit' | 'prerequisite';
  controller: 'exit' | 'set-final';
  enqueue: 'exit' | 'port' | 'sends' | 'respelled';
  group: 'exit' | 'set-final';
  set_field: 'respelled' | 'keyed' | 'prerequisite' | 'set-write';
  move: 'prerequisite' | 'set-write';
  set_vlan_vid: 'respelled' | 'set-write';
  set_vlan_pcp: 'respelled' | 'set-write';
  strip_vlan: 'set-slot';
  push_vlan: 'set-slot';
  push_mpls: 'prerequisite' | 'set-slot';
  pop_mpls: 'prerequisite' | 'set-slot';
  set_mpls_ttl: 'respelled' | 'set-write';
  dec_mpls_ttl: 'set-slot';
  set_ip_ttl: 'respelled' | 'set-write';
  dec_ttl: 'set-slot';
  encap: 'prerequisite' | 'set-slot';
  decap: 'prerequisite' | 'set-slot';
  dec_nsh_ttl: 'set-slot';
  set_queue: 'set-write';
  pop_queue: never;
  delete_field: never;
  fin_timeout: never;
  stack_push: 'prerequisite';
  stack_pop: 'prerequisite';
  resubmit: 'exit' | 'port' | 'keyed' | 'prerequisite' | 'set-final';
  goto_table: 'exit' | 'keyed';
  ct: 'exit' | 'respelled' | 'keyed' | 'prerequisite' | 'set-final';
  nat: 'keyed';
  ct_clear: 'set-final';
  learn: 'prerequisite';
  conjunction: never;
  note: 'keyed';
  clone: 'exit' | 'respelled' | 'keyed' | 'prerequisite';
  exit: never;
  multipath: 'prerequisite';
  bundle: 'exit' | 'port' | 'sends';
  sample: never;
  check_pkt_larger: 'prerequisite';
  meter: never;
  clear_actions: never;
  write_actions: 'exit' | 'respelled' | 'keyed' | 'prerequisite';
  write_metadata: never;
  unroll_xlate: never;
  debug_recirc: 'prerequisite';
  debug_slow: 'prerequisite';
  unknown: never;
}>;

/** The kinds that have `role`. */
export type KindsWith<R extends ActionRole> = {
  [K in ActionKind]: R extends ActionRoles[K] ? K : never;
}[ActionKind];

/**
 * The end of a switch over the kinds of `role`: only actions of the kinds without it reach it, and
 * a switch that forgets a kind of the role does not compile.
 */
export function withoutRole<R extends ActionRole>(_role: R, _a: ActionOf<Exclude<ActionKind, KindsWith<R>>>): void {
  // Nothing to do: the types are the check.
}

/** Actions that hold actions of their own (ct's exec and nat, clone, write_actions): those with a list of them. */
export type NestingAction = Extract<Action, { readonly actions: readonly Action[] }>;

export function nestsActions(a: Action): a is NestingAction {
  switch (a.kind) {
    case 'ct':
    case 'clone':
    case 'write_actions':
      return true;
    default:
      nestsNone(a);
      return false;
  }
}

/** The end of nestsActions: a kind that holds actions and has no case there does not compile. */
function nestsNone(_a: Exclude<Action, NestingAction>): void {
  // Nothing to do: the types are the check.
}

/**
 * The actions, with those nested in `ct(exec(…))`, `clone(…)` and `write_actions(…)` after their
 * parent. Most flows nest nothing and get their own list back: this runs for every flow of a dump.
 */
export function flattenActions(actions: readonly Action[]): readonly Action[] {
  if (!actions.some(nestsActions)) return actions;
  const out: Action[] = [];
  const add = (list: readonly Action[]): void => {
    for (const a of list) {
      out.push(a);
      if (nestsActions(a)) add(a.actions);
    }
  };
  add(actions);
  return out;
}

/**
 * Whether a list is of several conjunctions (as clause flows' are, led by their first): the reader
 * shares few such lists among flows, as most name every rule that uses one address. What is kept
 * by such a list (its words, an explanation) would live as long as its flow, for no other to ask.
 */
export function severalConjunctions(actions: readonly Action[]): boolean {
  return actions.length > 1 && actions[0]!.kind === 'conjunction';
}
