/**
 * Annotated dumps as text (grouped by table, one explanation per flow) and as JSON
 * (schemaVersion 1, described in flowscope(1)). Colour comes in through a `ShowStyle`. Both are
 * made piece by piece, each flow annotated as it is written: a dump of a million flows makes a
 * report larger than a string can hold, and its annotations would not fit in memory at once.
 */
import type {
  Explanation,
  FlowAnnotation,
  SelectedTable,
  Selection,
  TableInfo,
} from '../analysis/annotate/annotate.ts';
import type { AnnotatedPipeline, ProfileNote } from '../analysis/detect/profile-choice.ts';
import { detectionReasonText, profileNoteJson, releaseWords } from './words/profile.ts';
import type { DecodedBits } from '../analysis/annotate/bit-fields.ts';
import { formatActions } from './actions.ts';
import { LazyList, SCHEMA_VERSION } from './json.ts';
import { formatMatch } from './match.ts';
import type { Flow } from '../model/flow.ts';
import { plural } from './plural.ts';
import { plainStyle, type Style } from './style.ts';
import { flowWords, WordsMemo } from './words/flow.ts';
import { explanationJson, explanationText, outputTargetText } from './words/explanation.ts';
import { addressTagJson } from './words/address.ts';
import { bitsWords } from './words/bits.ts';

export type ShowStyle = Style<'table' | 'meaning' | 'unknown' | 'dim'>;

export const PLAIN_SHOW: ShowStyle = plainStyle('table', 'meaning', 'unknown', 'dim');

export interface ShowReport {
  readonly profile?: ProfileNote;
  readonly tables: readonly SelectedTable[];
  /** Annotates one flow of the tables, as it is written. */
  readonly annotate: (flow: Flow) => FlowAnnotation;
  /** Flows in the dump before filtering. */
  readonly totalFlows: number;
  /** Tables in the dump before filtering. */
  readonly totalTables?: number;
  /** The NetworkPolicy rules behind the conjunctions a flow takes part in (`conjunction 6 = ingress rule 1 of …`), where policy objects say. */
  readonly policyRules?: (flow: Flow) => readonly string[];
}

/** The flows of a pipeline read by its profile that `selection` takes (every flow by default), for showText or showJson. */
export function showReport(
  read: AnnotatedPipeline,
  selection: Selection = {},
  policyRules?: (flow: Flow) => readonly string[],
): ShowReport {
  const { pipeline, annotator, profile } = read;
  const report = {
    profile,
    tables: annotator.selectTables(pipeline, selection),
    annotate: (f: Flow) => annotator.annotate(f),
    totalFlows: pipeline.flowCount,
    totalTables: pipeline.tables.size,
  };
  return policyRules ? { ...report, policyRules } : report;
}

export interface ShowTextOptions {
  /** Keep each flow's original line beside its explanation. */
  readonly raw: boolean;
  /** List every reason the profile was detected for, under its line. */
  readonly explainProfile?: boolean;
  readonly style: ShowStyle;
}

/**
 * `profile antrea-v1 (release 0.13), detected: …`; with the number of tables it was detected
 * from, `detected from 19 tables: …`.
 */
export function profileLine(p: ProfileNote, tables?: number): string {
  const how =
    p.source === 'option'
      ? 'given with --profile'
      : p.source === 'file'
        ? 'given as a profile file'
        : tables === undefined
          ? 'detected'
          : `detected from ${plural(tables, 'table')}`;
  const release = releaseWords(p);
  return `profile ${p.id}${release ? ` (${release})` : ''}, ${how}: ${p.title}`;
}

/** The profile line, and under it every reason the profile was chosen for when `explain` (--explain-profile, -v). */
export function profileHead(p: ProfileNote, tables: number | undefined, explain: boolean): string[] {
  return [profileLine(p, tables), ...(explain ? p.reasons.map((why) => `  - ${detectionReasonText(why)}`) : [])];
}

/** `table 31 ConntrackStateTable`, `table Classifier`. */
export function tableHeading(t: TableInfo): string {
  if (t.number !== undefined && t.name !== undefined) return `table ${t.number} ${t.name}`;
  return `table ${t.number ?? t.name ?? '?'}`;
}

const NO_RULES: readonly string[] = [];

function cookieWords(parts: readonly DecodedBits[]): string {
  return parts.map(bitsWords).join(', ');
}

/**
 * Lines said during one text report that many flows share: a dump's flows have few cookies and
 * priorities, and flow after flow of a policy table has the last one's priority, cookie and
 * explanation (comparing them costs less than looking them up).
 */
class LinesMemo {
  readonly words = new WordsMemo();
  /** The cookie line, styled, by cookie. */
  private readonly cookies = new Map<bigint, string>();
  private lastCookie: { readonly cookie: bigint; readonly line: string } | undefined;
  private lastPriority = -1;
  /** A line end and the head of a flow of the last priority (`  [200] `), and the line end and indent of its further lines. */
  private head = '';
  private indent = '';
  // The last explanation and its text in fields of their own: a policy table's flows change it
  // thousands of times, and an object for each would be a few stores more.
  private lastExplanation: Explanation | undefined = undefined;
  private lastExplanationText = '';
  private readonly style: ShowStyle;

  constructor(style: ShowStyle) {
    this.style = style;
  }

  /** The head of a flow's first line, led by a line end. */
  headOf(priority: number): string {
    if (priority !== this.lastPriority) this.at(priority);
    return this.head;
  }

  /** The line end and indent before each further line of a flow of `priority`. */
  indentOf(priority: number): string {
    if (priority !== this.lastPriority) this.at(priority);
    return this.indent;
  }

  private at(priority: number): void {
    const head = `  [${priority}] `;
    this.lastPriority = priority;
    this.head = `\n${head}`;
    this.indent = `\n${' '.repeat(head.length)}`;
  }

  /** The explanation's sentence, styled. */
  explanation(e: Explanation): string {
    if (e === this.lastExplanation) return this.lastExplanationText;
    const s = this.style;
    const text = e.kind === 'unknown' ? s.unknown(`? ${explanationText(e)}`) : s.meaning(explanationText(e));
    this.lastExplanation = e;
    this.lastExplanationText = text;
    return text;
  }

  /** The flow's cookie line, styled. */
  cookieLine(a: FlowAnnotation): string {
    const { cookie } = a.flow;
    const last = this.lastCookie;
    if (last !== undefined && last.cookie === cookie) return last.line;
    let line = this.cookies.get(cookie);
    if (line === undefined)
      this.cookies.set(cookie, (line = this.style.dim(`cookie 0x${cookie.toString(16)}: ${cookieWords(a.cookie)}`)));
    this.lastCookie = { cookie, line };
    return line;
  }
}

/** A flow's lines, joined and led by a line end: its explanation, its sentence, its rules, cookie, hits and line as asked. */
function flowText(a: FlowAnnotation, o: ShowTextOptions, rules: readonly string[], memo: LinesMemo): string {
  const s = o.style;
  const { flow } = a;
  const { priority } = flow;
  const pad = memo.indentOf(priority);
  const e = a.explanation;
  const sentence = memo.words.sentence(flow, a.wording);
  let text =
    e === undefined ? memo.headOf(priority) + sentence : memo.headOf(priority) + memo.explanation(e) + pad + sentence;
  for (let i = 0; i < rules.length; i++) text += pad + s.meaning(rules[i]!);
  if (a.cookie.length > 0) text += pad + memo.cookieLine(a);
  // A flow whose counters print as 0 is not hit: its statistics need not be read.
  const packets = flow.zeroCounters === true ? undefined : flow.stats?.packets;
  if (packets !== undefined && packets !== null && packets > 0n)
    text +=
      pad +
      s.dim(
        `hit by ${plural(packets, 'packet')} (${flow.stats?.bytes === undefined || flow.stats.bytes === null ? '? bytes' : plural(flow.stats.bytes, 'byte')})`,
      );
  if (o.raw) text += pad + s.dim(flow.origin.text.trim());
  return text;
}

/**
 * What follows a table's heading: the profile's name for the table, said here once where the
 * dump calls it otherwise, and what the table is for.
 */
function tableDescription(t: TableInfo): string {
  const profileName = t.profileName === undefined ? '' : ` (the profile's ${t.profileName})`;
  return `${profileName}${t.purpose ? ` — ${t.purpose}` : ''}`;
}

/** The text report, a piece (a line, or a flow's lines) at a time. */
export function* showText(r: ShowReport, o: ShowTextOptions): Generator<string> {
  const s = o.style;
  if (r.profile) {
    yield profileHead(r.profile, r.totalTables, o.explainProfile ?? false)
      .map((line) => s.dim(line))
      .join('\n');
  } else yield s.dim('no profile: flows are described generically');
  let shown = 0;
  let unknown = 0;
  const memo = new LinesMemo(s);
  const { policyRules } = r;
  // Indexed: a report of one short run steps these loops in the interpreter, where an iterator
  // makes a result object per flow.
  for (let i = 0; i < r.tables.length; i++) {
    const t = r.tables[i]!;
    if (t.flows.length === 0) continue;
    yield `\n\n${s.table(tableHeading(t.table))}${tableDescription(t.table)}`;
    const { flows } = t;
    for (let j = 0; j < flows.length; j++) {
      const f = flows[j]!;
      const a = r.annotate(f);
      if (a.explanation?.kind === 'unknown') unknown++;
      yield flowText(a, o, policyRules === undefined ? NO_RULES : policyRules(f), memo);
    }
    shown += t.flows.length;
  }
  yield `\n\n${s.dim(`${shown} of ${plural(r.totalFlows, 'flow')} shown${unknown > 0 ? `, ${unknown} not explained by the profile` : ''}`)}`;
}

function bitsJson(b: DecodedBits): Record<string, unknown> {
  return {
    name: b.name,
    field: b.field,
    bits: b.start === b.end ? String(b.start) : `${b.start}..${b.end}`,
    value: `0x${b.value.toString(16)}`,
    ...(b.valueName !== undefined ? { valueName: b.valueName } : {}),
    ...(b.partial ? { partial: true } : {}),
    text: bitsWords(b),
  };
}

function tableJson(t: TableInfo): Record<string, unknown> {
  return {
    number: t.number ?? null,
    name: t.name ?? null,
    profileName: t.profileName ?? null,
    purpose: t.purpose ?? null,
  };
}

function flowAnnotationJson(a: FlowAnnotation, rules: readonly string[], memo: WordsMemo): Record<string, unknown> {
  const f = a.flow;
  const words = flowWords(f, a.wording, memo);
  return {
    table: tableJson(a.table),
    priority: f.priority,
    cookie: `0x${f.cookie.toString(16)}`,
    match: formatMatch(f.match),
    actions: formatActions(f.actions, { of: 15 }),
    ...(f.stats?.packets !== undefined ? { packets: f.stats.packets } : {}),
    ...(f.stats?.bytes !== undefined ? { bytes: f.stats.bytes } : {}),
    explanation: a.explanation ? explanationJson(a.explanation) : null,
    sentence: words.sentence,
    conditions: words.conditions,
    does: words.actions,
    state: a.state.map((u) => ({ use: u.use, ...bitsJson(u.bits) })),
    addresses: a.addresses.map((u) => ({ use: u.use, field: u.field, ...addressTagJson(u) })),
    ports: a.ports.map((p) => ({ use: p.use, port: outputTargetText(p.port) })),
    cookieFields: a.cookie.map(bitsJson),
    ...(rules.length > 0 ? { policyRules: rules } : {}),
    source: { file: f.origin.file, line: f.origin.line, text: f.origin.text.trim() },
  };
}

export function showJson(r: ShowReport): Record<string, unknown> {
  const flows = r.tables.flatMap((t) => t.flows);
  const memo = new WordsMemo();
  return {
    schemaVersion: SCHEMA_VERSION,
    profile: r.profile ? { ...profileNoteJson(r.profile), release: r.profile.release ?? null } : null,
    totalFlows: r.totalFlows,
    shownFlows: flows.length,
    // Annotated as written.
    flows: new LazyList(flows, (f: Flow) => flowAnnotationJson(r.annotate(f), r.policyRules?.(f) ?? [], memo)),
  };
}
