/** A table's miss in words: what the profile documents it to do, and what the dump's miss flow does. */
import type { MissFlow } from '../../analysis/annotate/tables-summary.ts';
import type { Wording } from '../../analysis/annotate/wording.ts';
import type { TableKey, TableMiss } from '../../profiles/types.ts';
import { describeActions } from './flow.ts';
import { tableNameWords } from './names.ts';

/** A fixed miss as a sentence's predicate for the packets that meet it: `are dropped`, `continue in X`. */
export function missPredicate(
  miss: Exclude<TableMiss, { action: 'custom' | 'none' }>,
  name: (key: TableKey) => string,
): string {
  switch (miss.action) {
    case 'drop':
      return 'are dropped';
    case 'goto':
      return `continue in ${name(miss.table)}`;
    case 'next':
      return 'continue in the next table of the pipeline';
    case 'normal':
      return 'are switched normally';
    case 'controller':
      return 'go to the controller';
  }
}

/** A profile's miss behaviour in a few words, its tables named by `name`. */
export function expectedMissWords(miss: TableMiss, name: (key: TableKey) => string): string {
  switch (miss.action) {
    case 'drop':
      return 'drop';
    case 'goto':
      return `goto ${name(miss.table)}`;
    case 'next':
      return 'next table';
    case 'normal':
      return 'NORMAL';
    case 'controller':
      return 'controller';
    case 'custom':
      return miss.description;
    case 'none':
      return 'no miss flow';
  }
}

/** `no miss flow`, `drop`, `goto X`, `NORMAL`, or the actions in words. */
export function missFlowWords(miss: MissFlow, wording: Wording): string {
  switch (miss.kind) {
    case 'none':
      return 'no miss flow';
    case 'drop':
      return 'drop';
    case 'goto':
      return `goto ${miss.tables.map(tableNameWords).join(', ')}`;
    case 'reserved':
      return miss.port;
    case 'actions':
      return describeActions(miss.actions, wording).join(', ');
  }
}
