/**
 * The identity of a flow independent of how a dump spelled it: table, priority and normalised
 * match. Two flows with the same key occupy the same slot of the switch's classifier, so an
 * add-flow of one replaces the other (as `ovs-ofctl diff-flows` and the switch itself see it).
 *
 * Port and table names (`--names` dumps) are resolved to numbers when a `Naming` knows them, so
 * that a dump with names and one without key the same.
 */
import { type Action, nestsActions } from './actions.ts';
import { type Flow, type Match, type MatchField, matchOutline } from './flow.ts';
import { portNameOnly } from './match.ts';
import type { PortMap, PortRef } from './ports.ts';
import type { TableRef } from './tables.ts';
import { ones } from './values.ts';

/** What is known about the names a dump may use. */
export interface Naming {
  /** Port numbers ↔ names (`show`, `dump-ports-desc`, a bundle's port list). */
  readonly ports?: PortMap;
  /** Table name → number. */
  readonly tables?: ReadonlyMap<string, number>;
}

/** The port as a key: its number when known, the reserved port's name, else the quoted name. */
export function portKey(ref: PortRef, naming: Naming): string {
  switch (ref.kind) {
    case 'number':
      return String(ref.number);
    case 'reserved':
      // OFPP_NONE and OFPP_ANY are one number.
      return ref.name === 'NONE' ? 'ANY' : ref.name;
    case 'name': {
      const n = naming.ports?.number(ref.name);
      return n === undefined ? JSON.stringify(ref.name) : String(n);
    }
  }
}

/** The table as a number when it is one or its name is known. */
export function resolveTable(ref: TableRef, naming: Naming): TableRef {
  if (ref.kind === 'number') return ref;
  const n = naming.tables?.get(ref.name);
  return n === undefined ? ref : { kind: 'number', number: n };
}

/** `#N` for a numbered table, the (resolved-if-possible) name otherwise. */
export function tableId(ref: TableRef, naming: Naming): string {
  const r = resolveTable(ref, naming);
  return r.kind === 'number' ? `#${r.number}` : JSON.stringify(r.name);
}

/** A match field written with a port name, given the number the port map knows for it. */
function resolvePortField(e: MatchField, naming: Naming): MatchField {
  if (e.port?.kind !== 'name') return e;
  const n = naming.ports?.number(e.port.name);
  if (n === undefined) return e;
  return { field: e.field, value: BigInt(n), mask: e.mask, port: { kind: 'number', number: n } };
}

/** The match with port names replaced by numbers where the naming knows them. */
export function resolveMatchPorts(match: Match, naming: Naming): Match {
  if (!naming.ports || !match.fields.some((e) => e.port?.kind === 'name')) return match;
  return { fields: match.fields.map((e) => resolvePortField(e, naming)) };
}

const fullMasks = new Map<number, bigint>();

function isExact(e: MatchField): boolean {
  let full = fullMasks.get(e.field.bits);
  if (full === undefined) fullMasks.set(e.field.bits, (full = ones(e.field.bits)));
  return e.mask === full;
}

/** One entry of the match as `matchKey` (model/match.ts) identifies it, with exact masks left out to keep keys short. */
function entryKey(e: MatchField): string {
  const name = portNameOnly(e);
  const value = name === undefined ? e.value.toString(16) : JSON.stringify(name);
  return isExact(e) ? `${e.field.storage}=${value}` : `${e.field.storage}=${value}/${e.mask.toString(16)}`;
}

/**
 * The identity `matchKey` gives a match, in a shorter form: keys of a million-flow dump are
 * built and hashed twice per diff, so their length is most of its cost.
 */
function compactMatchKey(match: Match): string {
  const parts = match.fields.map(entryKey);
  for (let i = 1; i < parts.length; i++) {
    if (parts[i - 1]! > parts[i]!) {
      parts.sort();
      break;
    }
  }
  return parts.join(',');
}

/** Priority and normalised match, without the table. */
export function slotKey(flow: Flow, naming: Naming): string {
  return `${flow.priority} ${compactMatchKey(resolveMatchPorts(flow.match, naming))}`;
}

/** Table, priority and normalised match: equal exactly when the flows occupy the same classifier slot. */
export function flowKey(flow: Flow, naming: Naming): string {
  return `${tableId(flow.table, naming)} ${slotKey(flow, naming)}`;
}

/**
 * Table names of one dump resolved against another that numbers its tables, for comparing a
 * `--names` dump with a plain one when no table map is at hand. Each named flow votes for the
 * numbers under which the other dump holds a flow with the same priority and match, a vote
 * weighing less the more tables hold such a flow (every table has a `priority=0` miss flow).
 * Names are then given numbers greedily, strongest evidence first, one number per name; ties
 * go to the number that keeps names in the order of their first appearance, as unsorted dumps
 * list tables in ascending order.
 */
export function inferTableNumbers(
  named: readonly Flow[],
  numbered: readonly Flow[],
  naming: Naming,
): Map<string, number> {
  if (!named.some((f) => f.table.kind === 'name')) return new Map();
  const slots = new Map<string, Set<number>>();
  for (const f of numbered) {
    if (f.table.kind !== 'number') continue;
    const k = slotKey(f, naming);
    const set = slots.get(k);
    if (set) set.add(f.table.number);
    else slots.set(k, new Set([f.table.number]));
  }
  const weights = new Map<string, Map<number, number>>();
  for (const f of named) {
    if (f.table.kind !== 'name') continue;
    let tally = weights.get(f.table.name);
    if (!tally) weights.set(f.table.name, (tally = new Map()));
    const candidates = slots.get(slotKey(f, naming));
    if (!candidates) continue;
    for (const n of candidates) tally.set(n, (tally.get(n) ?? 0) + 1 / candidates.size);
  }
  const order = new Map([...weights.keys()].map((name, i) => [name, i]));
  const out = assignNumbers(weights, (name, n, chosen) => {
    const i = order.get(name)!;
    for (const [other, m] of chosen) if (order.get(other)! < i !== m < n) return false;
    return true;
  });
  for (const [name, n] of referencedTables(named, numbered, { ...naming, tables: out }))
    if (!out.has(name)) out.set(name, n);
  return out;
}

/**
 * Numbers given to names greedily, strongest evidence first, one number per name and one name
 * per number (none of `taken`); among equal weights the pair `preferred` keeps wins, then the
 * lower number.
 */
function assignNumbers(
  weights: ReadonlyMap<string, ReadonlyMap<number, number>>,
  preferred: (name: string, n: number, chosen: ReadonlyMap<string, number>) => boolean = () => true,
  taken: Set<number> = new Set(),
): Map<string, number> {
  const out = new Map<string, number>();
  for (;;) {
    let best: { name: string; n: number; w: number; ordered: boolean } | undefined;
    for (const [name, tally] of weights) {
      if (out.has(name)) continue;
      for (const [n, w] of tally) {
        if (taken.has(n)) continue;
        const ordered = preferred(name, n, out);
        const better =
          !best ||
          w > best.w + 1e-9 ||
          (Math.abs(w - best.w) <= 1e-9 && (ordered !== best.ordered ? ordered : n < best.n));
        if (better) best = { name, n, w, ordered };
      }
    }
    if (!best) return out;
    out.set(best.name, best.n);
    taken.add(best.n);
  }
}

/** The flow's slot with its one port-valued match entry left open (`in_port=?`), and that entry. */
function openPortSlot(flow: Flow, naming: Naming): { readonly key: string; readonly entry: MatchField } | undefined {
  let entry: MatchField | undefined;
  for (const e of flow.match.fields) {
    if (e.field.format !== 'port') continue;
    if (entry) return undefined;
    entry = e;
  }
  if (!entry) return undefined;
  const rest = { fields: flow.match.fields.filter((e) => e !== entry) };
  return {
    key: `${tableId(flow.table, naming)} ${flow.priority} ${entry.field.storage}=? ${compactMatchKey(resolveMatchPorts(rest, naming))}`,
    entry,
  };
}

/**
 * Port names of one dump resolved against another that gives ports by number, for comparing a
 * `--names` dump with a plain one when no port map is at hand: a flow that matches a named port
 * votes for the numbers the other dump's flows of the same table, priority and otherwise equal
 * match give in its place (a Pod's spoof-guard flows name its port, MAC and address), a vote
 * weighing less the more numbers are candidates. Numbers the naming already knows are not given.
 */
export function inferPortNumbers(
  named: readonly Flow[],
  numbered: readonly Flow[],
  naming: Naming,
): Map<string, number> {
  const unresolved = (e: MatchField): string | undefined => {
    const name = portNameOnly(e);
    return name !== undefined && naming.ports?.number(name) === undefined ? name : undefined;
  };
  // A lazily read flow's outline holds the ports its match holds; flows share outlines, each looked at once.
  const namesPorts = new Map<Match, boolean>();
  const wanted = named.filter((f) => {
    const m = matchOutline(f);
    let v = namesPorts.get(m);
    if (v === undefined) namesPorts.set(m, (v = m.fields.some((e) => unresolved(e) !== undefined)));
    return v;
  });
  if (wanted.length === 0) return new Map();
  const slots = new Map<string, Set<number>>();
  for (const f of numbered) {
    const slot = openPortSlot(f, naming);
    if (!slot || slot.entry.port !== undefined) continue;
    const set = slots.get(slot.key);
    if (set) set.add(Number(slot.entry.value));
    else slots.set(slot.key, new Set([Number(slot.entry.value)]));
  }
  const weights = new Map<string, Map<number, number>>();
  for (const f of wanted) {
    const slot = openPortSlot(f, naming);
    const name = slot && unresolved(slot.entry);
    const candidates = name === undefined ? undefined : slots.get(slot!.key);
    if (name === undefined || !candidates) continue;
    let tally = weights.get(name);
    if (!tally) weights.set(name, (tally = new Map()));
    for (const n of candidates) tally.set(n, (tally.get(n) ?? 0) + 1 / candidates.size);
  }
  const known = new Set<number>();
  for (const [n] of naming.ports?.entries() ?? []) known.add(n);
  return assignNumbers(weights, undefined, known);
}

/** Tables an action list sends packets to, in order (goto_table, resubmit, ct, learn; nested lists too). */
function tableRefs(actions: readonly Action[], out: TableRef[] = []): TableRef[] {
  for (const a of actions) {
    if ((a.kind === 'resubmit' || a.kind === 'ct') && a.table) out.push(a.table);
    else if (a.kind === 'goto_table' || a.kind === 'learn') out.push(a.table);
    if (nestsActions(a)) tableRefs(a.actions, out);
  }
  return out;
}

/**
 * Names of tables that hold no flows but are sent to (`resubmit(,L2Forwarding)`): a flow of the
 * named dump and its counterpart in the numbered dump name their targets in the same order, so
 * each unresolved name takes the number most counterparts give in its place.
 */
function referencedTables(named: readonly Flow[], numbered: readonly Flow[], naming: Naming): Map<string, number> {
  const unresolved = (t: TableRef): t is { kind: 'name'; name: string } =>
    t.kind === 'name' && !naming.tables?.has(t.name);
  const wanted = named.filter((f) => tableRefs(f.actions).some(unresolved));
  if (wanted.length === 0) return new Map();
  const byKey = new Map(numbered.map((f) => [flowKey(f, naming), f]));
  const votes = new Map<string, Map<number, number>>();
  for (const f of wanted) {
    const partner = byKey.get(flowKey(f, naming));
    if (!partner) continue;
    const mine = tableRefs(f.actions);
    const theirs = tableRefs(partner.actions);
    if (mine.length !== theirs.length) continue;
    mine.forEach((t, i) => {
      const other = theirs[i]!;
      if (!unresolved(t) || other.kind !== 'number') return;
      let tally = votes.get(t.name);
      if (!tally) votes.set(t.name, (tally = new Map()));
      tally.set(other.number, (tally.get(other.number) ?? 0) + 1);
    });
  }
  const out = new Map<string, number>();
  for (const [name, tally] of votes) {
    const [n] = [...tally].sort((x, y) => y[1] - x[1] || x[0] - y[0])[0]!;
    out.set(name, n);
  }
  return out;
}
