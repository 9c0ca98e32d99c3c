/**
 * The flow a dropped packet came nearest to matching (analysis/nearest-flow.ts), and what the
 * packet lacks for it: in words for trace's verdict, and as JSON for trace and conj --packet.
 */
import type { FieldMiss, NearestFlow } from '../analysis/nearest-flow.ts';
import type { MatchField } from '../model/flow.ts';
import type { PortMap } from '../model/ports.ts';
import { formatFieldValue, quotePortName } from '../syntax/field-value.ts';
import { formatPriorityAndMatch } from './flow.ts';
import { flowJson } from './json.ts';
import { formatMatchEntry } from './match.ts';

/** A match entry's value (and mask) in its field's syntax; a port by the name it was written with. */
export function entryValue(e: MatchField): string {
  return e.port?.kind === 'name' ? quotePortName(e.port.name) : formatFieldValue(e.field, e.value, e.mask);
}

/** What the packet has instead of what `near`'s flow wants: `the packet has tp_dst=8080 and gives no dl_src`. */
function lacks(near: NearestFlow, portNames?: PortMap): string {
  const options = portNames ? { portNames } : {};
  const entry = (e: MatchField): string => formatMatchEntry(e, near.flow.match, options);
  const has = near.misses.flatMap((m) => (m.has ? [entry(m.has)] : []));
  // Of a field the packet does not give, only the name: the flow beside it says the value.
  const none = near.misses.filter((m) => !m.has).map((m) => entry(m.wanted).split('=')[0]!);
  const clauses = [...(has.length > 0 ? [`has ${has.join(', ')}`] : []), ...(none.length > 0 ? [`gives no ${none.join(', ')}`] : [])];
  return `the packet ${clauses.join(' and ')}`;
}

/** Said when no flow of the table would take the packet further. */
export const NONE_NEAR = 'No flow there would take a packet of its input port and protocol further.';

/** `Nearest flow (line 11): priority=200,tcp,nw_dst=10.0.0.5,tp_dst=80 — the packet has tp_dst=8080`. */
export function nearestLine(near: NearestFlow | undefined, portNames?: PortMap): string {
  if (!near) return NONE_NEAR;
  return `Nearest flow (line ${near.flow.origin.line}): ${formatPriorityAndMatch(near.flow, portNames)} — ${lacks(near, portNames)}`;
}

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
