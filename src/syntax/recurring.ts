/**
 * Parts of flow lines that a dump repeats verbatim, read once and then shared: Antrea writes the
 * same `conjunction(…)` list for every address of a rule and the same address match at several
 * priorities. Sharing is safe because the model is immutable. Only parts that read without any
 * problem are kept, so each line still gets its own diagnostics at its own offsets; and since
 * port names change how both parts read, a set of recurring parts serves one port map only.
 */
import type { Action } from '../model/actions.ts';
import type { Match } from '../model/flow.ts';
import type { AddressTemplate } from './address-variants.ts';
import { LineShapes } from './line-shape.ts';

/** An action list and whether flows holding it need their actions checked against their match. */
export interface SharedActions {
  readonly actions: readonly Action[];
  readonly checked: boolean;
}

export class RecurringParts {
  /** By the match text (from the first match element up to `actions=`). */
  readonly matches = new Map<string, Match>();
  /** Matches that end in an IPv4 address, by the match text before that address. */
  readonly templates = new Map<string, AddressTemplate>();
  /** By the text after `actions=`, for lists whose reading does not depend on the match. */
  readonly actions = new Map<string, SharedActions>();
  /** Clean lines whose shape other lines may have, but for some numbers, by shapeHash. */
  readonly shapes = new LineShapes();
  /**
   * The matches of clean lines whose actions are conjunctions alone, whose shape the matches of
   * other such lines may have: a list of many conjunctions is seldom any other line's but for its
   * numbers, its ids being as many as the rules it serves.
   */
  readonly matchShapes = new LineShapes();
}
