/**
 * Every port a dump refers to: in the match fields that hold ports, in the actions of its flows and
 * group buckets (those it sends to, see `sentPorts`, and resubmits from) and as the buckets' watch ports.
 */
import { type Action, flattenActions, withoutRole } from './actions.ts';
import type { Flow, Group, Match } from './flow.ts';
import { portNameOnly } from './match.ts';
import type { PortRef } from './ports.ts';

const NO_PORTS: readonly PortRef[] = [];

/**
 * The ports an action sends the packet out of (output, enqueue), or picks one of (a bundle's
 * members; bundle_load's too, as an output by the field it loads sends there). Every list of
 * where flows send packets reads them here, so that a kind that sends is never left out.
 */
export function sentPorts(a: Action): readonly PortRef[] {
  switch (a.kind) {
    case 'output':
    case 'enqueue':
      return [a.port];
    case 'bundle':
      return a.members;
    default:
      withoutRole('sends', a);
      return NO_PORTS;
  }
}

/** Ports the actions send to or resubmit from. */
function actionPorts(actions: readonly Action[]): PortRef[] {
  return flattenActions(actions).flatMap((a) => {
    switch (a.kind) {
      case 'output':
      case 'enqueue':
      case 'bundle':
        return sentPorts(a);
      case 'resubmit':
        return a.port ? [a.port] : [];
      default:
        withoutRole('port', a);
        return [];
    }
  });
}

/**
 * Calls `visit` with each port reference of the flows and groups. A match entry that gives its
 * port by a name without a number is that name; any other is its number or reserved port. The
 * parts a lazily read flow shares with others (its outline) are visited once, however many
 * flows share them.
 */
export function eachPortRef(flows: Iterable<Flow>, groups: Iterable<Group>, visit: (ref: PortRef) => void): void {
  const seen = new Set<Match | readonly Action[]>();
  const matchPorts = (match: Match): void => {
    for (const e of match.fields) {
      if (e.field.format !== 'port') continue;
      const name = portNameOnly(e);
      if (name !== undefined) visit({ kind: 'name', name });
      else visit(e.port?.kind === 'reserved' ? e.port : { kind: 'number', number: Number(e.value) });
    }
  };
  for (const f of flows) {
    const match = f.outlineMatch;
    if (match === undefined) {
      matchPorts(f.match);
      for (const p of actionPorts(f.actions)) visit(p);
      continue;
    }
    // A line read by its shape may hold an input port number of its own.
    if (f.outlineVarying?.has('in_port') === true) matchPorts(f.match);
    else if (!seen.has(match)) {
      seen.add(match);
      matchPorts(match);
    }
    // Conjunction actions name no port.
    const actions = f.outlineActions!;
    if (actions !== 'conjunctions' && !seen.has(actions)) {
      seen.add(actions);
      for (const p of actionPorts(actions)) visit(p);
    }
  }
  for (const g of groups) {
    for (const b of g.buckets) {
      if (b.watchPort) visit(b.watchPort);
      for (const p of actionPorts(b.actions)) visit(p);
    }
  }
}
