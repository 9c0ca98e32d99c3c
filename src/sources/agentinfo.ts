/**
 * The few facts flowscope needs from an Antrea bundle's `agentinfo` (a YAML AntreaAgentInfo):
 * the node, the versions, the bridge, and the flow count per table the agent saw. Read line
 * by line from the shape `yaml.Marshal` writes (two-space indent, one key per line), so no
 * YAML library is needed; keys that are absent stay absent.
 */
import { minOf } from '../model/append.ts';

export interface AgentInfo {
  readonly nodeName?: string;
  readonly agentVersion?: string;
  readonly ovsVersion?: string;
  readonly bridgeName?: string;
  /** Table name (or number, before v1.4) → flows the agent counted when the bundle was taken. */
  readonly flowTable?: ReadonlyMap<string, number>;
}

interface YamlLine {
  readonly indent: number;
  readonly key: string;
  readonly value: string;
}

function unquote(s: string): string {
  const t = s.trim();
  return /^(["']).*\1$/.test(t) ? t.slice(1, -1) : t;
}

function yamlLines(text: string): YamlLine[] {
  const out: YamlLine[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const m = /^( *)("[^"]*"|'[^']*'|[^\s:#][^:]*):(?:\s+(.*))?$/.exec(raw);
    if (m) out.push({ indent: m[1]!.length, key: unquote(m[2]!), value: unquote(m[3] ?? '') });
  }
  return out;
}

/** The lines indented under top-level `key`. */
function block(lines: readonly YamlLine[], key: string): YamlLine[] {
  const start = lines.findIndex((l) => l.indent === 0 && l.key === key);
  if (start < 0) return [];
  const out: YamlLine[] = [];
  for (const l of lines.slice(start + 1)) {
    if (l.indent === 0) break;
    out.push(l);
  }
  return out;
}

/** Direct children of a block (the least indented keys in it). */
function children(lines: readonly YamlLine[]): YamlLine[] {
  const indent = minOf(lines.map((l) => l.indent));
  return lines.filter((l) => l.indent === indent);
}

/** The lines indented under `key`, a key of the block `lines`. */
function childBlock(lines: readonly YamlLine[], key: string): YamlLine[] {
  const i = lines.findIndex((l) => l.key === key);
  if (i < 0) return [];
  const own = lines[i]!.indent;
  const out: YamlLine[] = [];
  for (const l of lines.slice(i + 1)) {
    if (l.indent <= own) break;
    out.push(l);
  }
  return out;
}

/** Whether the text looks like an AntreaAgentInfo at all. */
export function looksLikeAgentInfo(text: string): boolean {
  return /^(?:ovsInfo|nodeRef|localPodNum|agentConditions):/m.test(text);
}

export function parseAgentInfo(text: string): AgentInfo {
  const lines = yamlLines(text);
  const top = (key: string): string | undefined => {
    const v = lines.find((l) => l.indent === 0 && l.key === key)?.value;
    return v === undefined || v === '' ? undefined : v;
  };
  const nodeRef = block(lines, 'nodeRef');
  const ovs = block(lines, 'ovsInfo');
  const ovsTop = ovs.length > 0 ? children(ovs) : [];
  const tableLines = ovs.length > 0 ? childBlock(ovs, 'flowTable') : [];
  const flowTable = new Map<string, number>();
  for (const l of tableLines) {
    const n = Number(l.value);
    if (l.value !== '' && Number.isInteger(n)) flowTable.set(l.key, n);
  }
  const nodeName = nodeRef.length > 0 ? children(nodeRef).find((l) => l.key === 'name')?.value : undefined;
  const ovsVersion = ovsTop.find((l) => l.key === 'version')?.value;
  const bridgeName = ovsTop.find((l) => l.key === 'bridgeName')?.value;
  const agentVersion = top('version');
  return {
    ...(nodeName ? { nodeName } : {}),
    ...(agentVersion ? { agentVersion } : {}),
    ...(ovsVersion ? { ovsVersion } : {}),
    ...(bridgeName ? { bridgeName } : {}),
    ...(flowTable.size > 0 ? { flowTable } : {}),
  };
}
