/**
 * One line's worth of facts per node of a bundle: counts, the pipeline the flows look like,
 * and what is wrong — damaged files, unreadable lines, conjunctions that can never match,
 * tables that flows continue in but that hold no flow, and a bridge with only OVS's default flow.
 */
import { type ConjunctionProblem, findConjunctions } from '../conjunctions/conjunctions.ts';
import { annotatePipeline, type ProfileNote, type ProfileRequest, type ReleaseNote } from '../detect/profile-choice.ts';
import { emptyTargets } from '../../model/flow-exits.ts';
import type { Flow, Group } from '../../model/flow.ts';
import { Pipeline, tableKey } from '../../model/pipeline.ts';
import type { PortMap } from '../../model/ports.ts';
import { tableLabel, type TableRef } from '../../model/tables.ts';

/** What the summary reads of a node's dump (a node read from a bundle is one). */
export interface NodeFacts {
  readonly name: string;
  readonly origin: string;
  readonly flows: readonly Flow[];
  readonly groups: readonly Group[];
  readonly ports: PortMap;
  readonly badLines: number;
  /** What reading the node's files found wrong with them, one sentence each. */
  readonly nodeProblems: readonly string[];
  readonly agentInfo?: { readonly agentVersion?: string; readonly ovsVersion?: string };
}

/** What is wrong with a node; every kind is an error but `empty-table`, a warning. */
export type NodeFinding =
  /** Damage found while reading its files, as the reading said it. */
  | { readonly kind: 'damaged'; readonly message: string }
  | { readonly kind: 'unreadable-lines'; readonly lines: number }
  /** Only `table=0, priority=0 actions=NORMAL`: OVS's own flow, the CNI's flows are not (yet) there. */
  | { readonly kind: 'only-default-flow' }
  /** A conjunction that can never match. */
  | {
      readonly kind: 'incomplete-conjunction';
      readonly id: number;
      readonly n: number;
      readonly table: TableRef;
      readonly problem: ConjunctionProblem;
    }
  /** A table flows or group buckets continue in that holds no flow. */
  | { readonly kind: 'empty-table'; readonly table: TableRef; readonly flows: number; readonly buckets: number };

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
  readonly findings: readonly NodeFinding[];
}

/** Tables flows or group buckets continue in that hold no flow, with how many of each continue there. */
function emptyTables(pipeline: Pipeline): NodeFinding[] {
  const out = new Map<string, { table: TableRef; flows: number; buckets: number }>();
  for (const e of emptyTargets(pipeline)) {
    const key = tableKey(e.table);
    const t = out.get(key);
    if (t) {
      t.flows += e.flows.length;
      t.buckets += e.buckets.length;
    } else out.set(key, { table: e.table, flows: e.flows.length, buckets: e.buckets.length });
  }
  return [...out.values()].map((t) => ({ kind: 'empty-table', ...t }));
}

function onlyDefaultFlow(flows: readonly Flow[]): boolean {
  const f = flows[0];
  if (flows.length !== 1 || f === undefined) return false;
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

export function summarizeNode(dump: NodeFacts, request: ProfileRequest = {}): NodeSummary {
  const findings: NodeFinding[] = dump.nodeProblems.map((message) => ({ kind: 'damaged', message }));
  if (dump.badLines > 0) findings.push({ kind: 'unreadable-lines', lines: dump.badLines });
  const read = new Pipeline(dump.flows, dump.groups, dump.ports);
  // Read by its profile, the pipeline knows the numbers of the tables it names: a bucket's jump to
  // table 70 of a dump that holds that table as L3Forwarding goes to a table with flows.
  const annotated = dump.flows.length === 0 ? undefined : annotatePipeline(read, request);
  const pipeline = annotated?.pipeline ?? read;
  if (onlyDefaultFlow(dump.flows)) findings.push({ kind: 'only-default-flow' });
  for (const c of findConjunctions(pipeline).conjunctions) {
    for (const problem of c.problems) {
      if (problem.severity === 'error')
        findings.push({ kind: 'incomplete-conjunction', id: c.id, n: c.n, table: c.table, problem });
    }
  }
  findings.push(...emptyTables(pipeline));
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
    findings,
  };
}
