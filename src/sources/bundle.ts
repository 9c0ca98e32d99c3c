/**
 * Collections of dumps on disk, found by their layout rather than by a flag:
 * - an Antrea support bundle directory (`agent_<node>.tar.gz` per node, `failed_nodes`), or a
 *   tarball of one;
 * - one agent's tarball (`agent_<node>.tar.gz`, or the in-Pod `bundle_*.tar.gz`) or its
 *   unpacked directory: `flows`, `groups`, `ovsports`, `agentinfo`, policy objects;
 * - per-node directories holding `flows` (and `ovs-show`), as OpenShift's debug scripts leave;
 * - a sosreport (`sos_commands/openvswitch/…`), one node per bridge.
 * Archives are read in memory; only the files named above are kept.
 */
import { basename, join } from 'node:path';
import { parseAgentInfo } from './agentinfo.ts';
import { ArchiveTooLarge, contentMagic, MAGIC_DESCRIPTION, readArchive, sniff } from './archive.ts';
import { fsPromises } from './lazy-modules.ts';
import { exceeded, MAX_INPUT_BYTES, mebibytes, ReadBudget } from './limits.ts';
import { decodeText, type NodeFile, type NodeFileKind, type NodeSource, POLICY_KINDS, SourceError } from './node.ts';
import { isSosFile, sosNodes } from './sos.ts';
import { ownEntry } from '../model/own-key.ts';

export interface Bundle {
  /** The path given, or how standard input is named. */
  readonly path: string;
  /** Nodes in name order. */
  readonly nodes: readonly NodeSource[];
  /** Problems that belong to no node (nodes the bundle could not collect, unreadable members). */
  readonly problems: readonly string[];
}

/** File name in a node's directory → what it holds. */
const NODE_FILES: Readonly<Record<string, NodeFileKind>> = {
  flows: 'flows',
  groups: 'groups',
  ovsports: 'ports',
  'ovs-show': 'ports',
  agentinfo: 'agentinfo',
  ...Object.fromEntries(POLICY_KINDS.map((k) => [k, k])),
};

const NODE_ARCHIVE = /^(?:agent_(.+)|bundle_.*)\.(?:tar\.gz|tgz)$/;
const FAILED_NODES = 'failed_nodes';
/** Deep enough for `support-bundles_X/agent_n/…` and `sosreport-host/sos_commands/openvswitch/…`. */
const MAX_DEPTH = 4;

type Tree = Map<string, Buffer>;

function baseOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

function wanted(path: string): boolean {
  const base = baseOf(path);
  return (
    ownEntry(NODE_FILES, base) !== undefined || NODE_ARCHIVE.test(base) || base === FAILED_NODES || isSosFile(path)
  );
}

function describeError(err: unknown): string {
  const code = (err as { code?: string }).code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES') return 'permission denied';
  return err instanceof Error ? err.message : String(err);
}

/** The wanted files under a directory; symbolic links are neither followed nor read. */
async function treeFromDirectory(dir: string, problems: string[], budget: ReadBudget): Promise<Tree> {
  const { lstat, readdir, readFile } = fsPromises();
  const tree: Tree = new Map();
  const walk = async (rel: string, depth: number): Promise<void> => {
    let names: string[];
    try {
      names = (await readdir(join(dir, rel))).sort();
    } catch (err) {
      problems.push(`${join(dir, rel)}: cannot list: ${describeError(err)}`);
      return;
    }
    for (const name of names) {
      const relPath = rel === '' ? name : `${rel}/${name}`;
      const full = join(dir, relPath);
      const st = await lstat(full).catch(() => undefined);
      if (st === undefined || st.isSymbolicLink()) continue;
      if (st.isDirectory()) {
        if (depth < MAX_DEPTH && name !== 'logs') await walk(relPath, depth + 1);
      } else if (st.isFile() && wanted(relPath)) {
        if (st.size > MAX_INPUT_BYTES) {
          problems.push(
            `${full}: skipped: ${mebibytes(st.size)}, more than flowscope reads of one file (${mebibytes(MAX_INPUT_BYTES)})`,
          );
          continue;
        }
        budget.take(st.size, 1, dir);
        try {
          tree.set(relPath, await readFile(full));
        } catch (err) {
          problems.push(`${full}: cannot read: ${describeError(err)}`);
        }
      }
    }
  };
  await walk('', 0);
  return tree;
}

/**
 * The wanted files of an archive, all it inflates to counted against the bundle's budget. Only
 * agent archives are opened inside an archive, one level deep: their own contents are not.
 */
async function treeFromArchive(data: Buffer, label: string, problems: string[], budget: ReadBudget): Promise<Tree> {
  let contents;
  try {
    contents = await readArchive(data, {
      wanted,
      maxBytes: budget.bytes,
      maxEntries: budget.entries,
      maxEntryBytes: MAX_INPUT_BYTES,
    });
  } catch (err) {
    throw err instanceof ArchiveTooLarge ? exceeded(err.limit, label) : err;
  }
  // Every byte an archive inflates to counts, kept or not: archives inside it share the budget.
  budget.take(contents.bytes, contents.entryCount, label);
  for (const p of contents.problems) problems.push(`${label} ${p}`);
  for (const e of contents.entries) {
    if (e.cutFrom !== undefined)
      problems.push(`${label}:${e.path} is cut short: ${e.data.length} of ${e.cutFrom} bytes`);
  }
  return new Map(contents.entries.map((e) => [e.path, e.data]));
}

/**
 * The node's name: the one an `agent_<node>` archive is named after, else agentinfo's, else
 * its directory's (for files at the root of a collection: the collection's name).
 */
function nodeName(files: Partial<Record<NodeFileKind, NodeFile>>, dir: string, root: RootName): string {
  if (dir === '' && root.fromAgentArchive) return root.name;
  const info = files.agentinfo === undefined ? undefined : parseAgentInfo(files.agentinfo.text);
  return info?.nodeName ?? (dir === '' ? root.name : baseOf(dir));
}

interface RootName {
  readonly name: string;
  /** Named `agent_<node>.tar.gz`, which says whose it is. */
  readonly fromAgentArchive: boolean;
}

function rootNameOf(fileName: string): RootName {
  const m = NODE_ARCHIVE.exec(fileName);
  if (m?.[1] !== undefined) return { name: m[1], fromAgentArchive: true };
  return { name: fileName.replace(/\.(?:tar\.gz|tgz|tar)$/, ''), fromAgentArchive: false };
}

/** Nodes from the node files of a tree, grouped by directory. */
function directoryNodes(tree: Tree, origin: string, root: RootName, separator: string): NodeSource[] {
  const byDir = new Map<string, { files: Partial<Record<NodeFileKind, NodeFile>>; problems: string[] }>();
  for (const [path, data] of tree) {
    const kind = ownEntry(NODE_FILES, baseOf(path));
    if (kind === undefined || isSosFile(path)) continue;
    const dir = dirOf(path);
    let node = byDir.get(dir);
    if (!node) byDir.set(dir, (node = { files: {}, problems: [] }));
    const label = `${origin}${separator}${path}`;
    const decoded = decodeText(data);
    // `ovsports` wins over `ovs-show` should both be there; both describe the same ports.
    if ('notText' in decoded) node.problems.push(`${label}: not text (${decoded.notText})`);
    else if (node.files[kind] === undefined || baseOf(path) === 'ovsports')
      node.files[kind] = { label, text: decoded.text };
  }
  return [...byDir.entries()]
    .filter(
      ([, n]) =>
        n.files.flows !== undefined ||
        n.files.groups !== undefined ||
        n.files.agentinfo !== undefined ||
        n.problems.length > 0,
    )
    .map(([dir, n]) => ({
      name: nodeName(n.files, dir, root),
      origin: dir === '' ? origin : `${origin}${separator}${dir}`,
      files: n.files,
      problems: n.problems,
    }));
}

/** Every node a tree holds: nested agent archives, node directories, sosreport bridges. */
async function nodesOfTree(
  tree: Tree,
  origin: string,
  root: RootName,
  separator: string,
  problems: string[],
  budget: ReadBudget,
): Promise<NodeSource[]> {
  const nodes: NodeSource[] = [];
  for (const [path, data] of tree) {
    const base = baseOf(path);
    if (base === FAILED_NODES) {
      const failed = data.toString('utf8').split(/\s+/).filter(Boolean);
      if (failed.length > 0)
        problems.push(
          `the bundle could not collect ${failed.length === 1 ? 'node' : 'nodes'} ${failed.join(', ')} (${FAILED_NODES})`,
        );
      continue;
    }
    if (!NODE_ARCHIVE.test(base)) continue;
    const label = `${origin}${separator}${path}`;
    const own: string[] = [];
    const inner = await treeFromArchive(data, label, own, budget);
    const name = rootNameOf(base);
    const found = directoryNodes(inner, label, name, ':');
    if (found.length === 0) nodes.push({ name: name.name, origin: label, files: {}, problems: own });
    // Damage to the archive concerns every node read from it.
    for (const n of found) nodes.push({ ...n, problems: [...own, ...n.problems] });
  }
  nodes.push(...directoryNodes(tree, origin, root, separator));
  nodes.push(...sosNodes(tree, origin));
  return nodes.sort((a, b) => a.name.localeCompare(b.name));
}

/** Reads the collection at `path` (directory or archive). Throws SourceError when it holds no dumps. */
export async function openBundle(path: string): Promise<Bundle> {
  const { readFile, stat } = fsPromises();
  // The path given may be a link; links inside it are not followed.
  const st = await stat(path).catch((err: unknown) => {
    throw new SourceError(`cannot read ${path}: ${describeError(err)}`);
  });
  if (!st.isDirectory()) {
    // A FIFO or a device would be read without end, or wait for a writer for ever.
    if (!st.isFile())
      throw new SourceError(`${path}: not a directory or a regular file; give a bundle directory or archive`);
    if (st.size > MAX_INPUT_BYTES)
      throw new SourceError(
        `${path}: ${mebibytes(st.size)}, more than flowscope reads of one file (${mebibytes(MAX_INPUT_BYTES)})`,
      );
    const data = await readFile(path).catch((err: unknown) => {
      throw new SourceError(`cannot read ${path}: ${describeError(err)}`);
    });
    return openBundleArchive(data, path, basename(path));
  }
  const problems: string[] = [];
  const budget = new ReadBudget();
  const tree = await treeFromDirectory(path, problems, budget);
  const nodes = await nodesOfTree(tree, path, { name: basename(path), fromAgentArchive: false }, '/', problems, budget);
  return bundleOf(path, nodes, problems);
}

/**
 * Reads a collection from the bytes of an archive (a file's, or standard input's): `label` names
 * it in messages, `fileName` (an `agent_<node>.tar.gz` names its node) is that of the file, if
 * any. Throws SourceError when the data is no tar archive or holds no dumps.
 */
export async function openBundleArchive(data: Buffer, label: string, fileName = label): Promise<Bundle> {
  const magic = sniff(data);
  if (magic === 'xz' || magic === 'bzip2' || magic === 'zstd' || magic === 'zip') {
    throw new SourceError(
      `${label}: ${MAGIC_DESCRIPTION[magic]}; flowscope reads directories, .tar and .tar.gz archives: unpack it and give the directory`,
    );
  }
  if (magic !== 'gzip' && magic !== 'tar') {
    const what =
      magic === undefined ? ('notText' in decodeText(data) ? 'binary data' : 'a text file') : MAGIC_DESCRIPTION[magic];
    throw new SourceError(`${label}: not a support bundle (${what}); expected a bundle directory or a .tar.gz archive`);
  }
  const inner = magic === 'gzip' ? contentMagic(data) : magic;
  if (inner !== 'tar' && inner !== 'gzip') {
    throw new SourceError(
      `${label}: not a support bundle (gzip-compressed, but not a tar archive); expected a bundle directory or a .tar.gz archive (a compressed dump is read as an input, without --bundle)`,
    );
  }
  const problems: string[] = [];
  const own: string[] = [];
  const budget = new ReadBudget();
  const tree = await treeFromArchive(data, label, own, budget);
  const root = rootNameOf(fileName);
  let nodes = (await nodesOfTree(tree, label, root, ':', problems, budget)).map((n) => ({
    ...n,
    problems: [...own, ...n.problems],
  }));
  // An agent's own archive is a node even when too damaged to show any file.
  if (root.fromAgentArchive && nodes.length === 0)
    nodes = [{ name: root.name, origin: label, files: {}, problems: own }];
  else if (nodes.length === 0) problems.push(...own);
  return bundleOf(label, nodes, problems);
}

/** The bundle, or an error when it holds no node. */
function bundleOf(path: string, nodes: NodeSource[], problems: string[]): Bundle {
  if (nodes.length === 0) {
    const why = problems.length > 0 ? `: ${problems.join('; ')}` : '';
    throw new SourceError(
      `${path}: no dumps found (expected agent_<node>.tar.gz archives, a directory with a flows file, or sos_commands/openvswitch)${why}`,
    );
  }
  return { path, nodes, problems };
}

/** The nodes by name; a name that several nodes share (bundles of several days in one directory) comes with where each was found. */
function nodeList(nodes: readonly NodeSource[]): string {
  const counts = new Map<string, number>();
  for (const n of nodes) counts.set(n.name, (counts.get(n.name) ?? 0) + 1);
  return nodes.map((n) => (counts.get(n.name)! > 1 ? `${n.name} at ${n.origin}` : n.name)).join(', ');
}

/** The node `name`, or the only node; throws SourceError naming the choices otherwise. */
export function selectNode(bundle: Bundle, name: string | undefined): NodeSource {
  if (name !== undefined) {
    const named = bundle.nodes.filter((n) => n.name === name);
    if (named.length === 0)
      throw new SourceError(`${bundle.path}: no node ${JSON.stringify(name)} (nodes: ${nodeList(bundle.nodes)})`);
    if (named.length > 1) {
      const where = named.map((n) => n.origin).join(', ');
      throw new SourceError(
        `${bundle.path} holds ${named.length} nodes named ${JSON.stringify(name)} (${where}): give the one you mean instead of ${bundle.path}`,
      );
    }
    return named[0]!;
  }
  if (bundle.nodes.length === 1) return bundle.nodes[0]!;
  throw new SourceError(
    `${bundle.path} holds ${bundle.nodes.length} nodes (${nodeList(bundle.nodes)}): choose one with --node NAME`,
  );
}
