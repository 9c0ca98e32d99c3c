/**
 * A comparable key for a parsed flow: what the flow means, independent of how one dump format
 * spelled it. Ports and tables named in `--names` dumps are resolved to numbers, aliases are
 * already gone in the model, and the spellings OVS picks per protocol are folded together:
 * `load:`/`mod_dl_*` vs `set_field:` (the same write), and `goto_table:N` vs `resubmit(,N)`
 * (OpenFlow 1.0 has no goto_table instruction, so OVS prints it as a resubmit there).
 */
import type { Flow, Group } from '../../src/model/flow.ts';
import type { PortMap } from '../../src/model/ports.ts';
import { RESERVED_PORT_NUMBERS, type PortRef } from '../../src/model/ports.ts';
import type { TableRef } from '../../src/model/tables.ts';

export interface KeyContext {
  readonly ports: PortMap;
  /** Table name → number, for `--names` dumps. */
  readonly tables: ReadonlyMap<string, number>;
}

/** Which flow attributes a dump format carries (OVS drops some on the wire per protocol). */
export interface KeyParts {
  readonly timeouts: boolean;
  readonly importance: boolean;
  readonly flags: boolean;
}

export const ALL_PARTS: KeyParts = { timeouts: true, importance: true, flags: true };

/** In hex, like match values, so a named and a numbered in_port agree. */
function portNumber(p: PortRef, ctx: KeyContext): string {
  if (p.kind === 'number') return `0x${p.number.toString(16)}`;
  if (p.kind === 'reserved') return `0x${RESERVED_PORT_NUMBERS[p.name].toString(16)}`;
  const n = ctx.ports.number(p.name);
  return n === undefined ? `unknown port ${p.name}` : `0x${n.toString(16)}`;
}

function tableNumber(t: TableRef, ctx: KeyContext): string {
  if (t.kind === 'number') return String(t.number);
  const n = ctx.tables.get(t.name);
  return n === undefined ? `unknown table ${t.name}` : String(n);
}

function isRef(v: Record<string, unknown>): boolean {
  const keys = Object.keys(v);
  return (v.kind === 'number' || v.kind === 'name' || v.kind === 'reserved') && keys.length === 2;
}

/** Plain, key-sorted data with refs resolved; `key` is the property the value sits under. */
function normalise(v: unknown, key: string, ctx: KeyContext): unknown {
  if (typeof v === 'bigint') return `0x${v.toString(16)}`;
  if (Array.isArray(v)) return v.map((x) => normalise(x, key, ctx));
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  if ('nxmNames' in o && typeof o.name === 'string') return o.name;
  if (isRef(o)) return key === 'table' ? tableNumber(o as TableRef, ctx) : portNumber(o as PortRef, ctx);
  let obj = o;
  if (o.kind === 'set_field') {
    const { written: _spelling, ...rest } = o;
    obj = rest;
  } else if (o.kind === 'goto_table') {
    obj = { kind: 'resubmit', table: o.table, ct: false };
  }
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(obj).sort()) {
    if (obj[k] !== undefined) out[k] = normalise(obj[k], k, ctx);
  }
  return out;
}

export function flowKey(flow: Flow, ctx: KeyContext, parts: KeyParts = ALL_PARTS): string {
  const match = flow.match.fields
    .map((f) => {
      const value = f.port === undefined ? `0x${f.value.toString(16)}` : portNumber(f.port, ctx);
      return `${f.field.name}=${value}/0x${f.mask.toString(16)}`;
    })
    .sort();
  return JSON.stringify({
    table: tableNumber(flow.table, ctx),
    priority: flow.priority,
    cookie: `0x${flow.cookie.toString(16)}`,
    match,
    actions: normalise(flow.actions, 'actions', ctx),
    ...(parts.timeouts ? { idle: flow.idleTimeout, hard: flow.hardTimeout } : {}),
    ...(parts.importance ? { importance: flow.importance } : {}),
    ...(parts.flags ? { flags: [...flow.flags].sort() } : {}),
  });
}

/** Keys of a flow list, sorted: equal arrays mean equal flow multisets. */
export function flowKeys(flows: readonly Flow[], ctx: KeyContext, parts: KeyParts = ALL_PARTS): string[] {
  return flows.map((f) => flowKey(f, ctx, parts)).sort();
}

/**
 * A comparable key for a group. OpenFlow 1.1–1.4 carry neither bucket ids (buckets are then
 * numbered by position) nor the selection method, so `selection: false` leaves those out.
 */
export function groupKey(group: Group, ctx: KeyContext, selection = true): string {
  return JSON.stringify({
    id: group.id,
    type: group.type,
    ...(selection
      ? {
          method: group.selectionMethod,
          param: normalise(group.selectionMethodParam, 'param', ctx),
          fields: normalise(group.fields, 'fields', ctx),
        }
      : {}),
    buckets: group.buckets.map((b, i) => ({
      id: b.id ?? i,
      weight: b.weight,
      watchPort: b.watchPort === undefined ? undefined : portNumber(b.watchPort, ctx),
      watchGroup: b.watchGroup,
      actions: normalise(b.actions, 'actions', ctx),
    })),
  });
}

export function groupKeys(groups: readonly Group[], ctx: KeyContext, selection = true): string[] {
  return groups.map((g) => groupKey(g, ctx, selection)).sort();
}
