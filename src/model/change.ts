/**
 * An item (a flow, a group) of one dump against another: gone from the second, new in it, or the
 * same item rewritten. What the item is stays a separate axis, so that each kind of change is
 * handled once for every kind of item.
 */
export type Change<T> =
  | { readonly kind: 'removed' | 'added'; readonly item: T }
  | { readonly kind: 'changed'; readonly before: T; readonly after: T };

/** The item as the dump that held it first has it: the removed or changed one before, the added one after. */
export function firstSeen<T>(change: Change<T>): T {
  return change.kind === 'changed' ? change.before : change.item;
}
