/**
 * The few facts flowscope needs from an Antrea bundle's `agentinfo` (a YAML AntreaAgentInfo):
 * the node, the versions, the bridge, and the flow count per table the agent saw. Read with the
 * `yaml` library, every scalar as text (the failsafe schema: `1.10` stays `1.10`); keys that are
 * absent stay absent, and a file it cannot read whole gives what it could read.
 */
import { yamlLibrary } from '../syntax/yaml-library.ts';

export interface AgentInfo {
  readonly nodeName?: string;
  readonly agentVersion?: string;
  readonly ovsVersion?: string;
  readonly bridgeName?: string;
  /** Table name (or number, before v1.4) → flows the agent counted when the bundle was taken. */
  readonly flowTable?: ReadonlyMap<string, number>;
}

type YamlMap = ReadonlyMap<unknown, unknown>;

function mapOf(v: unknown): YamlMap | undefined {
  return v instanceof Map ? v : undefined;
}

function textOf(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Whether the text looks like an AntreaAgentInfo at all. */
export function looksLikeAgentInfo(text: string): boolean {
  return /^(?:ovsInfo|nodeRef|localPodNum|agentConditions):/m.test(text);
}

function readYaml(text: string): YamlMap | undefined {
  try {
    // Duplicate keys are kept (the last wins), as the agent's own YAML reader does.
    const doc = yamlLibrary().parseDocument(text, { schema: 'failsafe', uniqueKeys: false });
    return mapOf(doc.toJS({ mapAsMap: true }));
  } catch {
    return undefined;
  }
}

export function parseAgentInfo(text: string): AgentInfo {
  const root = readYaml(text);
  const ovs = mapOf(root?.get('ovsInfo'));
  const flowTable = new Map<string, number>();
  for (const [k, v] of mapOf(ovs?.get('flowTable')) ?? []) {
    const n = Number(v);
    if (typeof k === 'string' && typeof v === 'string' && v !== '' && Number.isInteger(n)) flowTable.set(k, n);
  }
  const nodeName = textOf(mapOf(root?.get('nodeRef'))?.get('name'));
  const ovsVersion = textOf(ovs?.get('version'));
  const bridgeName = textOf(ovs?.get('bridgeName'));
  const agentVersion = textOf(root?.get('version'));
  return {
    ...(nodeName ? { nodeName } : {}),
    ...(agentVersion ? { agentVersion } : {}),
    ...(ovsVersion ? { ovsVersion } : {}),
    ...(bridgeName ? { bridgeName } : {}),
    ...(flowTable.size > 0 ? { flowTable } : {}),
  };
}
