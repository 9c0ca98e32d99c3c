/**
 * A finding weighed against what else is known: the flow's own packet counter, the profile's
 * knowledge of dormant features and by-design patterns, and whether the dump is a whole bridge.
 * Each rule may lower the severity and says why in the finding's `standing`; none raises it.
 */
import type { Flow } from '../../model/flow.ts';
import type { Pipeline } from '../../model/pipeline.ts';
import { ones } from '../../model/values.ts';
import { checkKnowledge, type CheckKnowledge, type KnownPattern } from '../../profiles/check-knowledge.ts';
import type { Profile } from '../../profiles/types.ts';
import { inVersion } from '../../profiles/versions.ts';
import { flowExits } from '../../model/flow-exits.ts';
import { resolveTable } from '../fit/pattern-fit.ts';
import type { Excerpt } from './excerpt.ts';
import { type CountedCause, type Finding, type Standing, subjectOf } from './finding.ts';
import type { SlotWrites } from './registers.ts';

export interface StandingContext {
  readonly profile?: Profile;
  readonly release?: string;
  readonly excerpt?: Excerpt;
  /** The register bits every action of the dump may set. */
  readonly writes: SlotWrites;
  /** What else the dump holds, read only when a counter needs explaining. */
  readonly dump: DumpFacts;
}

/** Facts of the whole dump that only a flow with a telling counter needs, each worked out once. */
export class DumpFacts {
  private readonly pipeline: Pipeline;
  private groups: number | undefined;
  private tables: Set<string> | undefined;

  constructor(pipeline: Pipeline) {
    this.pipeline = pipeline;
  }

  /** How many groups the flows send to that the input does not hold. */
  groupsNotGiven(): number {
    if (this.groups === undefined) {
      const ids = new Set<number>();
      for (const flow of this.pipeline.flows)
        for (const x of flowExits(flow)) if (x.kind === 'group' && !this.pipeline.groups.has(x.group)) ids.add(x.group);
      this.groups = ids.size;
    }
    return this.groups;
  }

  /** The profile's names of the tables the dump holds. */
  profileTables(profile: Profile, release: string): ReadonlySet<string> {
    this.tables ??= new Set(
      [...this.pipeline.tables.values()].flatMap((t) => resolveTable(profile, t.ref, release)?.name ?? []),
    );
    return this.tables;
  }
}

/** Kinds whose finding may only say that something is missing from the dump. */
const FOLLOWS_FROM_WHAT_IS_MISSING = new Set<Finding['kind']>([
  'empty-target',
  'unreachable-table',
  'unset-register',
  'no-table-miss',
  'missing-expected',
  'bucket-no-endpoint',
  'unknown-tunnel-destination',
  'no-route',
  'no-spoof-guard',
]);
const MISSING_CLAUSES = new Set(['empty-dimension', 'no-action-flow', 'orphan-action-flow']);

function packetsOf(flow: Flow): bigint {
  const p = flow.stats?.packets;
  return typeof p === 'bigint' ? p : 0n;
}

function with_(f: Finding, standing: Standing): Finding {
  return { ...f, severity: 'info', standing };
}

export function weigh(f: Finding, ctx: StandingContext): Finding {
  // Counters are evidence: a flow that has matched packets is no flow that never matches.
  if (f.kind === 'shadowed' || f.kind === 'unset-register') {
    const packets = packetsOf(subjectOf(f));
    if (packets > 0n)
      return with_(f, { kind: 'counted', packets, cause: f.kind === 'shadowed' ? hiddenCause(f) : unsetCause(f, ctx) });
  }
  if (isShadowedMiss(f)) return { ...f, severity: 'info', standing: { kind: 'redundant-miss' } };
  const knowledge = ctx.profile && ctx.release ? checkKnowledge(ctx.profile) : undefined;
  if (knowledge) {
    const known = knownPattern(f, knowledge, ctx.profile!, ctx.release!);
    if (known)
      return {
        ...f,
        severity: 'info',
        standing: { kind: 'known', why: known.why, silent: known.standing === 'known' },
      };
    if (f.kind === 'unset-register') {
      const features = dormantFeatures(f, knowledge, ctx.profile!, ctx.release!);
      if (features) return with_(f, { kind: 'dormant', features });
    }
  }
  if (
    ctx.excerpt &&
    (FOLLOWS_FROM_WHAT_IS_MISSING.has(f.kind) || (f.kind === 'conjunction' && MISSING_CLAUSES.has(f.problem.kind)))
  ) {
    return with_(f, { kind: 'excerpt' });
  }
  if (f.kind === 'unset-register' && isOtherValue(f, ctx.writes))
    return { ...f, severity: 'warning', standing: { kind: 'stale' } };
  return f;
}

/** Seconds a flow has been on the switch, as its statistics print it. */
function age(flow: Flow): number | undefined {
  const d = flow.stats?.duration;
  return d === undefined ? undefined : Number(d);
}

/** A shadowed flow that matched: it did so before the flow that hides it was added, or the dump is not of one moment. */
function hiddenCause(f: Finding & { kind: 'shadowed' }): CountedCause {
  const own = age(subjectOf(f));
  const hider = age(f.by);
  return own !== undefined && hider !== undefined && hider < own
    ? { kind: 'hidden-later', age: own, hiderAge: hider }
    : { kind: 'not-one-moment' };
}

/**
 * Who set the bits a flow that matched asks for, when no flow of the dump does: what the dump
 * lacks (its excerpt, its groups, the table the profile says sets them), a setter removed since,
 * or a setter outside the flows.
 */
function unsetCause(f: Finding & { kind: 'unset-register' }, ctx: StandingContext): CountedCause {
  if (ctx.excerpt) return { kind: 'excerpt' };
  const setters = ctx.profile && ctx.release ? setterTables(f, ctx.profile, ctx.release) : [];
  if (setters.length > 0) {
    const present = ctx.dump.profileTables(ctx.profile!, ctx.release!);
    const there = setters.filter((t) => present.has(t));
    return there.length === 0
      ? { kind: 'setter-table-missing', tables: setters }
      : { kind: 'setter-removed', tables: there };
  }
  const groups = ctx.dump.groupsNotGiven();
  if (groups > 0) return { kind: 'groups-not-given', groups };
  if (isOtherValue(f, ctx.writes)) return { kind: 'setter-removed', tables: [] };
  return { kind: 'unknown-setter' };
}

/** The tables whose documented flows set the bits a finding asks for (see documentedSetters). */
function setterTables(f: Finding & { kind: 'unset-register' }, profile: Profile, release: string): readonly string[] {
  let byBits = settersCache.get(profile);
  if (!byBits) settersCache.set(profile, (byBits = new Map()));
  // Many flows of a big dump ask for the same bits: the profile is read once for them.
  const key = `${release} ${f.slot} ${f.bits}`;
  let tables = byBits.get(key);
  if (!tables) byBits.set(key, (tables = documentedSetters(f.slot, f.bits, profile, release)));
  return tables;
}

const settersCache = new WeakMap<Profile, Map<string, readonly string[]>>();

/**
 * The tables whose documented flows set bits of a register: a pattern that writes them by value
 * and mask (`set:reg0=0x4000/0x4000`), or writes their register and names one of their bit fields.
 */
function documentedSetters(slot: string, bits: bigint, profile: Profile, release: string): readonly string[] {
  const names = profile.bitFields
    .filter(
      (b) =>
        b.field === slot && inVersion(b, release) && ((ones(b.end - b.start + 1) << BigInt(b.start)) & bits) !== 0n,
    )
    .map((b) => b.name);
  const sets = (hint: string, meaning: string): boolean => {
    const m = /^set:([^=]+)(?:=(\w+)\/(\w+))?$/.exec(hint);
    if (!m || m[1] !== slot) return false;
    if (m[3] !== undefined) return (BigInt(m[2]!) & BigInt(m[3]) & bits) !== 0n;
    return names.some((n) => new RegExp(`\\b${n}\\b`).test(meaning));
  };
  return profile.tables
    .filter(
      (t) =>
        inVersion(t, release) &&
        t.patterns.some((p) => inVersion(p, release) && (p.actions ?? []).some((a) => sets(a, p.meaning))),
    )
    .map((t) => t.name);
}

/**
 * The bits asked for are a value of a field the pipeline writes other values into (an output
 * port in reg1): a flow left for a Pod or port that is gone, which can never match but loses
 * nothing.
 */
function isOtherValue(f: Finding & { kind: 'unset-register' }, writes: SlotWrites): boolean {
  const written = writes.mayBeOne.get(f.slot) ?? 0n;
  const several = (f.entry.mask & (f.entry.mask - 1n)) !== 0n;
  return f.entry.field.name === f.slot && several && (written & f.entry.mask) !== 0n;
}

function profileTableName(profile: Profile, f: Finding, release: string): string | undefined {
  return f.table ? resolveTable(profile, f.table, release)?.name : undefined;
}

function knownPattern(
  f: Finding,
  knowledge: CheckKnowledge,
  profile: Profile,
  release: string,
): KnownPattern | undefined {
  const kind =
    f.kind === 'conjunction'
      ? f.problem.kind === 'overlap'
        ? 'conjunction-overlap'
        : f.problem.kind === 'action-priority'
          ? 'conjunction-action-priority'
          : undefined
      : f.kind === 'shadowed'
        ? 'shadowed'
        : undefined;
  if (!kind) return undefined;
  const table = profileTableName(profile, f, release);
  return knowledge.known.find((k) => {
    if (k.finding !== kind) return false;
    if (k.tables && (!table || !k.tables.includes(table))) return false;
    if (f.kind !== 'shadowed') return true;
    if (k.byPriority !== undefined && f.by.priority !== k.byPriority) return false;
    if (k.byCatchAll && f.by.match.fields.length > 0) return false;
    return !k.hiddenDrops || subjectOf(f).actions.length === 0;
  });
}

/**
 * The features that would set the bits no flow sets, when every such bit belongs to a register
 * mark the profile says only a feature's own flows set.
 */
function dormantFeatures(
  f: Finding & { kind: 'unset-register' },
  knowledge: CheckKnowledge,
  profile: Profile,
  release: string,
): string[] | undefined {
  if (f.entry.field.name !== f.slot) return undefined;
  let uncovered = f.bits;
  const features: string[] = [];
  for (const field of profile.bitFields) {
    if (field.field !== f.slot || !inVersion(field, release)) continue;
    const span = ones(field.end - field.start + 1) << BigInt(field.start);
    if ((span & f.bits) === 0n) continue;
    const value = (f.entry.value & span) >> BigInt(field.start);
    const named = field.values?.find((v) => v.value === value && inVersion(v, release))?.name;
    const mark = knowledge.dormant.find((d) => d.mark === field.name && (d.value === undefined || d.value === named));
    if (!mark) continue;
    uncovered &= ~span;
    if (!features.includes(mark.feature)) features.push(mark.feature);
  }
  return uncovered === 0n && features.length > 0 ? features : undefined;
}

/** A priority-0 flow with an empty match (the table's miss flow) that a catch-all above hides: redundant by design. */
function isShadowedMiss(f: Finding): boolean {
  if (f.kind !== 'shadowed') return false;
  const flow = subjectOf(f);
  return flow.priority === 0 && flow.match.fields.length === 0;
}
