/**
 * Where a flow sends a packet next: the tables it continues in (and how), the groups it hands the
 * packet to, and the sinks it ends in. Shared by the pipeline checks and the table graph.
 */
import { type Action, flattenActions, withoutRole } from './actions.ts';
import { actionsOutline, type Bucket, type Flow, onlyConjunctions } from './flow.ts';
import { type Pipeline, tableKey } from './pipeline.ts';
import type { TableRef } from './tables.ts';
import { append } from './append.ts';

/** How a packet moves from one table to another. */
export type JumpKind = 'goto' | 'resubmit' | 'ct';

/** Where an action list ends for a packet: a port (NORMAL, IN_PORT, LOCAL… included), the controller, or nowhere. */
export type SinkKind = 'output' | 'controller' | 'drop';

export type Exit =
  | { readonly kind: 'jump'; readonly via: JumpKind; readonly table: TableRef }
  | { readonly kind: 'group'; readonly group: number }
  | { readonly kind: 'sink'; readonly sink: Exclude<SinkKind, 'drop'> };

const JUMP_VIA = { goto_table: 'goto', resubmit: 'resubmit', ct: 'ct' } as const;

const NO_TABLES: readonly TableRef[] = [];

/** Tables the actions continue in: goto_table, resubmit(,T) and ct(table=T), nested ones included. */
export function jumpTargets(actions: readonly Action[]): readonly TableRef[] {
  let out: TableRef[] | undefined;
  for (const a of flattenActions(actions)) {
    if ((a.kind === 'goto_table' || a.kind === 'resubmit' || a.kind === 'ct') && a.table) (out ??= []).push(a.table);
  }
  // Most lists of a large dump (conjunctions, register writes) jump nowhere: nothing is made for them.
  return out ?? NO_TABLES;
}

/**
 * The exits of an action list, nested lists (`clone`, `ct(exec)`, `write_actions`) included, in
 * order. `resubmit(PORT)` without a table looks the same table up again and is not an exit.
 */
export function actionExits(actions: readonly Action[]): Exit[] {
  const out: Exit[] = [];
  for (const a of actions) {
    switch (a.kind) {
      case 'goto_table':
      case 'resubmit':
      case 'ct':
        if (a.table) out.push({ kind: 'jump', via: JUMP_VIA[a.kind], table: a.table });
        if (a.kind === 'ct') append(out, actionExits(a.actions));
        break;
      case 'clone':
      case 'write_actions':
        append(out, actionExits(a.actions));
        break;
      case 'group':
        out.push({ kind: 'group', group: a.id });
        break;
      case 'output':
        out.push({
          kind: 'sink',
          sink: a.port.kind === 'reserved' && a.port.name === 'CONTROLLER' ? 'controller' : 'output',
        });
        break;
      case 'output_field':
      case 'enqueue':
        out.push({ kind: 'sink', sink: 'output' });
        break;
      case 'bundle':
        // bundle_load (with a destination) only stores the chosen port.
        if (!a.dst) out.push({ kind: 'sink', sink: 'output' });
        break;
      case 'controller':
        out.push({ kind: 'sink', sink: 'controller' });
        break;
      default:
        withoutRole('exit', a);
    }
  }
  return out;
}

/** A flow's exits; a flow with none drops the packet (unless it only contributes a conjunction clause). */
export function flowExits(flow: Flow): Exit[] {
  // Conjunction actions lead nowhere: a lazily read clause flow's list is not made for it.
  return onlyConjunctions(flow) ? [] : actionExits(flow.actions);
}

/**
 * A flow's exits as its outline tells them (see actionsOutline), for a walker of jumps and sinks:
 * those are the flow's own, but a lazily read flow's group ids may be another flow's.
 */
export function outlineExits(flow: Flow): Exit[] {
  return onlyConjunctions(flow) ? [] : actionExits(actionsOutline(flow));
}

export function bucketExits(bucket: Bucket): Exit[] {
  return actionExits(bucket.actions);
}

/** A clause flow of a conjunction: it never takes a packet itself, so it has no exits and does not drop. */
export function isClauseFlow(flow: Flow): boolean {
  // Of kinds alone: a lazily read flow's outline tells, its own list is not made.
  return onlyConjunctions(flow) || isClauseList(actionsOutline(flow));
}

function isClauseList(actions: readonly Action[]): boolean {
  return actions.length > 0 && actions.every((a) => a.kind === 'conjunction' || a.kind === 'note');
}

/** A table that flows or group buckets continue in, one way (goto, resubmit, ct), but that holds no flow. */
export interface EmptyTarget {
  readonly table: TableRef;
  readonly via: JumpKind;
  readonly flows: readonly Flow[];
  readonly buckets: readonly { readonly group: number; readonly bucket: number }[];
}

/**
 * The tables flows and group buckets continue in that hold no flow, in the order first met (flows
 * before buckets). A table the pipeline holds under its other spelling, a name for a number or
 * the other way (see Pipeline.numbering), holds its flows.
 */
export function emptyTargets(pipeline: Pipeline): EmptyTarget[] {
  const found = new Map<
    string,
    { table: TableRef; via: JumpKind; flows: Flow[]; buckets: { group: number; bucket: number }[] }
  >();
  const note = (exit: Exit, from: { flow?: Flow; group?: number; bucket?: number }): void => {
    if (exit.kind !== 'jump' || pipeline.table(exit.table)) return;
    const key = `${exit.via} ${tableKey(exit.table)}`;
    let e = found.get(key);
    if (!e) found.set(key, (e = { table: exit.table, via: exit.via, flows: [], buckets: [] }));
    if (from.flow) e.flows.push(from.flow);
    if (from.group !== undefined && from.bucket !== undefined)
      e.buckets.push({ group: from.group, bucket: from.bucket });
  };
  // Clause flows go nowhere.
  for (const t of pipeline.tables.values())
    for (const flow of t.acting) for (const x of outlineExits(flow)) note(x, { flow });
  for (const g of pipeline.groups.values()) {
    for (const b of g.buckets) for (const x of bucketExits(b)) note(x, { group: g.id, bucket: b.id });
  }
  return [...found.values()];
}
