/**
 * Antrea support bundles built for tests from real ovs-ofctl output, the way the agent writes
 * them: reply headers dropped, every line trimmed, joined with `\n`, no final newline; then
 * packed with tar-stream and gzipped, in memory.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { repoRoot } from './paths.ts';

/** ovs-ofctl output as the agent stores it in `flows`, `groups` and `ovsports`. */
export function agentText(output: string): string {
  return output
    .split('\n')
    .map((l) => l.trim())
    .filter(
      (l) =>
        l !== '' && !/^(?:NXST|OFPST|OFPT)_\w+ reply|^OFPT_FEATURES_REPLY|^n_tables:|^capabilities:|^actions: /.test(l),
    )
    .join('\n');
}

export function example(path: string): string {
  return readFileSync(join(repoRoot, 'examples', path), 'utf8');
}

export interface TarFile {
  readonly name: string;
  readonly data: string | Buffer;
  /** Defaults to a regular file. */
  readonly type?: 'file' | 'symlink' | 'directory';
  readonly linkname?: string;
}

/** An uncompressed tar archive of the files, in order. */
export async function tar(files: readonly TarFile[]): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  p.on('data', (c: unknown) => {
    chunks.push(c as Buffer);
  });
  const done = new Promise<void>((resolve, reject) => {
    p.on('end', resolve);
    p.on('error', reject);
  });
  for (const f of files) {
    const type = f.type ?? 'file';
    if (type === 'file')
      p.entry({ name: f.name, mode: 0o644 }, typeof f.data === 'string' ? Buffer.from(f.data) : f.data);
    else p.entry({ name: f.name, type, ...(f.linkname === undefined ? {} : { linkname: f.linkname }) });
  }
  p.finalize();
  await done;
  return Buffer.concat(chunks);
}

export async function tarGz(files: readonly TarFile[]): Promise<Buffer> {
  return gzipSync(await tar(files));
}

/** AntreaAgentInfo YAML as `yaml.Marshal` lays it out (the fields flowscope reads, and a few more). */
export function agentInfo(node: string, flowTable: Readonly<Record<string, number>>): string {
  const tables = Object.entries(flowTable).map(([k, v]) => `    ${/^\d+$/.test(k) ? `"${k}"` : k}: ${v}`);
  return [
    'agentConditions:',
    '- lastHeartbeatTime: "2024-05-02T10:00:00Z"',
    '  status: "True"',
    '  type: AgentHealthy',
    'apiVersion: crd.antrea.io/v1beta1',
    'kind: AntreaAgentInfo',
    'localPodNum: 2',
    'metadata:',
    `  name: ${node}`,
    'nodeRef:',
    '  kind: Node',
    `  name: ${node}`,
    'ovsInfo:',
    '  bridgeName: br-int',
    '  flowTable:',
    ...tables,
    '  version: 2.17.7',
    'version: v1.2.0',
  ].join('\n');
}

/** The files of an agent tarball for the examples/antrea pipeline, as Antrea v1.2 would save them. */
export function antreaAgentFiles(node: string): TarFile[] {
  return [
    { name: 'flows', data: agentText(example('antrea/dump-flows.of13.names.txt')) },
    { name: 'ovsports', data: agentText(example('antrea/dump-ports-desc.of10.txt')) },
    { name: 'agentinfo', data: agentInfo(node, { Classification: 5, SpoofGuard: 6 }) },
    { name: 'networkpolicies', data: '- metadata:\n    name: allow-dns\n  rules: []\n' },
    { name: 'logs/agent/antrea-agent.log', data: 'I0502 10:00:00 agent started\n' },
  ];
}

/** An agent tarball for the examples/antrea-proxy pipeline with Service groups (v2.0+ layout). */
export function antreaProxyAgentFiles(node: string): TarFile[] {
  return [
    { name: 'flows', data: agentText(example('antrea-proxy/dump-flows.of15.names.no-stats.txt')) },
    { name: 'groups', data: agentText(example('antrea-proxy/dump-groups.of15.txt')) },
    { name: 'ovsports', data: agentText(example('antrea-proxy/show.of13.txt')) },
    { name: 'agentinfo', data: agentInfo(node, {}) },
  ];
}
