/**
 * sosreport layouts: `sos_commands/openvswitch/` holds one file per ovs-ofctl command, named
 * from the command line with spaces turned into `_` (`ovs-ofctl_-O_OpenFlow13_dump-flows_br0`).
 * sos runs each command once per OpenFlow version; a bridge restricted to some versions (br0 of
 * OpenShift SDN allows only OpenFlow 1.3) leaves error messages in the other files, so per
 * bridge the newest version whose output holds data is taken.
 */
import { decodeText, type NodeFile, type NodeFileKind, type NodeSource } from './node.ts';

const SOS_FILE = /^ovs-ofctl_(?:-O_OpenFlow1(\d)_)?(dump-flows|dump-groups|dump-ports-desc|show)_(.+)$/;

const KIND: Readonly<Record<string, NodeFileKind>> = {
  'dump-flows': 'flows',
  'dump-groups': 'groups',
  'dump-ports-desc': 'ports',
  show: 'ports',
};

/** What proves a command's output is a reply (possibly empty) rather than an error message. */
const HOLDS_DATA: Readonly<Record<string, RegExp>> = {
  flows: /\bactions?=|^(?:NXST|OFPST)_FLOW reply/m,
  // Blanks, not \s: \s crosses line ends, and on a run of blank lines each start would scan them all.
  groups: /^[ \t]*group_id=|^(?:NXST|OFPST)_GROUP_DESC reply/m,
  ports: /^[ \t]*\d+\([^\n]+\): addr:/m,
};

interface Candidate {
  readonly path: string;
  readonly bridge: string;
  readonly kind: NodeFileKind;
  /** 10 for the default protocol (no -O), else 11–15. */
  readonly version: number;
  /** dump-ports-desc is preferred over show when both describe the ports. */
  readonly rank: number;
  readonly text: string | undefined;
  readonly notText?: string;
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Whether a path is an ovs-ofctl output file of a sosreport. */
export function isSosFile(path: string): boolean {
  return SOS_FILE.test(baseName(path));
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim() !== '') ?? '(empty)').trim();
}

/** One node per bridge that has a dump-flows file; `origin` names the directory or archive. */
export function sosNodes(tree: ReadonlyMap<string, Buffer>, origin: string): NodeSource[] {
  const candidates: Candidate[] = [];
  for (const [path, data] of tree) {
    const m = SOS_FILE.exec(baseName(path));
    if (!m) continue;
    const decoded = decodeText(data);
    candidates.push({
      path,
      bridge: m[3]!,
      kind: KIND[m[2]!]!,
      version: m[1] === undefined ? 10 : 10 + Number(m[1]),
      rank: m[2] === 'show' ? 0 : 1,
      text: 'text' in decoded ? decoded.text : undefined,
      ...('notText' in decoded ? { notText: decoded.notText } : {}),
    });
  }
  const bridges = [...new Set(candidates.filter((c) => c.kind === 'flows').map((c) => c.bridge))].sort();
  return bridges.map((bridge) => {
    const files: Partial<Record<NodeFileKind, NodeFile>> = {};
    const problems: string[] = [];
    for (const kind of ['flows', 'groups', 'ports'] as const) {
      const mine = candidates
        .filter((c) => c.bridge === bridge && c.kind === kind)
        .sort((a, b) => b.version - a.version || b.rank - a.rank);
      const best = mine.find((c) => c.text !== undefined && HOLDS_DATA[kind]!.test(c.text));
      if (best?.text !== undefined) {
        files[kind] = { label: `${origin}/${best.path}`, text: best.text };
        continue;
      }
      for (const c of mine.filter((x) => x.notText !== undefined))
        problems.push(`${origin}/${c.path}: not text (${c.notText})`);
      // Say which output was looked at and what it holds instead of flows.
      if (kind === 'flows' && mine[0] !== undefined) {
        const shown = mine.find((c) => c.text !== undefined);
        problems.push(
          `no ${kind} for ${bridge}: ${shown ? `${shown.path} says: ${firstLine(shown.text!)}` : 'no readable dump-flows output'}`,
        );
      }
    }
    return { name: bridge, origin, files, problems };
  });
}
