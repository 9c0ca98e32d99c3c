/**
 * OpenFlow action sets as Open vSwitch executes them (lib/ofp-actions.c, ofpacts_execute_action_set):
 * the set written by `write_actions`, and a group bucket, whose actions are an action set too.
 */
import { type Action, withoutRole } from '../../model/actions.ts';

/** Kinds of which only the last written runs, in this order (OVS's ACTION_SET_ORDER). */
const SLOTS: readonly Action['kind'][] = [
  'strip_vlan',
  'pop_mpls',
  'decap',
  'encap',
  'push_mpls',
  'push_vlan',
  'dec_ttl',
  'dec_mpls_ttl',
  'dec_nsh_ttl',
];

/** Field writes (and set_queue): every one runs, in the order written, after the slots. */
const SET_OR_MOVE: ReadonlySet<Action['kind']> = new Set([
  'set_field',
  'move',
  'set_vlan_vid',
  'set_vlan_pcp',
  'set_mpls_ttl',
  'set_ip_ttl',
  'set_queue',
]);

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
  const out: Action[] = [];
  for (const kind of SLOTS) {
    const last = set.findLast((a) => a.kind === kind);
    if (last) out.push(last);
  }
  out.push(...set.filter((a) => SET_OR_MOVE.has(a.kind)), final);
  return out;
}
