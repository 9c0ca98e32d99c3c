/**
 * One group line (`dump-groups` output or add-groups syntax) → Group. Bucket parameters may
 * appear anywhere in a bucket; a bucket's actions run until the next top-level `bucket=`.
 */
import { fieldByName } from '../model/fields.ts';
import type { Action } from '../model/actions.ts';
import type { Bucket, Group, GroupSelectionField, GroupType, Origin } from '../model/flow.ts';
import { type PortMap, type PortRef, reservedPortByName } from '../model/ports.ts';
import type { ProblemSink } from '../model/problems.ts';
import { parseActions } from './actions.ts';
import { parseFieldValue } from './field-value.ts';
import { type Piece, splitTopLevel, unquoteName } from './tokens.ts';
import { ownEntry } from '../model/own-key.ts';
import { append } from '../model/append.ts';

export interface GroupLineContext {
  readonly sink: ProblemSink;
  readonly portMap?: PortMap;
}

/** Largest group id an OpenFlow switch accepts (OFPG_MAX). */
const GROUP_MAX = 0xffffff00;

const TYPES: Record<string, GroupType> = {
  all: 'all',
  select: 'select',
  indirect: 'indirect',
  ff: 'ff',
  fast_failover: 'ff',
};

const BUCKET_PARAM = /^(bucket_id|weight|watch_port|watch_group)[:=](.*)$/s;

function parseNumber(text: string): bigint | undefined {
  if (/^0x[0-9a-f]+$/i.test(text)) return BigInt(text);
  if (/^\d+$/.test(text)) return BigInt(text);
  return undefined;
}

function parsePort(text: string, portMap: PortMap | undefined): PortRef | undefined {
  const n = parseNumber(text);
  if (n !== undefined) return n <= 0xffffffffn ? { kind: 'number', number: Number(n) } : undefined;
  const reserved = reservedPortByName(text);
  if (reserved) return { kind: 'reserved', name: reserved };
  const name = unquoteName(text);
  if (name === undefined) return undefined;
  const number = portMap?.number(name);
  return number !== undefined ? { kind: 'number', number } : { kind: 'name', name };
}

interface BucketDraft {
  id?: number;
  weight?: number;
  watchPort?: PortRef;
  watchGroup?: number;
  actions: Action[];
  offset: number;
}

function parseBucket(text: string, pieces: readonly Piece[], ctx: GroupLineContext): BucketDraft {
  const { sink } = ctx;
  const b: BucketDraft = { actions: [], offset: pieces[0]?.offset ?? 0 };
  for (const piece of pieces) {
    const param = BUCKET_PARAM.exec(piece.text);
    if (param) {
      const [, key, raw] = param as unknown as [string, string, string];
      const valueOffset = piece.offset + key.length + 1;
      if (key === 'watch_port') {
        const port = parsePort(raw, ctx.portMap);
        if (!port) sink.error(`${raw}: invalid watch_port`, valueOffset, raw.length);
        else if (!(port.kind === 'reserved' && (port.name === 'ANY' || port.name === 'NONE'))) b.watchPort = port;
        continue;
      }
      const n = parseNumber(raw);
      const limit = key === 'weight' ? 0xffffn : 0xffffffffn;
      if (n === undefined || n > limit) {
        sink.error(`${raw}: invalid ${key.replace('_', ' ')}`, valueOffset, raw.length);
        continue;
      }
      if (key === 'bucket_id') b.id = Number(n);
      else if (key === 'weight') b.weight = Number(n);
      else if (n !== 0xffffffffn) b.watchGroup = Number(n);
      continue;
    }
    const start = piece.text.startsWith('actions=') ? piece.offset + 'actions='.length : piece.offset;
    append(
      b.actions,
      parseActions(text, start, piece.offset + piece.text.length, {
        sink,
        bucket: true,
        ...(ctx.portMap ? { portMap: ctx.portMap } : {}),
      }),
    );
  }
  return b;
}

function parseSelectionFields(text: string, offset: number, sink: ProblemSink): GroupSelectionField[] {
  const out: GroupSelectionField[] = [];
  for (const piece of splitTopLevel(text, 0, text.length)) {
    const eq = piece.text.indexOf('=');
    const name = eq < 0 ? piece.text : piece.text.slice(0, eq);
    const field = fieldByName(name);
    if (!field) {
      sink.error(`${name}: unknown field`, offset + piece.offset, name.length);
      continue;
    }
    if (eq < 0) {
      out.push({ field });
      continue;
    }
    const mask = parseFieldValue(field, piece.text.slice(eq + 1));
    if (!mask.ok) sink.error(mask.error, offset + piece.offset + eq + 1, piece.text.length - eq - 1);
    else out.push({ field, mask: mask.value });
  }
  return out;
}

/**
 * Pieces split again wherever `bucket=` begins inside one: OVS starts a bucket at every
 * `bucket=` (ofputil_parse_group_mod_str), and openshift-sdn joins its buckets with `bucket=`
 * alone, no comma before it (`…,output:vxlan0bucket=actions=…`).
 */
function splitJoinedBuckets(pieces: readonly Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const piece of pieces) {
    let { text, offset } = piece;
    for (let i = text.indexOf('bucket=', 1); i > 0; i = text.indexOf('bucket=', 1)) {
      out.push({ text: text.slice(0, i), offset });
      text = text.slice(i);
      offset += i;
    }
    out.push({ text, offset });
  }
  return out;
}

/** Parses a group line into a fresh per-line sink; undefined when the line has errors. */
export function parseGroupLine(text: string, origin: Origin, ctx: GroupLineContext): Group | undefined {
  const { sink } = ctx;
  const pieces = splitJoinedBuckets(splitTopLevel(text, 0, text.length, true));
  let id: number | undefined;
  let type: GroupType | undefined;
  let selectionMethod: 'hash' | 'dp_hash' | undefined;
  let selectionMethodParam: bigint | undefined;
  let fields: GroupSelectionField[] | undefined;
  const drafts: BucketDraft[] = [];
  let current: Piece[] | undefined;
  const flush = (): void => {
    if (current) drafts.push(parseBucket(text, current, ctx));
  };
  for (const piece of pieces) {
    if (piece.text.startsWith('bucket=')) {
      flush();
      const rest = piece.text.slice('bucket='.length);
      current = rest === '' ? [] : [{ text: rest, offset: piece.offset + 'bucket='.length }];
      continue;
    }
    if (current) {
      current.push(piece);
      continue;
    }
    const m = /^([a-z_]+)(?:[=:](.*)|\((.*)\))?$/s.exec(piece.text);
    const key = m?.[1] ?? piece.text;
    const value = m?.[2] ?? m?.[3] ?? '';
    const valueOffset = piece.offset + key.length + 1;
    switch (key) {
      case 'group_id': {
        const n = parseNumber(value);
        if (n === undefined) sink.error(`${value}: invalid group id`, valueOffset, value.length);
        else if (n > BigInt(GROUP_MAX)) sink.error(`invalid group id ${n}`, valueOffset, value.length);
        else id = Number(n);
        break;
      }
      case 'type': {
        type = ownEntry(TYPES, value);
        if (!type) sink.error(`${value}: unknown group type`, valueOffset, value.length);
        break;
      }
      case 'selection_method':
        if (value === 'hash' || value === 'dp_hash') selectionMethod = value;
        else sink.error(`${value}: invalid selection method`, valueOffset, value.length);
        break;
      case 'selection_method_param': {
        const n = parseNumber(value);
        if (n === undefined || n > 0xffffffffffffffffn)
          sink.error(`${value}: invalid selection method parameter`, valueOffset, value.length);
        else selectionMethodParam = n;
        break;
      }
      case 'fields':
        fields = parseSelectionFields(value, valueOffset, sink);
        break;
      case 'ref_count':
      case 'duration':
      case 'packet_count':
        sink.error('group statistics (dump-group-stats) are not a group description', piece.offset, piece.text.length);
        return undefined;
      case 'command_bucket_id':
        sink.error('command bucket id is not needed', piece.offset, piece.text.length);
        break;
      default:
        sink.error(`unknown keyword ${key}`, piece.offset, key.length);
    }
  }
  flush();
  if (id === undefined && !sink.hasErrors) sink.error('must specify a group_id', 0, text.length);
  if (type === undefined && !sink.hasErrors) sink.error('must specify a type', 0, text.length);
  if (fields && selectionMethod !== 'hash')
    sink.error('fields may only be specified with "selection_method=hash"', 0, text.length);
  if (selectionMethodParam !== undefined && !selectionMethod)
    sink.error('selection_method_param is only allowed with "selection_method"', 0, text.length);
  if (type === 'indirect' && drafts.length > 1)
    sink.error('Indirect groups can have at most one bucket.', drafts[1]!.offset);
  if (type === 'ff') {
    for (const d of drafts) {
      if (!d.watchPort && d.watchGroup === undefined)
        sink.error('fast failover bucket requires watch_port or watch_group', d.offset);
    }
  }
  if (sink.hasErrors || id === undefined || type === undefined) return undefined;
  // Buckets without an explicit id are numbered after the largest explicit one, as OVS does.
  let next = drafts.reduce((max, d) => (d.id !== undefined && d.id + 1 > max ? d.id + 1 : max), 0);
  const buckets: Bucket[] = drafts.map((d) => ({
    id: d.id ?? next++,
    ...(d.weight !== undefined ? { weight: d.weight } : {}),
    ...(d.watchPort ? { watchPort: d.watchPort } : {}),
    ...(d.watchGroup !== undefined ? { watchGroup: d.watchGroup } : {}),
    actions: d.actions,
  }));
  return {
    id,
    type,
    ...(selectionMethod ? { selectionMethod } : {}),
    ...(selectionMethodParam !== undefined ? { selectionMethodParam } : {}),
    ...(fields ? { fields } : {}),
    buckets,
    origin,
  };
}
