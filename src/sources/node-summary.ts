/**
 * One line's worth of facts per node of a bundle: counts, the pipeline the flows look like,
 * and what is wrong — damaged files, unreadable lines, conjunctions that can never match,
 * tables that flows continue in but that hold no flow, and a bridge with only OVS's default flow.
 */
import { findConjunctions } from '../analysis/conjunctions/conjunctions.ts';
import { detectProfile } from '../analysis/detect/detect-profile.ts';
import { jumpTargets } from '../analysis/fit/pattern-fit.ts';
import { releaseNote, type ReleaseNote } from '../analysis/detect/profile-choice.ts';
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

/** Tables flows continue in (goto_table, resubmit, ct(table=…)) that hold no flow, with how many flows go there. */
function emptyTargets(pipeline: Pipeline): { table: TableRef; from: number }[] {
  const out = new Map<string, { table: TableRef; from: number }>();
  for (const t of pipeline.tables.values()) {
    for (const f of t.flows) {
      for (const target of jumpTargets(f.actions)) {
        const key = tableKey(target);
        if (pipeline.tables.has(key)) continue;
        const e = out.get(key);
        if (e) e.from++;
        else out.set(key, { table: target, from: 1 });
      }
    }
  }
  return [...out.values()];
}

/** Only `table=0, priority=0 actions=NORMAL`: OVS's own flow, the CNI's flows are not (yet) there. */
function onlyDefaultFlow(dump: NodeDump): boolean {
  const f = dump.flows[0];
  if (dump.flows.length !== 1 || f === undefined) return false;
  const normal = f.actions.length === 1 && f.actions[0]?.kind === 'output' && f.actions[0].port.kind === 'reserved' && f.actions[0].port.name === 'NORMAL';
  return normal && f.priority === 0 && f.match.fields.length === 0 && tableLabel(f.table) === '0';
}

export function summarizeNode(dump: NodeDump): NodeSummary {
  const problems: NodeProblem[] = dump.nodeProblems.map((message) => ({ severity: 'error', message }));
  if (dump.badLines > 0) problems.push({ severity: 'error', message: `${dump.badLines} line${dump.badLines === 1 ? '' : 's'} could not be read` });
  const pipeline = new Pipeline(dump.flows, dump.groups, dump.ports);
  if (onlyDefaultFlow(dump)) {
    problems.push({ severity: 'error', message: 'only the default NORMAL flow of OVS: the agent has not (re)installed its flows' });
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
      problems.push({ severity: 'error', message: `conjunction ${c.id} in table ${tableLabel(c.table)} is incomplete: ${why}` });
    }
  }
  for (const t of emptyTargets(pipeline)) {
    problems.push({ severity: 'warning', message: `table ${tableLabel(t.table)} has no flows, but ${t.from} flow${t.from === 1 ? ' continues' : 's continue'} there` });
  }
  const detection = dump.flows.length === 0 ? undefined : detectProfile(dump.flows, dump.groups, dump.ports);
  const info = dump.agentInfo;
  return {
    name: dump.name,
    origin: dump.origin,
    flows: dump.flows.length,
    groups: dump.groups.length,
    ports: dump.ports.size,
    ...(detection ? { profile: { id: detection.profile.id, ...releaseNote(detection.release) } } : {}),
    ...(info?.agentVersion ? { agentVersion: info.agentVersion } : {}),
    ...(info?.ovsVersion ? { ovsVersion: info.ovsVersion } : {}),
    problems,
  };
}
