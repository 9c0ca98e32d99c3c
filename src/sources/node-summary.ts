/**
 * One line's worth of facts per node of a bundle: counts, the pipeline the flows look like,
 * and what is wrong — damaged files, unreadable lines, conjunctions that can never match,
 * tables that flows continue in but that hold no flow, and a bridge with only OVS's default flow.
 */
import { findConjunctions } from '../analysis/conjunctions/conjunctions.ts';
import {
  annotatePipeline,
  type ProfileNote,
  type ProfileRequest,
  type ReleaseNote,
} from '../analysis/detect/profile-choice.ts';
import { emptyTargets } from '../model/flow-exits.ts';
import { Pipeline, tableKey } from '../model/pipeline.ts';
import { tableLabel, type TableRef } from '../model/tables.ts';
import type { NodeDump } from './node-dump.ts';

export interface NodeProblem {
  readonly severity: 'error' | 'warning';
  readonly message: string;
}

export interface NodeSummary {
  readonly name: string;
  readonly origin: string;
  readonly flows: number;
  readonly groups: number;
  readonly ports: number;
  /** Absent when the node has no flows to judge by. */
  readonly profile?: { readonly id: string } & ReleaseNote;
  readonly agentVersion?: string;
  readonly ovsVersion?: string;
  readonly problems: readonly NodeProblem[];
}

/** Tables flows or group buckets continue in that hold no flow, with how many of each continue there. */
function emptyTables(pipeline: Pipeline): { table: TableRef; flows: number; buckets: number }[] {
  const out = new Map<string, { table: TableRef; flows: number; buckets: number }>();
  for (const e of emptyTargets(pipeline)) {
    const key = tableKey(e.table);
    const t = out.get(key);
    if (t) {
      t.flows += e.flows.length;
      t.buckets += e.buckets.length;
    } else out.set(key, { table: e.table, flows: e.flows.length, buckets: e.buckets.length });
  }
  return [...out.values()];
}

/** Only `table=0, priority=0 actions=NORMAL`: OVS's own flow, the CNI's flows are not (yet) there. */
function onlyDefaultFlow(dump: NodeDump): boolean {
  const f = dump.flows[0];
  if (dump.flows.length !== 1 || f === undefined) return false;
  const normal =
    f.actions.length === 1 &&
    f.actions[0]?.kind === 'output' &&
    f.actions[0].port.kind === 'reserved' &&
    f.actions[0].port.name === 'NORMAL';
  return normal && f.priority === 0 && f.match.fields.length === 0 && tableLabel(f.table) === '0';
}

/** The profile as the summary gives it: its id and release, without the reasons. */
function profileOf(note: ProfileNote): NodeSummary['profile'] & {} {
  const { id, release, releases, olderThan } = note;
  return {
    id,
    ...(release !== undefined ? { release } : {}),
    ...(releases !== undefined ? { releases } : {}),
    ...(olderThan !== undefined ? { olderThan } : {}),
  };
}

export function summarizeNode(dump: NodeDump, request: ProfileRequest = {}): NodeSummary {
  const problems: NodeProblem[] = dump.nodeProblems.map((message) => ({ severity: 'error', message }));
  if (dump.badLines > 0)
    problems.push({
      severity: 'error',
      message: `${dump.badLines} line${dump.badLines === 1 ? '' : 's'} could not be read`,
    });
  const read = new Pipeline(dump.flows, dump.groups, dump.ports);
  // Read by its profile, the pipeline knows the numbers of the tables it names: a bucket's jump to
  // table 70 of a dump that holds that table as L3Forwarding goes to a table with flows.
  const annotated = dump.flows.length === 0 ? undefined : annotatePipeline(read, request);
  const pipeline = annotated?.pipeline ?? read;
  if (onlyDefaultFlow(dump)) {
    problems.push({
      severity: 'error',
      message: 'only the default NORMAL flow of OVS: the agent has not (re)installed its flows',
    });
  }
  for (const c of findConjunctions(pipeline).conjunctions) {
    const broken = c.problems.filter((p) => p.severity === 'error');
    for (const p of broken) {
      const why =
        p.kind === 'empty-dimension'
          ? `clause ${p.k} of ${c.n} has no flows`
          : p.kind === 'inconsistent-n'
            ? `clause flows disagree on the number of clauses (${p.counts.join(', ')})`
            : p.kind === 'split-priority'
              ? `clause flows at several priorities (${p.priorities.join(', ')})`
              : p.kind === 'pre-empted'
                ? `clause ${p.k} is always pre-empted by a higher-priority flow`
                : p.kind;
      problems.push({
        severity: 'error',
        message: `conjunction ${c.id} in table ${tableLabel(c.table)} is incomplete: ${why}`,
      });
    }
  }
  for (const t of emptyTables(pipeline)) {
    const from = [
      ...(t.flows > 0 ? [`${t.flows} flow${t.flows === 1 ? '' : 's'}`] : []),
      ...(t.buckets > 0 ? [`${t.buckets} group bucket${t.buckets === 1 ? '' : 's'}`] : []),
    ];
    const verb = t.flows + t.buckets === 1 ? 'continues' : 'continue';
    problems.push({
      severity: 'warning',
      message: `table ${tableLabel(t.table)} has no flows, but ${from.join(' and ')} ${verb} there`,
    });
  }
  const info = dump.agentInfo;
  return {
    name: dump.name,
    origin: dump.origin,
    flows: dump.flows.length,
    groups: dump.groups.length,
    ports: dump.ports.size,
    ...(annotated ? { profile: profileOf(annotated.profile) } : {}),
    ...(info?.agentVersion ? { agentVersion: info.agentVersion } : {}),
    ...(info?.ovsVersion ? { ovsVersion: info.ovsVersion } : {}),
    problems,
  };
}
