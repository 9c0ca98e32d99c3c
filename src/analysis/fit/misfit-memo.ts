/**
 * `misfitCount` once per way of reading a flow. What a release of a profile, in any of its
 * layouts, reads of one flow is: which of the profile's tables the flow's table is, which of its
 * patterns the release has and which bit field each `{reg.NAME}` of their sentences names in the
 * release, which tables its jumps resolve to, and which port roles the release has (for an input
 * port given by name). Layouts (numbered copies of the profile, whose tables keep their places in
 * its list) and releases that agree on these count the flow's misfits alike: detection judges the
 * flows in each of Antrea's layouts and then in each of a score of releases, and each flow is
 * fitted once per reading, not once per layout and release.
 */
import type { Flow } from '../../model/flow.ts';
import { jumpTargets } from '../../model/flow-exits.ts';
import type { TableRef } from '../../model/tables.ts';
import type { Profile, TableSpec, Versioned } from '../../profiles/types.ts';
import { inVersion } from '../../profiles/versions.ts';
import { misfitCount, resolveTable } from './pattern-fit.ts';
import { templateParts } from './sentence-template.ts';

/** Which of `items` a release has, as text. */
function inVersionMarks(items: readonly Versioned[], release: string): string {
  let marks = '';
  for (const v of items) marks += inVersion(v, release) ? '1' : '0';
  return marks;
}

/** What the memo knows of one flow: the tables it jumps to, and its misfits by reading. */
interface Fitted {
  readonly jumps: readonly TableRef[];
  readonly counts: Map<string, number>;
}

/** What one copy of the profile reads alike in one release. */
interface ReleaseReading {
  /** Which port roles the release has. */
  readonly ports: string;
  /** By table: its place, which of its patterns the release has and the bit fields their sentences name. */
  readonly tables: Map<TableSpec, string>;
}

/** The bit field names the sentences of a table's patterns read (`{reg.NAME}`), found once per table. */
const sentenceBitFields = new WeakMap<TableSpec, readonly string[]>();

function bitFieldsNamed(table: TableSpec): readonly string[] {
  let names = sentenceBitFields.get(table);
  if (!names) {
    const found = new Set<string>();
    for (const p of table.patterns)
      for (const part of templateParts(p.meaning))
        if ('run' in part) for (const ph of part.run) if (ph.name.startsWith('reg.')) found.add(ph.name.slice(4));
    sentenceBitFields.set(table, (names = [...found]));
  }
  return names;
}

/**
 * Misfit counts of flows under one profile and the numbered copies of it that its layouts make
 * (`numberTables`): a memo holds for that family only.
 */
export class MisfitMemo {
  private readonly fitted = new Map<Flow, Fitted>();
  /** By copy of the profile, then by release. */
  private readonly readings = new WeakMap<Profile, Map<string, ReleaseReading>>();
  /** A table's place in its profile's list, the same in every copy. */
  private readonly places = new WeakMap<Profile, Map<TableSpec, number>>();

  /** `misfitCount(profile, flow, release)`, for the profile of the memo or a numbered copy of it. */
  count(profile: Profile, flow: Flow, release: string): number {
    let f = this.fitted.get(flow);
    if (!f) this.fitted.set(flow, (f = { jumps: jumpTargets(flow.actions), counts: new Map() }));
    const view = this.view(profile, flow.table, f.jumps, release);
    let n = f.counts.get(view);
    if (n === undefined) f.counts.set(view, (n = misfitCount(profile, flow, release)));
    return n;
  }

  /** How the release of the profile reads a flow of `table` that jumps to `jumps`, as text. */
  private view(profile: Profile, table: TableRef, jumps: readonly TableRef[], release: string): string {
    const spec = resolveTable(profile, table, release);
    if (spec === undefined) return '-';
    const reading = this.reading(profile, release);
    let view = reading.tables.get(spec);
    if (view === undefined) {
      // The bit field a sentence's placeholder names is the first of that name the release has (see fits).
      let fields = '';
      for (const name of bitFieldsNamed(spec))
        fields += `,${profile.bitFields.findIndex((b) => b.name === name && inVersion(b, release))}`;
      view = `${reading.ports}|${this.place(profile, spec)}:${inVersionMarks(spec.patterns, release)}${fields}`;
      reading.tables.set(spec, view);
    }
    for (const ref of jumps) {
      const to = resolveTable(profile, ref, release);
      view += `>${to === undefined ? '-' : this.place(profile, to)}`;
    }
    return view;
  }

  private reading(profile: Profile, release: string): ReleaseReading {
    let byRelease = this.readings.get(profile);
    if (!byRelease) this.readings.set(profile, (byRelease = new Map()));
    let r = byRelease.get(release);
    if (!r) byRelease.set(release, (r = { ports: inVersionMarks(profile.ports, release), tables: new Map() }));
    return r;
  }

  private place(profile: Profile, spec: TableSpec): number | undefined {
    let places = this.places.get(profile);
    if (!places) this.places.set(profile, (places = new Map(profile.tables.map((t, i) => [t, i]))));
    return places.get(spec);
  }
}
