/**
 * Every port a dump refers to: in the match fields that hold ports, in the actions of its flows and
 * group buckets (output, enqueue, resubmit, bundle members) and as the buckets' watch ports.
 */
import { type Action, flattenActions, withoutRole } from './actions.ts';
import type { Flow, Group, Match } from './flow.ts';
import { portNameOnly } from './match.ts';
import type { PortRef } from './ports.ts';

/** Ports the actions send to or resubmit from. */
function actionPorts(actions: readonly Action[]): PortRef[] {
  return flattenActions(actions).flatMap((a) => {
    switch (a.kind) {
      case 'output':
      case 'enqueue':
        return [a.port];
      case 'resubmit':
        return a.port ? [a.port] : [];
      case 'bundle':
        return a.members;
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
    const outline = f.outline;
    if (outline === undefined) {
      matchPorts(f.match);
      for (const p of actionPorts(f.actions)) visit(p);
      continue;
    }
    if (!seen.has(outline.match)) {
      seen.add(outline.match);
      matchPorts(outline.match);
    }
    // Conjunction actions name no port.
    if (outline.actions !== 'conjunctions' && !seen.has(outline.actions)) {
      seen.add(outline.actions);
      for (const p of actionPorts(outline.actions)) visit(p);
    }
  }
  for (const g of groups) {
    for (const b of g.buckets) {
      if (b.watchPort) visit(b.watchPort);
      for (const p of actionPorts(b.actions)) visit(p);
    }
  }
}
