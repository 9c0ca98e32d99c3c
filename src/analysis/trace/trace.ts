/**
 * The offline packet tracer: follows a packet through a dump's tables the way
 * `ovs-appctl ofproto/trace` follows it through a live switch (ofproto/ofproto-dpif-xlate.c),
 * and returns what happened as data: passes (one per conntrack recirculation), the table
 * lookups and actions of each, and a verdict.
 *
 * Choices where the dump alone cannot say what a switch would do:
 * - `ct(table=T)` forks a pass that resumes in T with the next `ctNext` state (default trk|new),
 *   the ct zone, and the ct_mark/ct_label that `exec(...)` set (a committed connection carries
 *   them; ofproto/trace itself does not show them). NAT rewrites the resumed packet to the first
 *   address and port of the range, as ofproto/trace does.
 * - A select group uses the bucket given by `bucket`, else the live bucket of highest weight
 *   (lowest bucket id among equals): the hash OVS uses depends on the datapath.
 * - A fast-failover bucket is live when its watch port is in the dump's port map and not down
 *   there (or there is no port map, or it watches nothing), or its watch group has a live bucket.
 * - `learn` reports the flow it would install and does not install it.
 * - `multipath` and `bundle` pick the first link/member; `check_pkt_larger` answers "not larger".
 */
import type { Action, ActionOf, CtAction, LearnAction, NatAction, Subfield } from '../../model/actions.ts';
import { assertNever } from '../../model/actions.ts';
import type { Bucket, Flow, Group, MatchField } from '../../model/flow.ts';
import { type Pipeline, tableKey } from '../../model/pipeline.ts';
import { RESERVED_PORT_NUMBERS, type PortRef } from '../../model/ports.ts';
import { type FieldDef, fieldByName } from '../../model/fields.ts';
import { type TableRef, tableNumber } from '../../model/tables.ts';
import { ones } from '../../model/values.ts';
import { actionSetList, isControllerOutput } from './action-set.ts';
import { Classifier, type ConjunctionMatch } from './classifier.ts';
import { CT_STATE } from '../../model/ct-state.ts';
import {
  ETH_TYPE,
  FIELD,
  isIp,
  MAX_MPLS_LABELS,
  mplsLabels,
  Packet,
  PacketSpecError,
  parsePacketSpec,
  popMpls,
  port16,
  port32,
  prerequisiteMet,
  pushMpls,
} from './packet.ts';
import { bestLiveBucket, selectionHash, symmetricL4Hash } from './select-bucket.ts';
import { dpHashBucket, dpHashMap, hashValuesByBucket } from './dp-hash.ts';
import { type OutputPort, TracePorts } from './trace-ports.ts';

/**
 * OVS limits (ofproto/ofproto-dpif-xlate.c, xlate_resubmit_resource_check): nesting depth, table
 * lookups per translation, and the bytes of its stack (`stack_push`) and of the datapath actions
 * it yields.
 */
export const MAX_DEPTH = 64;
export const MAX_RESUBMITS = 4096;
export const MAX_STACK_BYTES = 65536;
export const MAX_ACTION_BYTES = 65535;
/** The limits a translation can hit (ofproto/trace names each in xlate_strerror). */
export type XlateLimit = 'depth' | 'resubmits' | 'stack' | 'mpls';
/** ofproto/trace stops after this many recirculations. */
export const MAX_PASSES = 4096;
/**
 * flowscope's own bounds on one trace, past which OVS would still go on: steps (table lookups,
 * actions and group buckets, over every pass) and lookups, groups and clones open at once. OVS
 * bounds neither (a chain of `all` groups doubles its work with each), and only its numbered
 * tables keep forward resubmits from nesting deeper than 255.
 */
export const MAX_TRACE_STEPS = 32768;
export const MAX_NESTING = 1024;
/** What a datapath output action takes of the action buffer (a netlink attribute with a port number). */
const OUTPUT_ACTION_BYTES = 8;

export const DEFAULT_CT_NEXT = CT_STATE.trk | CT_STATE.new;

export interface TraceOptions {
  /** ct_state of each successive conntrack recirculation; trk|new once they run out. */
  readonly ctNext?: readonly bigint[];
  /** bucket_id every select group uses, unless `groupBuckets` names one for it. */
  readonly bucket?: number;
  /** bucket_id by group_id: a packet crossing several select groups is given one per group. */
  readonly groupBuckets?: ReadonlyMap<number, number>;
  /** Keep the packet as the last lookup in each table saw it (TraceStep.packet). */
  readonly keepPackets?: boolean;
  /** The table the first pass starts in, instead of the pipeline's first (to follow one flow's packets). */
  readonly start?: TableRef;
}

export type Verdict = 'output' | 'drop' | 'normal' | 'controller';

/**
 * What ended or cut short the packet's path that the flows it matched do not say themselves:
 * something the dump lacks, an output OVS skips, or a limit that ended the translation. `table`
 * is the table of the flow whose action met it.
 */
export type TraceProblem = { readonly table: TableRef } & (
  | { readonly kind: 'missing-group'; readonly group: number; readonly dumpHasGroups: boolean }
  | {
      readonly kind: 'missing-bucket';
      readonly group: number;
      readonly bucket: number;
      readonly buckets: readonly number[];
    }
  | { readonly kind: 'no-live-bucket'; readonly group: number }
  | { readonly kind: 'unlisted-port'; readonly port: OutputPort }
  | { readonly kind: 'output-to-in-port'; readonly port: OutputPort }
  /** `resubmit(,T,ct)` for a packet without a conntrack tuple: OVS looks nothing up. */
  | { readonly kind: 'no-ct-tuple'; readonly target: TableRef }
  /**
   * A select group that picks by the datapath's hash, for a packet without `dp_hash`: every live
   * bucket was followed; `choices` gives a dp_hash that selects each.
   */
  | {
      readonly kind: 'datapath-hash';
      readonly group: number;
      readonly choices: readonly { readonly bucket: number; readonly dpHash: number }[];
    }
  /**
   * A select group read from an OpenFlow 1.1–1.4 dump, which hides its selection method: every
   * live bucket was followed, since which one the switch picks is not known.
   */
  | { readonly kind: 'selection-unknown'; readonly group: number; readonly buckets: readonly number[] }
  /** A field write OVS ignores: the packet lacks the headers the field belongs to. */
  | { readonly kind: 'unmet-prerequisites'; readonly field: string }
  /** The packet's in_port is a number the port list does not name (or none), and the flows of `table` match in_port by names without numbers. */
  | { readonly kind: 'unnumbered-in-ports'; readonly inPort: number; readonly names: readonly string[] }
  /** `loop`: the tables the path went round when it ran too deep (empty when it did not repeat itself). */
  | { readonly kind: 'translation-failed'; readonly limit: XlateLimit; readonly loop: readonly TableRef[] }
  /**
   * The trace was cut short: `actions` as OVS cuts a translation whose datapath actions pass
   * 64 kB (what was sent before still goes); `recirculations` as ofproto/trace stops, with the
   * recirculations left unprocessed; `steps` and `nesting` at flowscope's own bounds.
   */
  | {
      readonly kind: 'trace-cut';
      readonly limit: 'actions' | 'recirculations' | 'steps' | 'nesting';
      readonly unprocessed?: number;
    }
);

/** What a lookup sees other than the packet: resubmit's in_port, `resubmit(,T,ct)`'s conntrack tuple. */
interface LookupView {
  readonly inPort?: number | undefined;
  readonly ctTuple?: boolean;
}

const PLAIN_VIEW: LookupView = {};

/** What happened, as a tree shaped like ofproto/trace's output. */
export type TraceNode =
  | {
      readonly kind: 'table';
      readonly table: TableRef;
      /** undefined: no flow matched. */
      readonly flow: Flow | undefined;
      readonly conjunction?: ConjunctionMatch;
      /** How the table was reached; resubmits return to their caller, the others do not. */
      readonly via: 'start' | 'goto' | 'resubmit' | 'resume';
      readonly nodes: TraceNode[];
    }
  | { readonly kind: 'action'; readonly action: Action; readonly nodes: TraceNode[] }
  | { readonly kind: 'bucket'; readonly group: number; readonly bucket: number; readonly nodes: TraceNode[] }
  /** The flow a `learn` action would add. */
  | { readonly kind: 'learned'; readonly flow: LearnedFlow }
  | { readonly kind: 'problem'; readonly problem: TraceProblem }
  | { readonly kind: 'note'; readonly note: TraceNote };

/**
 * What the trace says beside the actions, where ofproto/trace says something there or where an
 * offline trace assumes what a switch would know.
 */
export type TraceNote =
  /** The action set runs now. */
  | { readonly kind: 'action-set' }
  /** The translation hit an OVS limit: the packet is dropped. */
  | { readonly kind: 'translation-failed'; readonly limit: XlateLimit }
  /** A TTL decrement found the TTL at `ttl` (1 or 0): the packet goes to the controller. */
  | { readonly kind: 'ttl-exceeded'; readonly ttl: number; readonly mpls: boolean }
  /** output:<field> read `port`; `inRange` false past the 16-bit port numbers (nothing is sent). */
  | { readonly kind: 'output-port'; readonly port: bigint; readonly inRange: boolean }
  /** What an offline trace assumes or leaves out for an action whose outcome only a switch knows. */
  | {
      readonly kind: 'assumed';
      readonly what: 'learn-not-installed' | 'multipath-link-0' | 'bundle-first-member' | 'not-larger' | 'normal';
    }
  | { readonly kind: 'stack-underflow' }
  | { readonly kind: 'not-simulated'; readonly action: 'encap' | 'decap' | 'dec_nsh_ttl' }
  | { readonly kind: 'unknown-action'; readonly text: string }
  /** FLOOD or ALL without a port list: nothing is sent. */
  | { readonly kind: 'flood-without-ports' }
  /** A fast-failover bucket passed over: what it watches that is down. */
  | {
      readonly kind: 'bucket-not-live';
      readonly bucket: number;
      readonly watchPort?: PortRef;
      readonly watchGroup?: number;
    }
  /** The one bucket of a group taken, and how it was chosen. */
  | { readonly kind: 'bucket-chosen'; readonly bucket: number; readonly by: BucketChoice }
  /** A bucket followed as one alternative of several (under the bucket). */
  | { readonly kind: 'bucket-alternative'; readonly by: BucketAlternative }
  /** ct(table=T) forks a pass that resumes in `table`. */
  | { readonly kind: 'recirculate'; readonly recircId: number; readonly table: TableRef }
  /** After ct the packet is untracked. */
  | { readonly kind: 'ct-cleared' };

/** How the one bucket a group uses was chosen. */
export type BucketChoice =
  | { readonly kind: 'first-live' }
  | { readonly kind: 'requested' }
  | { readonly kind: 'only-live' }
  /** By the hash of `fields` (none: the packet's addresses and ports), as the switch picks. */
  | { readonly kind: 'hash'; readonly fields: readonly string[] }
  /** By the symmetric L4 hash, for weights that need more than 256 datapath hash values. */
  | { readonly kind: 'l4-hash' }
  /** By the packet's dp_hash among `values` hash values. */
  | { readonly kind: 'dp-hash'; readonly dpHash: bigint; readonly values: number };

/** Why a bucket is one alternative of several. */
export type BucketAlternative =
  | { readonly kind: 'selection-unknown' }
  /** The dp_hash values (under `mask`) that select the bucket. */
  | { readonly kind: 'dp-hash'; readonly mask: number; readonly hashes: readonly number[] };

export interface LearnedFlow {
  readonly table: TableRef;
  readonly priority: number;
  readonly match: { readonly fields: readonly MatchField[] };
  readonly actions: readonly Action[];
}

/** One table lookup, in execution order. */
export interface TraceStep {
  readonly table: TableRef;
  readonly flow: Flow | undefined;
  readonly conjunction?: ConjunctionMatch;
  /** The packet as the lookup saw it, with `keepPackets`, on the last lookup of each table of a pass. */
  readonly packet?: Packet;
}

export interface TracePass {
  /** 0 for the packet as given, then the recirculation ids in order. */
  readonly recircId: number;
  /** For resumed passes: the table, the ct_state used and whether it was the default. */
  readonly resume?: {
    readonly table: TableRef;
    readonly ctState: bigint;
    readonly defaultCtState: boolean;
    /** The packet before and after NAT was simulated, when the ct action had nat. */
    readonly nat?: { readonly before: Packet; readonly after: Packet };
  };
  readonly initial: Packet;
  readonly final: Packet;
  readonly nodes: readonly TraceNode[];
  readonly steps: readonly TraceStep[];
}

/** A packet whose IP (or MPLS) TTL ran out at a decrement goes to the controller (reason invalid_ttl). */
export interface ControllerCause {
  readonly kind: 'invalid_ttl';
  readonly table: TableRef;
  readonly ttl: number;
  readonly mpls: boolean;
}

export interface TraceResult {
  readonly verdict: Verdict;
  /** For a packet sent to the controller by a TTL that ran out: where, and its TTL. */
  readonly controllerCause?: ControllerCause;
  /** Ports the packet leaves by, in order; IN_PORT resolved to the ingress port. */
  readonly outputs: readonly OutputPort[];
  readonly passes: readonly TracePass[];
  /** The last table lookup of the whole trace: where a dropped packet was dropped. */
  readonly last?: TraceStep;
  /** Every problem met, in order. */
  readonly problems: readonly TraceProblem[];
  /** Why a dropped packet was dropped when a problem says it: a failed translation, else the first problem. */
  readonly cause?: TraceProblem;
  /** Steps taken (table lookups, actions and group buckets, over every pass): the trace's work, against MAX_TRACE_STEPS. */
  readonly work: number;
}

interface Frozen {
  readonly id: number;
  readonly table: TableRef;
  readonly packet: Packet;
  readonly actionSet: Action[];
  readonly stack: Stack;
  readonly nat?: NatAction;
}

/**
 * The stack of `stack_push`/`stack_pop`, as a list sharing its tail: a clone, a bucket and a
 * recirculation keep it as it was at no cost. `bytes` counts as OVS does (the value's bytes and
 * one for its length), for the whole stack.
 */
type Stack = { readonly value: bigint; readonly bytes: number; readonly below: Stack } | undefined;

/** Everything shared by the passes of one trace. */
interface Run {
  readonly outputs: OutputPort[];
  normal: boolean;
  controller: boolean;
  /** Why the packet went to the controller, when an action sent it there on its own. */
  controllerCause?: ControllerCause;
  readonly queue: Frozen[];
  nextRecircId: number;
  readonly problems: TraceProblem[];
  /** Steps taken over every pass, against MAX_TRACE_STEPS. */
  steps: number;
  /** Set when the trace as a whole stops (trace-cut at flowscope's bounds). */
  stopped: boolean;
}

/** nw_frag's bit for any fragment, first or later. */
const NW_FRAG_ANY = 0x1n;

/** Ports reserved in the 16-bit numbering that a packet can be sent to. */
const LOCAL = RESERVED_PORT_NUMBERS.LOCAL;
const DP_HASH = fieldByName('dp_hash')!;
/** How far OVS follows watch groups watching groups (MAX_LIVENESS_RECURSION). */
const MAX_LIVENESS_DEPTH = 128;

/**
 * Whether a field write takes effect on this packet: OVS ignores a write into a field whose
 * headers the packet lacks. The OpenFlow 1.0 actions check less than the field's own
 * prerequisites (mod_tp_dst needs IP, not TCP).
 */
function writable(a: ActionOf<'set_field'>, p: Packet): boolean {
  switch (a.written) {
    case 'mod_tp_src':
    case 'mod_tp_dst':
    case 'mod_nw_tos':
    case 'mod_nw_ecn':
      return isIp(p);
    case 'mod_dl_src':
    case 'mod_dl_dst':
    case 'set_tunnel':
    case 'set_tunnel64':
      return true;
    default:
      return prerequisiteMet(a.field, p);
  }
}

/** A pipeline prepared for tracing: build once, trace many packets. */
export class Tracer {
  readonly pipeline: Pipeline;
  /** Port numbers, with stand-ins for the ports the flows know only by name. */
  readonly ports: TracePorts;
  readonly classifier: Classifier;
  /** Table a trace starts in: table 0, or the first table of a dump that names its tables. */
  readonly startTable: TableRef;
  private readonly tableOrder = new Map<string, number>();

  constructor(pipeline: Pipeline) {
    this.pipeline = pipeline;
    this.ports = new TracePorts(pipeline);
    this.classifier = new Classifier(pipeline, this.ports);
    const first = pipeline.tables.values().next().value;
    this.startTable = pipeline.table(tableNumber(0)) || !first ? pipeline.resolve(tableNumber(0)) : first.ref;
    let i = 0;
    for (const [key, t] of pipeline.tables)
      this.tableOrder.set(key, t.ref.kind === 'number' ? t.ref.number : 1000 + i++);
  }

  /** Position of a table in the pipeline, to tell a resubmit backwards from one forwards. */
  ordinal(ref: TableRef): number {
    if (ref.kind === 'number') return ref.number;
    return this.pipeline.numbering.numberOf(ref.name) ?? this.tableOrder.get(ref.name) ?? Number.MAX_SAFE_INTEGER;
  }

  /**
   * The packet `spec` describes in ofproto/trace flow syntax, its ports by number or by the names
   * of the port map and the flows. Throws PacketSpecError, with the problem, when the text is no packet.
   */
  parsePacket(spec: string): Packet {
    const parsed = parsePacketSpec(spec, this.ports.forPackets);
    if (!parsed.ok) throw new PacketSpecError(parsed.problem);
    return parsed.packet;
  }

  /**
   * Traces the packet `spec` describes (see parsePacket). Each lookup's packet is kept unless
   * `keepPackets` is false: a drop by a table's miss is told its nearest flow from it.
   */
  tracePacket(spec: string, options: TraceOptions = {}): TraceResult {
    return this.trace(this.parsePacket(spec), { keepPackets: true, ...options });
  }

  trace(packet: Packet, options: TraceOptions = {}): TraceResult {
    const run: Run = {
      outputs: [],
      normal: false,
      controller: false,
      queue: [],
      nextRecircId: 1,
      problems: [],
      steps: 0,
      stopped: false,
    };
    const passes: TracePass[] = [];
    const ctNext = [...(options.ctNext ?? [])];
    passes.push(
      new Pass(this, run, options, packet.clone(), [], undefined).execute(options.start ?? this.startTable, 'start', 0),
    );
    let recirculations = 0;
    while (run.queue.length > 0 && !run.stopped) {
      if (recirculations++ > MAX_PASSES) {
        run.problems.push({
          kind: 'trace-cut',
          table: run.queue[0]!.table,
          limit: 'recirculations',
          unprocessed: run.queue.length,
        });
        break;
      }
      const frozen = run.queue.shift()!;
      const given = ctNext.shift();
      const ctState = given ?? DEFAULT_CT_NEXT;
      const p = frozen.packet.clone();
      p.set(FIELD.ctState, ctState);
      p.set(FIELD.recircId, BigInt(frozen.id));
      let nat: { before: Packet; after: Packet } | undefined;
      if (frozen.nat) {
        const before = p.clone();
        applyNat(p, frozen.nat);
        nat = { before, after: p.clone() };
      }
      const pass = new Pass(this, run, options, p, frozen.actionSet, frozen.stack);
      passes.push(
        pass.execute(frozen.table, 'resume', frozen.id, {
          table: frozen.table,
          ctState,
          defaultCtState: given === undefined,
          ...(nat ? { nat } : {}),
        }),
      );
    }
    const steps = passes.flatMap((p) => p.steps);
    const last = steps[steps.length - 1];
    const verdict: Verdict =
      run.outputs.length > 0 ? 'output' : run.normal ? 'normal' : run.controller ? 'controller' : 'drop';
    const cause =
      verdict === 'drop'
        ? (run.problems.find((p) => p.kind === 'translation-failed' || p.kind === 'trace-cut') ?? run.problems[0])
        : undefined;
    const controllerCause = verdict === 'controller' ? run.controllerCause : undefined;
    return {
      verdict,
      ...(controllerCause ? { controllerCause } : {}),
      outputs: run.outputs,
      passes,
      ...(last ? { last } : {}),
      problems: run.problems,
      ...(cause ? { cause } : {}),
      work: run.steps,
    };
  }
}

/** The NAT that ofproto/trace simulates for a resumed pass: the first address and port of the range. */
function applyNat(p: Packet, nat: NatAction): void {
  const range = nat.range;
  if (!range || nat.direction === undefined) return;
  const src = nat.direction === 'src';
  const addrField = range.family === 4 ? (src ? FIELD.ipSrc : FIELD.ipDst) : src ? FIELD.ipv6Src : FIELD.ipv6Dst;
  p.set(addrField, range.addrMin);
  if (range.portMin !== undefined && range.portMin !== 0) p.set(src ? FIELD.tpSrc : FIELD.tpDst, BigInt(range.portMin));
}

/** Repetitions of a cycle that show a path going round it rather than passing by twice. */
const LOOP_REPEATS = 3;

/**
 * The tables a path that ran too deep went round: the shortest cycle of lookups (table and flow)
 * its last lookups repeat, in the order it was first gone round, each table once.
 */
export function loopOf(steps: readonly TraceStep[]): TableRef[] {
  const same = (i: number, j: number): boolean =>
    steps[i]!.flow === steps[j]!.flow && tableKey(steps[i]!.table) === tableKey(steps[j]!.table);
  const n = steps.length;
  for (let period = 1; period * LOOP_REPEATS <= n; period++) {
    let from = n - period;
    while (from > 0 && same(from - 1, from - 1 + period)) from--;
    if (n - from < period * LOOP_REPEATS) continue;
    const tables = new Map<string, TableRef>();
    for (const s of steps.slice(from, from + period)) tables.set(tableKey(s.table), s.table);
    return [...tables.values()];
  }
  return [];
}

/** One translation: the packet as given, or as resumed after a recirculation. */
class Pass {
  private readonly tracer: Tracer;
  private readonly run: Run;
  private readonly options: TraceOptions;
  private packet: Packet;
  /** The actions `write_actions` wrote, in the order written (OVS keeps them so). */
  private actionSet: Action[];
  /** Whether the action set holds a group: actset_output then stays unset (OVS's action_set_has_group). */
  private actionSetHasGroup = false;
  private stack: Stack;
  private readonly steps: TraceStep[] = [];
  /** Index in `steps` of each table's last lookup, the one that keeps its packet. */
  private readonly lastStepOf = new Map<string, number>();
  /** Nesting of resubmits to the same or an earlier table and of group buckets (OVS's ctx->depth). */
  private depth = 0;
  /** Lookups after the first (OVS's ctx->resubmits). */
  private resubmits = 0;
  /** Lookups, groups and clones open at once, against MAX_NESTING: each is a frame of the tracer's own stack. */
  private nesting = 0;
  /** Bytes of datapath actions yielded, against MAX_ACTION_BYTES. */
  private actionBytes = 0;
  /** Why a bucket is followed as one alternative of several. */
  private readonly bucketAlternatives = new Map<Bucket, BucketAlternative>();
  /** Set by `exit`: nothing more runs in this pass, not even the action set (a bucket clears it). */
  private exited = false;
  /**
   * Whether the packet went through conntrack as far as this translation knows (OVS's
   * ctx->conntracked): tracked when the pass began, or resumed from conntrack. `ct_clear` does
   * nothing otherwise, leaving ct_zone, ct_mark and ct_label as the packet gave them.
   */
  private conntracked = false;
  /** Set when a limit is hit: translation stops altogether. */
  private failure: XlateLimit | undefined;
  private table: TableRef = tableNumber(0);

  constructor(
    tracer: Tracer,
    run: Run,
    options: TraceOptions,
    packet: Packet,
    actionSet: readonly Action[],
    stack: Stack,
  ) {
    this.tracer = tracer;
    this.run = run;
    this.options = options;
    this.packet = packet;
    this.actionSet = [...actionSet];
    this.actionSetHasGroup = actionSet.some((x) => x.kind === 'group');
    this.stack = stack;
  }

  execute(start: TableRef, via: 'start' | 'resume', recircId: number, resume?: TracePass['resume']): TracePass {
    const initial = this.packet.clone();
    const nodes: TraceNode[] = [];
    const before = { outputs: this.run.outputs.length, normal: this.run.normal, controller: this.run.controller };
    this.conntracked = via === 'resume' || (this.packet.get(FIELD.ctState) & CT_STATE.trk) !== 0n;
    this.lookup(start, via, nodes);
    if (!this.failure && !this.run.stopped) this.executeActionSet(nodes);
    if (this.failure) {
      // A translation that fails sends nothing at all, not even what it output before failing.
      this.run.outputs.length = before.outputs;
      this.run.normal = before.normal;
      this.run.controller = before.controller;
      nodes.push({ kind: 'note', note: { kind: 'translation-failed', limit: this.failure } });
    }
    return { recircId, ...(resume ? { resume } : {}), initial, final: this.packet.clone(), nodes, steps: this.steps };
  }

  /** Runs the action set and empties it; after `exit` nothing of it runs (OVS does not clear its exit flag). */
  private executeActionSet(nodes: TraceNode[]): void {
    const set = actionSetList(this.actionSet);
    this.actionSet = [];
    this.actionSetHasGroup = false;
    if (set.length === 0) return;
    nodes.push({ kind: 'note', note: { kind: 'action-set' } });
    this.actions(set, nodes);
  }

  /** The port the packet is in on now: a flow may have rewritten in_port. */
  private inPort(): number {
    return Number(this.packet.get(FIELD.inPort));
  }

  /**
   * Whether another lookup or group is within OVS's limits (xlate_resubmit_resource_check);
   * when not, translation fails here.
   */
  private withinLimits(nodes: TraceNode[]): boolean {
    if (this.depth >= MAX_DEPTH) this.fail('depth', nodes);
    else if (this.resubmits >= MAX_RESUBMITS) this.fail('resubmits', nodes);
    else return this.resourceCheck(nodes);
    return false;
  }

  /**
   * A lookup after the first (goto_table, resubmit, output to TABLE). Only one in a table at or
   * before the current one can loop, so only it deepens the nesting (OVS 2.6+).
   */
  private nextLookup(given: TableRef, via: 'goto' | 'resubmit', nodes: TraceNode[], view = PLAIN_VIEW): void {
    // A number where the dump names its tables (a group's bucket in a --names bundle) is the named table.
    const ref = this.tracer.pipeline.resolve(given);
    if (!this.withinLimits(nodes)) return;
    if (view.ctTuple && !this.hasCtTuple()) {
      this.problem(nodes, { kind: 'no-ct-tuple', table: this.table, target: ref });
      return;
    }
    const deepens = this.tracer.ordinal(ref) <= this.tracer.ordinal(this.table);
    this.resubmits++;
    if (deepens) this.depth++;
    this.lookup(ref, via, nodes, view);
    if (deepens) this.depth--;
  }

  /** Looks the packet up in `ref` and runs the matched flow's actions. */
  private lookup(
    given: TableRef,
    via: 'start' | 'goto' | 'resubmit' | 'resume',
    parent: TraceNode[],
    view = PLAIN_VIEW,
  ): void {
    const ref = this.tracer.pipeline.resolve(given);
    if (!this.takeStep(parent)) return;
    const saved = this.lookupView(view);
    const index = this.tracer.classifier.index(ref);
    const hit = index?.lookup(this.packet);
    const step: TraceStep = {
      table: ref,
      flow: hit?.flow,
      ...(hit?.conjunction ? { conjunction: hit.conjunction } : {}),
    };
    this.keepStep(step);
    const inPort = this.inPort();
    saved?.();
    const nodes: TraceNode[] = [];
    const node: TraceNode = { kind: 'table', ...step, via, nodes };
    parent.push(node);
    // A port that has neither a name nor a stand-in may be any of the unnumbered ones. Said once:
    // every table that names ports would say it again.
    const unnumbered = index?.unnumberedInPorts;
    if (
      unnumbered?.size &&
      this.tracer.ports.names.name(inPort) === undefined &&
      !this.run.problems.some((p) => p.kind === 'unnumbered-in-ports')
    ) {
      this.problem(nodes, { kind: 'unnumbered-in-ports', table: ref, inPort, names: [...unnumbered] });
    }
    if (!hit || !this.enter(nodes)) return;
    const callerTable = this.table;
    this.table = ref;
    this.actions(hit.flow.actions, nodes);
    this.table = callerTable;
    this.nesting--;
  }

  /**
   * Records a lookup. Its packet is kept only until the same table is looked up again: the
   * readers want a table's last lookup, and a copy per lookup would grow with the trace.
   */
  private keepStep(step: TraceStep): void {
    if (!this.options.keepPackets) {
      this.steps.push(step);
      return;
    }
    const key = tableKey(step.table);
    const before = this.lastStepOf.get(key);
    if (before !== undefined) {
      const { packet: _dropped, ...rest } = this.steps[before]!;
      this.steps[before] = rest;
    }
    this.lastStepOf.set(key, this.steps.length);
    this.steps.push({ ...step, packet: this.packet.clone() });
  }

  /**
   * OVS's checks before a lookup or a group beyond depth and resubmits: a stack of 64 kB fails the
   * translation; datapath actions past 64 kB end it, keeping what it sent.
   */
  private resourceCheck(nodes: TraceNode[]): boolean {
    if (this.actionBytes > MAX_ACTION_BYTES) {
      // Said once: every lookup or group after it (a group's next bucket goes on) meets it again.
      if (!this.exited && !this.run.problems.some((p) => p.kind === 'trace-cut'))
        this.problem(nodes, { kind: 'trace-cut', table: this.table, limit: 'actions' });
      this.exited = true;
      return false;
    }
    if ((this.stack?.bytes ?? 0) >= MAX_STACK_BYTES) {
      this.fail('stack', nodes);
      return false;
    }
    return true;
  }

  /** One more step of the trace, or false when the trace has taken all it may. */
  private takeStep(nodes: TraceNode[]): boolean {
    if (this.run.stopped) return false;
    if (++this.run.steps <= MAX_TRACE_STEPS) return true;
    this.stop(nodes, 'steps');
    return false;
  }

  /** Opens a lookup, group or clone, or stops the trace when too many are open. */
  private enter(nodes: TraceNode[]): boolean {
    if (++this.nesting <= MAX_NESTING) return true;
    this.nesting--;
    this.stop(nodes, 'nesting');
    return false;
  }

  private stop(nodes: TraceNode[], limit: 'steps' | 'nesting'): void {
    this.run.stopped = true;
    this.problem(nodes, { kind: 'trace-cut', table: this.table, limit });
  }

  /** Whether the packet carries the conntrack tuple `resubmit(,T,ct)` looks up with: tracked IP. */
  private hasCtTuple(): boolean {
    return this.packet.slot('ct_nw_proto') !== 0n && isIp(this.packet);
  }

  /**
   * Temporarily changes what the classifier sees: resubmit's port, and for `resubmit(,T,ct)` the
   * packet's 5-tuple swapped with its conntrack tuple (ofproto-dpif-xlate.c tuple_swap), and a
   * fragment's transport ports hidden. Returns the undo.
   */
  private lookupView({ inPort, ctTuple }: LookupView): (() => void) | undefined {
    const fragment = (this.packet.slot('ip_frag') & NW_FRAG_ANY) !== 0n;
    if (inPort === undefined && !ctTuple && !fragment) return undefined;
    const before = this.packet.clone();
    const p = this.packet;
    if (inPort !== undefined) p.set(FIELD.inPort, BigInt(inPort));
    if (ctTuple) {
      const v4 = p.get(FIELD.ethType) === ETH_TYPE.ipv4;
      const pairs = [
        ['nw_proto', 'ct_nw_proto'],
        v4 ? ['nw_src', 'ct_nw_src'] : ['ipv6_src', 'ct_ipv6_src'],
        v4 ? ['nw_dst', 'ct_nw_dst'] : ['ipv6_dst', 'ct_ipv6_dst'],
        ['tp_src', 'ct_tp_src'],
        ['tp_dst', 'ct_tp_dst'],
      ] as const;
      for (const [a, b] of pairs) {
        const va = p.slot(a);
        p.setSlot(a, p.slot(b));
        p.setSlot(b, va);
      }
    }
    if (fragment) {
      // OVS looks a fragment up as if it had no transport ports (ofproto-dpif.c, fragment handling "normal").
      this.packet.setSlot('tp_src', 0n);
      this.packet.setSlot('tp_dst', 0n);
    }
    return () => {
      this.packet = before;
    };
  }

  /** Runs an action list. */
  private actions(actions: readonly Action[], parent: TraceNode[]): void {
    for (const a of actions) {
      if (this.exited || this.failure || !this.takeStep(parent)) return;
      const nodes: TraceNode[] = [];
      parent.push({ kind: 'action', action: a, nodes });
      if (this.action(a, nodes) === 'stop-list') return;
    }
  }

  /** Decrements a TTL; one that would reach 0 sends the packet to the controller (invalid_ttl) instead. */
  private decrementTtl(field: FieldDef, nodes: TraceNode[]): 'stop-list' | undefined {
    const ttl = this.packet.get(field);
    if (ttl > 1n) {
      this.packet.set(field, ttl - 1n);
      return undefined;
    }
    this.run.controller = true;
    const mpls = field === FIELD.mplsTtl;
    this.run.controllerCause ??= { kind: 'invalid_ttl', table: this.table, ttl: Number(ttl), mpls };
    nodes.push({ kind: 'note', note: { kind: 'ttl-exceeded', ttl: Number(ttl), mpls } });
    return 'stop-list';
  }

  /** Executes one action; 'stop-list' skips the rest of the current list. */
  private action(a: Action, nodes: TraceNode[]): 'stop-list' | undefined {
    const p = this.packet;
    switch (a.kind) {
      case 'output':
        this.output(a.port, nodes);
        return;
      case 'enqueue':
        this.output(a.port, nodes);
        return;
      case 'output_field': {
        const n = p.getSubfield(a.src);
        // OVS takes the port from the field as a 16-bit OpenFlow 1.0 number.
        const inRange = n <= 0xffffn;
        nodes.push({ kind: 'note', note: { kind: 'output-port', port: n, inRange } });
        if (!inRange) return;
        this.outputNumber(Number(n), nodes);
        return;
      }
      case 'controller':
        this.run.controller = true;
        return;
      case 'group':
        // A missing group ends the action list, not the pipeline (OVS's xlate_group_action).
        return this.group(a.id, nodes);
      case 'set_field':
        if (!writable(a, p)) {
          this.problem(nodes, { kind: 'unmet-prerequisites', table: this.table, field: a.field.name });
          return;
        }
        p.set(a.field, a.value, a.mask);
        return;
      case 'move':
        // OVS copies nothing when either field's headers are missing (mf_subfield_copy).
        if (prerequisiteMet(a.src.field, p) && prerequisiteMet(a.dst.field, p))
          p.setSubfield(a.dst, p.getSubfield(a.src));
        return;
      case 'set_vlan_vid': {
        const tci = p.get(FIELD.vlanTci);
        if ((tci & 0x1000n) !== 0n || a.pushIfUntagged) p.set(FIELD.vlanTci, (tci & 0xe000n) | 0x1000n | BigInt(a.vid));
        return;
      }
      case 'set_vlan_pcp': {
        const tci = p.get(FIELD.vlanTci);
        if ((tci & 0x1000n) !== 0n || a.pushIfUntagged)
          p.set(FIELD.vlanTci, (tci & 0x1fffn) | 0x1000n | (BigInt(a.pcp) << 13n));
        return;
      }
      case 'strip_vlan':
        p.popVlan();
        return;
      case 'push_vlan':
        p.pushVlan();
        return;
      case 'push_mpls':
        // A fourth label is more than OVS holds: the translation fails.
        if (mplsLabels(p) >= MAX_MPLS_LABELS) this.fail('mpls', nodes);
        else pushMpls(p, a.ethertype);
        return;
      case 'pop_mpls':
        popMpls(p, a.ethertype);
        return;
      case 'set_mpls_ttl':
        p.set(FIELD.mplsTtl, BigInt(a.ttl));
        return;
      case 'dec_mpls_ttl':
        return this.decrementTtl(FIELD.mplsTtl, nodes);
      case 'set_ip_ttl':
        if (isIp(p)) p.set(FIELD.nwTtl, BigInt(a.ttl));
        return;
      case 'dec_ttl':
        if (!isIp(p)) return;
        return this.decrementTtl(FIELD.nwTtl, nodes);
      case 'resubmit': {
        const table = a.table ?? this.table;
        // resubmit(IN_PORT,T) looks up with the port the packet is in on.
        const inPort =
          a.port === undefined
            ? undefined
            : a.port.kind === 'reserved' && a.port.name === 'IN_PORT'
              ? this.inPort()
              : this.portNumber(a.port);
        const view = inPort === undefined && !a.ct ? PLAIN_VIEW : { inPort, ctTuple: a.ct };
        this.nextLookup(table, 'resubmit', nodes, view);
        return;
      }
      case 'goto_table':
        this.nextLookup(a.table, 'goto', nodes);
        return;
      case 'ct':
        this.ct(a, nodes);
        return;
      case 'ct_clear':
        if (this.conntracked) p.clearConntrack();
        this.conntracked = false;
        return;
      case 'learn':
        nodes.push({ kind: 'learned', flow: this.learn(a) });
        nodes.push({ kind: 'note', note: { kind: 'assumed', what: 'learn-not-installed' } });
        return;
      case 'clone': {
        if (!this.enter(nodes)) return;
        // The copy runs its action set (its own copy of the set) when its actions end; then the
        // packet, action set and stack are as before. An `exit` in it ends the caller too, as in OVS.
        const saved = {
          packet: p.clone(),
          actionSet: [...this.actionSet],
          hasGroup: this.actionSetHasGroup,
          stack: this.stack,
          conntracked: this.conntracked,
        };
        this.actions(a.actions, nodes);
        if (!this.failure) this.executeActionSet(nodes);
        this.conntracked = saved.conntracked;
        this.packet = saved.packet;
        this.actionSet = saved.actionSet;
        this.actionSetHasGroup = saved.hasGroup;
        this.stack = saved.stack;
        this.nesting--;
        return;
      }
      case 'exit':
        this.exited = true;
        return;
      case 'multipath':
        p.setSubfield(a.dst, 0n);
        nodes.push({ kind: 'note', note: { kind: 'assumed', what: 'multipath-link-0' } });
        return;
      case 'bundle': {
        const member = a.members[0];
        if (!member) return;
        if (a.dst) p.setSubfield(a.dst, BigInt(this.portNumber(member)));
        else this.output(member, nodes);
        nodes.push({ kind: 'note', note: { kind: 'assumed', what: 'bundle-first-member' } });
        return;
      }
      case 'check_pkt_larger':
        p.setSubfield(a.dst, 0n);
        nodes.push({ kind: 'note', note: { kind: 'assumed', what: 'not-larger' } });
        return;
      case 'stack_push':
        this.stack = {
          value: p.getSubfield(a.src),
          bytes: (this.stack?.bytes ?? 0) + Math.ceil(a.src.bits / 8) + 1,
          below: this.stack,
        };
        return;
      case 'stack_pop': {
        const top = this.stack;
        if (top === undefined) nodes.push({ kind: 'note', note: { kind: 'stack-underflow' } });
        else {
          p.setSubfield(a.dst, top.value);
          this.stack = top.below;
        }
        return;
      }
      case 'delete_field':
        p.set(a.field, 0n);
        return;
      case 'clear_actions':
        this.actionSet = [];
        this.actionSetHasGroup = false;
        p.set(FIELD.actsetOutput, 0n);
        return;
      case 'write_actions':
        this.writeActions(a.actions);
        return;
      case 'write_metadata':
        p.set(FIELD.metadata, a.value, a.mask);
        return;
      case 'nat':
      case 'conjunction':
      case 'note':
      case 'set_queue':
      case 'pop_queue':
      case 'fin_timeout':
      case 'sample':
      case 'meter':
      case 'unroll_xlate':
      case 'debug_recirc':
      case 'debug_slow':
        return;
      case 'encap':
      case 'decap':
      case 'dec_nsh_ttl':
        nodes.push({ kind: 'note', note: { kind: 'not-simulated', action: a.kind } });
        return;
      case 'unknown':
        nodes.push({ kind: 'note', note: { kind: 'unknown-action', text: a.text } });
        return;
      default:
        assertNever(a);
    }
  }

  /**
   * Adds actions to the action set and keeps actset_output as OVS does (xlate_write_actions__):
   * the port of the last output written, until a group is written.
   */
  private writeActions(actions: readonly Action[]): void {
    this.actionSet.push(...actions);
    if (this.actionSetHasGroup) return;
    for (const a of actions) {
      if (a.kind === 'group') {
        this.actionSetHasGroup = true;
        this.packet.set(FIELD.actsetOutput, 0n);
        return;
      }
      const port =
        a.kind === 'output'
          ? this.portNumber(a.port)
          : isControllerOutput(a)
            ? RESERVED_PORT_NUMBERS.CONTROLLER
            : undefined;
      if (port !== undefined) this.packet.set(FIELD.actsetOutput, port32(BigInt(port)));
    }
  }

  private problem(nodes: TraceNode[], problem: TraceProblem): void {
    this.run.problems.push(problem);
    nodes.push({ kind: 'problem', problem });
  }

  /** Ends the translation at one of OVS's limits. */
  private fail(limit: XlateLimit, nodes: TraceNode[]): void {
    this.failure = limit;
    this.problem(nodes, { kind: 'translation-failed', table: this.table, limit, loop: loopOf(this.steps) });
  }

  /** A port reference as a 16-bit OpenFlow port number (a stand-in for a port known only by name). */
  private portNumber(ref: PortRef): number {
    switch (ref.kind) {
      case 'number':
        return Number(port16(BigInt(ref.number)));
      case 'reserved':
        return RESERVED_PORT_NUMBERS[ref.name];
      case 'name':
        return this.tracer.ports.number(ref.name);
    }
  }

  private output(ref: PortRef, nodes: TraceNode[]): void {
    this.outputNumber(this.portNumber(ref), nodes);
  }

  private outputNumber(n: number, nodes: TraceNode[]): void {
    const ports = this.tracer.ports.known;
    const inPort = this.inPort();
    switch (n) {
      case RESERVED_PORT_NUMBERS.IN_PORT:
        this.send(inPort, nodes);
        return;
      case RESERVED_PORT_NUMBERS.NORMAL:
        this.run.normal = true;
        nodes.push({ kind: 'note', note: { kind: 'assumed', what: 'normal' } });
        return;
      case RESERVED_PORT_NUMBERS.CONTROLLER:
        this.run.controller = true;
        return;
      case RESERVED_PORT_NUMBERS.TABLE:
        this.nextLookup(this.tracer.startTable, 'resubmit', nodes);
        return;
      case RESERVED_PORT_NUMBERS.FLOOD:
      case RESERVED_PORT_NUMBERS.ALL:
        for (const [port] of ports.entries()) if (port !== inPort) this.sent(port);
        // The bridge's own port is one of its ports too, though port lists show it apart.
        if (ports.size > 0 && inPort !== LOCAL) this.sent(LOCAL);
        if (ports.size === 0) nodes.push({ kind: 'note', note: { kind: 'flood-without-ports' } });
        return;
      case RESERVED_PORT_NUMBERS.NONE:
      case RESERVED_PORT_NUMBERS.UNSET:
        return;
    }
    if (n === inPort) {
      this.problem(nodes, { kind: 'output-to-in-port', table: this.table, port: this.tracer.ports.outputPort(n) });
      return;
    }
    this.send(n, nodes);
  }

  /** Sends the packet out of port `n`, which the bridge must have (LOCAL it always has). */
  private send(n: number, nodes: TraceNode[]): void {
    const ports = this.tracer.ports.known;
    const port = this.tracer.ports.outputPort(n);
    if (n !== LOCAL && ports.size > 0 && ports.name(n) === undefined) {
      this.problem(nodes, { kind: 'unlisted-port', table: this.table, port });
      return;
    }
    this.sent(port);
  }

  /** An output, and the datapath action it takes. */
  private sent(port: OutputPort): void {
    this.run.outputs.push(port);
    this.actionBytes += OUTPUT_ACTION_BYTES;
  }

  /** Runs group `id`; 'stop-list' when the dump lacks it, which ends the action list in OVS. */
  private group(id: number, nodes: TraceNode[]): 'stop-list' | undefined {
    if (!this.withinLimits(nodes)) return;
    const group = this.tracer.pipeline.groups.get(id);
    if (!group) {
      this.problem(nodes, {
        kind: 'missing-group',
        table: this.table,
        group: id,
        dumpHasGroups: this.tracer.pipeline.groups.size > 0,
      });
      return 'stop-list';
    }
    if (!this.enter(nodes)) return;
    for (const bucket of this.chooseBuckets(group, nodes)) {
      if (this.failure || !this.takeStep(nodes)) break;
      const saved = this.packet.clone();
      const conntracked = this.conntracked;
      const bucketNodes: TraceNode[] = [];
      nodes.push({ kind: 'bucket', group: id, bucket: bucket.id, nodes: bucketNodes });
      const alternative = this.bucketAlternatives.get(bucket);
      if (alternative) bucketNodes.push({ kind: 'note', note: { kind: 'bucket-alternative', by: alternative } });
      // A bucket's actions are an action set, run one level deeper.
      this.depth++;
      this.actions(actionSetList(bucket.actions), bucketNodes);
      this.depth--;
      // A group leaves the packet as it found it, and `exit` ends only the bucket; the stack is
      // not restored (OVS does the same).
      this.packet = saved;
      this.conntracked = conntracked;
      this.exited = false;
    }
    this.nesting--;
  }

  /**
   * Whether a bucket may be used (ofproto-dpif-xlate.c bucket_is_alive): one that watches nothing
   * is; one that watches a port is when the port is up (as far as the dump tells), one that
   * watches a group when that group has a live bucket. A select group never uses weight 0.
   */
  private live(group: Group, bucket: Bucket, depth = 0): boolean {
    if (group.type === 'select' && bucket.weight === 0) return false;
    if (bucket.watchPort === undefined && bucket.watchGroup === undefined) return true;
    if (bucket.watchPort !== undefined && this.portUp(this.portNumber(bucket.watchPort))) return true;
    if (bucket.watchGroup === undefined || depth >= MAX_LIVENESS_DEPTH) return false;
    const watched = this.tracer.pipeline.groups.get(bucket.watchGroup);
    return watched !== undefined && watched.buckets.some((b) => this.live(watched, b, depth + 1));
  }

  /** A port exists and is not down, as far as the port list tells; without one, any port is up. */
  private portUp(n: number): boolean {
    const ports = this.tracer.ports.known;
    if (ports.size === 0) return true;
    return (n === LOCAL || ports.name(n) !== undefined) && !ports.isDown(n);
  }

  /** The first live bucket of a fast-failover group, saying why each one before it is not live. */
  private firstLive(group: Group, nodes: TraceNode[]): Bucket | undefined {
    for (const b of group.buckets) {
      if (this.live(group, b)) return b;
      const note: TraceNote = {
        kind: 'bucket-not-live',
        bucket: b.id,
        ...(b.watchPort ? { watchPort: b.watchPort } : {}),
        ...(b.watchGroup !== undefined ? { watchGroup: b.watchGroup } : {}),
      };
      nodes.push({ kind: 'note', note });
    }
    return undefined;
  }

  /** The one bucket a group uses, and how it was chosen. */
  private chosen(nodes: TraceNode[], bucket: Bucket, by: BucketChoice): void {
    nodes.push({ kind: 'note', note: { kind: 'bucket-chosen', bucket: bucket.id, by } });
  }

  private chooseBuckets(group: Group, nodes: TraceNode[]): readonly Bucket[] {
    switch (group.type) {
      case 'all':
        return group.buckets;
      case 'indirect':
        return group.buckets.slice(0, 1);
      case 'ff': {
        const b = this.firstLive(group, nodes);
        if (!b) this.problem(nodes, { kind: 'no-live-bucket', table: this.table, group: group.id });
        else this.chosen(nodes, b, { kind: 'first-live' });
        return b ? [b] : [];
      }
      case 'select': {
        const wanted = this.options.groupBuckets?.get(group.id) ?? this.options.bucket;
        if (wanted !== undefined) {
          const b = group.buckets.find((x) => x.id === wanted);
          if (!b)
            this.problem(nodes, {
              kind: 'missing-bucket',
              table: this.table,
              group: group.id,
              bucket: wanted,
              buckets: group.buckets.map((x) => x.id),
            });
          else this.chosen(nodes, b, { kind: 'requested' });
          return b ? [b] : [];
        }
        if (group.selectionHidden) return this.unknownSelection(group, nodes);
        const hash = selectionHash(group, this.packet);
        if (hash !== undefined) {
          const { bucket } = bestLiveBucket(group.buckets, hash, (b) => this.live(group, b));
          if (!bucket) this.problem(nodes, { kind: 'no-live-bucket', table: this.table, group: group.id });
          else this.chosen(nodes, bucket, { kind: 'hash', fields: (group.fields ?? []).map((f) => f.field.name) });
          return bucket ? [bucket] : [];
        }
        const map = dpHashMap(group);
        if (map) return this.byDatapathHash(group, map, nodes);
        // A group the datapath hash cannot serve falls back to OVS's default method.
        const { bucket } = bestLiveBucket(group.buckets, symmetricL4Hash(this.packet), (b) => this.live(group, b));
        if (!bucket) this.problem(nodes, { kind: 'no-live-bucket', table: this.table, group: group.id });
        else this.chosen(nodes, bucket, { kind: 'l4-hash' });
        return bucket ? [bucket] : [];
      }
    }
  }

  /**
   * A select group whose selection method the dump does not show: the one live bucket, or every
   * live bucket, labelled, rather than a choice made by a method the switch may not use.
   */
  private unknownSelection(group: Group, nodes: TraceNode[]): readonly Bucket[] {
    const live = group.buckets.filter((b) => this.live(group, b));
    if (live.length === 0) this.problem(nodes, { kind: 'no-live-bucket', table: this.table, group: group.id });
    else if (live.length === 1) this.chosen(nodes, live[0]!, { kind: 'only-live' });
    else {
      this.problem(nodes, {
        kind: 'selection-unknown',
        table: this.table,
        group: group.id,
        buckets: live.map((b) => b.id),
      });
      for (const b of live) this.bucketAlternatives.set(b, { kind: 'selection-unknown' });
    }
    return live;
  }

  /**
   * A group that selects by the datapath's hash: the bucket the packet's `dp_hash` names, or,
   * without one (the datapath computes it; no dump holds it), every live bucket, each labelled
   * with the dp_hash values that select it.
   */
  private byDatapathHash(group: Group, map: readonly Bucket[], nodes: TraceNode[]): readonly Bucket[] {
    const live = (b: Bucket): boolean => this.live(group, b);
    const dpHash = this.packet.get(DP_HASH);
    if (dpHash !== 0n) {
      const b = dpHashBucket(map, dpHash, live);
      if (!b) this.problem(nodes, { kind: 'no-live-bucket', table: this.table, group: group.id });
      else this.chosen(nodes, b, { kind: 'dp-hash', dpHash, values: map.length });
      return b ? [b] : [];
    }
    const taken = hashValuesByBucket(group, map, live);
    if (taken.size === 0) {
      this.problem(nodes, { kind: 'no-live-bucket', table: this.table, group: group.id });
      return [];
    }
    // A dp_hash of 0 means none was computed: the example for the value 0 is the one above the mask.
    this.problem(nodes, {
      kind: 'datapath-hash',
      table: this.table,
      group: group.id,
      choices: [...taken].map(([b, hashes]) => ({ bucket: b.id, dpHash: hashes[0] || map.length })),
    });
    for (const [b, hashes] of taken) this.bucketAlternatives.set(b, { kind: 'dp-hash', mask: map.length - 1, hashes });
    return [...taken.keys()];
  }

  private ct(a: CtAction, nodes: TraceNode[]): void {
    const p = this.packet;
    const zone = a.zone === undefined ? 0n : a.zone.kind === 'value' ? BigInt(a.zone.value) : p.getSubfield(a.zone.src);
    const nat = a.actions.find((x): x is NatAction => x.kind === 'nat');
    if (a.table !== undefined) {
      const frozen = p.clone();
      frozen.set(FIELD.ctZone, zone);
      // exec() writes ct_mark/ct_label of the connection, which the resumed packet then carries.
      if (a.commit) {
        for (const x of a.actions) {
          if (x.kind === 'set_field') frozen.set(x.field, x.value, x.mask);
          else if (x.kind === 'move') frozen.setSubfield(x.dst, p.getSubfield(x.src));
        }
      }
      const id = this.run.nextRecircId++;
      this.run.queue.push({
        id,
        table: a.table,
        packet: frozen,
        actionSet: [...this.actionSet],
        stack: this.stack,
        ...(nat ? { nat } : {}),
      });
      nodes.push({ kind: 'note', note: { kind: 'recirculate', recircId: id, table: a.table } });
    }
    p.clearConntrack();
    // Only the recirculation sees the connection: after ct without table= the packet is untracked.
    this.conntracked = a.table !== undefined;
    nodes.push({ kind: 'note', note: { kind: 'ct-cleared' } });
  }

  /** The flow a learn action would add, with the packet's current values filled in. */
  private learn(a: LearnAction): LearnedFlow {
    const p = this.packet;
    const fields = new Map<string, { field: MatchField['field']; value: bigint; mask: bigint }>();
    const addMatch = (dst: Subfield, value: bigint): void => {
      const prev = fields.get(dst.field.name) ?? { field: dst.field, value: 0n, mask: 0n };
      const m = ones(dst.bits) << BigInt(dst.start);
      fields.set(dst.field.name, {
        field: dst.field,
        value: (prev.value & ~m) | ((value << BigInt(dst.start)) & m),
        mask: prev.mask | m,
      });
    };
    const actions: Action[] = [];
    const load = (dst: Subfield, value: bigint): void => {
      actions.push({
        kind: 'set_field',
        field: dst.field,
        value: (value & ones(dst.bits)) << BigInt(dst.start),
        mask: ones(dst.bits) << BigInt(dst.start),
        written: 'load',
      });
    };
    // A spec's value for this packet: its source field's, or its constant.
    const valueOf = (s: { readonly src: Subfield } | { readonly value: bigint }): bigint =>
      'src' in s ? p.getSubfield(s.src) : s.value;
    for (const s of a.specs) {
      switch (s.kind) {
        case 'match_field':
        case 'match_value':
          addMatch(s.dst, valueOf(s));
          break;
        case 'load_field':
        case 'load_value':
          load(s.dst, valueOf(s));
          break;
        case 'output':
          actions.push({ kind: 'output', port: { kind: 'number', number: Number(p.getSubfield(s.src)) } });
          break;
      }
    }
    return { table: a.table, priority: a.priority ?? 32768, match: { fields: [...fields.values()] }, actions };
  }
}
