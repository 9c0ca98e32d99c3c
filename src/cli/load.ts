/**
 * Input → parsed model, with diagnostics reported the way every command reports them. Inputs
 * are files, `-` (standard input), support bundles and sosreports (directories or archives,
 * also given with --bundle), or a live switch (--pod, --local); a port map may come with --ports.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { assertNever } from '../model/actions.ts';
import type { Diagnostic } from '../model/diagnostics.ts';
import type { PortMap } from '../model/ports.ts';
import { capDiagnostics, DEFAULT_MAX_DIAGNOSTICS, formatDiagnostic } from '../render/diagnostics.ts';
import { LIVE_DEFAULTS, MAX_TIMEOUT_SECONDS } from '../sources/live.ts';
import type { ReadAlong } from '../syntax/written-pairs.ts';
import {
  openSource,
  type Parsing,
  readPortMap,
  type SourceDump,
  type SourceProblem,
  type SourceSpec,
} from '../sources/open.ts';
import { asUserError, inputReader } from './input.ts';
import { INPUT_OPTIONS_HEADING } from './help-groups.ts';
import { LARGE_INPUT_CHARS, Progress } from './progress.ts';
import { processTiering } from './tiering.ts';
import { type Io, notice, UserError, writeErr } from './io.ts';
import { flowsFromStdin } from './commands/source-args.ts';

export interface LoadOptions {
  /** Any error diagnostic makes the command fail with exit 2. */
  readonly strict?: boolean;
  /** Port numbers ↔ names known from elsewhere; ports described in the inputs are added to it. */
  readonly portMap?: PortMap;
  /** Diagnostics shown per file (DEFAULT_MAX_DIAGNOSTICS unless given). */
  readonly maxErrors?: number;
  /** A dump-groups file read with the flows. */
  readonly groups?: string;
  /** The dump the files named are read along (see ReadAlong). */
  readonly along?: ReadAlong;
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

/** A dump read from what a command was given. */
export type LoadedDump = SourceDump;

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
  const { shown, left } = capDiagnostics(diagnostics, options.maxErrors ?? DEFAULT_MAX_DIAGNOSTICS);
  for (const d of shown) writeErr(io, formatDiagnostic(d));
  for (const [file, n] of left)
    notice(io, `and ${n} more diagnostic${n === 1 ? '' : 's'} of ${file} not shown (--max-errors N to show more)`);
}

/** Says each problem on standard error, in order; the first that stops the command throws (exit 2). */
function reportProblems(problems: readonly SourceProblem[], io: Io, options: LoadOptions): void {
  for (const p of problems) {
    switch (p.kind) {
      case 'refused':
        printCapped(p.diagnostics, io, options);
        throw new UserError(p.message);
      case 'damaged':
        notice(io, p.message, 'warning');
        break;
      case 'diagnostics':
        printCapped(p.diagnostics, io, options);
        break;
      case 'prose':
        notice(io, p.message);
        break;
      case 'unreadable-lines':
        if (options.strict) throw new UserError(`${p.message} (--strict)`);
        notice(io, `${p.message} and ${p.lines === 1 ? 'was' : 'were'} skipped`);
        break;
      default:
        assertNever(p);
    }
  }
}

/** The --ports file: its port descriptions, or an error when it holds none (`refusal`, when given, says it). */
export async function readPortsOption(file: string, io: Io, refusal?: string): Promise<PortMap> {
  const ports = await readPortMap(file, inputReader(io)).catch((err: unknown) => {
    throw asUserError(err);
  });
  if (ports.size === 0)
    throw new UserError(
      refusal ?? `${file}: no ports found (expected ovs-ofctl show or dump-ports-desc output, or a bundle's ovsports)`,
    );
  return ports;
}

/** Whether an input names a bundle (a directory, or a tar archive, compressed or not). */
export function isBundleInput(name: string, io: Io): Promise<boolean> {
  return inputReader(io).isBundleInput(name);
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
  if (live && opts.node !== undefined) throw new UserError('--node goes with --bundle');
}

/** The source the flags name. */
function specOf(inputs: readonly string[], opts: InputCliOptions, groups: string | undefined): SourceSpec {
  const extras = {
    ...(opts.ports === undefined ? {} : { ports: [opts.ports] }),
    ...(groups === undefined ? {} : { groups }),
  };
  const node = opts.node === undefined ? {} : { node: opts.node };
  const live = {
    ...(opts.bridge === undefined ? {} : { bridge: opts.bridge }),
    ...(opts.timeout === undefined ? {} : { timeoutSeconds: opts.timeout }),
  };
  if (opts.bundle !== undefined) return { kind: 'bundle', path: opts.bundle, ...node, ...extras };
  if (opts.local === true) return { kind: 'local', ...live, ...extras };
  if (opts.pod !== undefined) {
    const { namespace, container, kubeconfig, context } = opts;
    return {
      kind: 'pod',
      pod: opts.pod,
      ...(namespace === undefined ? {} : { namespace }),
      ...(container === undefined ? {} : { container }),
      ...(kubeconfig === undefined ? {} : { kubeconfig }),
      ...(context === undefined ? {} : { context }),
      ...live,
      ...extras,
    };
  }
  return { kind: 'files', paths: inputs, ...node, ...extras };
}

/**
 * Shows on a terminal how far the reading of a large input is; a large input makes a long run, and
 * so may one read `along` another (see tiering.ts).
 */
function readingProgress(io: Io, along: boolean): Parsing {
  return (label, chars, parse) => {
    processTiering.input(chars, along);
    return new Progress(io, chars > LARGE_INPUT_CHARS).around(`reading ${label}`, (onProgress) => parse(onProgress));
  };
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
  const opened = await openSource(specOf(inputs, opts, options.groups), {
    reader: inputReader(io),
    env: io.env,
    parsing: readingProgress(io, options.along !== undefined),
    ...(options.portMap === undefined ? {} : { portMap: options.portMap }),
    ...(options.along === undefined ? {} : { along: options.along }),
  });
  reportProblems(opened.problems, io, load);
  return opened.dumps[0]!;
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
