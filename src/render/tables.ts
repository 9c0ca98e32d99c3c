/**
 * The per-table summary as a boxed table (colour is only what the caller's `TablesStyle` adds)
 * and as JSON (schemaVersion 1).
 */
import { profileNoteJson, rangeText } from './words/profile.ts';
import type { TableRow, TablesSummary } from '../analysis/annotate/tables-summary.ts';
import { SCHEMA_VERSION } from './json.ts';
import { maxOf } from '../model/append.ts';
import type { ProfileNote } from '../analysis/detect/profile-choice.ts';
import { profileHead } from './show.ts';
import { withoutColour } from './wrap.ts';
import { boxTable, narrowWidest } from './columns.ts';
import { plainStyle, type Style } from './style.ts';
import { expectedMissWords, missFlowWords } from './words/miss.ts';
import { tableNameWords } from './words/names.ts';

export type TablesStyle = Style<'head' | 'warn' | 'dim'>;

export const PLAIN_TABLES: TablesStyle = plainStyle('head', 'warn', 'dim');

function missCell(r: TableRow, style: TablesStyle): string {
  const miss = missFlowWords(r.miss, r.wording);
  return r.missDiffers ? `${miss} ${style.warn(`(profile: ${expectedMiss(r) ?? ''})`)}` : miss;
}

function expectedMiss(r: TableRow): string | undefined {
  return r.expectedMiss && expectedMissWords(r.expectedMiss, r.wording.profileTable);
}

const HEAD = ['Table', 'Name', 'Flows', 'Packets', 'Bytes', 'Next tables', 'Miss'];
/** The columns of words, which wrap when the table is too wide; the others are numbers. */
const WORDY = [1, 5, 6];
/** Columns a narrow terminal goes without (-o wide shows them): the counters. */
const COUNTERS = [3, 4];
/** A cut column keeps at least this many characters. */
const LEAST = 8;

interface Layout {
  /** The columns shown, by index into HEAD. */
  readonly columns: readonly number[];
  /** Their widths, cell padding included; undefined when they need not be fixed. */
  readonly widths?: readonly number[];
}

/**
 * The columns and widths that fit `width`: the table as it is when it fits (or no width is
 * given); else without the counters, the wordy columns narrowed widest first down to their
 * longest word (words wrap within their cells), and as a last resort below it (cut with …),
 * the name column after the others.
 */
function layout(rows: readonly (readonly string[])[], width: number | undefined): Layout {
  const all = HEAD.map((_, i) => i);
  const cells = (i: number): string[] => rows.map((r) => withoutColour(r[i] ?? ''));
  const natural = (i: number): number => maxOf(cells(i).map((c) => c.length)) + 2;
  const longestWord = (i: number): number =>
    maxOf(cells(i).flatMap((c) => c.split(/[\s,]+/).map((w) => w.length + 1))) + 2;
  // A border between and around the columns.
  const total = (ws: readonly number[]): number => ws.reduce((a, b) => a + b, 0) + ws.length + 1;
  if (width === undefined || total(all.map(natural)) <= width) return { columns: all };
  const columns = all.filter((i) => !COUNTERS.includes(i));
  const widths = columns.map(natural);
  // The table's name is cut last: it says which row is which.
  const others = (i: number): number => (i === 1 ? longestWord(i) : LEAST + 2);
  for (const floor of [longestWord, others, (): number => LEAST + 2])
    narrowWidest(
      widths,
      width,
      total,
      (k) => WORDY.includes(columns[k]!),
      (k) => floor(columns[k]!),
    );
  return { columns, widths };
}

export interface TablesTextOptions {
  /** The terminal's, to fit the table to (words wrap within their cells); undefined for a table as wide as it needs. */
  readonly width?: number;
  /** Every reason for the profile under its line (--explain-profile). */
  readonly explainProfile?: boolean;
}

export function formatTables(
  s: TablesSummary,
  profile: ProfileNote | undefined,
  style: TablesStyle,
  o: TablesTextOptions = {},
): string {
  const rows: string[][] = [];
  for (const r of s.rows) {
    const name = r.name ?? '';
    const notKnown =
      r.otherReleases === undefined ? '(not in profile)' : `(profile: only in ${rangeText(r.otherReleases)})`;
    rows.push([
      r.number === undefined ? '' : String(r.number),
      r.known || profile === undefined ? name : `${name} ${style.warn(notKnown)}`.trim(),
      String(r.flows),
      r.packets === undefined ? '' : String(r.packets),
      r.bytes === undefined ? '' : String(r.bytes),
      r.next.map(tableNameWords).join(', '),
      missCell(r, style),
    ]);
  }
  const fit = layout([HEAD, ...rows], o.width);
  const pick = (r: readonly string[]): string[] => fit.columns.map((i) => r[i]!);
  const out: string[] = [];
  // One row per table of the dump: the count show gives on its profile line.
  if (profile) out.push(...profileHead(profile, s.rows.length, o.explainProfile ?? false).map(style.dim));
  out.push(boxTable(pick(HEAD).map(style.head), rows.map(pick), fit.widths));
  if (fit.columns.length < HEAD.length)
    out.push(style.dim('(packets and bytes left out to fit the terminal: -o wide shows them)'));
  if (profile && s.missing.length > 0) {
    out.push('', style.warn(`Tables ${profile.id} expects that the dump lacks (${s.missing.length}):`));
    for (const m of s.missing) out.push(`  ${m.number === undefined ? '' : `${m.number} `}${m.name}`);
  }
  // Said apart, as each row says it: a table of another release is no stranger to the profile.
  const notes: string[] = [];
  if (profile && s.unknown.length > 0)
    notes.push(style.warn(`Tables of the dump that ${profile.id} does not know: ${s.unknown.join(', ')}`));
  if (profile && s.otherReleases.length > 0) {
    const list = s.otherReleases.map((t) => `${t.name} (${rangeText(t.releases)})`).join(', ');
    notes.push(
      style.warn(
        `Tables of the dump that ${profile.id} has only in other releases${profile.release ? ` than ${profile.release}` : ''}: ${list}`,
      ),
    );
  }
  if (notes.length > 0) out.push('', ...notes);
  return out.join('\n');
}

export function tablesJson(s: TablesSummary, profile: ProfileNote | undefined): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    profile: profile ? { ...profileNoteJson(profile), release: profile.release ?? null } : null,
    tables: s.rows.map((r) => ({
      number: r.number ?? null,
      name: r.name ?? null,
      profileName: r.profileName ?? null,
      purpose: r.purpose ?? null,
      known: r.known,
      otherReleases: r.otherReleases ? rangeText(r.otherReleases) : null,
      flows: r.flows,
      packets: r.packets ?? null,
      bytes: r.bytes ?? null,
      next: r.next.map(tableNameWords),
      miss: missFlowWords(r.miss, r.wording),
      expectedMiss: expectedMiss(r) ?? null,
      missDiffers: r.missDiffers,
    })),
    missing: s.missing.map((m) => ({ number: m.number ?? null, name: m.name })),
    unknown: s.unknown,
    otherReleases: s.otherReleases.map((t) => ({ name: t.name, releases: rangeText(t.releases) })),
  };
}
