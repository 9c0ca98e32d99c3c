/**
 * The bucket a select group picks for a packet, computed as ovs-vswitchd computes it
 * (ofproto/ofproto-dpif-xlate.c): a hash of the packet gives each live bucket a score, and the
 * best score wins. `selection_method=hash` hashes the group's `fields(...)`; the default method
 * (hash without fields, or a group the datapath hash cannot serve) hashes the packet's
 * addresses symmetrically. Groups that select by `dp_hash` are not chosen here.
 */
import { type Bucket, type Group, selectWeight } from '../../model/flow.ts';
import { FIELDS, type FieldDef } from '../../model/fields.ts';
import { ones } from '../../model/values.ts';
import { hashBoolean, hashBytes, hashInt, hashUint64, jhashBytes, networkBytes } from './ovs-hash.ts';
import { ETH_TYPE, type Packet, prerequisiteMet } from './packet.ts';

/** OVS visits a group's fields in the order of its field ids, which the registry keeps. */
const FIELD_ORDER = new Map<FieldDef, number>(FIELDS.map((f, i) => [f, i]));

/**
 * The hash basis of a `selection_method=hash` group with fields (pick_hash_fields_select_group):
 * `selection_method_param` hashed, then each field's masked value in network order, skipping
 * fields whose prerequisites the packet lacks. undefined for other groups.
 */
export function hashFieldsBasis(group: Group, packet: Packet): number | undefined {
  if (group.selectionMethod !== 'hash' || !group.fields?.length) return undefined;
  let basis = hashUint64(group.selectionMethodParam ?? 0n);
  const fields = [...group.fields].sort((a, b) => (FIELD_ORDER.get(a.field) ?? 0) - (FIELD_ORDER.get(b.field) ?? 0));
  for (const { field, mask } of fields) {
    if (!prerequisiteMet(field, packet)) continue;
    const value = packet.get(field) & (mask ?? ones(field.bytes * 8));
    basis = hashBytes(networkBytes(value, field.bytes), basis);
    // Tunnel metadata also hashes whether the option is present.
    if (field.presence) basis = hashBoolean(packet.carries(field), basis);
  }
  return basis;
}

const IPPROTO_TCP = 6n;
const IPPROTO_SCTP = 132n;

/**
 * flow_hash_symmetric_l4 with basis 0 (lib/flow.c), the default selection method's hash: the
 * XOR of the two Ethernet addresses, of the IP addresses and of the TCP/SCTP ports, the VLAN ID,
 * Ethernet type and IP protocol, laid out as OVS's 32-byte structure and hashed with jhash.
 */
export function symmetricL4Hash(packet: Packet): number {
  const bytes = new Uint8Array(32);
  const put = (offset: number, value: bigint, n: number): void => bytes.set(networkBytes(value, n), offset);
  const type = packet.slot('eth_type');
  put(22, packet.slot('eth_src') ^ packet.slot('eth_dst'), 6);
  put(18, packet.slot('vlan_tci') & 0x0fffn, 2);
  put(16, type, 2);
  const ipv4 = type === ETH_TYPE.ipv4;
  if (ipv4 || type === ETH_TYPE.ipv6) {
    if (ipv4) put(0, packet.slot('nw_src') ^ packet.slot('nw_dst'), 4);
    else put(0, packet.slot('ipv6_src') ^ packet.slot('ipv6_dst'), 16);
    const proto = packet.slot('nw_proto');
    put(28, proto, 1);
    if (proto === IPPROTO_TCP || proto === IPPROTO_SCTP) put(20, packet.slot('tp_src') ^ packet.slot('tp_dst'), 2);
  }
  return jhashBytes(bytes, 0);
}

/**
 * The hash a `selection_method=hash` group scores its buckets with: of its fields, or (without
 * fields) the default method's. undefined for groups that select by the datapath's hash.
 */
export function selectionHash(group: Group, packet: Packet): number | undefined {
  if (group.selectionMethod !== 'hash') return undefined;
  return hashFieldsBasis(group, packet) ?? symmetricL4Hash(packet);
}

/** A live bucket's score, or null for a bucket that is not live. */
export interface BucketScore {
  readonly bucket: number;
  readonly score: number | null;
}

export interface BucketChoice {
  /** undefined: no bucket is live. */
  readonly bucket: Bucket | undefined;
  readonly scores: readonly BucketScore[];
}

/**
 * group_best_live_bucket: each live bucket of non-zero weight scores the low 16 bits of the
 * hash of its id with `basis`, times its weight; the highest score wins, the later bucket on a tie.
 */
export function bestLiveBucket(buckets: readonly Bucket[], basis: number, live: (b: Bucket) => boolean): BucketChoice {
  let best: Bucket | undefined;
  let bestScore = 0;
  const scores: BucketScore[] = [];
  for (const b of buckets) {
    const weight = selectWeight(b);
    if (weight === 0 || !live(b)) {
      scores.push({ bucket: b.id, score: null });
      continue;
    }
    const score = (hashInt(b.id, basis) & 0xffff) * weight;
    scores.push({ bucket: b.id, score });
    if (score >= bestScore) {
      best = b;
      bestScore = score;
    }
  }
  return { bucket: best, scores };
}
