/**
 * Options and inputs shared by `diff` and `verify`, which read two dumps ("sides"). Each side is
 * read as every command reads its input: a file, `-`, or a bundle given by path. The source
 * options fill the sides that positional inputs leave: `--bundle B --node n1 --node n2` gives a
 * side per node, `--pod`/`--local` gives the live switch as the last side. Without --bundle,
 * --node picks the node of the inputs that are bundles. --ports names the ports of both sides.
 * Both commands read the dumps by a profile (--profile, --release, --profile-file) to name tables.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { PortMap } from '../../model/ports.ts';
import type { OfVersion } from '../../model/openflow.ts';
import { parseOfVersion } from '../../model/openflow.ts';
import { type DiffStyle, dumpsVersion } from '../../render/diff.ts';
import { stdoutChalk } from '../color.ts';
import { type Io, UserError } from '../io.ts';
import {
  addInputOptions,
  type InputCliOptions,
  isBundleInput,
  type LoadedDump,
  loadFromOptions,
  readPortsOption,
} from '../load.ts';
import { inputReader } from '../input.ts';
import { processTiering } from '../tiering.ts';
import { inputLabel } from '../../sources/input.ts';
import { mergePortMaps } from '../../sources/port-map.ts';
import { ReadAlong } from '../../syntax/written-pairs.ts';
import { addOutputOptions, type OutputCliOptions } from '../output.ts';
import { type Repeats, repeatable } from './repeatable.ts';
import { addProfileChoiceOptions, type ProfileChoiceOptions } from './profile-options.ts';

export interface CompareCliOptions extends Omit<InputCliOptions, 'node'>, OutputCliOptions, ProfileChoiceOptions {
  /** One node per bundle side, in order (a single one applies to every bundle side). */
  node?: string[];
  cookies?: boolean;
  of?: OfVersion;
}

function ofOption(value: string): OfVersion {
  const v = parseOfVersion(value);
  if (v === undefined) throw new InvalidArgumentError('expected 10, 11, 12, 13, 14 or 15');
  return v;
}

/**
 * The profile choice options, then these. `nodeHelp` says what --node picks, and `nodes` how often
 * it may be given, which differ between the commands: a node per dump compared. `names` says what
 * -o name lists.
 */
export function addCompareOptions(cmd: Command, nodeHelp: string, nodes: Repeats, names: string): Command {
  addProfileChoiceOptions(cmd)
    .option('--cookies', 'also compare cookies (ignored by default)')
    .option(
      '--node <name>',
      nodeHelp,
      repeatable((v) => v, nodes),
    )
    .option(
      '--of <version>',
      'OpenFlow version whose spelling to show actions in (default: that of the dumps, else 15)',
      ofOption,
    );
  addOutputOptions(cmd, names);
  return addInputOptions(cmd);
}

/** What one side is read from: positional inputs, or the options that name a source. */
export interface Side {
  readonly inputs: readonly string[];
  readonly opts: InputCliOptions;
}

const LIVE_KEYS = ['pod', 'local', 'namespace', 'container', 'kubeconfig', 'context', 'bridge', 'timeout'] as const;

/** The options of the live switch (--pod or --local) and those that go with it. */
function liveOptions(opts: CompareCliOptions): InputCliOptions {
  const out: Record<string, unknown> = {};
  for (const k of LIVE_KEYS) if (opts[k] !== undefined) out[k] = opts[k];
  return out as InputCliOptions;
}

/** How many sides the source options give: a node each of --bundle, or the live switch. */
function optionSides(opts: CompareCliOptions): number {
  if (opts.bundle !== undefined) return Math.max(1, opts.node?.length ?? 0);
  return opts.pod !== undefined || opts.local === true ? 1 : 0;
}

/**
 * The positional arguments split into the inputs of the sides the options leave to them (`want`
 * sides in all), and what follows those: files read with them (port maps, groups).
 */
export function splitPositional(
  positional: readonly string[],
  opts: CompareCliOptions,
  want: number,
): [string[], string[]] {
  const sides = Math.max(0, want - optionSides(opts));
  return [positional.slice(0, sides), positional.slice(sides)];
}

/**
 * The sides, in order: positional inputs first, then the nodes of --bundle or the live switch.
 * `want` is how many sides the command compares; `what` names them for the error message.
 */
export async function compareSides(
  positional: readonly string[],
  opts: CompareCliOptions,
  want: number,
  what: string,
  io: Io,
): Promise<Side[]> {
  const nodes = opts.node ?? [];
  const live = opts.pod !== undefined || opts.local === true;
  if (opts.bundle !== undefined && live)
    throw new UserError('give one source of flows, not --bundle and a live switch');
  const got = positional.length + optionSides(opts);
  if (got !== want) {
    throw new UserError(
      `${what}: got ${got} (give files or bundles, --bundle with --node for each node, or --pod/--local for the live switch)`,
    );
  }
  // Without a live side, options that go with one are passed on for the loader to refuse.
  const base: InputCliOptions = {
    ...(opts.strict === undefined ? {} : { strict: opts.strict }),
    ...(live ? {} : liveOptions(opts)),
  };
  const withNode = (node: string | undefined): InputCliOptions => (node === undefined ? base : { ...base, node });
  if (opts.bundle !== undefined) {
    const bundle = opts.bundle;
    const picks = nodes.length === 0 ? [undefined] : nodes;
    return [
      ...positional.map((p) => ({ inputs: [p], opts: base })),
      ...picks.map((node) => ({ inputs: [], opts: { ...withNode(node), bundle } })),
    ];
  }
  const picked = await nodesOfInputs(positional, nodes, io);
  const files = positional.map((p, i) => ({ inputs: [p], opts: withNode(picked[i]) }));
  return live ? [...files, { inputs: [], opts: { ...base, ...liveOptions(opts) } }] : files;
}

/**
 * The --node each input is read with: only bundles have nodes, so the nodes go to the inputs that
 * are bundles, one for all of them or one each in order, and a dump file is read without one.
 */
async function nodesOfInputs(
  inputs: readonly string[],
  nodes: readonly string[],
  io: Io,
): Promise<(string | undefined)[]> {
  if (nodes.length === 0) return inputs.map(() => undefined);
  const bundles = await Promise.all(inputs.map((name) => isBundleInput(name, io)));
  const count = bundles.filter(Boolean).length;
  if (count === 0) throw new UserError('--node goes with --bundle (or a bundle given as input)');
  if (nodes.length > 1 && nodes.length !== count) {
    throw new UserError(
      `give one --node for every bundle input, or one for all (${nodes.length} for ${count} bundle input${count === 1 ? '' : 's'})`,
    );
  }
  let next = 0;
  return bundles.map((bundle) => (!bundle ? undefined : nodes.length === 1 ? nodes[0] : nodes[next++]));
}

export interface LoadedSides {
  readonly dumps: LoadedDump[];
  /** The --ports map, also used by the comparison to match names against numbers. */
  readonly ports?: PortMap;
  /** Each side as the user named it: a file, `bundle[node]`, `pod ns/name`. */
  readonly labels: string[];
  /** The version to show actions in: the one asked for, else the one the dumps' headers name (the later input first), else 1.5. */
  readonly of: OfVersion;
}

/** Port maps given among the inputs, after the dumps: the files, what the command compares (`diff compares two dumps`) and how many. */
export interface PortFiles {
  readonly files: readonly string[];
  readonly what: string;
  readonly dumps: number;
}

/** How a comparison of two dumps pairs their flows: the second is read along the first (see ReadAlong). */
export interface Pairing {
  readonly cookies: boolean;
}

/**
 * Reads every side, and the port maps that name the ports of all (--ports, and those given
 * among the inputs); at most one of them may be standard input.
 */
export async function loadSides(
  sides: readonly Side[],
  opts: CompareCliOptions,
  io: Io,
  portFiles: PortFiles = { files: [], what: '', dumps: 0 },
  pairing?: Pairing,
): Promise<LoadedSides> {
  if ([...sides.flatMap((s) => s.inputs), ...portFiles.files].filter((n) => n === '-').length > 1)
    throw new UserError('only one input can be standard input (-)');
  // A file after the dumps that names no port is most likely one dump too many.
  const got = portFiles.dumps + portFiles.files.length;
  const refusal = (f: string): string =>
    `${portFiles.what}: got ${got} (${inputLabel(f)} names no ports; files after the dumps are port maps: ovs-ofctl show or dump-ports-desc output)`;
  const maps = await Promise.all([
    ...(opts.ports === undefined ? [] : [readPortsOption(opts.ports, io)]),
    ...portFiles.files.map((f) => readPortsOption(f, io, refusal(f))),
  ]);
  const ports = maps.length === 0 ? undefined : mergePortMaps(maps);
  const dumps: LoadedDump[] = [];
  // The buffer each dump is read into serves the next (see holdReads).
  const reader = inputReader(io);
  reader.holdReads(sides.length - 1);
  try {
    for (const side of sides) {
      const first = dumps[0];
      // Dumps read without port names read the same text the same way: the second may be read along
      // the first, its lines that pair the first's flows kept as pairs (see ReadAlong).
      const along =
        pairing && !ports && sides.length === 2 && first !== undefined && first.ports.size === 0
          ? new ReadAlong(first, pairing.cookies, processTiering.unordered)
          : undefined;
      dumps.push(
        await loadFromOptions(side.inputs, side.opts, io, ports ? { portMap: ports } : along ? { along } : {}),
      );
    }
  } finally {
    reader.holdReads(0);
  }
  const labels = dumps.map((d) => d.sources.map(inputLabel).join(', '));
  const of = opts.of ?? dumpsVersion(dumps);
  return ports ? { dumps, ports, labels, of } : { dumps, labels, of };
}

export function diffStyle(io: Io, opts: CompareCliOptions): DiffStyle {
  const c = stdoutChalk(io, opts.color);
  return { removed: (s) => c.red(s), added: (s) => c.green(s), header: (s) => c.cyan(s), dim: (s) => c.dim(s) };
}

/**
 * Labels short enough for a column heading: each path's file name, with as many of its
 * directories as it takes to tell the labels apart (`node-a/flows`, `node-b/flows`).
 */
export function shortLabels(labels: readonly [string, string]): [string, string] {
  const parts = labels.map((l) => l.split('/').filter((p) => p !== ''));
  for (let n = 1; ; n++) {
    const short = parts.map((p, i) => (p.length === 0 ? labels[i]! : p.slice(-n).join('/')));
    const whole = parts.every((p) => p.length <= n);
    if (short[0] !== short[1] || whole) return [short[0]!, short[1]!];
  }
}
