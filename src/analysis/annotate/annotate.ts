/**
 * The annotation engine: every flow explained in the words of its pipeline. A profile (and one
 * release of it) gives table names and purposes, the pattern a flow fits with its sentence,
 * named register and mark bits, conntrack zones, cookie spans and port roles; the dump itself
 * gives the roles of addresses. What no profile knows is said in generic words. A flow that fits
 * no pattern is reported as such, never guessed.
 */
import { type Action, flattenActions, severalConjunctions } from '../../model/actions.ts';
import { append } from '../../model/append.ts';
import { sentPorts } from '../../model/port-refs.ts';
import type { FieldDef } from '../../model/fields.ts';
import { fieldByName } from '../../model/fields.ts';
import { actionsOutline, type Flow, onlyConjunctions } from '../../model/flow.ts';
import { matchField } from '../../model/match.ts';
import { type Pipeline, tableKey } from '../../model/pipeline.ts';
import type { PortRef } from '../../model/ports.ts';
import { type TableRef, TableNumbering, tableNumber } from '../../model/tables.ts';
import { ones } from '../../model/values.ts';
import type { BitSpan, FlowPattern, Profile, TableKey, TableMiss, TableSpec, Versioned } from '../../profiles/types.ts';
import { inVersion } from '../../profiles/versions.ts';
import { formatFieldValue } from '../../syntax/field-value.ts';
import { AddressBook, type AddressTag } from './address-book.ts';
import { BitFieldDecoder, type BitsValue, type DecodedBits } from './bit-fields.ts';
import type { NamedSubfield, StateReading, Wording } from './wording.ts';
import { defaultRelease, findPattern, isTableMiss, resolveTable, tableByKey } from '../fit/pattern-fit.ts';
import { jumpTargets } from '../../model/flow-exits.ts';
import { type PortReading, PortRoles } from '../fit/port-roles.ts';
import { DumpTableNames } from '../fit/table-names.ts';
import {
  chooseLayout,
  numberedReferences,
  numberNamedTables,
  readsByNames,
  readsByNumbers,
} from '../fit/table-layout.ts';
import { samplePipeline } from '../detect/flow-sample.ts';
import { classKeyer } from '../fit/fit-classes.ts';
import { templateParts } from '../fit/sentence-template.ts';

export interface AnnotateOptions {
  readonly profile?: Profile;
  /** Release of the product the dump comes from; default: the latest the profile covers. */
  readonly release?: string;
}

/** A table as the profile knows it. */
export interface TableInfo {
  readonly ref: TableRef;
  /** The table's number, from the dump or from the profile. */
  readonly number?: number;
  /** The table's one name in reports: the dump's own when it prints names, else the profile's. */
  readonly name?: string;
  /** The profile's name for the table where the dump calls it otherwise (its `SpoofGuard` is `SpoofGuardTable`). */
  readonly profileName?: string;
  readonly purpose?: string;
  readonly spec?: TableSpec;
  /** The profile's table of the dump's name in other releases, when the release read in has none. */
  readonly otherRelease?: TableSpec;
}

/**
 * What the profile says a flow is: the sentence of the pattern it fits, its table's documented
 * miss, or why the profile says nothing of it (render/words/explanation.ts says each in words).
 * `continuesIn` holds the tables the sentence says the packet continues in, as the flow's own
 * actions name them: a sentence names a next table only from the flow, never from the documented
 * path.
 */
export type Explanation = PatternExplanation | MissExplanation | UnknownExplanation;

/** The pattern of its table a flow fits: its sentence, and what each placeholder stands for in the flow. */
export interface PatternExplanation {
  readonly kind: 'pattern';
  readonly index: number;
  readonly match: string;
  /** The pattern's sentence as the profile writes it, placeholders and all (`FlowPattern.meaning`). */
  readonly template: string;
  /** What each placeholder of the sentence stands for in the flow (render/words/ fills the sentence). */
  readonly fills: ReadonlyMap<string, PlaceholderValue>;
  readonly continuesIn: readonly TableRef[];
}

/** What a placeholder of a pattern's sentence stands for in one flow; empty when the flow gives it nothing. */
export type PlaceholderValue =
  /** A value as OVS writes it, a number, or a name in the pipeline's words, said as it is. */
  | { readonly kind: 'text'; readonly text: string }
  /** A port the flow matches, said without its role (the sentence says it). */
  | { readonly kind: 'port'; readonly port: PortReading }
  /** The value of one of the profile's bit fields. */
  | { readonly kind: 'bits'; readonly value: BitsValue }
  /** The tables the flow continues in, as reports name them. */
  | { readonly kind: 'tables'; readonly tables: readonly TableRef[] }
  /** Where the flow sends the packet. */
  | { readonly kind: 'outputs'; readonly ports: readonly OutputTarget[] }
  | { readonly kind: 'groups'; readonly ids: readonly number[] }
  /** The clauses the flow gives conjunctions. */
  | {
      readonly kind: 'clauses';
      readonly clauses: readonly { readonly clause: number; readonly of: number; readonly id: number }[];
    }
  /** The conntrack zone of the flow's ct action: a number, the subfield holding it, or (neither) the default zone. */
  | { readonly kind: 'zone'; readonly zone?: number; readonly subfield?: NamedSubfield };

/** A port a flow outputs to: as the pipeline knows it, the port the packet came in on, or the one a subfield holds. */
export type OutputTarget =
  | { readonly kind: 'port'; readonly port: PortReading }
  | { readonly kind: 'in-port' }
  | { readonly kind: 'subfield'; readonly subfield: NamedSubfield };

/** A table's miss flow, read against what the profile documents its miss to do. */
export interface MissExplanation {
  readonly kind: 'miss';
  /** The table, as the report names it. */
  readonly table: string;
  readonly documented: TableMiss;
  /** The flow does something else than the documented miss: it is told as it does it. */
  readonly differs: boolean;
  readonly actions: readonly Action[];
  /** Names in the table's words, for the flow's actions and the tables the miss names. */
  readonly wording: Wording;
  readonly continuesIn: readonly TableRef[];
}

/**
 * Why the profile says nothing of a flow: its table is the profile's only in other releases, is
 * not the profile's, or no pattern of it fits.
 */
export type UnknownExplanation = {
  readonly kind: 'unknown';
  /** The table, by its name or number. */
  readonly table: string;
  /** The profile's id. */
  readonly profile: string;
} & ({ readonly why: 'other-release'; readonly releases: Versioned } | { readonly why: 'no-table' | 'no-pattern' });

/** A register, mark or label the flow tests or writes, read as the profile's named state. */
export interface StateUse {
  readonly use: 'match' | 'write';
  readonly bits: DecodedBits;
}

export interface AddressUse extends AddressTag {
  readonly use: 'match' | 'write';
  readonly field: string;
}

export interface PortUse {
  readonly use: 'match' | 'output';
  readonly port: OutputTarget;
}

export interface FlowAnnotation {
  readonly flow: Flow;
  readonly table: TableInfo;
  /** Absent when there is no profile with tables to explain the flow by. */
  readonly explanation?: Explanation;
  /** Names in the words of the flow's table, for the flow's match and actions in words. */
  readonly wording: Wording;
  readonly state: readonly StateUse[];
  readonly addresses: readonly AddressUse[];
  readonly ports: readonly PortUse[];
  readonly cookie: readonly DecodedBits[];
}

export interface AnnotatedTable {
  readonly table: TableInfo;
  readonly flows: readonly FlowAnnotation[];
}

/** A table and the flows of it chosen for a report, not annotated yet. */
export interface SelectedTable {
  readonly table: TableInfo;
  readonly flows: readonly Flow[];
}

/** Which flows a report takes: tables chosen whole, then flows one by one within them. */
export interface Selection {
  /** Whether any flow of the table is wanted: asked once per table. */
  readonly table?: (table: TableInfo) => boolean;
  /** Whether a flow of a wanted table is wanted. */
  readonly flow?: (flow: Flow) => boolean;
}

/** The table names a dump uses: its tables', and those its flows (a sample of them) and groups jump to. */
function namesOf(pipeline: Pipeline, flows: readonly Flow[]): Set<string> {
  const names = new Set<string>();
  const note = (ref: TableRef): void => {
    if (ref.kind === 'name') names.add(ref.name);
  };
  for (const t of pipeline.tables.values()) note(t.ref);
  // Flows share their outlines' lists: each is read once. A list of conjunctions jumps nowhere.
  const seen = new Set<readonly Action[]>();
  for (const f of flows) {
    if (onlyConjunctions(f)) continue;
    const actions = actionsOutline(f);
    if (seen.has(actions)) continue;
    seen.add(actions);
    for (const t of jumpTargets(actions)) note(t);
  }
  for (const g of pipeline.groups.values()) for (const b of g.buckets) for (const t of jumpTargets(b.actions)) note(t);
  return names;
}

/**
 * A flow's annotation, whose state, addresses and ports are read when first asked for: a text
 * report says none of them.
 */
class Annotation implements FlowAnnotation {
  readonly flow: Flow;
  readonly table: TableInfo;
  readonly explanation?: Explanation;
  readonly wording: Wording;
  readonly cookie: readonly DecodedBits[];
  private readonly annotator: Annotator;
  private read: Pick<FlowAnnotation, 'state' | 'addresses' | 'ports'> | undefined;

  constructor(
    annotator: Annotator,
    flow: Flow,
    table: TableInfo,
    explanation: Explanation | undefined,
    wording: Wording,
    cookie: readonly DecodedBits[],
  ) {
    this.flow = flow;
    this.table = table;
    if (explanation) this.explanation = explanation;
    this.wording = wording;
    this.cookie = cookie;
    this.annotator = annotator;
    this.read = undefined;
  }

  get state(): readonly StateUse[] {
    return (this.read ??= this.annotator.uses(this.flow, this.table)).state;
  }

  get addresses(): readonly AddressUse[] {
    return (this.read ??= this.annotator.uses(this.flow, this.table)).addresses;
  }

  get ports(): readonly PortUse[] {
    return (this.read ??= this.annotator.uses(this.flow, this.table)).ports;
  }
}

/**
 * The explanation of a flow whose actions are several conjunctions alone, by a pattern whose
 * sentence reads nothing of a flow but its actions: the explanation by that pattern of any such
 * flow (`frame`, whose clauses are none) but for the clauses, which are the flow's conjunctions.
 * Its fills are made when asked for: a text report says the frame's sentence around the clauses
 * (render/words/explanation.ts), of each of a policy table's thousands of such flows.
 */
export class ClausesExplanation implements PatternExplanation {
  readonly kind = 'pattern';
  readonly frame: PatternExplanation;
  readonly conjunctions: readonly Action[];

  constructor(frame: PatternExplanation, conjunctions: readonly Action[]) {
    this.frame = frame;
    this.conjunctions = conjunctions;
  }

  get index(): number {
    return this.frame.index;
  }

  get match(): string {
    return this.frame.match;
  }

  get template(): string {
    return this.frame.template;
  }

  get continuesIn(): readonly TableRef[] {
    return this.frame.continuesIn;
  }

  get fills(): ReadonlyMap<string, PlaceholderValue> {
    const fills = new Map(this.frame.fills);
    if (fills.has('conjunction')) fills.set('conjunction', { kind: 'clauses', clauses: clausesOf(this.conjunctions) });
    return fills;
  }
}

/** The clauses that conjunction actions give (other actions give none). */
function clausesOf(actions: readonly Action[]): { clause: number; of: number; id: number }[] {
  // A loop, not flatMap: a policy table's thousands of flows each fill this.
  const clauses: { clause: number; of: number; id: number }[] = [];
  for (const a of actions) if (a.kind === 'conjunction') clauses.push({ clause: a.clause, of: a.nClauses, id: a.id });
  return clauses;
}

/** Whether every action of the list is a conjunction. */
function allConjunctions(actions: readonly Action[]): boolean {
  for (let i = 0; i < actions.length; i++) if (actions[i]!.kind !== 'conjunction') return false;
  return true;
}

/** What every explanation of a flow the profile says nothing of holds (see UnknownExplanation). */
function unknownIn(table: TableInfo, profile: Profile): { kind: 'unknown'; table: string; profile: string } {
  return { kind: 'unknown', table: table.name ?? String(table.number), profile: profile.id };
}

/** Placeholders whose words come from the flow's actions alone (see `Annotator.placeholder`). */
const ACTION_PLACEHOLDERS = new Set(['next', 'output', 'group', 'conjunction', 'zone']);

function placeholderNames(meaning: string): string[] {
  return templateParts(meaning).flatMap((p) => ('run' in p ? p.run.map((ph) => ph.name) : []));
}

const next = new Map<string, boolean>();

/** Whether a pattern's sentence says the tables the packet continues in. */
function saysNext(meaning: string): boolean {
  let says = next.get(meaning);
  if (says === undefined) next.set(meaning, (says = placeholderNames(meaning).includes('next')));
  return says;
}

const actionsOnly = new Map<string, boolean>();

/** Whether a pattern's sentence reads nothing of a flow but its actions. */
function readsOnlyActions(meaning: string): boolean {
  let only = actionsOnly.get(meaning);
  if (only === undefined)
    actionsOnly.set(
      meaning,
      (only = placeholderNames(meaning).every((name) => ACTION_PLACEHOLDERS.has(name) || name.startsWith('set.'))),
    );
  return only;
}

/**
 * What is worked out of a value and mask of a field as a table of the profile uses them, kept by the
 * numbers themselves (hashing a bigint costs far less than writing it out): a dump repeats the same
 * register and mark values across thousands of flows.
 */
class ValueMemo<K, T> {
  private readonly byTable = new Map<TableSpec | undefined, Map<K, Map<bigint, Map<bigint, T>>>>();

  get(table: TableSpec | undefined, key: K, mask: bigint, value: bigint, make: () => T): T {
    let byKey = this.byTable.get(table);
    if (byKey === undefined) this.byTable.set(table, (byKey = new Map()));
    let byMask = byKey.get(key);
    if (byMask === undefined) byKey.set(key, (byMask = new Map()));
    let byValue = byMask.get(mask);
    if (byValue === undefined) byMask.set(mask, (byValue = new Map()));
    if (byValue.has(value)) return byValue.get(value) as T;
    const made = make();
    byValue.set(value, made);
    return made;
  }
}

export class Annotator {
  readonly profile: Profile | undefined;
  readonly release: string;
  readonly ports: PortRoles;
  readonly bits: BitFieldDecoder;
  readonly wording: Wording;
  /** What the dump shows of every flow's addresses: made when first asked, as it reads the whole dump. */
  private addressBook: AddressBook | undefined;
  private readonly pipeline: Pipeline;
  private readonly dumpNames: DumpTableNames;
  /**
   * What every flow of a table shares, and registers and marks decoded by value: a dump repeats
   * both across thousands of flows.
   */
  private readonly tableInfos = new Map<string, TableInfo>();
  private lastTable: { readonly ref: TableRef; readonly info: TableInfo } | undefined;
  private readonly wordings = new Map<TableSpec | undefined, Wording>();
  private readonly decodings = new ValueMemo<string, readonly DecodedBits[]>();
  /** Named state read as a table uses it (see stateReading), by the same numbers, of each field. */
  private readonly readings = new ValueMemo<FieldDef, StateReading | undefined>();
  private readonly nodesBySpan = new Map<BitSpan, Map<bigint, string>>();
  /**
   * The pattern each class of flows fits (see fit-classes.ts), made when first asked: most flows of
   * a dump are of a few kinds, and fitting one of a kind tells the pattern of all.
   */
  private patternHits:
    { readonly keyOf: (flow: Flow) => string; readonly hits: Map<string, ReturnType<typeof findPattern>> } | undefined;
  /** The explanations of patterns whose sentences read only the actions, by action list (the reader shares lists a dump repeats). */
  private readonly actionSentences = new WeakMap<readonly Action[], Map<FlowPattern, Explanation>>();
  /** The frame of each pattern's explanations of lists of several conjunctions (see ClausesExplanation). */
  private readonly clauseFrames = new Map<FlowPattern, PatternExplanation>();

  constructor(pipeline: Pipeline, options: AnnotateOptions = {}) {
    this.release = options.release ?? (options.profile ? defaultRelease(options.profile) : '9999');
    const tables = [...pipeline.tables.values()];
    // Counted per table: a million-flow dump is not walked flow by flow to learn how it names tables.
    const numberedBalance = tables.reduce(
      (n, t) => n + (t.ref.kind === 'number' ? t.flows.length : -t.flows.length),
      0,
    );
    this.pipeline = pipeline;
    // A named pipeline's numbered dump is read in the layout that fits it (detection may have chosen it already).
    const given = options.profile;
    const sample = samplePipeline(pipeline);
    this.profile =
      given && readsByNumbers(given, numberedBalance)
        ? (chooseLayout(given, sample, this.release)?.profile ?? given)
        : given && readsByNames(given, numberedBalance)
          ? numberNamedTables(
              given,
              namesOf(pipeline, sample),
              this.release,
              numberedReferences(given, sample, pipeline.groups.values(), this.release),
            )
          : given;
    this.dumpNames = new DumpTableNames(pipeline, (ref) => this.resolve(ref));
    this.ports = new PortRoles(this.profile, this.release, pipeline.ports, sample);
    this.bits = new BitFieldDecoder(
      this.profile,
      this.release,
      (n) => this.ports.reading(n),
      (n) => {
        const spec = this.resolve(tableNumber(n));
        return spec && this.profileTableWords(spec.name);
      },
      (span, value) => this.nodeOf(span, value),
    );
    this.wording = {
      table: (ref) => this.tableName(ref),
      profileTable: (key) => this.profileTableWords(key),
      port: (p) => this.ports.reading(typeof p === 'bigint' ? Number(p) : p),
      addressRole: (field, value, mask) => this.addresses.label(field, value, mask),
      bits: (field, value, mask) => this.stateReading(field, value, mask),
      states: (field, value, mask) => this.decode(field, value, mask, undefined),
      subfield: (sf) => {
        const b = this.bits.fieldsOf(sf.field).find((x) => x.start === sf.start && x.end === sf.start + sf.bits - 1);
        return b ? { subfield: sf, name: b.name } : { subfield: sf };
      },
      zone: (zone) => {
        const z = this.profile?.ctZones.find((c) => c.zone === zone && inVersion(c, this.release));
        return z ? { zone, name: z.name } : { zone };
      },
    };
  }

  /**
   * The Node a cookie span's value stands for: the tunnel address that the flows carrying that
   * value match (tun_src) or tunnel to (tun_dst). Worked out once per span, from the whole dump.
   */
  private nodeOf(span: BitSpan, value: bigint): string | undefined {
    let nodes = this.nodesBySpan.get(span);
    if (!nodes) {
      this.nodesBySpan.set(span, (nodes = new Map()));
      const mask = ones(span.end - span.start + 1);
      for (const flow of this.allFlows()) {
        const v = (flow.cookie >> BigInt(span.start)) & mask;
        if (v === 0n || nodes.has(v)) continue;
        const src = matchField(flow.match, 'tun_src');
        const dst = flattenActions(flow.actions).find((a) => a.kind === 'set_field' && a.field.name === 'tun_dst');
        const address = src
          ? formatFieldValue(src.field, src.value, src.mask)
          : dst?.kind === 'set_field'
            ? formatFieldValue(dst.field, dst.value, dst.mask)
            : undefined;
        if (address !== undefined) nodes.set(v, address);
      }
    }
    return nodes.get(value);
  }

  get addresses(): AddressBook {
    return (this.addressBook ??= new AddressBook(this.allFlows(), this.profile, this.release, this.ports));
  }

  /** The flows of every table, in match order. */
  private allFlows(): Flow[] {
    const all: Flow[] = [];
    for (const t of this.pipeline.tables.values()) append(all, t.flows);
    return all;
  }

  private resolve(ref: TableRef): TableSpec | undefined {
    return this.profile ? resolveTable(this.profile, ref, this.release) : undefined;
  }

  tableInfo(ref: TableRef): TableInfo {
    // Flow after flow is of the last one's table.
    if (ref === this.lastTable?.ref) return this.lastTable.info;
    const key = tableKey(ref);
    let info = this.tableInfos.get(key);
    if (info === undefined) this.tableInfos.set(key, (info = this.readTableInfo(ref)));
    this.lastTable = { ref, info };
    return info;
  }

  private readTableInfo(ref: TableRef): TableInfo {
    const spec = this.resolve(ref);
    // A name the release lacks may still be a table of the profile in another release, whose number says which table it is.
    const otherRelease = !spec && ref.kind === 'name' && this.profile ? tableByKey(this.profile, ref.name) : undefined;
    const number = ref.kind === 'number' ? ref.number : (spec ?? otherRelease)?.number;
    // A numbered flow's table takes the name the dump gives it elsewhere, as in every report.
    const name = ref.kind === 'name' ? ref.name : spec && this.profileTableWords(spec.name);
    return {
      ref,
      ...(number !== undefined ? { number } : {}),
      ...(name !== undefined ? { name } : {}),
      ...(spec && spec.name !== name ? { profileName: spec.name } : {}),
      ...(spec ? { purpose: spec.purpose, spec } : {}),
      ...(otherRelease ? { otherRelease } : {}),
    };
  }

  /**
   * The numbers of the tables the dump names (in its flows, their jumps and its groups), as the
   * profile knows them: for a `--names` dump with numbered groups, or a numbered dump with named
   * groups, so that both ways of writing a table reach the same one.
   */
  tableNumbering(): TableNumbering {
    const pairs: [number, string][] = [];
    for (const name of namesOf(this.pipeline, samplePipeline(this.pipeline))) {
      const n = this.tableInfo({ kind: 'name', name }).number;
      if (n !== undefined) pairs.push([n, name]);
    }
    return new TableNumbering(pairs);
  }

  /**
   * A table as every report names it: the dump's own name wherever the dump prints one, else
   * the profile's, else its number.
   */
  tableName(ref: TableRef): TableRef {
    if (ref.kind === 'name') return ref;
    const name = this.tableInfo(ref).name;
    return name === undefined ? ref : { kind: 'name', name };
  }

  /** The tables as reports name them, each once (in the order given). */
  tableNames(refs: readonly TableRef[]): TableRef[] {
    const named = new Map<string, TableRef>();
    for (const ref of refs) {
      const n = this.tableName(ref);
      if (!named.has(tableKey(n))) named.set(tableKey(n), n);
    }
    return [...named.values()];
  }

  /** A table of the profile, given by the profile's name for it, as the dump names it where it does. */
  private profileTableWords(key: TableKey): string {
    return this.dumpNames.of(key) ?? key;
  }

  /** The wording inside one table: shared register bits read as that table uses them. */
  private wordingIn(spec: TableSpec | undefined): Wording {
    let w = this.wordings.get(spec);
    if (w === undefined)
      this.wordings.set(
        spec,
        (w = spec
          ? {
              ...this.wording,
              bits: (field, value, mask) => this.stateReading(field, value, mask, spec),
              states: (field, value, mask) => this.decode(field, value, mask, spec),
            }
          : this.wording),
      );
    return w;
  }

  /** Named state in the bits, pieces that share bits grouped as alternatives, and the bits no piece covers. */
  private stateReading(field: FieldDef, value: bigint, mask: bigint, table?: TableSpec): StateReading | undefined {
    return this.readings.get(table, field, mask, value, () => this.readState(field, value, mask, table));
  }

  private readState(
    field: FieldDef,
    value: bigint,
    mask: bigint,
    table: TableSpec | undefined,
  ): StateReading | undefined {
    const decoded = this.decode(field, value, mask, table);
    if (decoded.length === 0) return undefined;
    const groups: DecodedBits[][] = [];
    for (const d of decoded) {
      const g = groups.find((x) => x.some((y) => y.start <= d.end && d.start <= y.end));
      if (g) g.push(d);
      else groups.push([d]);
    }
    const rest = this.bits.uncovered(field, mask);
    return { field, groups, ...(rest !== 0n ? { rest: { value: value & rest, mask: rest } } : {}) };
  }

  annotate(flow: Flow): FlowAnnotation {
    const table = this.tableInfo(flow.table);
    return new Annotation(
      this,
      flow,
      table,
      this.explain(flow, table),
      this.wordingIn(table.spec),
      this.bits.decodeCookie(flow.cookie),
    );
  }

  /** The state, addresses and ports of a flow (see `FlowAnnotation`). */
  uses(flow: Flow, table: TableInfo): Pick<FlowAnnotation, 'state' | 'addresses' | 'ports'> {
    return { state: this.stateUses(flow, table.spec), addresses: this.addressUses(flow), ports: this.portUses(flow) };
  }

  /**
   * What the profile says a flow does, when it says something, and the names of its table's
   * words for its actions (less than `annotate`, which also reads the state, addresses and ports).
   */
  describe(flow: Flow): {
    readonly explanation?: Exclude<Explanation, { kind: 'unknown' }>;
    readonly wording: Wording;
  } {
    const table = this.tableInfo(flow.table);
    const explanation = this.explain(flow, table);
    const wording = this.wordingIn(table.spec);
    return explanation && explanation.kind !== 'unknown' ? { explanation, wording } : { wording };
  }

  /**
   * Every table with its flows, only those `wanted` takes when given, to be annotated one by one
   * (a report of a large dump annotates each flow as it writes it, and keeps none).
   */
  selectTables(pipeline: Pipeline, wanted: Selection = {}): SelectedTable[] {
    return [...pipeline.tables.values()].map((t) => {
      const table = this.tableInfo(t.ref);
      const flows = wanted.table && !wanted.table(table) ? [] : wanted.flow ? t.flows.filter(wanted.flow) : t.flows;
      return { table, flows };
    });
  }

  /** What the profile says of the flow alone (its pattern, its table's miss, or why it says nothing), as `annotate` says it. */
  explanationOf(flow: Flow): Explanation | undefined {
    return this.explain(flow, this.tableInfo(flow.table));
  }

  /** Every table of the pipeline with its flows annotated, in pipeline order. */
  annotatePipeline(pipeline: Pipeline): AnnotatedTable[] {
    return this.selectTables(pipeline).map((t) => ({ table: t.table, flows: t.flows.map((f) => this.annotate(f)) }));
  }

  private explain(flow: Flow, table: TableInfo): Explanation | undefined {
    const profile = this.profile;
    if (!profile || profile.tables.length === 0) return undefined;
    if (table.otherRelease) return { ...unknownIn(table, profile), why: 'other-release', releases: table.otherRelease };
    if (!table.spec) return { ...unknownIn(table, profile), why: 'no-table' };
    if (isTableMiss(flow)) {
      const documented = table.spec.miss;
      return {
        kind: 'miss',
        table: this.profileTableWords(table.spec.name),
        documented,
        differs: this.missDiffers(documented, flow),
        actions: flow.actions,
        wording: this.wordingIn(table.spec),
        continuesIn: this.missContinuesIn(documented, flow),
      };
    }
    const hit = this.patternOf(profile, table.spec, flow);
    if (!hit) return { ...unknownIn(table, profile), why: 'no-pattern' };
    const readsActions = readsOnlyActions(hit.pattern.meaning);
    // A list of several conjunctions is most often one flow's own: its explanation is its pattern's
    // frame and its clauses, and no more is made for it.
    if (readsActions && severalConjunctions(flow.actions) && allConjunctions(flow.actions))
      return new ClausesExplanation(this.clauseFrame(hit, flow, table.spec), flow.actions);
    // A sentence that reads nothing of the match says the same of every flow with the same actions.
    // Not kept for a list of several conjunctions, most often one flow's own.
    const shared = readsActions && !severalConjunctions(flow.actions);
    let said = shared ? this.actionSentences.get(flow.actions)?.get(hit.pattern) : undefined;
    if (said === undefined) {
      said = {
        kind: 'pattern',
        index: hit.index,
        match: hit.pattern.match,
        template: hit.pattern.meaning,
        fills: this.fills(hit.pattern, flow, table.spec),
        continuesIn: saysNext(hit.pattern.meaning) ? jumpTargets(flow.actions) : [],
      };
      if (shared) {
        let byPattern = this.actionSentences.get(flow.actions);
        if (!byPattern) this.actionSentences.set(flow.actions, (byPattern = new Map()));
        byPattern.set(hit.pattern, said);
      }
    }
    return said;
  }

  /**
   * The explanation by the pattern of `hit` of any flow whose actions are conjunctions alone, but
   * for its clauses (none): a sentence that reads only the actions says all else alike of each.
   */
  private clauseFrame(
    hit: NonNullable<ReturnType<typeof findPattern>>,
    flow: Flow,
    spec: TableSpec,
  ): PatternExplanation {
    let frame = this.clauseFrames.get(hit.pattern);
    if (frame === undefined || frame.index !== hit.index) {
      const fills = this.fills(hit.pattern, flow, spec);
      if (fills.has('conjunction')) fills.set('conjunction', { kind: 'clauses', clauses: [] });
      frame = {
        kind: 'pattern',
        index: hit.index,
        match: hit.pattern.match,
        template: hit.pattern.meaning,
        fills,
        continuesIn: [],
      };
      this.clauseFrames.set(hit.pattern, frame);
    }
    return frame;
  }

  /** The first pattern of the flow's table that it fits, found once per class of flows. */
  private patternOf(profile: Profile, spec: TableSpec, flow: Flow): ReturnType<typeof findPattern> {
    this.patternHits ??= { keyOf: classKeyer(profile), hits: new Map() };
    const key = this.patternHits.keyOf(flow);
    const { hits } = this.patternHits;
    // One lookup for most flows: a class that fits no pattern holds undefined.
    const known = hits.get(key);
    if (known !== undefined || hits.has(key)) return known;
    const hit = findPattern(profile, spec, flow, this.release);
    hits.set(key, hit);
    return hit;
  }

  /**
   * The tables a miss sentence says the packet continues in: the documented one where the flow
   * goes there, else those the flow's actions (which the sentence then tells) go to.
   */
  private missContinuesIn(miss: TableMiss, flow: Flow): readonly TableRef[] {
    const targets = jumpTargets(flow.actions);
    if (this.missDiffers(miss, flow)) return targets;
    switch (miss.action) {
      case 'goto':
        return targets.filter((t) => this.tableInfo(t).spec?.name === miss.table);
      case 'next':
      case 'none':
        return targets;
      default:
        return [];
    }
  }

  /**
   * Whether a table's miss flow (or its absence) does something else than the profile's fixed
   * miss behaviour: drop, goto, the next table, NORMAL or the controller.
   */
  missDiffers(miss: TableMiss, flow: Flow | undefined): boolean {
    const actions = flow?.actions ?? [];
    const only = actions.length === 1 ? actions[0] : undefined;
    switch (miss.action) {
      case 'drop':
        // Without a miss flow OpenFlow 1.3+ switches drop as well.
        return actions.length > 0;
      case 'goto':
        return !jumpTargets(actions).some((t) => this.tableInfo(t).spec?.name === miss.table);
      case 'next':
        return jumpTargets(actions).length === 0;
      case 'normal':
        return !(only?.kind === 'output' && only.port.kind === 'reserved' && only.port.name === 'NORMAL');
      case 'controller':
        return !actions.some(
          (a) =>
            a.kind === 'controller' ||
            (a.kind === 'output' && a.port.kind === 'reserved' && a.port.name === 'CONTROLLER'),
        );
      default:
        return false;
    }
  }

  /** What each placeholder of the pattern's sentence stands for in the flow (see `FlowPattern.meaning`). */
  private fills(pattern: FlowPattern, flow: Flow, spec: TableSpec): Map<string, PlaceholderValue> {
    const out = new Map<string, PlaceholderValue>();
    let all: readonly Action[] | undefined;
    for (const part of templateParts(pattern.meaning))
      if ('run' in part)
        for (const ph of part.run)
          if (!out.has(ph.name))
            out.set(ph.name, this.placeholder(ph.name, flow, (all ??= flattenActions(flow.actions)), spec));
    return out;
  }

  /** What placeholder `ph` stands for in the flow, whose actions, nested ones included, are `all`. */
  private placeholder(ph: string, flow: Flow, all: readonly Action[], spec: TableSpec): PlaceholderValue {
    const text = (t: string): PlaceholderValue => ({ kind: 'text', text: t });
    if (ph.startsWith('reg.')) return this.bitFieldValue(ph.slice(4), flow, all) ?? text('');
    if (ph.startsWith('set.')) {
      const f = fieldByName(ph.slice(4));
      const write = all.find(
        (a): a is Extract<Action, { kind: 'set_field' }> => a.kind === 'set_field' && a.field.storage === f?.storage,
      );
      return text(write ? formatFieldValue(write.field, write.value, write.mask) : '');
    }
    switch (ph) {
      case 'next':
        return { kind: 'tables', tables: this.tableNames(jumpTargets(flow.actions)) };
      case 'output':
        return {
          kind: 'outputs',
          ports: all.flatMap((a): OutputTarget[] =>
            a.kind === 'output'
              ? [this.outputTarget(a.port)]
              : a.kind === 'output_field'
                ? [{ kind: 'subfield', subfield: this.wording.subfield(a.src) }]
                : [],
          ),
        };
      case 'group':
        return { kind: 'groups', ids: all.flatMap((a) => (a.kind === 'group' ? [a.id] : [])) };
      case 'conj_id':
        return text(matchField(flow.match, 'conj_id')?.value.toString() ?? '');
      case 'conjunction':
        return { kind: 'clauses', clauses: clausesOf(all) };
      case 'zone': {
        // A ct action without zone= works in zone 0, the default zone.
        const zone = all.find((a): a is Extract<Action, { kind: 'ct' }> => a.kind === 'ct')?.zone;
        if (zone === undefined) return { kind: 'zone' };
        return zone.kind === 'value'
          ? { kind: 'zone', zone: zone.value }
          : { kind: 'zone', subfield: this.wording.subfield(zone.src) };
      }
      case 'priority':
        return text(String(flow.priority));
      case 'table':
        return text(this.profileTableWords(spec.name));
    }
    const e = matchField(flow.match, ph);
    if (!e) return text('');
    if (e.field.format === 'port')
      return { kind: 'port', port: this.ports.reading(e.port?.kind === 'name' ? e.port : Number(e.value)) };
    return text(formatFieldValue(e.field, e.value, e.mask));
  }

  private outputTarget(port: PortRef): OutputTarget {
    if (port.kind === 'reserved' && port.name === 'IN_PORT') return { kind: 'in-port' };
    return { kind: 'port', port: this.ports.reading(port) };
  }

  /** A named bit field's value from the match, else from what the actions write into it. */
  private bitFieldValue(name: string, flow: Flow, all: readonly Action[]): PlaceholderValue | undefined {
    const b = this.bits.byName(name);
    const field = b && fieldByName(b.field);
    if (!b || !field) return undefined;
    const span = ones(b.end - b.start + 1) << BigInt(b.start);
    const read = (value: bigint): PlaceholderValue => {
      const v = (value & span) >> BigInt(b.start);
      // Inside a sentence a port reads best by its name alone.
      return b.format === 'port'
        ? { kind: 'text', text: this.ports.identify(Number(v)).name ?? String(v) }
        : { kind: 'bits', value: this.bits.reading(b, v) };
    };
    const e = flow.match.fields.find((x) => x.field.storage === field.storage && (x.mask & span) === span);
    if (e) return read(e.value);
    for (const a of all) {
      if (a.kind === 'set_field' && a.field.storage === field.storage && (a.mask & span) === span) return read(a.value);
    }
    return undefined;
  }

  private stateUses(flow: Flow, table: TableSpec | undefined): StateUse[] {
    const out: StateUse[] = [];
    for (const e of flow.match.fields)
      for (const bits of this.decode(e.field, e.value, e.mask, table)) out.push({ use: 'match', bits });
    for (const a of flattenActions(flow.actions)) {
      if (a.kind === 'set_field')
        for (const bits of this.decode(a.field, a.value, a.mask, table)) out.push({ use: 'write', bits });
    }
    return out;
  }

  /** The profile's named state in a field's bits, as `table` uses them: decoded once per value. */
  private decode(field: FieldDef, value: bigint, mask: bigint, table: TableSpec | undefined): readonly DecodedBits[] {
    return this.decodings.get(table, field.storage, mask, value, () => this.bits.decode(field, value, mask, table));
  }

  private addressUses(flow: Flow): AddressUse[] {
    const out: AddressUse[] = [];
    for (const e of flow.match.fields) {
      const tag = this.addresses.tag(e.field, e.value, e.mask);
      if (tag) out.push({ use: 'match', field: e.field.name, ...tag });
    }
    for (const a of flattenActions(flow.actions)) {
      if (a.kind !== 'set_field') continue;
      const tag = this.addresses.tag(a.field, a.value, a.mask);
      if (tag) out.push({ use: 'write', field: a.field.name, ...tag });
    }
    return out;
  }

  private portUses(flow: Flow): PortUse[] {
    const out: PortUse[] = [];
    const inPort = matchField(flow.match, 'in_port');
    if (inPort)
      out.push({
        use: 'match',
        port: {
          kind: 'port',
          port: this.ports.reading(inPort.port?.kind === 'name' ? inPort.port : Number(inPort.value)),
        },
      });
    // Every port the flow may send to: an output's or enqueue's, and each port a bundle picks from.
    for (const a of flattenActions(flow.actions))
      for (const p of sentPorts(a)) out.push({ use: 'output', port: this.outputTarget(p) });
    return out;
  }
}
