/** What `flowscope check` reports: one defect, its severity, the flows involved and the facts behind it. */
import type { Action } from '../../model/actions.ts';
import type { Flow, MatchField } from '../../model/flow.ts';
import type { TableRef } from '../../model/tables.ts';
import type { FlowPattern, TableSpec } from '../../profiles/types.ts';
import type { Conjunction, ConjunctionProblem } from '../conjunctions.ts';
import type { JumpKind } from '../flow-exits.ts';

export type Severity = 'error' | 'warning' | 'info';

export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { error: 0, warning: 1, info: 2 };

interface Base {
  readonly severity: Severity;
  /** The table the defect is in (for a jump, the table jumped to). */
  readonly table?: TableRef;
  /** The flows involved, the subject first. */
  readonly flows: readonly Flow[];
}

export type Finding = Base &
  (
    /** A higher-priority flow of the same table matches every packet this one matches. */
    | { readonly kind: 'shadowed'; readonly flow: Flow; readonly by: Flow; readonly sameActions: boolean }
    /** The flow needs register/metadata bits set to 1 that no action anywhere sets. */
    /** `entry` is the match field that asks for them (`reg1=0x19c`, `xxreg0=…`); `bits` are in `slot`'s own positions. */
    | { readonly kind: 'unset-register'; readonly flow: Flow; readonly entry: MatchField; readonly slot: string; readonly bits: bigint }
    /** A problem the conjunction analysis found. */
    | { readonly kind: 'conjunction'; readonly conjunction: Conjunction; readonly problem: ConjunctionProblem }
    /** Flows (or group buckets) continue in a table that holds no flow. */
    | { readonly kind: 'empty-target'; readonly target: TableRef; readonly via: JumpKind; readonly buckets: readonly { group: number; bucket: number }[] }
    /** A table with flows that no goto, resubmit, ct(table) or group bucket leads to. */
    | { readonly kind: 'unreachable-table'; readonly flowCount: number }
    /** The profile gives the table a miss behaviour but the dump has no priority-0 catch-all flow. */
    | { readonly kind: 'no-table-miss'; readonly spec: TableSpec }
    /** Actions after `exit` in the same action list never run. */
    | { readonly kind: 'dead-actions'; readonly flow: Flow; readonly after: Action; readonly dead: readonly Action[] }
    /** The same classifier slot (table, priority, match) written more than once, in any spelling. */
    | { readonly kind: 'duplicate'; readonly sameActions: boolean }
    /** A flow the profile says the pipeline always installs in this table is missing. */
    | { readonly kind: 'missing-expected'; readonly spec: TableSpec; readonly pattern: FlowPattern }
  );

export type FindingKind = Finding['kind'];
