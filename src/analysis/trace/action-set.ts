/**
 * OpenFlow action sets as Open vSwitch executes them (lib/ofp-actions.c, ofpacts_execute_action_set):
 * the set written by `write_actions`, and a group bucket, whose actions are an action set too.
 */
import { type Action, type ActionKind, type KindsWith, withoutRole } from '../../model/actions.ts';

/**
 * The kinds of which an action set runs only the last written, each at its place in this order
 * (OVS's ACTION_SET_ORDER); a kind given the role and no place here does not compile.
 */
const SLOT: Readonly<Record<KindsWith<'set-slot'>, number>> = {
  strip_vlan: 0,
  pop_mpls: 1,
  decap: 2,
  encap: 3,
  push_mpls: 4,
  push_vlan: 5,
  dec_ttl: 6,
  dec_mpls_ttl: 7,
  dec_nsh_ttl: 8,
};

function slotOf(a: Action): number | undefined {
  return (SLOT as Partial<Record<ActionKind, number>>)[a.kind];
}

/** Field writes (and set_queue): an action set runs every one, in the order written, after the slots. */
function writesField(a: Action): boolean {
  switch (a.kind) {
    case 'set_field':
    case 'move':
    case 'set_vlan_vid':
    case 'set_vlan_pcp':
    case 'set_mpls_ttl':
    case 'set_ip_ttl':
    case 'set_queue':
      return true;
    default:
      withoutRole('set-write', a);
      return false;
  }
}

/**
 * `CONTROLLER:N` is how OVS prints an output to the controller port as well as a plain
 * `controller` action, and it reads the text back as the output: in an action set it is one.
 */
export function isControllerOutput(a: Action): a is Extract<Action, { kind: 'controller' }> {
  return (
    a.kind === 'controller' &&
    a.reason === 'action' &&
    a.id === 0 &&
    a.userdata === undefined &&
    !a.pause &&
    a.meterId === undefined
  );
}

/**
 * Rank of an action that ends an action set (OVS's ACTION_SET_FINAL_PRIORITY): of those written,
 * only the one of highest rank runs, the last written among equals; undefined for any other action.
 */
function finalRank(a: Action): number | undefined {
  switch (a.kind) {
    case 'ct':
      return 0;
    case 'ct_clear':
      return 1;
    case 'resubmit':
      return 2;
    case 'output':
      return 3;
    case 'group':
      return 4;
    case 'controller':
      return isControllerOutput(a) ? 3 : undefined;
    default:
      withoutRole('set-final', a);
      return undefined;
  }
}

/**
 * The action list an action set (its actions in the order written) executes as. Nothing runs
 * unless the set holds an output, group, resubmit, ct or ct_clear; actions an action set cannot
 * hold (output to a field, enqueue, a controller action with options…) are left out.
 */
export function actionSetList(set: readonly Action[]): Action[] {
  let final: Action | undefined;
  let rank = -1;
  for (const a of set) {
    const r = finalRank(a);
    if (r !== undefined && r >= rank) {
      final = a;
      rank = r;
    }
  }
  if (!final) return [];
  // The last written of each place, in the order of the places.
  const slots: Action[] = [];
  for (const a of set) {
    const slot = slotOf(a);
    if (slot !== undefined) slots[slot] = a;
  }
  return [...slots.filter((a) => a !== undefined), ...set.filter(writesField), final];
}
