/** Release arithmetic for the `since`/`until` bounds profiles put on their items. */
import type { Versioned } from './types.ts';

/** Compares dotted releases part by part as numbers (`1.10` is after `1.9`); missing parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Whether an item exists in a release. */
export function inVersion(item: Versioned, version: string): boolean {
  return (item.since === undefined || compareVersions(item.since, version) <= 0) && (item.until === undefined || compareVersions(version, item.until) <= 0);
}

/** Whether two items exist together in some release. */
export function versionsOverlap(a: Versioned, b: Versioned): boolean {
  const startsBeforeEnd = (x: Versioned, y: Versioned): boolean => x.since === undefined || y.until === undefined || compareVersions(x.since, y.until) <= 0;
  return startsBeforeEnd(a, b) && startsBeforeEnd(b, a);
}

/** `releases 1.6 and later`, `release 1.4`, `releases 0.10–1.5`, `any release`: a range in words. */
export function rangeText(range: Versioned): string {
  if (range.since === undefined && range.until === undefined) return 'any release';
  if (range.until === undefined) return `releases ${range.since} and later`;
  return range.since === range.until ? `release ${range.since}` : `releases ${range.since ?? '…'}–${range.until}`;
}
