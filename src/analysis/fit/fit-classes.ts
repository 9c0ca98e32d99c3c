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
import type { Flow, FlowOutline, Match, MatchField } from '../../model/flow.ts';
import type { TableRef } from '../../model/tables.ts';
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

/** What fitting reads of one match entry (see `ClassKeys`). */
function entryKey(e: MatchField, bits: ReadonlyMap<string, bigint>, stateStorages: ReadonlySet<string>): string {
  let key = `|${e.field.storage}`;
  const b = bits.get(e.field.storage);
  if (b !== undefined) key += `=${(e.value & b).toString(16)}/${(e.mask & b).toString(16)}`;
  // A sentence's bit field placeholder reads only a match whose mask covers its bits.
  if (stateStorages.has(e.field.storage)) key += `~${e.mask.toString(16)}`;
  if (e.port?.kind === 'name') key += JSON.stringify(e.port.name);
  return key;
}

/** Whether fitting reads values of a shape's varying storages in flows' matches, and in what their actions write. */
interface VaryingReads {
  readonly match: boolean;
  readonly writes: boolean;
}

/** What actionsKey reads of a list of conjunction actions alone. */
const CONJUNCTIONS_KEY = ';conjunction';

/**
 * Keys of flow classes under one profile's patterns: what fitting reads of a flow, its table,
 * priority and actions, each match field's presence and named port, and its value and mask under
 * the bits patterns match on.
 */
class ClassKeys {
  private readonly bits: ReadonlyMap<string, bigint>;
  private readonly written: ReadonlyMap<string, bigint>;
  private readonly writtenStorages: ReadonlySet<string>;
  private readonly stateStorages: ReadonlySet<string>;
  /** Lists a dump repeats (shared by the parser) are read once. */
  private readonly actionKeys = new Map<readonly Action[], string>();
  /** So are match entries (a dump's flows share all but an address of their matches). */
  private readonly entryKeys = new WeakMap<MatchField, string>();
  /** The outline whose key was made last, and the key (see outlineKey). */
  private lastOutline:
    | {
        readonly match: Match;
        readonly list: FlowOutline['actions'];
        readonly table: TableRef;
        readonly priority: number;
        readonly entry: number;
        readonly address: number;
        /** The bits of the address that the key reads (see addressBits). */
        readonly addressBits: number;
        readonly key: string;
      }
    | undefined;
  /** Whether a shape's varying storages (see FlowOutline) are any that fitting reads the values of. */
  private readonly readsVarying = new WeakMap<ReadonlySet<string>, VaryingReads>();

  constructor(profile: Profile) {
    this.bits = patternBits(profile);
    this.written = writtenBits(profile);
    this.writtenStorages = new Set(this.written.keys());
    this.stateStorages = new Set(profile.bitFields.flatMap((b) => fieldByName(b.field)?.storage ?? []));
  }

  key(flow: Flow): string {
    const outline = flow.outlineMatch;
    const varying = outline && flow.outlineVarying;
    if (outline !== undefined && varying === undefined) return this.outlineKey(flow, outline);
    // A line of a shape fits as its shape's first line does where the numbers that differ are
    // none that fitting reads: the key of its match, and that of its actions, is made from that
    // line's where it can be, so that the line is read again for the one only, or not at all.
    const reads = varying === undefined ? undefined : this.reads(varying);
    const { fields } = reads?.match === false ? outline! : flow.match;
    // Where the line's actions may write other values than its shape's line, it is told by those
    // values' numbers, which the actions need not be read for.
    const written = reads?.writes === true ? flow.writtenNumbers?.(this.writtenStorages) : undefined;
    const list = reads?.writes === false || written !== undefined ? flow.outlineActions! : flow.actions;
    let key = `${tableKey(flow.table)}|${flow.priority}|${list === 'conjunctions' ? CONJUNCTIONS_KEY : this.listKey(list)}${written ? `\0${written}` : ''}|${fields.length}`;
    for (const e of fields) key += this.sharedEntryKey(e);
    return key;
  }

  /** Whether fitting reads the values of any of the storages: those patterns match on, those they ask the writes of. */
  private reads(storages: ReadonlySet<string>): VaryingReads {
    let reads = this.readsVarying.get(storages);
    if (reads === undefined) {
      const all = [...storages];
      reads = { match: all.some((s) => this.bits.has(s)), writes: all.some((s) => this.written.has(s)) };
      this.readsVarying.set(storages, reads);
    }
    return reads;
  }

  /**
   * The key of a lazily read flow not of a shape, from its outline: its actions are the outline's
   * (or a list of conjunctions), its match the outline's with the address of one IPv4 entry in
   * place of the outline's. Neither is made: a dump repeats both across most of its flows.
   */
  private outlineKey(flow: Flow, outline: Match): string {
    const list = flow.outlineActions!;
    const { fields } = outline;
    const entry = flow.outlineEntry!;
    const address = flow.outlineAddress!;
    const { table, priority } = flow;
    // Flow after flow of a policy table is of the last one's outline, table and priority: its key is
    // the last one's when the address of its own is the same in the bits patterns read of it.
    const last = this.lastOutline;
    if (
      last !== undefined &&
      last.match === outline &&
      last.list === list &&
      last.table === table &&
      last.priority === priority &&
      last.entry === entry &&
      ((last.address ^ address) & last.addressBits) === 0
    )
      return last.key;
    let key = `${tableKey(table)}|${priority}|${list === 'conjunctions' ? CONJUNCTIONS_KEY : this.listKey(list)}|${fields.length}`;
    for (let i = 0; i < fields.length; i++) {
      const e = fields[i]!;
      key +=
        i === entry
          ? entryKey({ field: e.field, value: BigInt(address), mask: e.mask }, this.bits, this.stateStorages)
          : this.sharedEntryKey(e);
    }
    this.lastOutline = {
      match: outline,
      list,
      table,
      priority,
      entry,
      address,
      addressBits: this.addressBits(fields[entry]),
      key,
    };
    return key;
  }

  /**
   * The bits of an outline's address entry (see outlineKey) that its key reads, as int32: those
   * the profile's patterns match on.
   */
  private addressBits(e: MatchField | undefined): number {
    const bits = e === undefined ? undefined : this.bits.get(e.field.storage);
    return bits === undefined ? 0 : Number(BigInt.asIntN(32, bits));
  }

  private listKey(actions: readonly Action[]): string {
    let key = this.actionKeys.get(actions);
    if (key === undefined) this.actionKeys.set(actions, (key = actionsKey(actions, this.written)));
    return key;
  }

  private sharedEntryKey(e: MatchField): string {
    let key = this.entryKeys.get(e);
    if (key === undefined) this.entryKeys.set(e, (key = entryKey(e, this.bits, this.stateStorages)));
    return key;
  }
}

/**
 * The key of each flow's class under the profile's patterns: flows with one key fit the same
 * patterns of the profile, in every release.
 */
export function classKeyer(profile: Profile): (flow: Flow) => string {
  const keys = new ClassKeys(profile);
  return (flow) => keys.key(flow);
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
