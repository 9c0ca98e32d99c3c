/** Options and inputs shared by `diff` and `verify`: port map, display version, colour. */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { PortMap } from '../../model/ports.ts';
import type { OfVersion } from '../../model/openflow.ts';
import { parseOfVersion } from '../../model/openflow.ts';
import type { DiffStyle } from '../../render/diff.ts';
import type { ParseResult } from '../../syntax/reader.ts';
import { stdoutChalk } from '../color.ts';
import { type Io, UserError } from '../io.ts';
import { loadDump } from '../load.ts';

export interface CompareCliOptions {
  cookies?: boolean;
  json?: boolean;
  ports?: string;
  of?: OfVersion;
  color?: boolean;
  strict?: boolean;
}

function ofOption(value: string): OfVersion {
  const v = parseOfVersion(value);
  if (v === undefined) throw new InvalidArgumentError('expected 10, 11, 12, 13, 14 or 15');
  return v;
}

export function addCompareOptions(cmd: Command): Command {
  return cmd
    .option('--cookies', 'also compare cookies (ignored by default)')
    .option('--ports <file>', '`ovs-ofctl show` or `dump-ports-desc` output: port names of --names dumps')
    .option('--of <version>', 'OpenFlow version whose spelling to show actions in (default: that of the dumps, else 15)', ofOption)
    .option('--json', 'print JSON')
    .option('--color', 'colour the output even when it is not a terminal')
    .option('--no-color', 'never colour the output')
    .option('--strict', 'exit 2 when any line cannot be read');
}

/** Reads the inputs; at most one of them may be standard input. */
export async function loadInputs(names: readonly string[], opts: CompareCliOptions, io: Io): Promise<{ dumps: ParseResult[]; ports?: PortMap }> {
  if (names.filter((n) => n === '-').length > 1) throw new UserError('only one input can be standard input (-)');
  const strict = { strict: opts.strict ?? false };
  const ports = opts.ports === undefined ? undefined : (await loadDump(opts.ports, io, strict)).ports;
  if (ports !== undefined && ports.size === 0) throw new UserError(`${opts.ports ?? ''}: no ports found (expected ovs-ofctl show or dump-ports-desc output)`);
  const dumps: ParseResult[] = [];
  for (const n of names) dumps.push(await loadDump(n, io, strict));
  return ports ? { dumps, ports } : { dumps };
}

/** The version asked for, else the one the dumps' headers name (the later input first), else 1.5. */
export function displayVersion(opts: CompareCliOptions, dumps: readonly ParseResult[]): OfVersion {
  if (opts.of !== undefined) return opts.of;
  for (const d of [...dumps].reverse()) {
    const v = d.protocols[d.protocols.length - 1];
    if (v !== undefined) return v;
  }
  return 15;
}

export function diffStyle(io: Io, opts: CompareCliOptions): DiffStyle {
  const c = stdoutChalk(io, opts.color);
  return { removed: (s) => c.red(s), added: (s) => c.green(s), header: (s) => c.cyan(s), dim: (s) => c.dim(s) };
}
