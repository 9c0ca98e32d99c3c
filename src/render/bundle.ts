/** `flowscope bundle`: the nodes of a bundle as an aligned table, their problems below it, or JSON. */
import type { NodeFinding, NodeSummary } from '../analysis/bundle/node-summary.ts';
import type { ConjunctionProblem } from '../analysis/conjunctions/conjunctions.ts';
import { releaseBrief } from './words/profile.ts';
import { assertNever } from '../model/actions.ts';
import { tableLabel } from '../model/tables.ts';
import { alignColumns } from './columns.ts';
import { SCHEMA_VERSION } from './json.ts';
import { plural } from './plural.ts';

export interface BundleView {
  readonly path: string;
  readonly nodes: readonly NodeSummary[];
  /** Problems of the bundle as a whole. */
  readonly problems: readonly string[];
}

export interface NodeProblem {
  readonly severity: 'error' | 'warning';
  readonly message: string;
}

/** Why a conjunction can never match. */
function incompleteWhy(p: ConjunctionProblem, n: number): string {
  switch (p.kind) {
    case 'empty-dimension':
      return `clause ${p.k} of ${n} has no flows`;
    case 'inconsistent-n':
      return `clause flows disagree on the number of clauses (${p.counts.join(', ')})`;
    case 'split-priority':
      return `clause flows at several priorities (${p.priorities.join(', ')})`;
    case 'pre-empted':
      return `clause ${p.k} is always pre-empted by a higher-priority flow`;
    case 'no-action-flow':
    case 'orphan-action-flow':
    case 'action-priority':
    case 'overlap':
      return p.kind;
    default:
      return assertNever(p);
  }
}

function findingWords(f: NodeFinding): NodeProblem {
  switch (f.kind) {
    case 'damaged':
      return { severity: 'error', message: f.message };
    case 'unreadable-lines':
      return { severity: 'error', message: `${f.lines} line${f.lines === 1 ? '' : 's'} could not be read` };
    case 'only-default-flow':
      return {
        severity: 'error',
        message: 'only the default NORMAL flow of OVS: the agent has not (re)installed its flows',
      };
    case 'incomplete-conjunction':
      return {
        severity: 'error',
        message: `conjunction ${f.id} in table ${tableLabel(f.table)} is incomplete: ${incompleteWhy(f.problem, f.n)}`,
      };
    case 'empty-table': {
      const from = [
        ...(f.flows > 0 ? [plural(f.flows, 'flow')] : []),
        ...(f.buckets > 0 ? [plural(f.buckets, 'group bucket')] : []),
      ];
      const verb = f.flows + f.buckets === 1 ? 'continues' : 'continue';
      return {
        severity: 'warning',
        message: `table ${tableLabel(f.table)} has no flows, but ${from.join(' and ')} ${verb} there`,
      };
    }
    default:
      return assertNever(f);
  }
}

/** What is wrong with a node, each with its severity, in words. */
export function nodeProblems(n: NodeSummary): NodeProblem[] {
  return n.findings.map(findingWords);
}

function profileText(n: NodeSummary): string {
  if (!n.profile) return '-';
  const release = releaseBrief(n.profile);
  return release === undefined ? n.profile.id : `${n.profile.id} ${release}`;
}

/** `warn` marks the problems (colour, for a terminal); `width`, the terminal's, is what the table is fitted to. */
export function formatBundle(view: BundleView, warn: (text: string) => string = (t) => t, width?: number): string {
  const header = ['NODE', 'FLOWS', 'GROUPS', 'PORTS', 'PROFILE', 'PROBLEMS'];
  const rows = view.nodes.map((n) => [
    n.name,
    String(n.flows),
    String(n.groups),
    String(n.ports),
    profileText(n),
    n.findings.length === 0 ? '-' : String(n.findings.length),
  ]);
  const out = [
    `${view.path}: ${view.nodes.length} node${view.nodes.length === 1 ? '' : 's'}`,
    ...alignColumns([header, ...rows], new Set([1, 2, 3, 5]), width),
  ];
  for (const n of view.nodes.filter((x) => x.findings.length > 0)) {
    out.push('', `${n.name}:`);
    for (const p of nodeProblems(n)) out.push(warn(`  ${p.severity}: ${p.message}`));
  }
  if (view.problems.length > 0) {
    out.push('', 'bundle:');
    for (const p of view.problems) out.push(warn(`  warning: ${p}`));
  }
  return out.join('\n');
}

export function bundleJson(view: BundleView): Record<string, unknown> {
  const nodes = view.nodes.map(({ findings, ...n }) => ({ ...n, problems: nodeProblems({ ...n, findings }) }));
  return { schemaVersion: SCHEMA_VERSION, path: view.path, nodes, problems: view.problems };
}
