/**
 * The names a dump printed with `--names` gives the profile's tables, so that reports call each
 * table by the one name the user sees in the dump (`SpoofGuard`), not by the profile's
 * (`SpoofGuardTable`). The tables that hold flows are read at once; a table the dump names only
 * in jumps is looked for there, in one pass over the dump made the first time it is needed.
 */
import type { Pipeline } from '../../model/pipeline.ts';
import type { TableRef } from '../../model/tables.ts';
import type { TableKey, TableSpec } from '../../profiles/types.ts';
import { jumpTargets } from '../../model/flow-exits.ts';

export class DumpTableNames {
  /** The dump's name by the profile's name of the table. */
  private readonly names = new Map<TableKey, string>();
  /** Names of the dump already resolved: a large dump repeats the same few in its jumps. */
  private readonly read = new Set<string>();
  private jumpsRead: boolean;
  private readonly pipeline: Pipeline;
  private readonly resolve: (ref: TableRef) => TableSpec | undefined;

  constructor(pipeline: Pipeline, resolve: (ref: TableRef) => TableSpec | undefined) {
    this.pipeline = pipeline;
    this.resolve = resolve;
    for (const t of pipeline.tables.values()) this.note(t.ref);
    // A dump that names none of its tables names none in its jumps either.
    this.jumpsRead = this.read.size === 0;
  }

  /** The dump's name for the profile's table `key`, when the dump names it. */
  of(key: TableKey): string | undefined {
    const found = this.names.get(key);
    if (found !== undefined || this.jumpsRead) return found;
    this.jumpsRead = true;
    for (const f of this.pipeline.flows) for (const t of jumpTargets(f.actions)) this.note(t);
    for (const g of this.pipeline.groups.values())
      for (const b of g.buckets) for (const t of jumpTargets(b.actions)) this.note(t);
    return this.names.get(key);
  }

  private note(ref: TableRef): void {
    if (ref.kind !== 'name' || this.read.has(ref.name)) return;
    this.read.add(ref.name);
    const spec = this.resolve(ref);
    if (spec && !this.names.has(spec.name)) this.names.set(spec.name, ref.name);
  }
}
