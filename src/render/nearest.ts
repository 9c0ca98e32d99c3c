/**
 * The flow a dropped packet came nearest to matching (analysis/nearest-flow.ts), and what the
 * packet lacks for it, as JSON for conj --packet.
 */
import type { FieldMiss, NearestFlow } from '../analysis/nearest-flow.ts';
import type { MatchField } from '../model/flow.ts';
import { formatFieldValue, quotePortName } from '../syntax/field-value.ts';
import { flowJson } from './json.ts';

/** A match entry's value (and mask) in its field's syntax; a port by the name it was written with. */
export function entryValue(e: MatchField): string {
  return e.port?.kind === 'name' ? quotePortName(e.port.name) : formatFieldValue(e.field, e.value, e.mask);
}

/** Said when no flow of the table would take the packet further. */
export const NONE_NEAR = 'No flow there would take a packet of its input port and protocol further.';

function missJson(m: FieldMiss): Record<string, unknown> {
  return { field: m.wanted.field.name, wanted: entryValue(m.wanted), has: m.has ? entryValue(m.has) : null };
}

/**
 * The nearest flow, and each field of its match the packet does not satisfy: the value the flow
 * wants (with its mask) and the packet's own, or null when the packet gives none.
 */
export function nearestJson(near: NearestFlow): Record<string, unknown> {
  return { flow: flowJson(near.flow), differs: near.misses.map(missJson) };
}
