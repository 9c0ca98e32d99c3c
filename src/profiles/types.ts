/**
 * The profile schema: one documented pipeline (Antrea, OpenShift SDN, …) described as pure data,
 * so that the annotation engine can say what each flow means in that pipeline's own words.
 *
 * Profile modules hold object literals of these types and nothing else. Everything a profile
 * says about a flow is expressed in forms flowscope can already read: match patterns are OVS
 * match text (parsed by `syntax/match.ts`), addresses are OVS value text, fields are registry
 * names (`model/fields.ts`).
 */

/**
 * Product releases, as dotted numbers without a leading `v` (`'1.6'`, `'2.7'`, `'3.11'`).
 * Both ends are inclusive; an absent end is open. Releases compare numerically part by part.
 */
export interface Versioned {
  /** First release that has the item. */
  readonly since?: string;
  /** Last release that has it. */
  readonly until?: string;
}

/**
 * How a profile refers to one of its tables: the table's `name`, which is unique within the
 * profile (for numbered pipelines it is the documentation name, e.g. `ConntrackStateTable`).
 */
export type TableKey = string;

/** What happens to a packet that matches no flow of the table (its priority-0 flow, or none). */
export type TableMiss =
  | { readonly action: 'drop' }
  | { readonly action: 'goto'; readonly table: TableKey }
  /** Continue in whichever table follows in the configured pipeline (named pipelines whose tables depend on features). */
  | { readonly action: 'next' }
  | { readonly action: 'normal' }
  | { readonly action: 'controller' }
  /** A miss flow that does more than one thing (writes registers, resubmits to several tables). */
  | { readonly action: 'custom'; readonly description: string }
  /** No miss flow is installed; OpenFlow 1.3+ switches then drop. */
  | { readonly action: 'none' };

/**
 * An action the flow must carry (at top level, or nested inside `ct(exec(…))` / `clone(…)`).
 * Plain words name action kinds; the prefixed forms narrow them:
 * - `goto:T`: `goto_table` or `resubmit(,T)` to table T (a TableKey of the profile);
 * - `set:F`: writes field F (set_field, load, mod_*, move into F), F a field registry name;
 * - `set:F=V/M`: writes the constant V under the mask M into F (an Antrea rule's Reject disposition,
 *   `set:reg0=0x1000/0x1800`), whatever else it writes into F's other bits;
 * - `ct(commit)` / `ct(nat)`: a `ct` with commit / with nat; `ct` matches any `ct`.
 */
export type ActionHint =
  | 'drop'
  | 'normal'
  | 'in_port'
  | 'output'
  | 'controller'
  | 'group'
  | 'conjunction'
  | 'learn'
  | 'ct'
  | 'ct(commit)'
  | 'ct(nat)'
  | 'ct_clear'
  | 'dec_ttl'
  | 'meter'
  | 'note'
  | 'move'
  | `goto:${TableKey}`
  | `set:${string}`;

/** Priorities a pattern applies to; either end may be left open. Inclusive. */
export interface PriorityRange {
  readonly min?: number;
  readonly max?: number;
}

/**
 * A kind of flow a table holds, and what such a flow means.
 *
 * `match` is OVS match syntax (`ct_state=-new+trk,ip`, `reg0=0x10000/0x10000`, `` for any flow).
 * A flow fits when its own match contains or implies every field of the pattern: for each
 * pattern field the flow matches at least the pattern's mask bits, with the same value under
 * that mask (`tcp` implies `ip`; `reg0=0x1/0xffff` implies `reg0=0x1/0xf`). When several
 * patterns of a table fit, the first one listed wins, so list specific patterns first.
 *
 * The priority-0 miss flow is explained from `TableSpec.miss`; patterns need not cover it.
 *
 * `meaning` is a sentence template. Placeholders in braces:
 * - `{FIELD}`: the flow's match value of a field (any name or alias the field registry knows:
 *   `{in_port}`, `{nw_src}`, `{dl_dst}`, `{tp_dst}`), printed the way OVS prints it;
 * - `{reg.NAME}`: a bit field of this profile by name (register, ct_mark, ct_label, pkt_mark…),
 *   read from the match, else from what the actions write into it; printed as its named value
 *   when it has one;
 * - `{set.FIELD}`: the value the actions write into FIELD;
 * - the words in `TEMPLATE_WORDS`.
 * A sentence is only said of a flow that gives every placeholder a value: a pattern whose
 * placeholder the flow leaves empty does not fit it. Placeholders written back to back are
 * alternatives (`{nw_dst}{ipv6_dst}`, the destination of either address family), and
 * `{FIELD|words}` says in words what an absent value means (`{tp_dst|any port}`).
 */
export interface FlowPattern extends Versioned {
  readonly match: string;
  /** Fields the flow must match on, whatever the value (a Pod's `nw_src` in a spoof-guard flow). */
  readonly fields?: readonly string[];
  readonly priority?: number | PriorityRange;
  readonly actions?: readonly ActionHint[];
  readonly meaning: string;
  /**
   * The pipeline always installs a flow of this kind when the table is present (a documented
   * fixed flow, such as a policy table's established-connection flow); `flowscope check`
   * reports it when it is missing.
   */
  readonly expected?: boolean;
}

/** Placeholders with a fixed meaning in `FlowPattern.meaning` (besides field names, `reg.…`, `set.…`). */
export const TEMPLATE_WORDS = {
  next: 'the table the flow continues in (goto_table, resubmit or ct(table=…)), by name',
  output: 'the port the flow outputs to, by name when known',
  group: 'the group the flow sends to',
  conj_id: 'the conjunction id the flow matches (conj_id=…)',
  conjunction: 'the conjunction clauses the flow contributes to, as id k/n',
  zone: 'the conntrack zone of the flow’s ct action: `zone N`, or `the default zone` when it names none',
  priority: 'the flow’s priority',
  table: 'the flow’s table, by name',
} as const;

export type TemplateWord = keyof typeof TEMPLATE_WORDS;

/** One table of the pipeline. */
export interface TableSpec extends Versioned {
  /** Fixed OpenFlow table number, when the pipeline fixes one. */
  readonly number?: number;
  /** The table's name (unique in the profile); for named pipelines, the name OVS prints. */
  readonly name: TableKey;
  /** Other names the same table has carried (older releases, documentation spellings). */
  readonly aliases?: readonly string[];
  /** What the table is for, in one sentence. */
  readonly purpose: string;
  readonly miss: TableMiss;
  /** Tables that packets leaving this table normally go to (goto, resubmit, ct(table=…)). */
  readonly next: readonly TableKey[];
  /** Sub-pipeline or stage the table belongs to (`IP`, `ARP`, `ingressSecurity`, …). */
  readonly stage?: string;
  /** Condition under which the table exists, in words (`AntreaProxy enabled`). */
  readonly requires?: string;
  /**
   * The table takes traffic bound to Services and nothing else (it hands it to kube-proxy or
   * load-balances it): a destination prefix a flow sends here is a Service CIDR. A table's name
   * is no such proof (a table named after Services may take Pod traffic back from them).
   */
  readonly servicesOnly?: boolean;
  /**
   * The table exists only where the dump shows the feature it serves, by a flow of this kind
   * (in the table of that number, or anywhere): a dump without such a flow does not miss it.
   */
  readonly expectedWith?: { readonly table?: number; readonly match: string; readonly actions?: readonly ActionHint[] };
  readonly patterns: readonly FlowPattern[];
}

/**
 * One default numbering of a pipeline whose table numbers depend on configuration: the table
 * at index i of `tables` has number i.
 */
export interface TableLayout {
  readonly id: string;
  /** The configuration it belongs to, in words. */
  readonly description: string;
  readonly tables: readonly TableKey[];
}

/** How a bit field's value is to be shown. */
export type BitFieldFormat =
  | 'flag'
  | 'enum'
  | 'bitmask'
  | 'number'
  | 'hex'
  | 'port'
  | 'ipv4'
  | 'ipv6'
  | 'table'
  | 'group'
  /** A value that stands for a Node (a hash of its name or id): the Node is the one whose address the dump's flows with this value tunnel to or from. */
  | 'node';

/** A value with a name, relative to its bit field (already shifted down to bit 0). */
export interface NamedValue extends Versioned {
  readonly value: bigint;
  readonly name: string;
  readonly meaning: string;
}

/** A run of bits with a name, and how its value reads. */
export interface BitSpan extends Versioned {
  /** Lowest bit, as in OVS `FIELD[start..end]`. */
  readonly start: number;
  /** Highest bit, inclusive. */
  readonly end: number;
  /** Name used by the pipeline's sources and by `{reg.NAME}` templates. */
  readonly name: string;
  readonly meaning: string;
  readonly format: BitFieldFormat;
  /** For `flag`: the meaning of 1 (and of 0 when it has one); for `enum` and `bitmask`: the values. */
  readonly values?: readonly NamedValue[];
}

/**
 * Bits of one field that carry one piece of pipeline state: `reg0[0..3]` the packet source,
 * `ct_mark[4]` "connection to a Service".
 */
export interface BitField extends BitSpan {
  /** Field registry name: `reg0`, `xxreg3`, `ct_mark`, `ct_label`, `pkt_mark`, `metadata`, `nw_tos`… */
  readonly field: string;
  /**
   * Names of other bit fields that reuse some of these bits in another context (a register that
   * holds the swap value in one table and a table id in another). Overlaps not listed here
   * are mistakes.
   */
  readonly sharesBitsWith?: readonly string[];
  /**
   * For bits shared between readings: the tables (names or aliases; a shared list may name
   * tables of several profiles of the product) in which this reading applies. There it hides
   * the unscoped readings it shares bits with; elsewhere, and in groups, it is not shown.
   */
  readonly tables?: readonly TableKey[];
  /**
   * For a `table` field: the value a flow writes is the number of the table the flow is in (a
   * rule telling the agent where it matched), so a dump that names its tables gives their numbers.
   */
  readonly ownTable?: boolean;
}

/** Bits of the 64-bit flow cookie. */
export type CookieSpan = BitSpan;

/** A conntrack zone the pipeline uses. */
export interface CtZone extends Versioned {
  readonly zone: number;
  readonly name: string;
  readonly meaning: string;
}

export type AddressRole =
  'virtual-mac' | 'virtual-ip' | 'gateway' | 'service' | 'nodeport' | 'hairpin' | 'multicast' | 'broadcast' | 'other';

/** A constant address with a meaning in the pipeline. */
export interface WellKnownAddress extends Versioned {
  readonly kind: 'mac' | 'ipv4' | 'ipv6';
  /** As OVS writes it: `aa:bb:cc:dd:ee:ff`, `169.254.0.253`, `fc01::aabb:ccdd:eeff`, or a prefix `224.0.0.0/4`. */
  readonly address: string;
  readonly role: AddressRole;
  readonly name: string;
  readonly meaning: string;
}

export type PortRoleKind =
  'gateway' | 'tunnel' | 'uplink' | 'host' | 'bridge-local' | 'pod' | 'traffic-control' | 'other';

/**
 * How to recognise a port with a given role: by exact name, name pattern, or usual number.
 * Roles are tried in the order listed; the first that fits wins.
 */
export interface PortRole extends Versioned {
  readonly role: PortRoleKind;
  readonly names?: readonly string[];
  /** Regular-expression source (no flags) that the whole interface name matches. */
  readonly namePattern?: string;
  /** OpenFlow port numbers the pipeline usually gives it. */
  readonly numbers?: readonly number[];
  /**
   * What the pipeline writes for packets entering on a port of this role (match syntax, e.g. a
   * source mark `reg0=0x2/0xf`): a flow that matches `in_port=P` and writes it shows that P has
   * the role, whatever P's number.
   */
  readonly mark?: string;
  /**
   * How reports name a port of this role, before its name (`patch port to br-int patch-breth0_ov`),
   * or instead of it for a reserved port (`LOCAL (the host)`); the role's own word when absent.
   */
  readonly label?: string;
  readonly meaning: string;
}

/** A kind of group the pipeline installs. */
export interface GroupPattern extends Versioned {
  readonly type: 'all' | 'select' | 'indirect' | 'ff';
  /** Actions every bucket carries. */
  readonly bucketActions: readonly ActionHint[];
  readonly meaning: string;
}

/**
 * Evidence that a dump comes from this pipeline. The engine adds up the weights of the signals
 * that hold; negative weights count against the profile. A signal with `since`/`until` is also
 * evidence for those releases: when it holds, detection prefers a release in its range.
 */
export type DetectionSignal = Versioned &
  /** A flow's table is written with this name. */
  (
    | { readonly kind: 'table-name'; readonly name: string; readonly weight: number }
    /** Some flow lives in this table number. */
    | { readonly kind: 'table-number'; readonly number: number; readonly weight: number }
    /** A `note:` action in this table whose hex bytes (as printed, `01.03.00…`) match the regular expression. */
    | { readonly kind: 'note'; readonly table: number; readonly pattern: string; readonly weight: number }
    /** A port (in a match, action or port map) whose whole name matches the regular expression. */
    | { readonly kind: 'port-name'; readonly pattern: string; readonly weight: number }
    /** Some flow matches on or writes this field (`reg0`, `ct_label`). */
    | { readonly kind: 'field-used'; readonly field: string; readonly weight: number }
    /** Some flow fits this pattern (in a table given by number, or anywhere). */
    | {
        readonly kind: 'flow';
        readonly table?: number;
        readonly match: string;
        readonly actions?: readonly ActionHint[];
        readonly weight: number;
      }
  );

/**
 * Register bits that only a feature's own flows set: a flow that asks for them waits for the
 * feature. `mark` is a bit field of the profile, `value` one of its named values (any non-zero
 * value when absent).
 */
export interface DormantMark {
  readonly mark: string;
  readonly value?: string;
  /** The feature that would set the bits, as a noun phrase. */
  readonly feature: string;
}

/** A conjunction problem, or a shadowed flow, that the design produces in the given tables. */
export interface KnownPattern {
  readonly finding: 'shadowed' | 'conjunction-overlap' | 'conjunction-action-priority';
  /** Profile table names (any release's); the pattern holds in any table when absent. */
  readonly tables?: readonly TableKey[];
  /** For `shadowed`: the covering flow has this priority. */
  readonly byPriority?: number;
  /** For `shadowed`: the covering flow has an empty match. */
  readonly byCatchAll?: boolean;
  /** For `shadowed`: the hidden flow drops. */
  readonly hiddenDrops?: boolean;
  /**
   * `known`: silent unless asked for (the design wants it); `note`: reported as a note, since it
   * follows from what a user configured (a policy rule an earlier rule of the same policy covers).
   */
  readonly standing: 'known' | 'note';
  readonly why: string;
}

export interface CheckKnowledge {
  readonly dormant: readonly DormantMark[];
  readonly known: readonly KnownPattern[];
  /**
   * The agent marks every flow it installs with a non-zero cookie, which ovs-ofctl prints even
   * without statistics: flows without one were written or edited by hand (a document's samples).
   */
  readonly cookieOnEveryFlow?: boolean;
}

export interface Profile {
  /** Short, stable identifier (`antrea-v1`, `openshift-sdn`). */
  readonly id: string;
  readonly title: string;
  /** The product whose pipeline this is (`Antrea`, `OpenShift SDN`). */
  readonly product: string;
  /** Releases of the product the profile covers. */
  readonly versions: Versioned;
  /** A few sentences: which setup and which documents the profile describes. */
  readonly description: string;
  /** How dumps of this pipeline refer to tables: fixed numbers, or names pushed to the switch. */
  readonly tableNaming: 'number' | 'name';
  readonly tables: readonly TableSpec[];
  readonly layouts?: readonly TableLayout[];
  /**
   * Set on a copy of a named pipeline's profile made to read a dump that prints table numbers:
   * the id of the layout whose numbers its tables were given.
   */
  readonly numbering?: string;
  readonly bitFields: readonly BitField[];
  readonly cookie?: readonly CookieSpan[];
  readonly ctZones: readonly CtZone[];
  readonly addresses: readonly WellKnownAddress[];
  readonly ports: readonly PortRole[];
  readonly groups?: readonly GroupPattern[];
  readonly detect: readonly DetectionSignal[];
  /** What `flowscope check` knows of the pipeline beyond its tables. */
  readonly check?: CheckKnowledge;
}
