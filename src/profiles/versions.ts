/** Release arithmetic for the `since`/`until` bounds profiles put on their items. */
import type { Versioned } from './types.ts';

/**
 * Releases as numbers, by their text. Profiles name a few dozen releases, and detection compares
 * them hundreds of thousands of times while it fits flows to every release.
 */
const parsed = new Map<string, readonly number[]>();

function parts(release: string): readonly number[] {
  let p = parsed.get(release);
  if (p === undefined) parsed.set(release, (p = release.split('.').map(Number)));
  return p;
}

/** Compares dotted releases part by part as numbers (`1.10` is after `1.9`); missing parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = parts(a);
  const pb = parts(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Whether an item exists in a release. */
export function inVersion(item: Versioned, version: string): boolean {
  return (
    (item.since === undefined || compareVersions(item.since, version) <= 0) &&
    (item.until === undefined || compareVersions(version, item.until) <= 0)
  );
}

/** Whether two items exist together in some release. */
export function versionsOverlap(a: Versioned, b: Versioned): boolean {
  const startsBeforeEnd = (x: Versioned, y: Versioned): boolean =>
    x.since === undefined || y.until === undefined || compareVersions(x.since, y.until) <= 0;
  return startsBeforeEnd(a, b) && startsBeforeEnd(b, a);
}
