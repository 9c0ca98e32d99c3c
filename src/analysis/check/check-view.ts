/**
 * The part of a check report a user asked to see: by kind, by table, the known findings or not,
 * and only what a baseline (an earlier report of the same node) does not already hold.
 */
import type { Profile } from '../../profiles/types.ts';
import { type CheckReport, type Finding, findingKey, isSilent } from './check.ts';
import { resolveTable } from '../fit/pattern-fit.ts';

export interface CheckSelection {
  /** Known (by design) findings too. */
  readonly all?: boolean;
  readonly kinds?: readonly string[];
  /** Tables by number, by the dump's name or by the profile's name. */
  readonly tables?: readonly string[];
  /** Keys (`findingKey`) of the findings a baseline report holds. */
  readonly baseline?: ReadonlySet<string>;
}

export interface SelectedFindings {
  readonly findings: readonly Finding[];
  /** Known findings left out (without --all). */
  readonly hidden: number;
  /** Findings left out because the baseline holds them. */
  readonly inBaseline: number;
}

function inTables(
  f: Finding,
  tables: readonly string[],
  profile: Profile | undefined,
  release: string | undefined,
): boolean {
  if (!f.table) return false;
  const ref = f.table;
  const names = [ref.kind === 'number' ? String(ref.number) : ref.name];
  const spec = profile && release ? resolveTable(profile, ref, release) : undefined;
  if (spec) names.push(spec.name, ...(spec.aliases ?? []), ...(spec.number === undefined ? [] : [String(spec.number)]));
  return tables.some((t) => names.includes(t));
}

export function selectFindings(report: CheckReport, s: CheckSelection): SelectedFindings {
  let hidden = 0;
  let inBaseline = 0;
  const findings = report.findings.filter((f) => {
    if (s.kinds && !s.kinds.includes(f.kind)) return false;
    if (s.tables && !inTables(f, s.tables, report.profile, report.release)) return false;
    if (!s.all && isSilent(f)) {
      hidden++;
      return false;
    }
    if (s.baseline?.has(findingKey(f))) {
      inBaseline++;
      return false;
    }
    return true;
  });
  return { findings, hidden, inBaseline };
}
