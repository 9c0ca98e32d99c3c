/**
 * Diffs and verifications as text (unified-diff-like, grouped by table, with a summary) and as
 * JSON. Colour comes in through a `DiffStyle`, so this module stays free of terminal concerns.
 */
import type {
  ActionEdit,
  Changes,
  CountedChanges,
  DumpDiff,
  FlowAttribute,
  FlowChange,
  GroupChange,
  PortNamingGap,
  TableDiff,
} from '../analysis/diff/diff.ts';
import { FLOW_ATTRIBUTES, hasChanges } from '../analysis/diff/diff.ts';
import type { Naming } from '../model/flow-key.ts';
import { type Verified, type Verification, verdictSize } from '../analysis/diff/verify.ts';
import type { Flow, Group } from '../model/flow.ts';
import type { OfVersion } from '../model/openflow.ts';
import type { TableRef } from '../model/tables.ts';
import { formatActions } from './actions.ts';
import { maxOf } from '../model/append.ts';
import { alignColumns } from './columns.ts';
import { firstFewPorts } from './lists.ts';
import { formatPriorityAndMatch } from './flow.ts';
import { formatGroup } from './group.ts';
import { flowJson, groupJson, SCHEMA_VERSION, tableRefJson } from './json.ts';
import { plainStyle, type Style } from './style.ts';

/** How each kind of line is painted. */
export type DiffStyle = Style<'removed' | 'added' | 'header' | 'dim'>;

export const PLAIN: DiffStyle = plainStyle('removed', 'added', 'header', 'dim');

/**
 * The OpenFlow version whose spelling a comparison of `dumps` is shown in: the one their reply
 * headers name (the later dump first), else 1.5.
 */
export function dumpsVersion(dumps: readonly { readonly protocols: readonly OfVersion[] }[]): OfVersion {
  for (const d of [...dumps].reverse()) {
    const v = d.protocols[d.protocols.length - 1];
    if (v !== undefined) return v;
  }
  return 15;
}

export interface DiffTextOptions {
  /** Names of the two inputs, for the `---`/`+++` lines. */
  readonly labels: readonly [string, string];
  /** OpenFlow version whose spelling the actions are shown in. */
  readonly of: OfVersion;
  readonly style: DiffStyle;
  /** The pipeline profile's name for a table the dumps give by number only. */
  readonly tableName?: (ref: TableRef) => string | undefined;
}

/**
 * `table=N (Name)` when the table's name is known (from a dump that names it, else from the
 * profile), `table=N` or `table=Name` otherwise.
 */
export function tableTitle(ref: TableRef, naming: Naming, profileName?: (ref: TableRef) => string | undefined): string {
  if (ref.kind === 'name') return `table=${ref.name}`;
  for (const [name, n] of naming.tables ?? []) if (n === ref.number) return `table=${ref.number} (${name})`;
  const name = profileName?.(ref);
  return name === undefined ? `table=${ref.number}` : `table=${ref.number} (${name})`;
}

/** The flow without table and statistics: priority and match, cookie, timeouts, actions. */
export function flowText(flow: Flow, of: OfVersion): string {
  const parts = [formatPriorityAndMatch(flow)].filter((s) => s !== '');
  if (flow.cookie !== 0n) parts.push(`cookie=0x${flow.cookie.toString(16)}`);
  if (flow.idleTimeout) parts.push(`idle_timeout=${flow.idleTimeout}`);
  if (flow.hardTimeout) parts.push(`hard_timeout=${flow.hardTimeout}`);
  if (flow.importance) parts.push(`importance=${flow.importance}`);
  parts.push(`actions=${formatActions(flow.actions, { of })}`);
  return parts.join(' ');
}

function actionEditLines(edits: readonly ActionEdit[], of: OfVersion, style: DiffStyle): string[] {
  return edits.map((e) => {
    const text = formatActions([e.action], { of });
    if (e.op === 'removed') return style.removed(`-    ${text}`);
    if (e.op === 'added') return style.added(`+    ${text}`);
    return style.dim(`     ${text}`);
  });
}

/** A changed flow: its slot as context, then each attribute's old and new value. */
function changeLines(c: FlowChange, of: OfVersion, style: DiffStyle): string[] {
  const head = formatPriorityAndMatch(c.before);
  const lines = [` ${head === '' ? 'priority=32768' : head}`];
  const pair = (name: string, x: string, y: string): void => {
    lines.push(style.removed(`-    ${name}=${x}`), style.added(`+    ${name}=${y}`));
  };
  for (const attr of c.attributes) {
    if (attr === 'cookie') pair('cookie', `0x${c.before.cookie.toString(16)}`, `0x${c.after.cookie.toString(16)}`);
    else if (attr === 'idle_timeout') pair(attr, String(c.before.idleTimeout), String(c.after.idleTimeout));
    else if (attr === 'hard_timeout') pair(attr, String(c.before.hardTimeout), String(c.after.hardTimeout));
    else if (attr === 'importance') pair(attr, String(c.before.importance), String(c.after.importance));
  }
  if (c.attributes.includes('actions')) lines.push(...actionEditLines(c.actions, of, style));
  return lines;
}

function counts(parts: readonly [number, string][]): string {
  const shown = parts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`);
  return shown.length === 0 ? 'no differences' : shown.join(', ');
}

/** A report's word for each kind of line, in the order its headings count them. */
type SectionWords = readonly (readonly [keyof Changes<unknown, unknown>, string])[];

const DIFF_WORDS: SectionWords = [
  ['removed', 'removed'],
  ['added', 'added'],
  ['changed', 'changed'],
];
const VERIFY_WORDS: SectionWords = [
  ['removed', 'missing'],
  ['changed', 'differ'],
  ['added', 'unexpected'],
];

function sectionCounts(lines: Changes<unknown, unknown>, words: SectionWords): string {
  return counts(words.map(([kind, word]) => [lines[kind].length, word]));
}

/** A table's section: its heading with the counts, then its lines in the order of `words`. */
function flowSection(
  table: TableRef,
  lines: Changes<Flow, FlowChange>,
  words: SectionWords,
  naming: Naming,
  o: DiffTextOptions,
): string[] {
  const text = {
    removed: () => lines.removed.map((f) => o.style.removed(`-${flowText(f, o.of)}`)),
    added: () => lines.added.map((f) => o.style.added(`+${flowText(f, o.of)}`)),
    changed: () => lines.changed.flatMap((c) => changeLines(c, o.of, o.style)),
  };
  return [
    o.style.header(`@@ ${tableTitle(table, naming, o.tableName)} @@ ${sectionCounts(lines, words)}`),
    ...words.flatMap(([kind]) => text[kind]()),
  ];
}

/** The groups' section: its heading with the counts, then the removed, added and changed groups. */
function groupSection(lines: Changes<Group, GroupChange>, words: SectionWords, o: DiffTextOptions): string[] {
  if (!hasChanges(lines)) return [];
  const { removed, added, changed } = lines;
  return [
    o.style.header(`@@ groups @@ ${sectionCounts(lines, words)}`),
    ...removed.map((g) => o.style.removed(`-${formatGroup(g, o.of)}`)),
    ...added.map((g) => o.style.added(`+${formatGroup(g, o.of)}`)),
    ...changed.flatMap((c) => [
      o.style.removed(`-${formatGroup(c.before, o.of)}`),
      o.style.added(`+${formatGroup(c.after, o.of)}`),
    ]),
  ];
}

/** Rows as aligned columns, the first (the table) left-aligned, the counts right-aligned. */
function columns(rows: readonly (readonly string[])[], width?: number): string[] {
  return alignColumns(rows, new Set(rows[0]!.map((_, i) => i).filter((i) => i > 0)), width);
}

/** Flows of a table or of all tables, or the groups: how many each dump has, and how they differ. */
interface Counts {
  readonly before: number;
  readonly after: number;
  readonly removed: number;
  readonly added: number;
  readonly changed: number;
}

/** A table's or the groups' counts. */
function countsOf(d: CountedChanges<unknown, unknown>): Counts {
  return {
    before: d.before,
    after: d.after,
    removed: d.removed.length,
    added: d.added.length,
    changed: d.changed.length,
  };
}

function totals(tables: readonly TableDiff[]): Counts {
  const all = tables.map(countsOf);
  const sum = (f: (c: Counts) => number): number => all.reduce((n, c) => n + f(c), 0);
  return {
    before: sum((c) => c.before),
    after: sum((c) => c.after),
    removed: sum((c) => c.removed),
    added: sum((c) => c.added),
    changed: sum((c) => c.changed),
  };
}

const differs = (c: Counts): boolean => c.removed + c.added + c.changed > 0;

/** The columns of a counts row after the title and the two counts. */
const DIFFERENCE_HEADS = ['removed', 'added', 'changed'] as const;

/**
 * A count of removed, added or changed flows with its diff mark (`-2`, `+3`, `~1`); none is a
 * plain `0`, since `-0` or `+0` would read as a signed zero rather than as nothing.
 */
function marked(mark: '-' | '+' | '~', n: number): string {
  return n === 0 ? '0' : `${mark}${n}`;
}

function countCells(title: string, c: Counts): string[] {
  return [
    title,
    String(c.before),
    String(c.after),
    marked('-', c.removed),
    marked('+', c.added),
    marked('~', c.changed),
  ];
}

/** Flow counts of the tables that differ and of all tables, then the groups' when they differ. */
function summaryLines(d: DumpDiff, o: DiffTextOptions): string[] {
  const g = countsOf(d.groups);
  const rows = [
    ['table', 'before', 'after', ...DIFFERENCE_HEADS],
    ...d.tables.filter(hasChanges).map((t) => countCells(tableTitle(t.table, d.naming, o.tableName), countsOf(t))),
    countCells(`all ${d.tables.length} tables`, totals(d.tables)),
    ...(differs(g) ? [countCells('groups', g)] : []),
  ];
  return columns(rows).map((l, i) => (i === 0 ? o.style.header(l) : l));
}

/** The whole diff as text; empty when the dumps are equal. */
export function formatDumpDiff(d: DumpDiff, o: DiffTextOptions): string {
  if (d.equal) return '';
  const g = d.groups;
  const lines = [
    o.style.removed(`--- ${o.labels[0]}`),
    o.style.added(`+++ ${o.labels[1]}`),
    ...d.tables.filter(hasChanges).flatMap((t) => flowSection(t.table, t, DIFF_WORDS, d.naming, o)),
    ...groupSection(g, DIFF_WORDS, o),
    '',
    ...summaryLines(d, o),
  ];
  return lines.join('\n');
}

/** The rows of the per-table summary: every table, all tables, and the groups when there are any. */
function perTableRows(d: DumpDiff, profileName?: (ref: TableRef) => string | undefined): [string, Counts][] {
  const rows: [string, Counts][] = [
    ...d.tables.map((t): [string, Counts] => [tableTitle(t.table, d.naming, profileName), countsOf(t)]),
    [`all ${d.tables.length} tables`, totals(d.tables)],
  ];
  if (d.groups.before + d.groups.after > 0) rows.push(['groups', countsOf(d.groups)]);
  return rows;
}

/**
 * Every table's flow count in both dumps side by side, with the flows removed, added and changed
 * (a table can lose one flow and gain another, or change flows, and keep its count), then all
 * tables and the groups. Rows without differences are dimmed.
 */
export function formatPerTable(
  d: DumpDiff,
  o: Pick<DiffTextOptions, 'labels' | 'style' | 'tableName'> & { readonly width?: number },
): string {
  const rows = perTableRows(d, o.tableName);
  const paint = (line: string, c: Counts): string => {
    if (!differs(c)) return o.style.dim(line);
    if (c.after === c.before) return line;
    return c.after > c.before ? o.style.added(line) : o.style.removed(line);
  };
  const body = rows.map(([title, c]) => countCells(title, c));
  let lines = columns([['table', o.labels[0], o.labels[1], ...DIFFERENCE_HEADS], ...body]);
  // Inputs whose names make the table wider than the terminal are named above it instead.
  const legend: string[] = [];
  if (o.width !== undefined && maxOf(lines.map((l) => l.length)) > o.width) {
    legend.push(`before: ${o.labels[0]}`, `after:  ${o.labels[1]}`);
    lines = columns([['table', 'before', 'after', ...DIFFERENCE_HEADS], ...body], o.width);
  }
  return [...legend, ...lines.map((line, i) => (i === 0 ? o.style.header(line) : paint(line, rows[i - 1]![1])))].join(
    '\n',
  );
}

function tableCountsJson(t: TableDiff): Record<string, unknown> {
  return { table: tableRefJson(t.table), ...countsOf(t) };
}

/** The per-table summary as JSON: each table's counts, those of all tables, and the groups'. */
export function perTableJson(d: DumpDiff): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    equal: d.equal,
    tables: d.tables.map(tableCountsJson),
    total: totals(d.tables),
    groups: countsOf(d.groups),
  };
}

/** What to do when one dump names ports the other numbers (see `PortNamingGap`), a hint for standard error. */
export function portNamingHint(gap: PortNamingGap, labels: readonly [string, string]): string {
  return (
    `${labels[gap.named]} names ports (${firstFewPorts(gap.names)}) that ${labels[1 - gap.named]} gives by number, so the flows that use them` +
    ' cannot be paired; give --ports with the output of ovs-ofctl show (or dump-ports-desc) of that switch'
  );
}

function editJson(e: ActionEdit, of: OfVersion): { op: string; action: string } {
  return { op: e.op, action: formatActions([e.action], { of }) };
}

function changeJson(c: FlowChange, of: OfVersion): Record<string, unknown> {
  return {
    before: flowJson(c.before),
    after: flowJson(c.after),
    attributes: c.attributes,
    actions: c.actions.map((e) => editJson(e, of)),
  };
}

function groupChangeJson(c: GroupChange): Record<string, unknown> {
  return { before: groupJson(c.before), after: groupJson(c.after), attributes: c.attributes };
}

export function dumpDiffJson(d: DumpDiff, of: OfVersion): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    equal: d.equal,
    added: d.tables.flatMap((t) => t.added.map(flowJson)),
    removed: d.tables.flatMap((t) => t.removed.map(flowJson)),
    changed: d.tables.flatMap((t) => t.changed.map((c) => changeJson(c, of))),
    groups: {
      added: d.groups.added.map(groupJson),
      removed: d.groups.removed.map(groupJson),
      changed: d.groups.changed.map(groupChangeJson),
    },
    tables: d.tables.map(tableCountsJson),
  };
}

/** How the summary line counts expected flows found with another value of an attribute. */
const MISMATCH_WORDS: Readonly<Record<FlowAttribute, string>> = {
  actions: 'with other actions',
  cookie: 'with another cookie',
  idle_timeout: 'with another idle timeout',
  hard_timeout: 'with another hard timeout',
  importance: 'with another importance',
};

/** A verdict's lines as a diff's: `-` the expected missing, `+` the unexpected, the rest changed. */
function sectionOf<T, C>(v: Verified<T, C>): Changes<T, C> {
  return { removed: v.missing, added: v.unexpected, changed: v.mismatched };
}

/** Verification report: `-` expected but missing, `+` present but not expected, action diffs of the rest. */
export function formatVerification(v: Verification, o: DiffTextOptions): string {
  const missing = v.tables.reduce((n, t) => n + t.missing.length, 0);
  const unexpected = v.tables.reduce((n, t) => n + t.unexpected.length, 0);
  const g = v.groups;
  const lines = v.ok
    ? []
    : [
        o.style.removed(`--- ${o.labels[0]} (expected)`),
        o.style.added(`+++ ${o.labels[1]} (actual)`),
        ...v.tables
          .filter((t) => verdictSize(t) > 0)
          .flatMap((t) => flowSection(t.table, sectionOf(t), VERIFY_WORDS, v.naming, o)),
        ...groupSection(sectionOf(g), VERIFY_WORDS, o),
        '',
      ];
  // A flow found with another cookie and other actions is counted under both.
  const detail = counts([
    [missing, 'missing'],
    ...FLOW_ATTRIBUTES.map((a): [number, string] => [v.mismatchedBy[a], MISMATCH_WORDS[a]]),
    [unexpected, 'unexpected'],
  ]);
  const groupDetail =
    verdictSize(g) > 0
      ? `; groups: ${counts([
          [g.missing.length, 'missing'],
          [g.mismatched.length, 'differ'],
          [g.unexpected.length, 'unexpected'],
        ])}`
      : '';
  lines.push(
    `${v.matched} of ${v.expectedFlows} expected flows present; ${v.ok ? 'all as expected' : detail}${groupDetail}`,
  );
  return lines.join('\n');
}

export function verificationJson(v: Verification, of: OfVersion): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    ok: v.ok,
    expected: v.expectedFlows,
    matched: v.matched,
    mismatchedBy: v.mismatchedBy,
    missing: v.tables.flatMap((t) => t.missing.map(flowJson)),
    mismatched: v.tables.flatMap((t) => t.mismatched.map((c) => changeJson(c, of))),
    unexpected: v.tables.flatMap((t) => t.unexpected.map(flowJson)),
    groups: {
      missing: v.groups.missing.map(groupJson),
      mismatched: v.groups.mismatched.map(groupChangeJson),
      unexpected: v.groups.unexpected.map(groupJson),
    },
  };
}
