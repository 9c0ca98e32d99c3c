/**
 * `resubmit:NAME` resubmits to port NAME in ovs-ofctl's syntax, but Antrea's flow formatter
 * (pkg/ovs/openflow/utils.go, nxActionResubmitTableToString) writes a resubmit to table NAME that
 * way, and its listings (the agent's pipeline and client tests) get pasted as dumps. Where NAME is
 * no port of the dump and the dump has a table of that name, the flow can only mean the table:
 * it is read as `resubmit(,NAME)`.
 */
import { type Action, nestsActions } from '../model/actions.ts';
import { type Flow, type Group, withActions } from '../model/flow.ts';
import type { PortMap } from '../model/ports.ts';

const RESUBMIT = /resubmit/i;

/**
 * Actions with the flow's resubmits, when it may have any: a lazily read flow's outline (its
 * resubmits' ports and tables are the flow's, and a million flows share a few outlines), none
 * for conjunctions alone; for any other flow its own, when its text says `resubmit` (action
 * names are read in any case).
 */
function resubmitActions(f: Flow): readonly Action[] | undefined {
  const outline = f.outlineActions;
  if (outline !== undefined) return outline === 'conjunctions' ? undefined : outline;
  return RESUBMIT.test(f.origin.text) ? f.actions : undefined;
}

/** Port names that `resubmit:NAME` actions give and the port map does not know. */
function strangerNames(actions: readonly Action[], ports: PortMap, out: Set<string>): void {
  for (const a of actions) {
    if (
      a.kind === 'resubmit' &&
      a.port?.kind === 'name' &&
      a.table === undefined &&
      ports.number(a.port.name) === undefined
    )
      out.add(a.port.name);
    else if (nestsActions(a)) strangerNames(a.actions, ports, out);
  }
}

/** Tables the dump names: those its flows are in and those its flows and buckets jump to. */
function namedTables(flows: readonly Flow[], groups: readonly Group[]): Set<string> {
  const names = new Set<string>();
  const jumps = (actions: readonly Action[]): void => {
    for (const a of actions) {
      if ((a.kind === 'goto_table' || a.kind === 'resubmit' || a.kind === 'ct') && a.table?.kind === 'name')
        names.add(a.table.name);
      if (nestsActions(a)) jumps(a.actions);
    }
  };
  for (const f of flows) {
    if (f.table.kind === 'name') names.add(f.table.name);
    jumps(f.actions);
  }
  for (const g of groups) for (const b of g.buckets) jumps(b.actions);
  return names;
}

/** The actions with each `resubmit:NAME` of a table in `tables` made a table resubmit; undefined when none is. */
function rewritten(actions: readonly Action[], tables: ReadonlySet<string>): readonly Action[] | undefined {
  let out: Action[] | undefined;
  for (let i = 0; i < actions.length; i++) {
    const a = actions[i]!;
    let b: Action = a;
    if (a.kind === 'resubmit' && a.port?.kind === 'name' && a.table === undefined && tables.has(a.port.name)) {
      b = { kind: 'resubmit', table: { kind: 'name', name: a.port.name }, ct: a.ct };
    } else if (nestsActions(a)) {
      const inner = rewritten(a.actions, tables);
      if (inner) b = { ...a, actions: inner };
    }
    if (b !== a) (out ??= actions.slice())[i] = b;
  }
  return out;
}

/** Port names that `resubmit:NAME` actions of the flows and buckets give and the port map does not know. */
export function strangerPorts(flows: readonly Flow[], groups: readonly Group[], ports: PortMap): Set<string> {
  const strangers = new Set<string>();
  // Action lists are shared by many flows, mostly by flows in a row: each is looked through once.
  const seen = new Set<readonly Action[]>();
  let last: readonly Action[] | undefined;
  // Indexed, as flowsByTable's loop is: an iterator allocates a result for each flow.
  for (let i = 0; i < flows.length; i++) {
    const actions = resubmitActions(flows[i]!);
    if (actions === undefined || actions === last) continue;
    last = actions;
    if (seen.has(actions)) continue;
    seen.add(actions);
    strangerNames(actions, ports, strangers);
  }
  for (const g of groups) for (const b of g.buckets) strangerNames(b.actions, ports, strangers);
  return strangers;
}

/**
 * Reads `resubmit:NAME` as a resubmit to table NAME where NAME is no port the dump knows and a
 * table it names, in place in `flows` and `groups`. False when no flow or bucket resubmits to a
 * port by name (none found, no port known), true when some may.
 */
export function readTableResubmits(flows: Flow[], groups: Group[], ports: PortMap): boolean {
  const strangers = strangerPorts(flows, groups, ports);
  if (strangers.size === 0) return ports.size > 0;
  const known = namedTables(flows, groups);
  const tables = new Set([...strangers].filter((n) => known.has(n)));
  if (tables.size === 0) return true;
  // Action lists recur across a dump: each is rewritten once.
  const done = new Map<readonly Action[], readonly Action[] | undefined>();
  const fix = (actions: readonly Action[]): readonly Action[] | undefined => {
    if (!done.has(actions)) done.set(actions, rewritten(actions, tables));
    return done.get(actions);
  };
  for (let i = 0; i < flows.length; i++) {
    const f = flows[i]!;
    const actions = resubmitActions(f) ? fix(f.actions) : undefined;
    if (actions) flows[i] = withActions(f, actions);
  }
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i]!;
    if (!g.buckets.some((b) => fix(b.actions))) continue;
    groups[i] = { ...g, buckets: g.buckets.map((b) => ({ ...b, actions: fix(b.actions) ?? b.actions })) };
  }
  return true;
}
