/**
 * A finding weighed against what else is known: the flow's own packet counter, the profile's
 * knowledge of dormant features and by-design patterns, and whether the dump is a whole bridge.
 * Each rule may lower the severity and says why in the finding's `standing`; none raises it.
 */
import type { Flow } from '../../model/flow.ts';
import { ones } from '../../model/values.ts';
import { checkKnowledge, type CheckKnowledge, type KnownPattern } from '../../profiles/check-knowledge.ts';
import type { Profile } from '../../profiles/types.ts';
import { inVersion } from '../../profiles/versions.ts';
import { resolveTable } from '../pattern-fit.ts';
import type { Excerpt } from './excerpt.ts';
import type { Finding, Standing } from './finding.ts';
import type { SlotWrites } from './registers.ts';

export interface StandingContext {
  readonly profile?: Profile;
  readonly release?: string;
  readonly excerpt?: Excerpt;
  /** The register bits every action of the dump may set. */
  readonly writes: SlotWrites;
}

/** Kinds whose finding may only say that something is missing from the dump. */
const FOLLOWS_FROM_WHAT_IS_MISSING = new Set<Finding['kind']>([
  'empty-target', 'unreachable-table', 'unset-register', 'no-table-miss', 'missing-expected', 'bucket-no-endpoint', 'unknown-tunnel-destination', 'no-route', 'no-spoof-guard',
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
    const packets = packetsOf(f.flow);
    if (packets > 0n) return with_(f, { kind: 'counted', packets });
  }
  if (isShadowedMiss(f)) return { ...f, severity: 'info', standing: { kind: 'redundant-miss' } };
  const knowledge = ctx.profile && ctx.release ? checkKnowledge(ctx.profile) : undefined;
  if (knowledge) {
    const known = knownPattern(f, knowledge, ctx.profile!, ctx.release!);
    if (known) return { ...f, severity: 'info', standing: { kind: 'known', why: known.why, silent: known.standing === 'known' } };
    if (f.kind === 'unset-register') {
      const features = dormantFeatures(f, knowledge, ctx.profile!, ctx.release!);
      if (features) return with_(f, { kind: 'dormant', features });
    }
  }
  if (ctx.excerpt && (FOLLOWS_FROM_WHAT_IS_MISSING.has(f.kind) || (f.kind === 'conjunction' && MISSING_CLAUSES.has(f.problem.kind)))) {
    return with_(f, { kind: 'excerpt' });
  }
  if (f.kind === 'unset-register' && isOtherValue(f, ctx.writes)) return { ...f, severity: 'warning', standing: { kind: 'stale' } };
  return f;
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

function knownPattern(f: Finding, knowledge: CheckKnowledge, profile: Profile, release: string): KnownPattern | undefined {
  const kind = f.kind === 'conjunction' ? (f.problem.kind === 'overlap' ? 'conjunction-overlap' : f.problem.kind === 'action-priority' ? 'conjunction-action-priority' : undefined) : f.kind === 'shadowed' ? 'shadowed' : undefined;
  if (!kind) return undefined;
  const table = profileTableName(profile, f, release);
  return knowledge.known.find((k) => {
    if (k.finding !== kind) return false;
    if (k.tables && (!table || !k.tables.includes(table))) return false;
    if (f.kind !== 'shadowed') return true;
    if (k.byPriority !== undefined && f.by.priority !== k.byPriority) return false;
    if (k.byCatchAll && f.by.match.fields.length > 0) return false;
    return !k.hiddenDrops || f.flow.actions.length === 0;
  });
}

/**
 * The features that would set the bits no flow sets, when every such bit belongs to a register
 * mark the profile says only a feature's own flows set.
 */
function dormantFeatures(f: Finding & { kind: 'unset-register' }, knowledge: CheckKnowledge, profile: Profile, release: string): string[] | undefined {
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
  return f.kind === 'shadowed' && f.flow.priority === 0 && f.flow.match.fields.length === 0;
}
