/**
 * A pipeline: the flows of a dump arranged as the switch holds them — tables in order, each
 * with its flows in match order (priority, highest first) — plus groups and ports.
 */
import type { Flow, Group } from './flow.ts';
import { PortMap } from './ports.ts';
import type { TableRef } from './tables.ts';

export interface PipelineTable {
  readonly ref: TableRef;
  /** Flows by descending priority; equal priorities keep dump order. */
  readonly flows: readonly Flow[];
}

/** Key under which a table is filed: its number, or its name when the dump printed names. */
export function tableKey(ref: TableRef): string {
  return ref.kind === 'number' ? `#${ref.number}` : ref.name;
}

export class Pipeline {
  readonly tables: ReadonlyMap<string, PipelineTable>;
  readonly groups: ReadonlyMap<number, Group>;
  readonly ports: PortMap;

  constructor(flows: readonly Flow[], groups: readonly Group[] = [], ports: PortMap = new PortMap()) {
    const byTable = new Map<string, { ref: TableRef; flows: Flow[] }>();
    for (const f of flows) {
      const key = tableKey(f.table);
      let t = byTable.get(key);
      if (!t) byTable.set(key, (t = { ref: f.table, flows: [] }));
      t.flows.push(f);
    }
    const ordered = [...byTable.values()].sort(compareTables);
    // Array.prototype.sort is stable, so equal priorities keep their dump order.
    this.tables = new Map(ordered.map((t) => [tableKey(t.ref), { ref: t.ref, flows: t.flows.sort((a, b) => b.priority - a.priority) }]));
    this.groups = new Map(groups.map((g) => [g.id, g]));
    this.ports = ports;
  }

  table(ref: TableRef): PipelineTable | undefined {
    return this.tables.get(tableKey(ref));
  }

  get flowCount(): number {
    let n = 0;
    for (const t of this.tables.values()) n += t.flows.length;
    return n;
  }
}

/** Numbered tables first in numeric order, then named tables in order of first appearance. */
function compareTables(a: { ref: TableRef }, b: { ref: TableRef }): number {
  if (a.ref.kind === 'number' && b.ref.kind === 'number') return a.ref.number - b.ref.number;
  if (a.ref.kind === 'number') return -1;
  if (b.ref.kind === 'number') return 1;
  return 0;
}
