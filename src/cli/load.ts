/**
 * Input → parsed model, with diagnostics reported the way every command reports them. Inputs
 * are files, `-` (standard input), support bundles and sosreports (directories or archives,
 * also given with --bundle), or a live switch (--pod, --local); a port map may come with --ports.
 */
import { open, stat } from 'node:fs/promises';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { PortMap } from '../model/ports.ts';
import type { Diagnostic } from '../model/diagnostics.ts';
import { capDiagnostics, DEFAULT_MAX_DIAGNOSTICS, formatDiagnostic } from '../render/diagnostics.ts';
import { contentMagic, SNIFF_BYTES } from '../sources/archive.ts';
import { type Bundle, openBundle, openBundleArchive, selectNode } from '../sources/bundle.ts';
import { collectLive, LIVE_DEFAULTS, type LiveTarget, MAX_TIMEOUT_SECONDS } from '../sources/live.ts';
import { binaryKind, type NodeFile, type NodeSource, SourceError } from '../sources/node.ts';
import { type NodeDump, readNode } from '../sources/node-dump.ts';
import { type ParsedFiles, parseFiles, type ParseFilesOptions } from '../sources/parse-files.ts';
import { mergePortMaps, readPortDescriptions } from '../sources/port-map.ts';
import type { ParseResult } from '../syntax/reader.ts';
import { emptyInputReason, inputLabel, readInput, readInputBytes, readSpecialFile, readStdin } from './input.ts';
import { INPUT_OPTIONS_HEADING } from './help-groups.ts';
import { LARGE_INPUT_CHARS, Progress } from './progress.ts';
import { type Io, notice, UserError, writeErr } from './io.ts';
import { flowsFromStdin } from './commands/source-args.ts';

export interface LoadOptions {
  /** Any error diagnostic makes the command fail with exit 2. */
  readonly strict?: boolean;
  /** Do not print warnings (errors are always printed). */
  readonly quiet?: boolean;
  /** Port numbers ↔ names known from elsewhere; ports described in the inputs are added to it. */
  readonly portMap?: PortMap;
  /** Diagnostics shown per file (DEFAULT_MAX_DIAGNOSTICS unless given). */
  readonly maxErrors?: number;
}

/** The options `addInputOptions` declares, as commander hands them to the action. */
export interface InputCliOptions {
  bundle?: string;
  node?: string;
  ports?: string;
  pod?: string;
  namespace?: string;
  container?: string;
  kubeconfig?: string;
  context?: string;
  local?: boolean;
  bridge?: string;
  timeout?: number;
  strict?: boolean;
  maxErrors?: number;
}

export interface LoadedDump extends ParseResult {
  /** What was read, as the user named it: files, `bundle[node]`, `pod ns/name`, `local br-int`. */
  readonly sources: readonly string[];
  /** The node read from a bundle or a live switch, with its facts (agentinfo, policy objects). */
  readonly node?: NodeDump;
}

function count(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n))
    throw new InvalidArgumentError('expected a number of diagnostics (0 for none)');
  return n;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number of seconds');
  if (n > MAX_TIMEOUT_SECONDS)
    throw new InvalidArgumentError(`expected at most ${MAX_TIMEOUT_SECONDS} seconds (24 days)`);
  return n;
}

/**
 * Declares the input options on a command: --bundle/--node, --ports, --pod (with -n, --container,
 * --kubeconfig, --context), --local, --bridge, --timeout, --strict. Options the command already
 * declares are left as they are, but listed among the input options in its help.
 */
export function addInputOptions(cmd: Command): Command {
  const has = (flag: string): boolean => cmd.options.some((o) => o.long === flag || o.short === flag);
  const add = (flags: string, description: string, parse?: (v: string) => unknown): void => {
    const long = /--[\w-]+/.exec(flags)![0];
    const declared = cmd.options.find((o) => o.long === long);
    if (declared !== undefined) {
      declared.helpGroup(INPUT_OPTIONS_HEADING);
      return;
    }
    const short = /^-\w\b/.exec(flags)?.[0];
    const usable = short !== undefined && has(short) ? flags.replace(/^-\w, /, '') : flags;
    const option = new Option(usable, description).helpGroup(INPUT_OPTIONS_HEADING);
    cmd.addOption(parse ? option.argParser(parse) : option);
  };
  add(
    '--bundle <path>',
    'read an Antrea support bundle or sosreport: directory, agent_<node>.tar.gz, or a tarball of either (- for one on standard input)',
  );
  add('--node <name>', 'the node to read from a bundle of several nodes (a bridge name for a sosreport)');
  add('--ports <file>', "port numbers and names: ovs-ofctl show, dump-ports-desc, or a bundle's ovsports");
  add('--pod <pod>', 'dump the switch live from this Pod with kubectl exec (e.g. an antrea-agent Pod)');
  add('-n, --namespace <namespace>', `namespace of --pod (default ${LIVE_DEFAULTS.namespace})`);
  add('--container <name>', `container of --pod that runs ovs-ofctl (default ${LIVE_DEFAULTS.container})`);
  add('--kubeconfig <file>', 'kubeconfig for kubectl (with --pod)');
  add('--context <name>', 'kubeconfig context for kubectl (with --pod)');
  add('--local', 'dump the switch of this host with ovs-ofctl');
  add('--bridge <name>', `bridge to dump with --pod or --local (default ${LIVE_DEFAULTS.bridge})`);
  add('--timeout <seconds>', `time allowed for each live command (default ${LIVE_DEFAULTS.timeoutSeconds})`, seconds);
  add(
    '--max-errors <n>',
    `diagnostics shown per input file (default ${DEFAULT_MAX_DIAGNOSTICS}); the rest are counted`,
    count,
  );
  add('--strict', 'exit 2 when any line cannot be read');
  // A groups file is read with the flows: an input too, where a command takes one.
  cmd.options.find((o) => o.long === '--groups')?.helpGroup(INPUT_OPTIONS_HEADING);
  return cmd;
}

/** Diagnostics, capped per file and per line; each file's left out are counted in one line. */
function printCapped(diagnostics: readonly Diagnostic[], io: Io, options: LoadOptions): void {
  const wanted = options.quiet ? diagnostics.filter((d) => d.severity !== 'warning') : diagnostics;
  const { shown, left } = capDiagnostics(wanted, options.maxErrors ?? DEFAULT_MAX_DIAGNOSTICS);
  for (const d of shown) writeErr(io, formatDiagnostic(d));
  for (const [file, n] of left)
    notice(io, `and ${n} more diagnostic${n === 1 ? '' : 's'} of ${file} not shown (--max-errors N to show more)`);
}

function printDiagnostics(result: ParsedFiles, label: string, io: Io, options: LoadOptions): void {
  printCapped(result.diagnostics, io, options);
  if (result.proseLines > 0 && !options.quiet) {
    const n = result.proseLines;
    notice(
      io,
      `${n} line${n === 1 ? '' : 's'} of ${label} ${n === 1 ? 'is' : 'are'} text, not flows, and ${n === 1 ? 'was' : 'were'} skipped`,
    );
  }
  if (result.badLines > 0) {
    const what = `${result.badLines} line${result.badLines === 1 ? '' : 's'} of ${label} could not be read`;
    if (options.strict) throw new UserError(`${what} (--strict)`);
    notice(io, `${what} and ${result.badLines === 1 ? 'was' : 'were'} skipped`);
  }
}

/** The --ports file: its port descriptions, or an error when it holds none (`refusal`, when given, says it). */
export async function readPortsOption(file: string, io: Io, refusal?: string): Promise<PortMap> {
  const ports = readPortDescriptions((await readInput(file, io)).text);
  if (ports.size === 0)
    throw new UserError(
      refusal ?? `${file}: no ports found (expected ovs-ofctl show or dump-ports-desc output, or a bundle's ovsports)`,
    );
  return ports;
}

/** A bundle given by path, or as an archive on standard input (`-`). */
export async function openBundleInput(name: string, io: Io): Promise<Bundle> {
  if (name === '-') return openBundleArchive(await readStdin(io), inputLabel(name));
  return openBundle(name);
}

/** The node of a bundle, after saying what is wrong with the bundle as a whole. */
async function openNode(path: string, node: string | undefined, io: Io): Promise<NodeSource> {
  const bundle = await openBundleInput(path, io);
  const chosen = selectNode(bundle, node);
  for (const p of bundle.problems) notice(io, p, 'warning');
  return chosen;
}

/**
 * Whether an input names a bundle: a directory, or a tar archive, gzip-compressed or not (a
 * gzip-compressed dump is no bundle), in a file or on standard input. An input that cannot be
 * read is none (reading it says why).
 */
export async function isBundleInput(name: string, io: Io): Promise<boolean> {
  try {
    if (name === '-') return contentMagic(await readStdin(io)) === 'tar';
    if ((await stat(name)).isDirectory()) return true;
    const special = await readSpecialFile(name, io);
    if (special !== undefined) return false;
    const file = await open(name, 'r');
    try {
      const { buffer, bytesRead } = await file.read(Buffer.alloc(SNIFF_BYTES), 0, SNIFF_BYTES, 0);
      return contentMagic(buffer.subarray(0, bytesRead)) === 'tar';
    } finally {
      await file.close();
    }
  } catch {
    return false;
  }
}

/** A positional input: a text dump, or a bundle (directory or archive) read as its one node. */
async function positional(name: string, opts: InputCliOptions, io: Io): Promise<NodeFile | NodeSource> {
  if (await isBundleInput(name, io)) return openNode(name, opts.node, io);
  const { data } = await readInputBytes(name, io);
  const kind = binaryKind(data);
  if (kind !== undefined) {
    throw new UserError(
      `${inputLabel(name)}: not an ovs-ofctl dump (${kind}); give dump-flows or dump-groups output, or a support bundle`,
    );
  }
  return { label: name, text: data.toString('utf8') };
}

function liveTarget(opts: InputCliOptions): LiveTarget {
  if (opts.local) return { kind: 'local' };
  return {
    kind: 'pod',
    pod: opts.pod!,
    namespace: opts.namespace ?? LIVE_DEFAULTS.namespace,
    container: opts.container ?? LIVE_DEFAULTS.container,
    ...(opts.kubeconfig === undefined ? {} : { kubeconfig: opts.kubeconfig }),
    ...(opts.context === undefined ? {} : { context: opts.context }),
  };
}

function checkCombination(inputs: readonly string[], opts: InputCliOptions): void {
  const given = [
    inputs.length > 0 ? 'input files' : '',
    opts.bundle ? '--bundle' : '',
    opts.pod ? '--pod' : '',
    opts.local ? '--local' : '',
  ].filter(Boolean);
  if (given.length > 1) throw new UserError(`give one source of flows, not ${given.join(' and ')}`);
  if (inputs.filter((n) => n === '-').length > 1) throw new UserError('only one input can be standard input (-)');
  if (opts.ports === '-' && flowsFromStdin(inputs, opts))
    throw new UserError('the flows and --ports cannot both come from standard input');
  const live = opts.pod !== undefined || opts.local === true;
  for (const [flag, set] of [
    ['--namespace', opts.namespace],
    ['--container', opts.container],
    ['--kubeconfig', opts.kubeconfig],
    ['--context', opts.context],
  ] as const) {
    if (set !== undefined && opts.pod === undefined) throw new UserError(`${flag} goes with --pod`);
  }
  if ((opts.bridge !== undefined || opts.timeout !== undefined) && !live)
    throw new UserError(`${opts.bridge !== undefined ? '--bridge' : '--timeout'} goes with --pod or --local`);
}

/**
 * Reads files with `read`, showing on a terminal how far the reading is when they are large:
 * `read` is handed the option that tells the progress, or nothing.
 */
function withReadingProgress<T>(
  io: Io,
  label: string,
  files: readonly (NodeFile | undefined)[],
  read: (progress: Pick<ParseFilesOptions, 'onProgress'>) => T,
): T {
  const chars = files.reduce((n, f) => n + (f?.text.length ?? 0), 0);
  return new Progress(io, chars > LARGE_INPUT_CHARS).around(`reading ${label}`, (onProgress) =>
    read(onProgress ? { onProgress } : {}),
  );
}

function reportNode(dump: NodeDump, io: Io, options: LoadOptions): void {
  for (const p of dump.nodeProblems) notice(io, p, 'warning');
  printDiagnostics(dump, `node ${dump.name}`, io, options);
}

/**
 * Reads the inputs a command was given — positional files (`-` for stdin; standard input when
 * there are none), --bundle, --pod or --local — and --ports. Problems are written to stderr;
 * user errors throw UserError (exit 2).
 */
export async function loadFromOptions(
  inputs: readonly string[],
  opts: InputCliOptions,
  io: Io,
  options: LoadOptions = {},
): Promise<LoadedDump> {
  checkCombination(inputs, opts);
  const load = {
    ...options,
    ...(opts.strict === undefined ? {} : { strict: opts.strict }),
    ...(opts.maxErrors === undefined ? {} : { maxErrors: opts.maxErrors }),
  };
  try {
    const maps = [options.portMap, opts.ports === undefined ? undefined : await readPortsOption(opts.ports, io)].filter(
      (m): m is PortMap => m !== undefined,
    );
    const parseOptions = maps.length === 0 ? {} : { portMap: mergePortMaps(maps) };

    let node: NodeSource | undefined;
    let source: string | undefined;
    if (opts.bundle !== undefined) {
      node = await openNode(opts.bundle, opts.node, io);
      source = `${inputLabel(opts.bundle)}[${node.name}]`;
    } else if (opts.pod !== undefined || opts.local === true) {
      if (opts.node !== undefined) throw new UserError('--node goes with --bundle');
      const bridge = opts.bridge ?? LIVE_DEFAULTS.bridge;
      const target = liveTarget(opts);
      node = await collectLive({
        target,
        bridge,
        timeoutMs: (opts.timeout ?? LIVE_DEFAULTS.timeoutSeconds) * 1000,
        env: io.env,
      });
      source = target.kind === 'pod' ? `pod ${target.namespace}/${target.pod}` : `local ${bridge}`;
    }
    if (node !== undefined && source !== undefined) {
      const chosen = node;
      const dump = withReadingProgress(io, source, [chosen.files.flows, chosen.files.groups], (onProgress) =>
        readNode(chosen, { ...parseOptions, ...onProgress }),
      );
      reportNode(dump, io, load);
      return { ...dump, sources: [source], node: dump };
    }

    const names = inputs.length === 0 ? ['-'] : inputs;
    const read = await Promise.all(names.map((n) => positional(n, opts, io)));
    for (const r of read) if (!('files' in r)) refuseEmpty(r);
    const nodes = read.filter((r): r is NodeSource => 'files' in r);
    if (opts.node !== undefined && nodes.length === 0)
      throw new UserError('--node goes with --bundle (or a bundle given as input)');
    if (read.length === 1 && nodes.length === 1) {
      const only = nodes[0]!;
      const dump = withReadingProgress(io, inputLabel(names[0]!), [only.files.flows, only.files.groups], (onProgress) =>
        readNode(only, { ...parseOptions, ...onProgress }),
      );
      reportNode(dump, io, load);
      return { ...dump, sources: names, node: dump };
    }
    const defined = (f: NodeFile | undefined): f is NodeFile => f !== undefined;
    const files = read.flatMap((r) => ('files' in r ? [r.files.flows, r.files.groups].filter(defined) : [r]));
    const portFiles = nodes.map((n) => n.files.ports).filter(defined);
    const label = names.length === 1 ? inputLabel(names[0]!) : 'the inputs';
    const result = withReadingProgress(io, label, files, (onProgress) =>
      parseFiles(files, { ...parseOptions, portFiles, ...onProgress }),
    );
    if (result.rejected.length > 0) {
      printCapped(
        result.rejected.flatMap((r) => r.diagnostics),
        io,
        load,
      );
      throw new UserError(result.rejected.map((r) => r.message).join('\n'));
    }
    for (const p of result.problems) notice(io, p, 'warning');
    printDiagnostics(result, label, io, load);
    return { ...result, sources: names };
  } catch (err) {
    if (err instanceof SourceError) throw new UserError(err.message);
    throw err;
  }
}

/**
 * A file or standard input with nothing in it, or only comments, is refused with the reason:
 * read as a dump without flows it would pass every check, so a failed `kubectl exec` before a
 * pipe would give a green build.
 */
function refuseEmpty(input: NodeFile): void {
  const why = emptyInputReason(input.label, input.text);
  if (why !== undefined) throw new UserError(`${why}: no flows or groups to read`);
}

/**
 * For the commands that work on flows (show, tables, check, graph, trace, conj): a dump that holds
 * none — a bridge without flows, a groups file, an empty bundle node — is refused, saying which.
 */
export function requireFlows(dump: LoadedDump, groups: number = dump.groups.length): void {
  if (dump.flows.length > 0) return;
  const from = dump.sources.map((s) => (s === '-' ? 'standard input' : s)).join(', ');
  throw new UserError(
    `no flows read from ${from}${groups > 0 ? ` (only ${groups === 1 ? 'a group' : 'groups'})` : ''}`,
  );
}

/** One input (file, `-`, bundle directory or archive) — the form every command started with. */
export async function loadDump(name: string, io: Io, options: LoadOptions = {}): Promise<LoadedDump> {
  return loadFromOptions([name], {}, io, options);
}
