/**
 * Flows that a profile's patterns cannot tell apart, counted once. Choosing a layout and a release
 * fits every sampled flow to every layout and release; most of a large dump's flows are policy and
 * Service rules of a few kinds that differ only in addresses no pattern looks at, so each kind is
 * fitted once and its verdict counts for all of its flows. The classes are exact: two flows share
 * one only when every pattern of the profile (in any release) fits both or neither, so the counts
 * are those that fitting each flow would give — pattern matches, action hints, named input ports
 * and the placeholders a pattern's sentence needs filled (`sentence-template.ts`) included.
 */
import { type Action, flattenActions } from '../../model/actions.ts';
import { fieldByName } from '../../model/fields.ts';
import type { Flow, MatchField } from '../../model/flow.ts';
import { tableKey } from '../../model/pipeline.ts';
import type { Profile } from '../../profiles/types.ts';
import { parsePattern, valueHint } from './pattern-fit.ts';

export interface FlowClass {
  /** Any of the flows: the one fitted for all. */
  readonly flow: Flow;
  readonly count: number;
}

/**
 * Per storage, every bit a pattern of the profile matches on. A flow's bits outside these never
 * decide whether a pattern fits it: patterns compare values under their own masks only.
 */
function patternBits(profile: Profile): Map<string, bigint> {
  const bits = new Map<string, bigint>();
  for (const t of profile.tables) {
    for (const p of t.patterns) {
      for (const e of parsePattern(p.match).match.fields)
        bits.set(e.field.storage, (bits.get(e.field.storage) ?? 0n) | e.mask);
    }
  }
  return bits;
}

/** Per storage, every bit a `set:F=V/M` hint of the profile asks about the values written. */
function writtenBits(profile: Profile): Map<string, bigint> {
  const bits = new Map<string, bigint>();
  for (const t of profile.tables) {
    for (const p of t.patterns) {
      for (const h of p.actions ?? []) {
        const v = valueHint(h);
        if (v) bits.set(v.field.storage, (bits.get(v.field.storage) ?? 0n) | v.mask);
      }
    }
  }
  return bits;
}

/** Bits per storage, as text: layouts of one profile share their patterns, hence their classes. */
function bitsKey(bits: ReadonlyMap<string, bigint>): string {
  return [...bits].map(([s, m]) => `${s}/${m.toString(16)}`).join(',');
}

/**
 * What the hints of patterns (`hintHolds`) and the table edges (`jumpTargets`) read of an action
 * list: each action's kind, with the ports it outputs to, the storage it writes, and for `ct`
 * whether it commits, NATs and where it continues, and the written values under the bits value
 * hints ask about. Lists that differ elsewhere (addresses, other values, group and conjunction
 * ids) fit alike; a new kind of hint must be told here too.
 */
function actionsKey(actions: readonly Action[], written: ReadonlyMap<string, bigint>): string {
  let key = '';
  let last = '';
  for (const a of flattenActions(actions)) {
    let entry = `;${a.kind}`;
    let jumps = false;
    if (a.kind === 'output') entry += a.port.kind === 'reserved' ? `:${a.port.name}` : ':port';
    // The mask too: a sentence's bit field placeholder reads only writes that cover its bits.
    else if (a.kind === 'set_field') {
      entry += `:${a.field.storage}/${a.mask.toString(16)}`;
      const w = written.get(a.field.storage);
      if (w !== undefined) entry += `=${(a.value & w).toString(16)}/${(a.mask & w).toString(16)}`;
    } else if (a.kind === 'move') entry += `:${a.dst.field.storage}`;
    else if (a.kind === 'goto_table' || a.kind === 'resubmit' || a.kind === 'ct') {
      if (a.table) entry += `:${tableKey(a.table)}`;
      if (a.kind === 'ct') entry += `:${a.commit}:${a.actions.some((n) => n.kind === 'nat')}`;
      jumps = a.table !== undefined;
    }
    // Hints ask whether an action is there, not how often; each jump counts on its own.
    if (entry === last && !jumps) continue;
    key += entry;
    last = entry;
  }
  return key;
}

/**
 * What fitting reads of a flow: its table, priority and actions, each match field's presence and
 * named port, and its value and mask under the bits patterns match on.
 */
function classKey(
  flow: Flow,
  bits: ReadonlyMap<string, bigint>,
  written: ReadonlyMap<string, bigint>,
  stateStorages: ReadonlySet<string>,
  actionKeys: Map<readonly Action[], string>,
  entryKeys: WeakMap<MatchField, string>,
): string {
  let actions = actionKeys.get(flow.actions);
  if (actions === undefined) actionKeys.set(flow.actions, (actions = actionsKey(flow.actions, written)));
  let key = `${tableKey(flow.table)}|${flow.priority}|${actions}|${flow.match.fields.length}`;
  for (const e of flow.match.fields) {
    let entry = entryKeys.get(e);
    if (entry === undefined) entryKeys.set(e, (entry = entryKey(e, bits, stateStorages)));
    key += entry;
  }
  return key;
}

/** What fitting reads of one match entry (see `classKey`). */
function entryKey(e: MatchField, bits: ReadonlyMap<string, bigint>, stateStorages: ReadonlySet<string>): string {
  let key = `|${e.field.storage}`;
  const b = bits.get(e.field.storage);
  if (b !== undefined) key += `=${(e.value & b).toString(16)}/${(e.mask & b).toString(16)}`;
  // A sentence's bit field placeholder reads only a match whose mask covers its bits.
  if (stateStorages.has(e.field.storage)) key += `~${e.mask.toString(16)}`;
  if (e.port?.kind === 'name') key += JSON.stringify(e.port.name);
  return key;
}

/**
 * The key of each flow's class under the profile's patterns: flows with one key fit the same
 * patterns of the profile, in every release.
 */
export function classKeyer(profile: Profile): (flow: Flow) => string {
  const bits = patternBits(profile);
  const written = writtenBits(profile);
  // Lists a dump repeats (shared by the parser) are read once.
  const actionKeys = new Map<readonly Action[], string>();
  // So are match entries (a dump's flows share all but an address of their matches).
  const entryKeys = new WeakMap<MatchField, string>();
  const stateStorages = new Set(profile.bitFields.flatMap((b) => fieldByName(b.field)?.storage ?? []));
  return (flow) => classKey(flow, bits, written, stateStorages, actionKeys, entryKeys);
}

const cache = new WeakMap<readonly Flow[], Map<string, readonly FlowClass[]>>();

/** The flows in classes the profile's patterns cannot tell apart, in the order each class first appears. */
export function fitClasses(profile: Profile, flows: readonly Flow[]): readonly FlowClass[] {
  // Layouts of one profile share their bit fields as well as their patterns.
  const signature = `${bitsKey(patternBits(profile))};${bitsKey(writtenBits(profile))}#${profile.id}`;
  let byBits = cache.get(flows);
  if (!byBits) cache.set(flows, (byBits = new Map()));
  const known = byBits.get(signature);
  if (known) return known;
  const keyOf = classKeyer(profile);
  const classes = new Map<string, { flow: Flow; count: number }>();
  for (const flow of flows) {
    const key = keyOf(flow);
    const c = classes.get(key);
    if (c) c.count++;
    else classes.set(key, { flow, count: 1 });
  }
  const list = [...classes.values()];
  byBits.set(signature, list);
  return list;
}
