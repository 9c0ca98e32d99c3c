/**
 * What a diff does to traffic: for every flow added, removed or changed (and every group), probe
 * packets that reach it (probes.ts) are traced through both dumps, and those whose path, verdict
 * or output ports differ are the change's impact. At most `maxProbes` probes per change are traced
 * through both; how many candidates were screened for them is kept, so that "no traffic affected"
 * can be told from "no packet found that reaches the flow". A change's traces share a bound of
 * steps, so that one change of a looping pipeline cannot take the whole report's; the report's
 * traces share its budget (trace-budget.ts), and the changes left when it is spent are listed
 * untraced.
 */
import type { Flow, Group } from '../../model/flow.ts';
import { type Change, firstSeen } from '../../model/change.ts';
import { actionsKey } from '../../model/action-equivalence.ts';
import type { DumpDiff } from '../diff/diff.ts';
import type { Naming } from '../../model/flow-key.ts';
import { type Probe, probeOptions, ProbeSource, type ProbeTarget } from './probes.ts';
import { compareTraces, type TraceComparison } from '../trace/trace-compare.ts';
import type { Tracer, TraceResult } from '../trace/trace.ts';
import { TraceBudget, type TraceWork } from '../trace/trace-budget.ts';
import { type ExplainedTrace, explainTrace } from '../trace/trace-verdict.ts';
import type { Annotator } from '../annotate/annotate.ts';

/** A change of a diff whose impact is traced: of a flow or of a group. */
export type ImpactChange = ({ readonly of: 'flow' } & Change<Flow>) | ({ readonly of: 'group' } & Change<Group>);

/**
 * How a probe's fate changed: its verdict, else its output ports, else only its path; or not at
 * all. A probe dropped in both dumps, only by another flow (`drop-moved`), is no change to traffic.
 */
export type ProbeEffect = 'verdict' | 'output' | 'path' | 'drop-moved' | 'none';

/** Whether a probe's traffic fares otherwise after the change: delivered or not, or elsewhere, or by another path. */
export function affectsTraffic(effect: ProbeEffect): boolean {
  return effect !== 'none' && effect !== 'drop-moved';
}

export interface ProbeOutcome {
  readonly probe: Probe;
  readonly comparison: TraceComparison;
  readonly effect: ProbeEffect;
}

export interface ChangeImpact {
  readonly change: ImpactChange;
  /** Candidate packets traced to find probes that reach the change. */
  readonly screened: number;
  /** Trace steps of every trace made for the change: screening, and the probes through the other dump. */
  readonly steps: number;
  /**
   * Set when the search stopped before it found its probes: at the change's own bound of steps
   * (traces that long, in a pipeline that loops), or because the report's budget was spent.
   */
  readonly cut?: 'change' | 'report';
  /** Probes traced through both dumps (at most maxProbes). */
  readonly outcomes: readonly ProbeOutcome[];
}

export interface ImpactReport {
  readonly changes: readonly ChangeImpact[];
  readonly maxProbes: number;
  /** The report's trace steps: its bound, and what its traces took. */
  readonly work: TraceWork;
  /** Changes the report's bound stopped: no candidate traced for them, or fewer than they were due. */
  readonly untraced: number;
}

export interface ImpactOptions {
  /** Probes traced through both dumps per change. */
  readonly maxProbes: number;
  /** The trace work the report may take; a budget of REPORT_TRACE_STEPS when not given. */
  readonly budget?: TraceBudget;
  /** The profiles of the two dumps, when the probes' verdicts are to say why they ended where they did. */
  readonly annotators?: { readonly before: Annotator; readonly after: Annotator };
}

export const DEFAULT_MAX_PROBES = 8;
/** Candidates screened per probe wanted: most derived packets do reach their flow, some are cut by an earlier table. */
const SCREENED_PER_PROBE = 24;
/**
 * Trace steps a change's traces may take per candidate screened: far more than a trace of an
 * everyday pipeline takes (tens to hundreds), far fewer than one that recirculates or loops to the
 * trace's own bound (32,768), so that one change of a looping pipeline cannot spend the report's
 * budget alone.
 */
const STEPS_PER_CANDIDATE = 512;

/** The changes of a diff, in its order: flows table by table, then groups. */
export function impactChanges(diff: DumpDiff): ImpactChange[] {
  const out: ImpactChange[] = [];
  for (const t of diff.tables) {
    for (const item of t.removed) out.push({ of: 'flow', kind: 'removed', item });
    for (const item of t.added) out.push({ of: 'flow', kind: 'added', item });
    for (const c of t.changed)
      if (c.attributes.includes('actions')) out.push({ of: 'flow', kind: 'changed', before: c.before, after: c.after });
  }
  for (const item of diff.groups.removed) out.push({ of: 'group', kind: 'removed', item });
  for (const item of diff.groups.added) out.push({ of: 'group', kind: 'added', item });
  for (const c of diff.groups.changed) out.push({ of: 'group', kind: 'changed', before: c.before, after: c.after });
  return out;
}

/** What the probes must reach, and in which dump: the one that holds the flow or group before the change, else after. */
function targetOf(
  change: ImpactChange,
  naming: Naming,
): { readonly target: ProbeTarget; readonly side: 'before' | 'after' } {
  const side = change.kind === 'added' ? 'after' : 'before';
  if (change.of === 'flow') return { target: { kind: 'flow', flow: firstSeen(change) }, side };
  const buckets =
    change.kind === 'changed' ? changedBuckets(change.before, change.after, naming) : bucketIds(change.item);
  return { target: { kind: 'group', group: firstSeen(change), buckets }, side };
}

/** A select group's buckets, each to be asked for; other groups take their buckets as they are. */
function bucketIds(group: Group): number[] {
  if (group.type !== 'select') return [];
  return group.buckets.map((b, i) => b.id ?? i);
}

/** The buckets of a select group whose actions a change rewrote, or that it added or removed; all when its type or selection changed. */
function changedBuckets(before: Group, after: Group, naming: Naming): number[] {
  const all = bucketIds(before);
  if (before.type !== 'select' || after.type !== 'select' || before.selectionMethod !== after.selectionMethod)
    return all;
  const key = (g: Group): Map<number, string> =>
    new Map(g.buckets.map((b, i) => [b.id ?? i, actionsKey(b.actions, { naming })]));
  const [x, y] = [key(before), key(after)];
  const changed = all.filter((id) => x.get(id) !== y.get(id));
  return changed.length > 0 ? changed : all;
}

function probeKey(p: Probe): string {
  return `${p.packet
    .entries()
    .map(([k, v]) => `${k}=${v}`)
    .join(',')}|${p.ctNext.join(',')}|${[...p.groupBuckets].join(',')}`;
}

/** The impact of each change of `diff`, traced through the tracers of its two dumps. */
export function diffImpact(diff: DumpDiff, before: Tracer, after: Tracer, options: ImpactOptions): ImpactReport {
  const budget = options.budget ?? new TraceBudget();
  const sources = { before: new ProbeSource(before), after: new ProbeSource(after) };
  const maxScreened = SCREENED_PER_PROBE * options.maxProbes;
  const maxSteps = STEPS_PER_CANDIDATE * maxScreened;
  const changes = impactChanges(diff).map((change): ChangeImpact => {
    const { target, side } = targetOf(change, diff.naming);
    const source = sources[side];
    const seen = new Set<string>();
    const outcomes: ProbeOutcome[] = [];
    let screened = 0;
    let steps = 0;
    let cut: ChangeImpact['cut'];
    search: for (const variants of source.candidates(target)) {
      if (outcomes.length >= options.maxProbes || screened >= maxScreened) break;
      for (const probe of variants) {
        const key = probeKey(probe);
        if (seen.has(key)) continue;
        // Asked before each candidate, so that a bound stops only a search that had more to do.
        cut = budget.exhausted ? 'report' : steps >= maxSteps ? 'change' : undefined;
        if (cut) break search;
        seen.add(key);
        screened++;
        const { result, reached } = source.reaches(probe, target);
        steps += budget.charge(result).work;
        if (!reached) continue;
        const other = budget.charge((side === 'before' ? after : before).trace(probe.packet, probeOptions(probe)));
        steps += other.work;
        const [b, a]: [TraceResult, TraceResult] = side === 'before' ? [result, other] : [other, result];
        const explained = (r: TraceResult, annotator: Annotator | undefined): ExplainedTrace =>
          annotator ? explainTrace(r, annotator) : r;
        const comparison = compareTraces(
          { tracer: before, result: explained(b, options.annotators?.before) },
          { tracer: after, result: explained(a, options.annotators?.after) },
          diff.naming,
        );
        outcomes.push({ probe, comparison, effect: effectOf(comparison) });
        break;
      }
    }
    return { change, screened, steps, outcomes, ...(cut ? { cut } : {}) };
  });
  return {
    changes,
    maxProbes: options.maxProbes,
    work: budget.work,
    untraced: changes.filter((c) => c.cut === 'report').length,
  };
}

function effectOf(c: TraceComparison): ProbeEffect {
  if (c.left.verdict !== c.right.verdict) return 'verdict';
  if (!c.sameVerdict) return 'output';
  if (c.divergence === undefined) return 'none';
  return c.left.verdict === 'drop' ? 'drop-moved' : 'path';
}
