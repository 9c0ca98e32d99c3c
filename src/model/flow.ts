/** The typed pipeline model: flows, matches, groups. */
import type { Action } from './actions.ts';
import type { FieldDef } from './fields.ts';
import type { OfVersion } from './openflow.ts';
import type { PortRef } from './ports.ts';
import type { TableRef } from './tables.ts';

/** One matched field. `mask` is all ones (of the field's width) for an exact match. */
export interface MatchField {
  readonly field: FieldDef;
  readonly value: bigint;
  readonly mask: bigint;
  /**
   * Set when a port-valued field was written as a port name or reserved port. A name read without
   * a port map has no number: `value` is then 0, which is no port (see `portNameOnly`).
   */
  readonly port?: PortRef;
}

/** A flow's match, normalised: aliases resolved, protocol keywords expanded, one entry per field. */
export interface Match {
  readonly fields: readonly MatchField[];
}

export type FlowFlag =
  | 'send_flow_rem'
  | 'check_overlap'
  | 'reset_counts'
  | 'no_packet_counts'
  | 'no_byte_counts'
  | 'allow_hidden_fields'
  | 'no_readonly_table';

export const FLOW_FLAGS: readonly FlowFlag[] = [
  'send_flow_rem',
  'check_overlap',
  'reset_counts',
  'no_packet_counts',
  'no_byte_counts',
  'allow_hidden_fields',
  'no_readonly_table',
];

/** What a flow_mod carries besides match and actions that some OpenFlow versions have no room for. */
export type VersionedPart = FlowFlag | 'importance';

/**
 * The first OpenFlow version whose flow_mod carries each part; `undefined` for the two flags that
 * only steer how ovs-ofctl reads a flow and are never sent. OpenFlow 1.0 and 1.1 have no
 * reset_counts because there every add resets the counters; importance came with 1.4, and
 * ovs-ofctl drops it, without a word, from a flow of an earlier version.
 */
const SINCE: Readonly<Record<VersionedPart, OfVersion | undefined>> = {
  send_flow_rem: 10,
  check_overlap: 10,
  reset_counts: 12,
  no_packet_counts: 13,
  no_byte_counts: 13,
  allow_hidden_fields: undefined,
  no_readonly_table: undefined,
  importance: 14,
};

/** Whether a flow_mod of version `of` carries `part`. */
export function carriedIn(part: VersionedPart, of: OfVersion): boolean {
  return (SINCE[part] ?? Infinity) <= of;
}

/** The flags a flow_mod of version `of` carries, in the order OVS prints them. */
export function flagsCarried(flags: readonly FlowFlag[], of: OfVersion): FlowFlag[] {
  return FLOW_FLAGS.filter((f) => flags.includes(f) && carriedIn(f, of));
}

/** Counters as dumped; `null` where the switch printed `?` (unknown). */
export interface FlowStats {
  /** Text as printed, without the `s` (`12.434`). */
  readonly duration?: string;
  readonly packets?: bigint | null;
  readonly bytes?: bigint | null;
  readonly idleAge?: number;
  readonly hardAge?: number;
}

/** Where a flow or group came from. */
export interface Origin {
  readonly file: string;
  /** 1-based line of the (first physical) line. */
  readonly line: number;
  readonly text: string;
  /**
   * For a flow line that opens with the statistics `ovs-ofctl dump-flows` prints (cookie,
   * duration, table, packet and byte counts): where they end in `text`. The rest of the line is
   * the flow itself. 0 for a line in any other form.
   */
  readonly statsEnd?: number;
}

/**
 * Where a flow's line lies in the text it was read from, `text[start, end)`: named without cutting
 * it out, and filled in by whoever is asked, so that a walk over a million flows makes no object.
 */
export interface LineSpan {
  text: string;
  start: number;
  end: number;
  /** Where the statistics end, from `start`: as Origin.statsEnd, 0 for a line in any other form. */
  statsEnd: number;
}

export interface Flow {
  readonly table: TableRef;
  /** 0–65535; 32768 when the text omitted it. */
  readonly priority: number;
  readonly cookie: bigint;
  readonly match: Match;
  readonly actions: readonly Action[];
  readonly idleTimeout: number;
  readonly hardTimeout: number;
  readonly importance: number;
  readonly flags: readonly FlowFlag[];
  readonly stats?: FlowStats;
  /**
   * True on a lazily read flow whose packet and byte counters are both printed as 0 (its stats
   * say so too): a sum of counters over a large dump, whose flows mostly met no packet, need not
   * make their statistics.
   */
  readonly zeroCounters?: boolean;
  readonly origin: Origin;
  /** On a flow read lazily from a dump: what `lineSpan` tells, without making its origin. */
  readonly lineInto?: (span: LineSpan) => void;
  /**
   * Set on a flow whose origin is made when read (a lazily read flow cuts its line's text for it):
   * the origin's file and line, told without making it. Read through originFile and originLine.
   */
  readonly originFile?: string;
  readonly originLine?: number;
  /**
   * On a lazily read flow: when its actions are a plain list of conjunctions, each told to `visit`
   * as numbers, read from the dump's text without making the actions; false for any other flow,
   * whose actions are then read as usual (the conjunctions told before the list proved otherwise
   * are to be forgotten).
   */
  eachConjunction?(visit: ConjunctionVisitor): boolean;
  /**
   * On a lazily read flow: the `conj_id` its line gives as ovs-ofctl prints it (decimal, followed
   * by another field or the actions), read from the dump's text without making its match;
   * undefined for a line without one or with another spelling, whose match then tells.
   */
  printedConjId?(): number | undefined;
  /**
   * Set on a flow read lazily from a large dump (its match and actions are made when first asked
   * for): parts shared with many other flows that tell what its match and actions hold without
   * making them. See FlowOutline.
   */
  readonly outline?: FlowOutline;
  /**
   * Set with `outline`: its actions, told without making the outline (walkers of a whole dump ask
   * each flow whether it holds conjunction actions alone).
   */
  readonly outlineActions?: FlowOutline['actions'];
  /** Set with `outline`: its match, told without making the outline (walkers of a whole dump read it of each flow). */
  readonly outlineMatch?: Match;
  /**
   * Set with `outline`, told without making it: its `varying` where it is `shaped` (the one test
   * of that), undefined where not; its `entry` (-1 where shaped) and its `address`.
   */
  readonly outlineVarying?: ReadonlySet<string> | undefined;
  readonly outlineEntry?: number;
  readonly outlineAddress?: number;
  /**
   * On a lazily read flow of a shaped outline: what of its line gives the values its actions write
   * to `storages` that the outline's actions may not write ('' when they write the outline's). Two
   * flows that answer the same non-empty text write the same values there; undefined for any
   * other flow, whose actions then tell.
   */
  writtenNumbers?(storages: ReadonlySet<string>): string | undefined;
}

/**
 * What a lazily read flow's match and actions hold, in objects shared by many flows: walkers of a
 * whole dump that look for fields, masks and ports visit each shared part once instead of making
 * a million matches and action lists.
 */
export interface FlowOutline {
  /**
   * A match with the same fields, masks and ports as the flow's (values may differ: where `shaped`,
   * the number of an input port too, see `varying`).
   */
  readonly match: Match;
  /**
   * Actions of the same kinds, fields, masks, ports and tables as the flow's (what they write, group
   * and conjunction ids, a ct zone, a NAT address, the cookie a learn action gives may differ), or
   * `conjunctions` for a list of conjunction actions alone.
   */
  readonly actions: readonly Action[] | 'conjunctions';
  /**
   * Set for a line read by its shape (syntax/line-shape.ts): the values of the match and actions
   * are the first line's of the shape, not the flow's. Otherwise the match's values are the flow's
   * but for one IPv4 entry, and the actions are the flow's.
   */
  readonly shaped?: true;
  /**
   * Where `shaped`: the storages whose values the flow's match entries hold, or its actions write,
   * otherwise than the outline's; every other value is the outline's.
   */
  readonly varying?: ReadonlySet<string>;
  /**
   * Where not `shaped`: the IPv4 entry of `match` whose value the flow's match replaces, by position
   * (-1: none, the flow's match is `match`), and the address it holds instead.
   */
  readonly entry: number;
  readonly address: number;
}

export const DEFAULT_PRIORITY = 32768;

/** Told a flow's conjunction actions as numbers (see Flow.eachConjunction). */
export type ConjunctionVisitor = (id: number, clause: number, nClauses: number) => void;

/** The file the flow was read from, without making a lazily read flow's origin. */
export function originFile(f: Flow): string {
  return f.originFile ?? f.origin.file;
}

/** The flow's 1-based line, without making a lazily read flow's origin. */
export function originLine(f: Flow): number {
  return f.originLine ?? f.origin.line;
}

/** Where the flow's line lies (its origin's text, or a part of the whole dump's), into `span`. */
export function lineSpan(f: Flow, span: LineSpan): LineSpan {
  if (f.lineInto !== undefined) f.lineInto(span);
  else {
    const { text, statsEnd } = f.origin;
    span.text = text;
    span.start = 0;
    span.end = text.length;
    span.statsEnd = statsEnd ?? 0;
  }
  return span;
}

/** What addressEntry answers for a flow whose outline match is not its own but for an address. */
export const NO_ADDRESS_OUTLINE = -2;

/**
 * Of a lazily read flow whose match is its outline match but for the address of one IPv4 entry
 * (see FlowOutline), the entry (-1: none, the outline match is the flow's), whose address is
 * `outlineAddress`: its match read from the outline spares making the flow's own. Told by the
 * outline's accessors, without making the outline; NO_ADDRESS_OUTLINE for a line read by its
 * shape, or a flow read otherwise.
 */
export function addressEntry(f: Flow): number {
  return f.outlineMatch === undefined || f.outlineVarying !== undefined ? NO_ADDRESS_OUTLINE : f.outlineEntry!;
}

/** An IPv4 entry of an outline holding `address` instead of its own: the flow's entry (see addressEntry). */
export function withAddress(e: MatchField, address: number): MatchField {
  return { field: e.field, value: BigInt(address), mask: e.mask };
}

/** The match a walker of fields, masks and ports reads: a lazily read flow's outline spares making its match. */
export function matchOutline(f: Flow): Match {
  return f.outlineMatch ?? f.match;
}

/**
 * The actions a walker of kinds, fields, masks, ports and jumps reads (not of values, group or
 * conjunction ids: see FlowOutline): a lazily read flow's outline spares making them.
 */
export function actionsOutline(f: Flow): readonly Action[] {
  const outline = f.outlineActions;
  return outline === undefined || outline === 'conjunctions' ? f.actions : outline;
}

/**
 * Whether the flow's actions are conjunction actions alone (which jump nowhere, name no port nor
 * group), told without making them for a lazily read flow.
 */
export function onlyConjunctions(f: Flow): boolean {
  const actions = f.outlineActions ?? f.actions;
  return actions === 'conjunctions' || (actions.length > 0 && actions.every((a) => a.kind === 'conjunction'));
}

/** The flow with other actions: a plain record, whatever kind of object the flow was. */
export function withActions(f: Flow, actions: readonly Action[]): Flow {
  const { table, priority, cookie, match, idleTimeout, hardTimeout, importance, flags, stats, origin } = f;
  return stats
    ? { table, priority, cookie, match, actions, idleTimeout, hardTimeout, importance, flags, stats, origin }
    : { table, priority, cookie, match, actions, idleTimeout, hardTimeout, importance, flags, origin };
}

export type GroupType = 'all' | 'select' | 'indirect' | 'ff';

export interface Bucket {
  /** bucket_id; where the text omits it (OF1.1–1.4 dumps), numbered as OVS numbers them. */
  readonly id: number;
  /** As written; absent means the type's default (1 for select, else 0). */
  readonly weight?: number;
  readonly watchPort?: PortRef;
  readonly watchGroup?: number;
  readonly actions: readonly Action[];
}

/** A select group's bucket weighs 1 unless its text says otherwise. */
export function selectWeight(b: Bucket): number {
  return b.weight ?? 1;
}

export interface GroupSelectionField {
  readonly field: FieldDef;
  readonly mask?: bigint;
}

export interface Group {
  readonly id: number;
  readonly type: GroupType;
  readonly selectionMethod?: 'hash' | 'dp_hash';
  readonly selectionMethodParam?: bigint;
  readonly fields?: readonly GroupSelectionField[];
  readonly buckets: readonly Bucket[];
  readonly origin: Origin;
  /**
   * Read from a dump in OpenFlow 1.1–1.4, which prints neither a group's selection method and
   * fields nor its bucket ids: how the switch picks a select group's bucket is not known.
   */
  readonly selectionHidden?: boolean;
}

/**
 * Packets counted over flows: undefined when no flow has statistics, null when any counter is
 * unknown (`?`), as the sum would then be unknown too.
 */
export function packetTotal(flows: readonly Flow[]): bigint | null | undefined {
  let total: bigint | undefined;
  for (const f of flows) {
    const p = f.stats?.packets;
    if (p === undefined) continue;
    if (p === null) return null;
    total = (total ?? 0n) + p;
  }
  return total;
}
