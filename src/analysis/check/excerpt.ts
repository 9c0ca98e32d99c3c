/**
 * Whether a dump is a whole bridge or an excerpt (a grep, a listing pasted into an issue, the
 * flows of one feature): findings that only say something is missing mean little in an excerpt.
 */
import { type Pipeline, tableKey } from '../../model/pipeline.ts';
import { type TableRef, tableNumber } from '../../model/tables.ts';
import type { Profile } from '../../profiles/types.ts';
import { checkKnowledge } from '../../profiles/check-knowledge.ts';
import { inVersion } from '../../profiles/versions.ts';
import type { EmptyTarget } from '../../model/flow-exits.ts';
import { resolveTable } from '../fit/pattern-fit.ts';

/** The signs that the dump is not a whole bridge; at least one is set. */
export interface Excerpt {
  /** The first table the profile (or OpenFlow) starts packets in holds no flow. */
  readonly noStartTable?: boolean;
  /** Every flow is in this one table. */
  readonly oneTable?: TableRef;
  /** Every flow carries this one non-zero cookie. */
  readonly oneCookie?: bigint;
  /** No flow carries a cookie, though the product's agent gives one to every flow: samples written or edited by hand. */
  readonly noCookies?: boolean;
  /** Tables the dump's own flows continue in that hold no flow (two or more). */
  readonly missingTargets?: readonly TableRef[];
  /** Tables every configuration of the profile's release has that the dump lacks, when they are most of them. */
  readonly missingTables?: readonly string[];
}

/**
 * Only for a product's pipeline: what a whole bridge holds is known there, while a dump of any
 * other switch may well be one table, one cookie, or jump into tables it leaves empty (`empty`,
 * the pipeline's emptyTargets: found once for the check of them too).
 */
export function findExcerpt(
  pipeline: Pipeline,
  profile: Profile | undefined,
  release: string | undefined,
  empty: readonly EmptyTarget[],
): Excerpt | undefined {
  if (pipeline.flowCount === 0 || !profile || !release || profile.tables.length === 0) return undefined;
  const signs: { -readonly [K in keyof Excerpt]: Excerpt[K] } = {};
  const tables = [...pipeline.tables.values()];
  if (!pipeline.table(tableNumber(0)) && tables.every((t) => t.ref.kind === 'number')) signs.noStartTable = true;
  if (pipeline.tables.size === 1 && pipeline.flowCount > 1) signs.oneTable = pipeline.tables.values().next().value!.ref;
  const cookies = new Set<bigint>();
  // Two cookies tell that the dump has several: the flows need not be walked further.
  for (const t of pipeline.tables.values()) {
    const { flows } = t;
    for (let i = 0; i < flows.length && cookies.size < 2; i++) cookies.add(flows[i]!.cookie);
  }
  // Tables flows jump to that hold no flow, in the order first met.
  const missing = new Map<string, TableRef>();
  for (const e of empty)
    if (e.flows.length > 0 && !missing.has(tableKey(e.table))) missing.set(tableKey(e.table), e.table);
  const [cookie] = cookies;
  if (cookies.size === 1 && cookie !== undefined && pipeline.flowCount > 1) {
    if (cookie !== 0n) signs.oneCookie = cookie;
    else if (checkKnowledge(profile).cookieOnEveryFlow) signs.noCookies = true;
  }
  if (missing.size >= 2) signs.missingTargets = [...missing.values()];
  {
    // Tables that need a feature (`requires`) may be absent from a whole bridge.
    const always = profile.tables.filter(
      (t) => !t.requires && inVersion(t, release) && t.patterns.length + t.next.length > 0,
    );
    const present = new Set(tables.map((d) => resolveTable(profile, d.ref, release)?.name));
    const absent = always.filter((t) => !present.has(t.name));
    if (always.length > 0 && absent.length * 2 > always.length) signs.missingTables = absent.map((t) => t.name);
  }
  return Object.keys(signs).length > 0 ? signs : undefined;
}
