/** `flowscope bundle`: the nodes of a bundle as an aligned table, their problems below it, or JSON. */
import { releaseBrief } from '../analysis/detect/profile-choice.ts';
import type { NodeSummary } from '../sources/node-summary.ts';
import { alignColumns } from './columns.ts';
import { SCHEMA_VERSION } from './json.ts';

export interface BundleView {
  readonly path: string;
  readonly nodes: readonly NodeSummary[];
  /** Problems of the bundle as a whole. */
  readonly problems: readonly string[];
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
    n.problems.length === 0 ? '-' : String(n.problems.length),
  ]);
  const out = [
    `${view.path}: ${view.nodes.length} node${view.nodes.length === 1 ? '' : 's'}`,
    ...alignColumns([header, ...rows], new Set([1, 2, 3, 5]), width),
  ];
  for (const n of view.nodes.filter((x) => x.problems.length > 0)) {
    out.push('', `${n.name}:`);
    for (const p of n.problems) out.push(warn(`  ${p.severity}: ${p.message}`));
  }
  if (view.problems.length > 0) {
    out.push('', 'bundle:');
    for (const p of view.problems) out.push(warn(`  warning: ${p}`));
  }
  return out.join('\n');
}

export function bundleJson(view: BundleView): Record<string, unknown> {
  return { schemaVersion: SCHEMA_VERSION, path: view.path, nodes: view.nodes, problems: view.problems };
}
