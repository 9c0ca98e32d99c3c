/**
 * What a collection of dumps holds per node (or per bridge, for a sosreport): the texts of
 * its files, in memory, and what went wrong while finding them.
 */
import { MAGIC_DESCRIPTION, sniff } from './archive.ts';

/** The files flowscope reads for a node; `ports` is `ovsports`, `dump-ports-desc` or `show` output. */
export type NodeFileKind =
  'flows' | 'groups' | 'ports' | 'agentinfo' | 'networkpolicies' | 'addressgroups' | 'appliedtogroups';

/** Antrea's policy objects, as the agent's bundle stores them (YAML). */
export const POLICY_KINDS = [
  'networkpolicies',
  'addressgroups',
  'appliedtogroups',
] as const satisfies readonly NodeFileKind[];

export interface NodeFile {
  /** Where the text came from, as diagnostics name it: `dir/flows`, `agent_n1.tar.gz:flows`. */
  readonly label: string;
  readonly text: string;
}

export interface NodeSource {
  readonly name: string;
  /** The directory or archive the files came from. */
  readonly origin: string;
  readonly files: Partial<Record<NodeFileKind, NodeFile>>;
  /** Damage found on the way (a cut archive, a binary file where text was expected). */
  readonly problems: readonly string[];
}

/** A mistake in what the user pointed flowscope at; the CLI turns it into exit status 2. */
export class SourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceError';
  }
}

/** Why bytes are not a text dump (an image, an archive, binary data), or undefined for text. */
export function binaryKind(data: Uint8Array): string | undefined {
  const magic = sniff(data);
  if (magic !== undefined) return MAGIC_DESCRIPTION[magic];
  return data.subarray(0, 8192).includes(0) ? 'binary data' : undefined;
}

/** The bytes as UTF-8 text, or the reason they are not text. */
export function decodeText(data: Uint8Array): { text: string } | { notText: string } {
  const kind = binaryKind(data);
  return kind === undefined ? { text: Buffer.from(data).toString('utf8') } : { notText: kind };
}
