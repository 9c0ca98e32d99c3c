/**
 * The per-table summary as a table (cli-table3, with its own colours switched off so that
 * colour is only what the caller's `TablesStyle` adds) and as JSON (schemaVersion 1).
 */
import Table from 'cli-table3';
import type { TableRow, TablesSummary } from '../analysis/tables-summary.ts';
import { SCHEMA_VERSION } from './json.ts';
import { type ProfileNote, releaseWords } from '../analysis/profile-choice.ts';

export interface TablesStyle {
  readonly head: (s: string) => string;
  readonly warn: (s: string) => string;
  readonly dim: (s: string) => string;
}

const same = (s: string): string => s;
export const PLAIN_TABLES: TablesStyle = { head: same, warn: same, dim: same };

function missCell(r: TableRow, style: TablesStyle): string {
  return r.missDiffers ? `${r.miss} ${style.warn(`(profile: ${r.expectedMiss ?? ''})`)}` : r.miss;
}

export function formatTables(s: TablesSummary, profile: ProfileNote | undefined, style: TablesStyle): string {
  const table = new Table({
    head: ['Table', 'Name', 'Flows', 'Packets', 'Bytes', 'Next tables', 'Miss'].map(style.head),
    style: { head: [], border: [] },
    // One line per table: no rule between rows.
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const r of s.rows) {
    const name = r.name ?? '';
    const notKnown = r.otherReleases === undefined ? '(not in profile)' : `(profile: only in ${r.otherReleases})`;
    table.push([
      r.number === undefined ? '' : String(r.number),
      r.known || profile === undefined ? name : `${name} ${style.warn(notKnown)}`.trim(),
      String(r.flows),
      r.packets === undefined ? '' : String(r.packets),
      r.bytes === undefined ? '' : String(r.bytes),
      r.next.join(', '),
      missCell(r, style),
    ]);
  }
  const out: string[] = [];
  const release = profile && releaseWords(profile);
  if (profile) out.push(style.dim(`profile ${profile.id}${release ? ` (${release})` : ''}, ${profile.source === 'option' ? 'given with --profile' : 'detected'}`));
  out.push(table.toString());
  if (profile && s.missing.length > 0) {
    out.push('', style.warn(`Tables ${profile.id} expects that the dump lacks (${s.missing.length}):`));
    for (const m of s.missing) out.push(`  ${m.number === undefined ? '' : `${m.number} `}${m.name}`);
  }
  // Said apart, as each row says it: a table of another release is no stranger to the profile.
  const notes: string[] = [];
  if (profile && s.unknown.length > 0) notes.push(style.warn(`Tables of the dump that ${profile.id} does not know: ${s.unknown.join(', ')}`));
  if (profile && s.otherReleases.length > 0) {
    const list = s.otherReleases.map((t) => `${t.name} (${t.releases})`).join(', ');
    notes.push(style.warn(`Tables of the dump that ${profile.id} has only in other releases${profile.release ? ` than ${profile.release}` : ''}: ${list}`));
  }
  if (notes.length > 0) out.push('', ...notes);
  return out.join('\n');
}

export function tablesJson(s: TablesSummary, profile: ProfileNote | undefined): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    profile: profile ? { ...profile, release: profile.release ?? null } : null,
    tables: s.rows.map((r) => ({
      number: r.number ?? null,
      name: r.name ?? null,
      profileName: r.profileName ?? null,
      purpose: r.purpose ?? null,
      known: r.known,
      otherReleases: r.otherReleases ?? null,
      flows: r.flows,
      packets: r.packets ?? null,
      bytes: r.bytes ?? null,
      next: r.next,
      miss: r.miss,
      expectedMiss: r.expectedMiss ?? null,
      missDiffers: r.missDiffers,
    })),
    missing: s.missing.map((m) => ({ number: m.number ?? null, name: m.name })),
    unknown: s.unknown,
    otherReleases: s.otherReleases.map((t) => ({ name: t.name, releases: t.releases })),
  };
}
