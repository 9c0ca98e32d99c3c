/**
 * Select groups that pick their bucket by the datapath's hash (`dp_hash`), as ovs-vswitchd sets
 * them up (ofproto/ofproto-dpif.c group_setup_dp_hash_table): a group without a selection method
 * does whenever its weights fit in 256 hash values, and `selection_method=dp_hash` does too.
 * The hash values are shared out among the buckets by weight (Webster's method), and a packet's
 * `dp_hash`, masked, names one; when that bucket is not live, the next value's is tried.
 */
import { type Bucket, type Group, selectWeight } from '../../model/flow.ts';
import { minOf } from '../../model/append.ts';

/** OVS's bound on the hash values of a group (MAX_SELECT_GROUP_HASH_VALUES). */
const MAX_HASH_VALUES = 256;
const MIN_HASH_VALUES = 16;

function roundUpPow2(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

/**
 * The bucket of each hash value (index: dp_hash masked by length − 1), or undefined for a group
 * the switch does not select by dp_hash (it falls back to its default hash).
 */
export function dpHashMap(group: Group): readonly Bucket[] | undefined {
  if (group.type !== 'select' || group.selectionMethod === 'hash' || group.buckets.length === 0) return undefined;
  const total = group.buckets.reduce((sum, b) => sum + selectWeight(b), 0);
  if (total === 0) return undefined;
  const minWeight = minOf(group.buckets.map(selectWeight).filter((w) => w > 0));
  const n = Math.max(MIN_HASH_VALUES, roundUpPow2(Math.ceil(total / minWeight)));
  // Without a selection method OVS asks for at most 256 values; with dp_hash, for any, capped the same.
  if (n > MAX_HASH_VALUES) return undefined;
  const shares = group.buckets.map((bucket) => ({ bucket, divisor: 1, value: selectWeight(bucket) }));
  const map: Bucket[] = [];
  for (let hash = 0; hash < n; hash++) {
    let winner = shares[0]!;
    for (const s of shares) if (s.value > winner.value) winner = s;
    winner.divisor += 2;
    winner.value = selectWeight(winner.bucket) / winner.divisor;
    map.push(winner.bucket);
  }
  return map;
}

/** The bucket `dpHash` selects (pick_dp_hash_select_group): its own, or the next live one. */
export function dpHashBucket(map: readonly Bucket[], dpHash: bigint, live: (b: Bucket) => boolean): Bucket | undefined {
  const mask = map.length - 1;
  const start = Number(dpHash & BigInt(mask));
  for (let i = 0; i <= mask; i++) {
    const b = map[(start + i) & mask]!;
    if (live(b)) return b;
  }
  return undefined;
}

/**
 * For each bucket some hash value selects, given which buckets are live, the values that select
 * it (masked, lowest first), in the order of the group's buckets.
 */
export function hashValuesByBucket(
  group: Group,
  map: readonly Bucket[],
  live: (b: Bucket) => boolean,
): Map<Bucket, number[]> {
  const taken = new Map<Bucket, number[]>();
  map.forEach((_, hash) => {
    const b = dpHashBucket(map, BigInt(hash), live);
    if (b) taken.set(b, [...(taken.get(b) ?? []), hash]);
  });
  return new Map(group.buckets.filter((b) => taken.has(b)).map((b) => [b, taken.get(b)!]));
}
