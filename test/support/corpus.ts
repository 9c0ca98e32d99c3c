import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusDir } from './paths.ts';

/** One record of ovs-tests-flows.jsonl / ovs-tests-groups.jsonl (see ../shared/corpus/README.md). */
export interface OvsTestRecord {
  readonly input: string;
  readonly of?: 'default' | 'OpenFlow13' | 'OpenFlow15';
  readonly canonical?: string;
  readonly error?: string;
  readonly source: string;
}

export function readJsonl(name: string): OvsTestRecord[] {
  return readFileSync(join(corpusDir, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as OvsTestRecord);
}

export function corpusText(name: string): string {
  return readFileSync(join(corpusDir, name), 'utf8');
}

/** The OpenFlow version whose spelling a record's canonical text uses. */
export function recordVersion(r: OvsTestRecord): 10 | 13 | 15 {
  return r.of === 'OpenFlow13' ? 13 : r.of === 'OpenFlow15' ? 15 : 10;
}

/**
 * `ovs-ofctl parse-flow` has no port or table map, so it rejects names; flowscope accepts them
 * because `--names` dumps are full of them. Records rejected only for that are not expected to be
 * diagnosed.
 */
export const NAME_ONLY_ERROR = /(?:invalid or unknown port for|output to unknown (?:truncate )?port|unknown table ")/;

/**
 * `ovs-ofctl parse-flow` refuses the keys its own flow-mod print form writes (`idle:5`, `hard:60`,
 * `out_port:2`); flowscope reads them, so that what `fmt` prints reads back. Records rejected only
 * for one of them are not expected to be diagnosed.
 */
export const PRINT_FORM_ONLY_ERROR = /^unknown keyword (?:idle|hard|pri|buf|out_port)$/;
