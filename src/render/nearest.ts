/**
 * The flow a dropped packet came nearest to matching (analysis/trace/nearest-flow.ts), and what the
 * packet lacks for it: in words for trace's verdict, and as JSON for trace and conj --packet.
 */
import type { FieldMiss, NearestFlow, Setter } from '../analysis/trace/nearest-flow.ts';
import type { Flow, MatchField } from '../model/flow.ts';
import { tableLabel } from '../model/tables.ts';
import type { PortMap } from '../model/ports.ts';
import { formatFieldValue, quotePortName } from '../syntax/field-value.ts';
import { formatPriorityAndMatch } from './flow.ts';
import { flowJson } from './json.ts';
import { formatMatchEntry } from './match.ts';

/** A match entry's value (and mask) in its field's syntax; a port by the name it was written with. */
export function entryValue(e: MatchField): string {
  return e.port?.kind === 'name' ? quotePortName(e.port.name) : formatFieldValue(e.field, e.value, e.mask);
}

/** What the packet has instead of what `flow` wants: `the packet has tp_dst=8080 and gives no dl_src`. */
function lacks(flow: Flow, misses: readonly FieldMiss[], portNames?: PortMap): string {
  const options = portNames ? { portNames } : {};
  const entry = (e: MatchField): string => formatMatchEntry(e, flow.match, options);
  const has = misses.flatMap((m) => (m.has ? [entry(m.has)] : []));
  // Of a field the packet does not give, only the name: the flow beside it says the value.
  const none = misses.filter((m) => !m.has).map((m) => entry(m.wanted).split('=')[0]!);
  const clauses = [
    ...(has.length > 0 ? [`has ${has.join(', ')}`] : []),
    ...(none.length > 0 ? [`gives no ${none.join(', ')}`] : []),
  ];
  return `the packet ${clauses.join(' and ')}`;
}

/** `line 65 of table 80 (priority=200,dl_dst=…)`. */
function flowPlace(flow: Flow, portNames?: PortMap): string {
  return `line ${flow.origin.line} of table ${tableLabel(flow.table)} (${formatPriorityAndMatch(flow, portNames)})`;
}

/**
 * Why a field the pipeline sets does not hold what a flow wants: `set by line 65 of table 80
 * (…), but the packet took line 70 there instead: the packet has dl_dst=…`. The packet is not to
 * blame for a register.
 */
export function setterClause(setter: Setter, portNames?: PortMap): string {
  const where = `set by ${flowPlace(setter.flow, portNames)}`;
  if (!setter.reached) return `${where}, a table the packet never reached`;
  const took = setter.reached.took
    ? `took line ${setter.reached.took.origin.line} there instead`
    : 'matched no flow there';
  const why = setter.reached.misses.length > 0 ? `: ${lacks(setter.flow, setter.reached.misses, portNames)}` : '';
  return `${where}, but the packet ${took}${why}`;
}

/** What keeps the packet from the nearest flow: what it lacks itself, then the registers the pipeline did not set. */
function nearestWhy(near: NearestFlow, portNames?: PortMap): string {
  const own = near.misses.filter((m) => m.setBy === undefined);
  const set = near.misses.filter((m): m is FieldMiss & { readonly setBy: Setter } => m.setBy !== undefined);
  const field = (m: FieldMiss): string => formatMatchEntry(m.wanted, near.flow.match, portNames ? { portNames } : {});
  return [
    ...(own.length > 0 ? [lacks(near.flow, own, portNames)] : []),
    ...set.map((m) => `${field(m)} is ${setterClause(m.setBy, portNames)}`),
  ].join('; ');
}

/** Said when no flow of the table would take the packet further. */
export const NONE_NEAR = 'No flow there would take a packet of its input port and protocol further.';

/** `Nearest flow (line 11): priority=200,tcp,nw_dst=10.0.0.5,tp_dst=80 — the packet has tp_dst=8080`. */
export function nearestLine(near: NearestFlow | undefined, portNames?: PortMap): string {
  if (!near) return NONE_NEAR;
  return `Nearest flow (line ${near.flow.origin.line}): ${formatPriorityAndMatch(near.flow, portNames)} — ${nearestWhy(near, portNames)}`;
}

function missJson(m: FieldMiss): Record<string, unknown> {
  return {
    field: m.wanted.field.name,
    wanted: entryValue(m.wanted),
    has: m.has ? entryValue(m.has) : null,
    ...(m.setBy ? { setBy: setterJson(m.setBy) } : {}),
  };
}

/** The flow that would have set a register the nearest flow wants; what the packet took in its table and lacked for it, or null when it never reached that table. */
function setterJson(s: Setter): Record<string, unknown> {
  return {
    flow: flowJson(s.flow),
    reached: s.reached
      ? { took: s.reached.took ? flowJson(s.reached.took) : null, differs: s.reached.misses.map(missJson) }
      : null,
  };
}

/**
 * The nearest flow, and each field of its match the packet does not satisfy: the value the flow
 * wants (with its mask) and the packet's own, or null when the packet gives none.
 */
export function nearestJson(near: NearestFlow): Record<string, unknown> {
  return { flow: flowJson(near.flow), differs: near.misses.map(missJson) };
}
