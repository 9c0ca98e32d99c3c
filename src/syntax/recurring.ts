/**
 * Parts of flow lines that a dump repeats verbatim, read once and then shared: Antrea writes the
 * same `conjunction(…)` list for every address of a rule and the same address match at several
 * priorities. Sharing is safe because the model is immutable. Only parts that read without any
 * problem are kept, so each line still gets its own diagnostics at its own offsets; and since
 * port names change how both parts read, a set of recurring parts serves one port map only.
 */
import type { Action } from '../model/actions.ts';
import type { FlowFlag, Match } from '../model/flow.ts';
import type { AddressTemplate } from './address-variants.ts';

/** An action list and whether flows holding it need their actions checked against their match. */
export interface SharedActions {
  readonly actions: readonly Action[];
  readonly checked: boolean;
}

/** What a dump line says after its printed statistics, read clean: all of the flow but its table, cookie and counters. */
export interface LineReading {
  readonly priority: number;
  readonly match: Match;
  readonly actions: readonly Action[];
  readonly idleTimeout: number;
  readonly hardTimeout: number;
  readonly importance: number;
  readonly flags: readonly FlowFlag[];
}

export class RecurringParts {
  /**
   * Whole lines by their text after the printed statistics, kept only when asked for: two dumps
   * of one switch (a diff) hold the same lines with other counters, while one dump seldom repeats
   * a line, and a million-flow dump would hold a million of them for nothing.
   */
  readonly lines: Map<string, LineReading> | undefined;

  constructor({ lines = false }: { readonly lines?: boolean } = {}) {
    this.lines = lines ? new Map() : undefined;
  }

  /** By the match text (from the first match element up to `actions=`). */
  readonly matches = new Map<string, Match>();
  /** Matches that end in an IPv4 address, by the match text before that address. */
  readonly templates = new Map<string, AddressTemplate>();
  /** By the text after `actions=`, for lists whose reading does not depend on the match. */
  readonly actions = new Map<string, SharedActions>();
}
