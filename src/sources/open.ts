/**
 * Where a dump comes from, resolved in one place: files (a dump, gzip-compressed or not, or a
 * bundle found by its content), standard input, a support bundle or sosreport, or a live switch
 * through `kubectl exec` or a local `ovs-ofctl`; with port maps and a groups file. `openSource`
 * reads and parses them and returns the dump(s) with every problem as data, never throwing for
 * what the user gave: a problem of severity `error` means nothing was read.
 */
import type { Diagnostic } from '../model/diagnostics.ts';
import type { PortMap } from '../model/ports.ts';
import { type Bundle, openBundle, openBundleArchive, selectNode } from './bundle.ts';
import { InputReader, type InputStream, emptyInputReason, inputLabel } from './input.ts';
import { collectLive, LIVE_DEFAULTS, type LiveTarget } from './live.ts';
import { type NodeFile, type NodeSource, SourceError } from './node.ts';
import { type NodeDump, readNode } from './node-dump.ts';
import { type ParsedFiles, parseFiles, type ParseFilesOptions } from './parse-files.ts';
import { mergePortMaps, readPortDescriptions } from './port-map.ts';
import type { ReadAlong } from '../syntax/written-pairs.ts';

/** What every kind of source may come with. */
export interface SourceExtras {
  /** Port descriptions naming the ports (`ovs-ofctl show`, `dump-ports-desc`, a bundle's `ovsports`): files, `-` for standard input. */
  readonly ports?: readonly string[];
  /** A `dump-groups` file (or `-`) read with the flows; its groups are added to the dump's. */
  readonly groups?: string;
}

/** Dumps in files (`-`: standard input), read as one; a file that holds a bundle is read as its node. */
export interface FilesSpec extends SourceExtras {
  readonly kind: 'files';
  readonly paths: readonly string[];
  /** The node to read of the files that are bundles. */
  readonly node?: string;
}

/** A dump on a stream: standard input, or any stream of its bytes. */
export interface StdinSpec extends SourceExtras {
  readonly kind: 'stdin';
  /** Default: OpenSourceOptions.stdin. */
  readonly stream?: InputStream;
}

/** An Antrea support bundle: a directory, `agent_<node>.tar.gz`, or a tarball of either (`-`: on standard input). */
export interface BundleSpec extends SourceExtras {
  readonly kind: 'bundle';
  readonly path: string;
  /** The node to read; needed when the bundle holds several, unless everyNode. */
  readonly node?: string;
  /** Every node (or every node named `node`), each its own dump. */
  readonly everyNode?: boolean;
}

/** A sosreport (directory or archive): one dump per bridge of `sos_commands/openvswitch`. */
export interface SosreportSpec extends SourceExtras {
  readonly kind: 'sosreport';
  readonly path: string;
  /** The bridge to read; needed when the report holds several. */
  readonly bridge?: string;
}

/** What a live dump may be given: the bridge, and how long each command may take. */
export interface LiveSpecOptions {
  /** Default br-int. */
  readonly bridge?: string;
  /** Per command; default 30. */
  readonly timeoutSeconds?: number;
}

/** The switch in a Pod, dumped with `kubectl exec … -- ovs-ofctl`. */
export interface PodSpec extends SourceExtras, LiveSpecOptions {
  readonly kind: 'pod';
  readonly pod: string;
  /** Default kube-system. */
  readonly namespace?: string;
  /** Default antrea-ovs. */
  readonly container?: string;
  readonly kubeconfig?: string;
  readonly context?: string;
}

/** The switch of this host, dumped with `ovs-ofctl`. */
export interface LocalSpec extends SourceExtras, LiveSpecOptions {
  readonly kind: 'local';
}

export type SourceSpec = FilesSpec | StdinSpec | BundleSpec | SosreportSpec | PodSpec | LocalSpec;

export interface OpenSourceOptions {
  /** What `-` reads (default process.stdin); ignored when `reader` is given. */
  readonly stdin?: InputStream;
  /** Reads the inputs, keeping what streams held for later calls of the same run. */
  readonly reader?: InputReader;
  /** The environment live commands run with (PATH finds kubectl/ovs-ofctl); default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Port numbers ↔ names known from elsewhere; ports described in the inputs are added to it. */
  readonly portMap?: PortMap;
  readonly parsing?: Parsing;
  /** The dump the files named are read along (see ReadAlong). */
  readonly along?: ReadAlong;
}

/**
 * Runs the parsing of `chars` characters read from `label`, and may hand it a function told now
 * and then how far it is (to show progress).
 */
export type Parsing = <T>(
  label: string,
  chars: number,
  parse: (onProgress?: (done: number, of: number) => void) => T,
) => T;

/** One dump read: its flows, groups and ports, with what it was read from. */
export interface SourceDump extends ParsedFiles {
  /** What was read, as the user named it: files, `bundle[node]`, `pod ns/name`, `local br-int`. */
  readonly sources: readonly string[];
  /** The texts read, each with its label. */
  readonly files: readonly NodeFile[];
  /** The node read from a bundle or a live switch, with its facts (agentinfo, policy objects). */
  readonly node?: NodeDump;
}

/**
 * What went wrong, in the order found. `refused` (an error): nothing was read, with the lines of a
 * file that is no dump; `damaged`: a warning about what was read (a cut file, a bundle's failed
 * nodes); `diagnostics`: lines with problems, `file:line:col`; `prose`: lines of text skipped;
 * `unreadable-lines`: lines that could not be read and were skipped.
 */
export type SourceProblem =
  | {
      readonly kind: 'refused';
      readonly severity: 'error';
      readonly message: string;
      readonly diagnostics: readonly Diagnostic[];
    }
  | { readonly kind: 'damaged'; readonly severity: 'warning'; readonly message: string }
  | { readonly kind: 'diagnostics'; readonly severity: 'warning'; readonly diagnostics: readonly Diagnostic[] }
  | { readonly kind: 'prose'; readonly severity: 'note'; readonly message: string; readonly lines: number }
  | {
      readonly kind: 'unreadable-lines';
      readonly severity: 'warning';
      readonly message: string;
      readonly lines: number;
    };

export interface OpenedSource {
  /** One dump; none when refused; each node's with BundleSpec.everyNode. */
  readonly dumps: readonly SourceDump[];
  readonly problems: readonly SourceProblem[];
}

/** Problems found on the way; a refusal stops the reading. */
class Problems {
  readonly list: SourceProblem[] = [];

  damaged(message: string): void {
    this.list.push({ kind: 'damaged', severity: 'warning', message });
  }

  /** The diagnostics, lines of text and unreadable lines of what was parsed. */
  parsed(result: ParsedFiles, label: string): void {
    if (result.diagnostics.length > 0)
      this.list.push({ kind: 'diagnostics', severity: 'warning', diagnostics: result.diagnostics });
    const prose = result.proseLines;
    if (prose > 0) {
      const message = `${prose} line${prose === 1 ? '' : 's'} of ${label} ${prose === 1 ? 'is' : 'are'} text, not flows, and ${prose === 1 ? 'was' : 'were'} skipped`;
      this.list.push({ kind: 'prose', severity: 'note', message, lines: prose });
    }
    const bad = result.badLines;
    if (bad > 0) {
      const message = `${bad} line${bad === 1 ? '' : 's'} of ${label} could not be read`;
      this.list.push({ kind: 'unreadable-lines', severity: 'warning', message, lines: bad });
    }
  }
}

/** A refusal: what the user gave cannot be read. */
class Refusal extends Error {
  readonly diagnostics: readonly Diagnostic[];

  constructor(message: string, diagnostics: readonly Diagnostic[] = []) {
    super(message);
    this.diagnostics = diagnostics;
  }
}

interface Context {
  readonly reader: InputReader;
  readonly options: OpenSourceOptions;
  readonly problems: Problems;
}

/** Reads the source the spec names; see SourceSpec. Never throws for what the user gave. */
export async function openSource(spec: SourceSpec, options: OpenSourceOptions = {}): Promise<OpenedSource> {
  const reader =
    spec.kind === 'stdin' && spec.stream !== undefined
      ? new InputReader(spec.stream)
      : (options.reader ?? new InputReader(options.stdin));
  const problems = new Problems();
  try {
    const dumps = await open(spec, { reader, options, problems });
    return { dumps, problems: problems.list };
  } catch (err) {
    if (!(err instanceof SourceError || err instanceof Refusal)) throw err;
    const diagnostics = err instanceof Refusal ? err.diagnostics : [];
    problems.list.push({ kind: 'refused', severity: 'error', message: err.message, diagnostics });
    return { dumps: [], problems: problems.list };
  }
}

/** Reads a file of port descriptions (`-`: standard input): the ports it describes, possibly none. */
export async function readPortMap(name: string, reader: InputReader): Promise<PortMap> {
  return readPortDescriptions((await reader.readInput(name)).text);
}

async function open(spec: SourceSpec, context: Context): Promise<SourceDump[]> {
  const { reader, options } = context;
  const maps = options.portMap === undefined ? [] : [options.portMap];
  for (const file of spec.ports ?? []) {
    const map = await readPortMap(file, reader);
    if (map.size === 0)
      throw new Refusal(
        `${file}: no ports found (expected ovs-ofctl show or dump-ports-desc output, or a bundle's ovsports)`,
      );
    maps.push(map);
  }
  const portMap = maps.length === 0 ? undefined : mergePortMaps(maps);
  const read = { ...context, ...(portMap === undefined ? {} : { portMap }) };
  const dumps = await dumpsOf(spec, read);
  if (spec.groups === undefined) return dumps;
  return Promise.all(dumps.map((d) => withGroupsFile(d, spec.groups!, context)));
}

/** The dump with the groups of a groups file, read with the dump's port names. */
async function withGroupsFile(dump: SourceDump, file: string, context: Context): Promise<SourceDump> {
  const [extra] = await dumpsOf(
    { kind: 'files', paths: [file] },
    { ...context, options: { ...context.options, portMap: dump.ports } },
  );
  return { ...dump, groups: [...dump.groups, ...extra!.groups] };
}

type Reading = Context & { readonly portMap?: PortMap };

async function dumpsOf(spec: SourceSpec, context: Reading): Promise<SourceDump[]> {
  switch (spec.kind) {
    case 'files':
      return [await readFiles(spec.paths, spec.node, context)];
    case 'stdin':
      return [await readFiles(['-'], undefined, context)];
    case 'bundle':
    case 'sosreport': {
      const bundle = await openBundleInput(spec.path, context.reader);
      const node = spec.kind === 'bundle' ? spec.node : spec.bridge;
      if (spec.kind === 'bundle' && spec.everyNode === true) return everyNode(bundle, node, context);
      const chosen = selectNode(bundle, node);
      for (const p of bundle.problems) context.problems.damaged(p);
      return [readNodeDump(chosen, `${inputLabel(spec.path)}[${chosen.name}]`, context)];
    }
    case 'pod':
    case 'local': {
      const bridge = spec.bridge ?? LIVE_DEFAULTS.bridge;
      const target: LiveTarget =
        spec.kind === 'local'
          ? { kind: 'local' }
          : {
              kind: 'pod',
              pod: spec.pod,
              namespace: spec.namespace ?? LIVE_DEFAULTS.namespace,
              container: spec.container ?? LIVE_DEFAULTS.container,
              ...(spec.kubeconfig === undefined ? {} : { kubeconfig: spec.kubeconfig }),
              ...(spec.context === undefined ? {} : { context: spec.context }),
            };
      const node = await collectLive({
        target,
        bridge,
        timeoutMs: (spec.timeoutSeconds ?? LIVE_DEFAULTS.timeoutSeconds) * 1000,
        env: context.options.env ?? process.env,
      });
      const label = target.kind === 'pod' ? `pod ${target.namespace}/${target.pod}` : `local ${bridge}`;
      return [readNodeDump(node, label, context)];
    }
  }
}

/** A bundle given by path, or as an archive on standard input (`-`). */
export async function openBundleInput(name: string, reader: InputReader): Promise<Bundle> {
  if (name === '-') return openBundleArchive(await reader.readStdin(), inputLabel(name));
  return openBundle(name);
}

/** Every node of the bundle, or those named `name`; the bundle's own problems are warnings. */
function everyNode(bundle: Bundle, name: string | undefined, context: Reading): SourceDump[] {
  const chosen = name === undefined ? bundle.nodes : bundle.nodes.filter((n) => n.name === name);
  if (chosen.length === 0)
    throw new Refusal(
      `${bundle.path}: no node ${JSON.stringify(name)} (nodes: ${bundle.nodes.map((n) => n.name).join(', ')})`,
    );
  for (const p of bundle.problems) context.problems.damaged(p);
  return chosen.map((n) => {
    const dump = readNode(n, context.portMap === undefined ? {} : { portMap: context.portMap });
    return { ...dump, sources: [`${bundle.path}[${n.name}]`], files: nodeTexts(n), node: dump };
  });
}

function nodeTexts(node: NodeSource): NodeFile[] {
  return Object.values(node.files).filter((f): f is NodeFile => f !== undefined);
}

function parsing<T>(
  context: Reading,
  label: string,
  files: readonly (NodeFile | undefined)[],
  parse: (progress: Pick<ParseFilesOptions, 'onProgress'>) => T,
): T {
  const around = context.options.parsing;
  if (around === undefined) return parse({});
  const chars = files.reduce((n, f) => n + (f?.text.length ?? 0), 0);
  return around(label, chars, (onProgress) => parse(onProgress ? { onProgress } : {}));
}

/** A node (of a bundle, or a live switch) read as one dump, its problems said. */
function readNodeDump(node: NodeSource, label: string, context: Reading): SourceDump {
  const portMap = context.portMap === undefined ? {} : { portMap: context.portMap };
  const dump = parsing(context, label, [node.files.flows, node.files.groups], (onProgress) =>
    readNode(node, { ...portMap, ...onProgress }),
  );
  for (const p of dump.nodeProblems) context.problems.damaged(p);
  context.problems.parsed(dump, `node ${dump.name}`);
  return { ...dump, sources: [label], files: nodeTexts(node), node: dump };
}

/** A positional input: a text dump, or a bundle (directory or archive) read as its one node. */
async function positional(name: string, node: string | undefined, context: Reading): Promise<NodeFile | NodeSource> {
  const { reader, problems } = context;
  if (await reader.isBundleInput(name)) {
    const bundle = await openBundleInput(name, reader);
    const chosen = selectNode(bundle, node);
    for (const p of bundle.problems) problems.damaged(p);
    return chosen;
  }
  const text = await reader.readInputText(
    name,
    (kind) =>
      new Refusal(
        `${inputLabel(name)}: not an ovs-ofctl dump (${kind}); give dump-flows or dump-groups output, or a support bundle`,
      ),
  );
  return { label: name, text };
}

/**
 * A file or standard input with nothing in it, or only comments, is refused with the reason:
 * read as a dump without flows it would pass every check, so a failed `kubectl exec` before a
 * pipe would give a green build.
 */
function refuseEmpty(input: NodeFile): void {
  const why = emptyInputReason(input.label, input.text);
  if (why !== undefined) throw new Refusal(`${why}: no flows or groups to read`);
}

async function readFiles(paths: readonly string[], node: string | undefined, context: Reading): Promise<SourceDump> {
  const names = paths.length === 0 ? ['-'] : paths;
  if (names.filter((n) => n === '-').length > 1) throw new Refusal('only one input can be standard input (-)');
  const read = await Promise.all(names.map((n) => positional(n, node, context)));
  for (const r of read) if (!('files' in r)) refuseEmpty(r);
  const nodes = read.filter((r): r is NodeSource => 'files' in r);
  if (node !== undefined && nodes.length === 0)
    throw new Refusal('--node goes with --bundle (or a bundle given as input)');
  if (read.length === 1 && nodes.length === 1) {
    const dump = readNodeDump(nodes[0]!, inputLabel(names[0]!), context);
    return { ...dump, sources: names };
  }
  const defined = (f: NodeFile | undefined): f is NodeFile => f !== undefined;
  const files = read.flatMap((r) => ('files' in r ? [r.files.flows, r.files.groups].filter(defined) : [r]));
  const portFiles = nodes.map((n) => n.files.ports).filter(defined);
  const label = names.length === 1 ? inputLabel(names[0]!) : 'the inputs';
  const portMap = context.portMap === undefined ? {} : { portMap: context.portMap };
  const { along } = context.options;
  const result = parsing(context, label, files, (onProgress) =>
    parseFiles(files, { ...portMap, portFiles, ...onProgress, ...(along ? { along } : {}) }),
  );
  if (result.rejected.length > 0)
    throw new Refusal(
      result.rejected.map((r) => r.message).join('\n'),
      result.rejected.flatMap((r) => r.diagnostics),
    );
  for (const p of result.problems) context.problems.damaged(p);
  context.problems.parsed(result, label);
  // Added to, not spread: a dump read along another makes its paired flows when they are first asked for.
  return Object.assign(result, { sources: names, files: [...files, ...portFiles] });
}
