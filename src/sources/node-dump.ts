/** A node's files read into flows, groups and ports, with the node's facts and problems. */
import { type AgentInfo, parseAgentInfo } from './agentinfo.ts';
import { type NodeFile, type NodeSource, POLICY_KINDS } from './node.ts';
import { type ParsedFiles, type ParseFilesOptions, parseFiles } from './parse-files.ts';

export type PolicyKind = (typeof POLICY_KINDS)[number];

export interface NodeDump extends ParsedFiles {
  readonly name: string;
  readonly origin: string;
  readonly agentInfo?: AgentInfo;
  /** Antrea's control-plane policy objects (YAML text), where the bundle has them. */
  readonly policies: Partial<Record<PolicyKind, NodeFile>>;
  /** Everything wrong with the node's files, one sentence each, naming the file. */
  readonly nodeProblems: readonly string[];
}

export function readNode(node: NodeSource, options: Pick<ParseFilesOptions, 'portMap' | 'onProgress'> = {}): NodeDump {
  const { flows, groups, ports, agentinfo } = node.files;
  const parsed = parseFiles(
    [flows, groups].filter((f): f is NodeFile => f !== undefined),
    { ...options, ...(ports ? { portFiles: [ports] } : {}) },
  );
  const agentInfo = agentinfo === undefined ? undefined : parseAgentInfo(agentinfo.text);
  const policies: Partial<Record<PolicyKind, NodeFile>> = {};
  for (const k of POLICY_KINDS) {
    const f = node.files[k];
    if (f !== undefined) policies[k] = f;
  }
  const nodeProblems = [...node.problems, ...parsed.rejected.map((r) => r.message), ...parsed.problems];
  if (flows === undefined) nodeProblems.push(`${node.origin}: no flows file`);
  else if (parsed.flows.length === 0 && !parsed.rejected.some((r) => r.label === flows.label))
    nodeProblems.push(`${flows.label}: holds no flows`);
  // The agent counts flows per table when the bundle is taken; far fewer in the file means it was cut.
  const counted =
    agentInfo?.flowTable === undefined ? undefined : [...agentInfo.flowTable.values()].reduce((a, b) => a + b, 0);
  if (counted !== undefined && flows !== undefined && parsed.flows.length < counted) {
    nodeProblems.push(
      `${flows.label}: ${parsed.flows.length} flows, but agentinfo counted ${counted}: the file may be incomplete`,
    );
  }
  return {
    ...parsed,
    name: node.name,
    origin: node.origin,
    ...(agentInfo ? { agentInfo } : {}),
    policies,
    nodeProblems,
  };
}
