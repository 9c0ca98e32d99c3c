/** What `flowscope check` reports: one defect, its severity, the flows involved and the facts behind it. */
import type { Action } from '../../model/actions.ts';
import type { Flow, MatchField } from '../../model/flow.ts';
import type { TableRef } from '../../model/tables.ts';
import type { FlowPattern, TableSpec } from '../../profiles/types.ts';
import type { Conjunction, ConjunctionProblem } from '../conjunctions/conjunctions.ts';
import type { JumpKind } from '../../model/flow-exits.ts';
import type { PolicyMatch, RuleRef } from '../conjunctions/policy-match.ts';

export type Severity = 'error' | 'warning' | 'info';

export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { error: 0, warning: 1, info: 2 };

/**
 * Why a finding is less than its kind says, when it is: the evidence or knowledge that changed
 * its severity (`note`, or hidden unless asked for when `known`).
 */
export type Standing =
  /** A stock flow waiting for a feature not in use: the feature would wake it. */
  | { readonly kind: 'dormant'; readonly features: readonly string[] }
  /** A pattern the product's design produces on purpose (`note`: one a user's configuration produces). */
  | { readonly kind: 'known'; readonly why: string; readonly silent: boolean }
  /** A table's miss flow under a catch-all flow: the catch-all decides, as setups that install both intend. */
  | { readonly kind: 'redundant-miss' }
  /** The flow's packet counter says it has matched, so a premise of the finding is wrong: `cause` says which. */
  | { readonly kind: 'counted'; readonly packets: bigint; readonly cause: CountedCause }
  /** The dump is an excerpt, and the finding follows from what it lacks. */
  | { readonly kind: 'excerpt' }
  /** The value is one the pipeline writes other values of: a flow for an object no longer there. */
  | { readonly kind: 'stale' };

/**
 * Which premise a flow's packet counter proves wrong. The dump is partial: it is an excerpt; the
 * flows use groups the input does not hold; it lacks the table the profile says sets the bits;
 * the flows that set them were removed after this one matched (the pipeline still writes other
 * values there, or the setting table is there without them). Or the setter is unknown: nothing
 * in the dump or the profile sets them. For a shadowed flow: the flow that hides it is younger
 * and it matched before; or, when it is not, the dump is not of one moment.
 */
export type CountedCause =
  | { readonly kind: 'excerpt' }
  | { readonly kind: 'groups-not-given'; readonly groups: number }
  | { readonly kind: 'setter-table-missing'; readonly tables: readonly string[] }
  | { readonly kind: 'setter-removed'; readonly tables: readonly string[] }
  | { readonly kind: 'unknown-setter' }
  | { readonly kind: 'hidden-later'; readonly age: number; readonly hiderAge: number }
  | { readonly kind: 'not-one-moment' };

interface Base {
  readonly severity: Severity;
  /** Set when evidence or knowledge lowered the severity the kind alone would give. */
  readonly standing?: Standing;
  /** The table the defect is in (for a jump, the table jumped to). */
  readonly table?: TableRef;
  /** The flows involved, the subject first. */
  readonly flows: readonly Flow[];
}

/** The flows of a finding about one flow: that flow (the subject) first, then any others involved. */
type SubjectFirst = readonly [subject: Flow, ...others: Flow[]];

export type Finding = Base &
  /** A higher-priority flow of the same table matches every packet this one matches. */
  (
    | { readonly kind: 'shadowed'; readonly flows: SubjectFirst; readonly by: Flow; readonly sameActions: boolean }
    /**
     * The flow needs register/metadata bits set to 1 that no action anywhere sets. `entry` is the match
     * field that asks for them (`reg1=0x19c`, `xxreg0=…`); `bits` are in `slot`'s own positions.
     */
    | {
        readonly kind: 'unset-register';
        readonly flows: SubjectFirst;
        readonly entry: MatchField;
        readonly slot: string;
        readonly bits: bigint;
      }
    /** A problem the conjunction analysis found; `policy`: the NetworkPolicy rule the conjunction implements, where the node's policy objects say. */
    | {
        readonly kind: 'conjunction';
        readonly conjunction: Conjunction;
        readonly problem: ConjunctionProblem;
        readonly policy?: PolicyMatch;
      }
    /** Flows (or group buckets) continue in a table that holds no flow. */
    | {
        readonly kind: 'empty-target';
        readonly target: TableRef;
        readonly via: JumpKind;
        readonly buckets: readonly { group: number; bucket: number }[];
      }
    /** A table with flows that no goto, resubmit, ct(table) or group bucket leads to. */
    | { readonly kind: 'unreachable-table'; readonly flowCount: number }
    /** The profile gives the table a miss behaviour but the dump has no priority-0 catch-all flow. */
    | { readonly kind: 'no-table-miss'; readonly spec: TableSpec }
    /** Actions after `exit` in the same action list never run. */
    | {
        readonly kind: 'dead-actions';
        readonly flows: SubjectFirst;
        readonly after: Action;
        readonly dead: readonly Action[];
      }
    /** The same classifier slot (table, priority, match) written more than once, in any spelling. */
    | { readonly kind: 'duplicate'; readonly sameActions: boolean }
    /** A flow the profile says the pipeline always installs in this table is missing. */
    | { readonly kind: 'missing-expected'; readonly spec: TableSpec; readonly pattern: FlowPattern }
    /**
     * A select-group bucket writes an endpoint into registers and continues in `target`, where flows
     * key on those registers, but none on this bucket's values: packets that choose it meet the miss.
     */
    | {
        readonly kind: 'bucket-no-endpoint';
        readonly group: number;
        readonly bucket: number;
        readonly target: TableRef;
        readonly writes: readonly MatchField[];
      }
    /** A packet the flow matches (through these buckets of a select group) goes round the same tables until OVS's resubmit limit, and is dropped. */
    | {
        readonly kind: 'forwarding-loop';
        readonly flows: SubjectFirst;
        readonly loop: readonly TableRef[];
        readonly group?: number;
        readonly buckets?: readonly number[];
      }
    /** Flows tunnel to an address no other flow names: not a Node the dump knows (`knownNodes` others are). */
    | { readonly kind: 'unknown-tunnel-destination'; readonly destination: string; readonly knownNodes: number }
    /** An address the bridge answers ARP for, or tunnels ARP towards (`node`), that no IP flow routes the same way. */
    | { readonly kind: 'no-route'; readonly address: string; readonly node?: string }
    /** A local Pod's port (delivered to by its address) without a spoof-guard flow, when other Pods have one. */
    | { readonly kind: 'no-spoof-guard'; readonly port: number }
    /** Clause flows and the conj_id flow of one conjunction sit in different tables: OVS joins them only within a table. */
    | {
        readonly kind: 'conjunction-table';
        readonly id: number;
        readonly clauseTables: readonly TableRef[];
        readonly actionTables: readonly TableRef[];
        /** The NetworkPolicy rule the conjunction implements, where the node's policy objects say. */
        readonly policy?: PolicyMatch;
      }
    /** A conjunction of a NetworkPolicy table that no rule of the node's policy objects explains. */
    | { readonly kind: 'policy-unexplained'; readonly conjunction: Conjunction }
    /** A NetworkPolicy rule applied to Pods of this node that no conjunction implements. */
    | { readonly kind: 'policy-unimplemented'; readonly rule: RuleRef }
  );

export type FindingKind = Finding['kind'];

/** A finding about one flow: the flow that never matches, whose actions never run, or whose packets loop. */
export type FlowFinding = Extract<Finding, { readonly flows: SubjectFirst }>;

/** The flow a finding is about. */
export function subjectOf(f: FlowFinding): Flow {
  return f.flows[0];
}
