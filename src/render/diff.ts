/**
 * Diffs and verifications as text (unified-diff-like, grouped by table, with a summary) and as
 * JSON. Colour comes in through a `DiffStyle`, so this module stays free of terminal concerns.
 */
import type { ActionEdit, DumpDiff, FlowChange, GroupChange, TableDiff } from '../analysis/diff.ts';
import { tableHasChanges } from '../analysis/diff.ts';
import type { Naming } from '../analysis/flow-key.ts';
import type { TableVerdict, Verification } from '../analysis/verify.ts';
import type { Flow, Group } from '../model/flow.ts';
import type { OfVersion } from '../model/openflow.ts';
import type { TableRef } from '../model/tables.ts';
import { formatActions } from './actions.ts';
import { formatPriorityAndMatch } from './flow.ts';
import { formatGroup } from './group.ts';
import { flowJson, groupJson, SCHEMA_VERSION, tableRefJson } from './json.ts';

/** How each kind of line is painted. */
export interface DiffStyle {
  readonly removed: (s: string) => string;
  readonly added: (s: string) => string;
  readonly header: (s: string) => string;
  readonly dim: (s: string) => string;
}

const same = (s: string): string => s;
export const PLAIN: DiffStyle = { removed: same, added: same, header: same, dim: same };

export interface DiffTextOptions {
  /** Names of the two inputs, for the `---`/`+++` lines. */
  readonly labels: readonly [string, string];
  /** OpenFlow version whose spelling the actions are shown in. */
  readonly of: OfVersion;
  readonly style: DiffStyle;
}

/** `table=N (Name)` when the table's name is known, `table=N` or `table=Name` otherwise. */
export function tableTitle(ref: TableRef, naming: Naming): string {
  if (ref.kind === 'name') return `table=${ref.name}`;
  for (const [name, n] of naming.tables ?? []) if (n === ref.number) return `table=${ref.number} (${name})`;
  return `table=${ref.number}`;
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

function tableSection(t: TableDiff, naming: Naming, o: DiffTextOptions): string[] {
  const summary = counts([
    [t.removed.length, 'removed'],
    [t.added.length, 'added'],
    [t.changed.length, 'changed'],
  ]);
  return [
    o.style.header(`@@ ${tableTitle(t.table, naming)} @@ ${summary}`),
    ...t.removed.map((f) => o.style.removed(`-${flowText(f, o.of)}`)),
    ...t.added.map((f) => o.style.added(`+${flowText(f, o.of)}`)),
    ...t.changed.flatMap((c) => changeLines(c, o.of, o.style)),
  ];
}

function groupSection(removed: readonly Group[], added: readonly Group[], changed: readonly GroupChange[], summary: string, o: DiffTextOptions): string[] {
  if (removed.length + added.length + changed.length === 0) return [];
  return [
    o.style.header(`@@ groups @@ ${summary}`),
    ...removed.map((g) => o.style.removed(`-${formatGroup(g, o.of)}`)),
    ...added.map((g) => o.style.added(`+${formatGroup(g, o.of)}`)),
    ...changed.flatMap((c) => [o.style.removed(`-${formatGroup(c.before, o.of)}`), o.style.added(`+${formatGroup(c.after, o.of)}`)]),
  ];
}

function pad(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
}

/** Rows as aligned columns, the first left-aligned, numbers right-aligned. */
function columns(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => pad(r, widths));
}

function totals(tables: readonly TableDiff[]): { before: number; after: number; removed: number; added: number; changed: number } {
  const sum = (f: (t: TableDiff) => number): number => tables.reduce((n, t) => n + f(t), 0);
  return {
    before: sum((t) => t.before),
    after: sum((t) => t.after),
    removed: sum((t) => t.removed.length),
    added: sum((t) => t.added.length),
    changed: sum((t) => t.changed.length),
  };
}

/** Flow counts of the tables that differ, and of all tables. */
function summaryLines(d: DumpDiff, o: DiffTextOptions): string[] {
  const changed = d.tables.filter(tableHasChanges);
  const all = totals(d.tables);
  const row = (title: string, t: { before: number; after: number; removed: number; added: number; changed: number }): string[] =>
    [title, String(t.before), String(t.after), `-${t.removed}`, `+${t.added}`, `~${t.changed}`];
  const rows = [
    ['table', 'before', 'after', 'removed', 'added', 'changed'],
    ...changed.map((t) => row(tableTitle(t.table, d.naming), { before: t.before, after: t.after, removed: t.removed.length, added: t.added.length, changed: t.changed.length })),
    row(`all ${d.tables.length} tables`, all),
  ];
  const g = d.groups;
  const lines = columns(rows).map((l, i) => (i === 0 ? o.style.header(l) : l));
  if (g.removed.length + g.added.length + g.changed.length > 0) lines.push(`groups: -${g.removed.length} +${g.added.length} ~${g.changed.length}`);
  return lines;
}

/** The whole diff as text; empty when the dumps are equal. */
export function formatDumpDiff(d: DumpDiff, o: DiffTextOptions): string {
  if (d.equal) return '';
  const g = d.groups;
  const lines = [
    o.style.removed(`--- ${o.labels[0]}`),
    o.style.added(`+++ ${o.labels[1]}`),
    ...d.tables.filter(tableHasChanges).flatMap((t) => tableSection(t, d.naming, o)),
    ...groupSection(g.removed, g.added, g.changed, counts([[g.removed.length, 'removed'], [g.added.length, 'added'], [g.changed.length, 'changed']]), o),
    '',
    ...summaryLines(d, o),
  ];
  return lines.join('\n');
}

/** Every table's flow count in both dumps side by side, with the difference. */
export function formatPerTable(d: DumpDiff, o: Pick<DiffTextOptions, 'labels' | 'style'>): string {
  const delta = (n: number): string => (n > 0 ? `+${n}` : String(n));
  const rows = [
    ['table', o.labels[0], o.labels[1], 'difference'],
    ...d.tables.map((t) => [tableTitle(t.table, d.naming), String(t.before), String(t.after), t.before === t.after ? '0' : delta(t.after - t.before)]),
  ];
  const all = totals(d.tables);
  rows.push(['total', String(all.before), String(all.after), delta(all.after - all.before)]);
  return columns(rows)
    .map((line, i) => {
      if (i === 0) return o.style.header(line);
      const t = d.tables[i - 1];
      if (!t || t.before === t.after) return line;
      return t.after > t.before ? o.style.added(line) : o.style.removed(line);
    })
    .join('\n');
}

function editJson(e: ActionEdit, of: OfVersion): { op: string; action: string } {
  return { op: e.op, action: formatActions([e.action], { of }) };
}

function changeJson(c: FlowChange, of: OfVersion): Record<string, unknown> {
  return { before: flowJson(c.before), after: flowJson(c.after), attributes: c.attributes, actions: c.actions.map((e) => editJson(e, of)) };
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
    tables: d.tables.map((t) => ({
      table: tableRefJson(t.table),
      before: t.before,
      after: t.after,
      added: t.added.length,
      removed: t.removed.length,
      changed: t.changed.length,
    })),
  };
}

function verdictSection(t: TableVerdict, naming: Naming, o: DiffTextOptions): string[] {
  const summary = counts([
    [t.missing.length, 'missing'],
    [t.mismatched.length, 'differ'],
    [t.unexpected.length, 'unexpected'],
  ]);
  return [
    o.style.header(`@@ ${tableTitle(t.table, naming)} @@ ${summary}`),
    ...t.missing.map((f) => o.style.removed(`-${flowText(f, o.of)}`)),
    ...t.mismatched.flatMap((c) => changeLines(c, o.of, o.style)),
    ...t.unexpected.map((f) => o.style.added(`+${flowText(f, o.of)}`)),
  ];
}

/** Verification report: `-` expected but missing, `+` present but not expected, action diffs of the rest. */
export function formatVerification(v: Verification, o: DiffTextOptions): string {
  const missing = v.tables.reduce((n, t) => n + t.missing.length, 0);
  const mismatched = v.tables.reduce((n, t) => n + t.mismatched.length, 0);
  const unexpected = v.tables.reduce((n, t) => n + t.unexpected.length, 0);
  const g = v.groups;
  const lines = v.ok
    ? []
    : [
        o.style.removed(`--- ${o.labels[0]} (expected)`),
        o.style.added(`+++ ${o.labels[1]} (actual)`),
        ...v.tables.filter((t) => t.missing.length + t.mismatched.length + t.unexpected.length > 0).flatMap((t) => verdictSection(t, v.naming, o)),
        ...groupSection(
          g.missing,
          g.unexpected,
          g.mismatched,
          counts([[g.missing.length, 'missing'], [g.mismatched.length, 'differ'], [g.unexpected.length, 'unexpected']]),
          o,
        ),
        '',
      ];
  const detail = counts([
    [missing, 'missing'],
    [mismatched, 'with other actions'],
    [unexpected, 'unexpected'],
  ]);
  const groupDetail =
    g.missing.length + g.mismatched.length + g.unexpected.length > 0
      ? `; groups: ${counts([[g.missing.length, 'missing'], [g.mismatched.length, 'differ'], [g.unexpected.length, 'unexpected']])}`
      : '';
  lines.push(`${v.matched} of ${v.expectedFlows} expected flows present; ${v.ok ? 'all as expected' : detail}${groupDetail}`);
  return lines.join('\n');
}

export function verificationJson(v: Verification, of: OfVersion): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    ok: v.ok,
    expected: v.expectedFlows,
    matched: v.matched,
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
