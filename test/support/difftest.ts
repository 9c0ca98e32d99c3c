/**
 * The randomized differential trace test: generated pipelines loaded into a real Open vSwitch,
 * each probe traced by `ofproto/trace` and by flowscope from the switch's own dumps, and the two
 * compared on four figures: the path (tables and matched priorities, pass by pass), the verdict
 * (with the reason a translation failed), the output ports in order, and the final packet of
 * every pass. Used by the test suite (a fixed seed) and by `npm run difftest` (any size).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pipeline } from '../../src/model/pipeline.ts';
import { parseDump } from '../../src/syntax/reader.ts';
import {
  INNER_VLAN,
  MPLS_LSES_BELOW,
  type Packet,
  PacketSpecError,
  slotField,
} from '../../src/analysis/trace/packet.ts';
import { type TraceResult, Tracer } from '../../src/analysis/trace/trace.ts';
import { XLATE_ERRORS } from '../../src/render/words/trace-notes.ts';
import { packetSpecProblemText } from '../../src/render/words/packet-spec.ts';
import { formatTrace } from '../../src/render/trace.ts';
import { parseCtNext } from '../../src/cli/commands/trace.ts';
import { type OfprotoTrace, parseOfprotoTrace } from './ofproto-trace.ts';
import { DOWN_PORT, GEN_PORTS, type GeneratedPipeline, generatePipeline, type Probe } from './pipeline-gen.ts';
import { OvsSwitch } from './ovs.ts';

export const FIGURES = ['path', 'verdict', 'outputs', 'final'] as const;
export type Figure = (typeof FIGURES)[number];

export interface Disagreement {
  readonly pipeline: GeneratedPipeline;
  readonly probe: Probe;
  readonly figures: readonly Figure[];
  /** One line per differing figure: what each side said. */
  readonly summary: readonly string[];
  readonly ovsText: string;
  readonly flowscopeText: string;
}

export interface DiffReport {
  /** Probes both sides traced and that were compared. */
  readonly compared: number;
  readonly agree: Readonly<Record<Figure, number>>;
  /** Probes left out, by reason (a packet OVS refuses, a crash of OVS). */
  readonly skipped: ReadonlyMap<string, number>;
  /** Flows or groups the switch refused, which the pipeline then lacks. */
  readonly refused: number;
  readonly pipelines: number;
  readonly disagreements: readonly Disagreement[];
}

export interface DiffOptions {
  readonly seed: number;
  readonly packets: number;
  /** Probes per generated pipeline. */
  readonly perPipeline?: number;
  /**
   * Only the pipelines whose number is `index` modulo `count`: shards of one run, which together
   * trace exactly the packets of the whole run (each pipeline has its own seed).
   */
  readonly shard?: { readonly index: number; readonly count: number };
  readonly onPipeline?: (done: number, report: DiffReport) => void;
}

const PORTS = GEN_PORTS.map((n) => ({ name: `p${n}`, ofport: n }));
/** The bridge's ports as FLOOD and ALL see them: the generated ones and LOCAL. */
const BRIDGE_PORTS = [...GEN_PORTS, 0xfffe];

async function startSwitch(): Promise<OvsSwitch> {
  const sw = await OvsSwitch.start({ ports: PORTS });
  await sw.ofctl(['mod-port', sw.bridge, `p${DOWN_PORT}`, 'down']);
  return sw;
}

/**
 * Loads lines with an ovs-ofctl command, dropping any the switch refuses (ovs-ofctl names the
 * file line of a refusal; without one, lines are loaded one by one). Returns how many it dropped.
 */
async function loadLines(lines: readonly string[], add: (text: string) => Promise<void>): Promise<number> {
  let left = [...lines];
  let refused = 0;
  for (let attempt = 0; attempt < 50 && left.length > 0; attempt++) {
    try {
      await add(left.join('\n') + '\n');
      return refused;
    } catch (err) {
      const line = /\.in:(\d+):/.exec(String(err))?.[1];
      if (line === undefined) break;
      left = left.filter((_, i) => i !== Number(line) - 1);
      refused++;
    }
  }
  if (left.length === 0) return refused;
  for (const l of left) {
    try {
      await add(l + '\n');
    } catch {
      refused++;
    }
  }
  return refused;
}

async function load(sw: OvsSwitch, p: GeneratedPipeline): Promise<{ tracer: Tracer; refused: number }> {
  await sw.deleteFlows(13);
  await sw.deleteGroups(15);
  let refused = await loadLines(p.groups, (t) => sw.addGroups(t, 15));
  refused += await loadLines(p.flows, (t) => sw.addFlows(t, 13));
  const text = [await sw.dumpFlows({ of: 15 }), await sw.dumpGroups({ of: 15 }), await sw.show(13)].join('\n');
  const dump = parseDump(text, { file: 'switch' });
  if (dump.badLines > 0)
    throw new Error(`flowscope cannot read the switch's dump:\n${dump.diagnostics.map((d) => d.message).join('\n')}`);
  return { tracer: new Tracer(new Pipeline(dump.flows, dump.groups, dump.ports)), refused };
}

const stepsText = (steps: readonly { table: number | string; priority: number | null | undefined }[]): string =>
  steps.map((s) => `${s.table}:${s.priority ?? 'miss'}`).join(' ');

function oursPath(r: TraceResult): string[] {
  return r.passes.map((p) =>
    stepsText(
      p.steps.map((s) => ({
        table: s.table.kind === 'number' ? s.table.number : s.table.name,
        priority: s.flow?.priority,
      })),
    ),
  );
}

function oursVerdict(r: TraceResult): string {
  const failed = r.problems.find((p) => p.kind === 'translation-failed');
  return failed ? `${r.verdict} (${XLATE_ERRORS[failed.limit]})` : r.verdict;
}

/** The fields where two packets differ, `field: ovs ≠ flowscope`. */
function packetDiff(ovs: Packet, ours: Packet): string {
  const slots = new Set([...ovs.entries().map(([k]) => k), ...ours.entries().map(([k]) => k)]);
  const out: string[] = [];
  for (const s of slots) {
    if (ovs.slot(s) !== ours.slot(s))
      out.push(`${slotField(s)?.name ?? s}: 0x${ovs.slot(s).toString(16)} ≠ 0x${ours.slot(s).toString(16)}`);
  }
  return out.join(', ');
}

/**
 * OVS's flow text as flowscope reads packets, and what no field names, which flowscope's packet
 * holds apart: the TCI of a second VLAN tag and the MPLS label stack entries under the top one.
 * The zero link-layer addresses OVS prints for every neighbour discovery packet are dropped.
 */
function ovsFlowText(text: string): { text: string; innerVlan: bigint; lses: Map<string, bigint> } {
  const lses = new Map<string, bigint>();
  for (const slot of MPLS_LSES_BELOW) {
    const lse = new RegExp(`,${slot}=(\\d+)(?=,|$)`).exec(text);
    if (lse) lses.set(slot, BigInt(lse[1]!));
  }
  let innerVlan = 0n;
  const tag = /,vlan_tci1=(0x[0-9a-f]+)(?=,|$)/.exec(text);
  if (tag) innerVlan = BigInt(tag[1]!);
  const vid = /,dl_vlan1=(\d+)(?=,|$)/.exec(text);
  const pcp = /,dl_vlan_pcp1=(\d+)(?=,|$)/.exec(text);
  // dl_vlan1 and dl_vlan_pcp1 are how OVS prints a present tag: VID 0 and PCP 0 included.
  if (vid || pcp) innerVlan = 0x1000n | BigInt(vid?.[1] ?? 0) | (BigInt(pcp?.[1] ?? 0) << 13n);
  const cleaned = text.replace(
    /,(?:vlan_tci1=0x[0-9a-f]+|dl_vlan1=\d+|dl_vlan_pcp1=\d+|mpls_lse[12]=\d+|nd_sll=00:00:00:00:00:00|nd_tll=00:00:00:00:00:00)(?=,|$)/g,
    '',
  );
  return { text: cleaned, innerVlan, lses };
}

/** A fragment after the first: OVS's flow text leaves out its transport fields, which it still holds. */
const LATER_FRAGMENT = /\bnw_frag=later\b/;

/** Compares one probe; undefined figures mean agreement. */
function compare(tracer: Tracer, ovs: OfprotoTrace, ours: TraceResult): { figures: Figure[]; summary: string[] } {
  const figures: Figure[] = [];
  const summary: string[] = [];
  const ovsPath = ovs.passes.map((p) => stepsText(p.steps));
  const path = oursPath(ours);
  if (JSON.stringify(ovsPath) !== JSON.stringify(path)) {
    figures.push('path');
    summary.push(`path: ovs ${ovsPath.join(' | ')}; flowscope ${path.join(' | ')}`);
  }
  const ovsVerdict = ovs.failure ? `${ovs.verdict} (${ovs.failure})` : ovs.verdict;
  if (ovsVerdict !== oursVerdict(ours)) {
    figures.push('verdict');
    summary.push(`verdict: ovs ${ovsVerdict}; flowscope ${oursVerdict(ours)}`);
  }
  // As sets with repetitions: OVS floods in the order of its hash table of ports.
  const sorted = (xs: readonly (number | string)[]): string => JSON.stringify(xs.map(String).sort());
  if (sorted(ovs.outputs) !== sorted(ours.outputs)) {
    figures.push('outputs');
    summary.push(`outputs: ovs ${ovs.outputs.join(',') || 'none'}; flowscope ${ours.outputs.join(',') || 'none'}`);
  }
  const finals: string[] = [];
  if (ovs.passes.length !== ours.passes.length)
    finals.push(`${ovs.passes.length} passes against ${ours.passes.length}`);
  else {
    // The switch numbers recirculations from ids other traces left: pass by pass, its id is ours.
    const recircIds = new Map<bigint, bigint>();
    ovs.passes.forEach((p, i) => {
      const id = /\brecirc_id=(0x[0-9a-f]+)/.exec(p.flow ?? '')?.[1];
      if (i > 0 && id !== undefined) recircIds.set(BigInt(id), BigInt(ours.passes[i]!.recircId));
    });
    ovs.passes.forEach((p, i) => {
      if (p.final === undefined) return;
      let theirs: Packet;
      const mine = ours.passes[i]!.final;
      try {
        const { text, innerVlan, lses } = ovsFlowText(p.final);
        theirs = tracer.parsePacket(text);
        theirs.setSlot(INNER_VLAN, innerVlan);
        for (const [slot, lse] of lses) theirs.setSlot(slot, lse);
        // set_queue's skb_priority is the datapath's number for the queue (the dummy datapath's
        // is not the kernel's), which a dump does not tell: flowscope leaves it alone.
        theirs.setSlot('skb_priority', mine.slot('skb_priority'));
        const recirc = recircIds.get(theirs.slot('recirc_id'));
        if (recirc !== undefined) theirs.setSlot('recirc_id', recirc);
        // OVS's flow text leaves tun_id out (its megaflow shows it): take it as equal.
        if (!/\btun_id=/.test(p.final)) theirs.setSlot('tun_id', mine.slot('tun_id'));
        if (LATER_FRAGMENT.test(p.final))
          for (const slot of ['tp_src', 'tp_dst']) theirs.setSlot(slot, mine.slot(slot));
      } catch (err) {
        finals.push(
          `pass ${i}: flowscope cannot read OVS's final flow (${err instanceof PacketSpecError ? packetSpecProblemText(err.problem) : String(err)})`,
        );
        return;
      }
      if (!theirs.equals(mine)) finals.push(`pass ${i}: ${packetDiff(theirs, mine)}`);
    });
  }
  if (finals.length > 0) {
    figures.push('final');
    summary.push(`final (ovs ≠ flowscope): ${finals.join('; ')}`);
  }
  return { figures, summary };
}

/** A problem that ends a trace at one of flowscope's own bounds, past which OVS goes on. */
const BEYOND_FLOWSCOPE = (r: TraceResult): boolean =>
  r.problems.some((p) => p.kind === 'trace-cut' && (p.limit === 'steps' || p.limit === 'nesting'));

const ovsGone = (err: unknown): boolean =>
  /ovs-vswitchd\.ctl|Connection refused|No such file|connection dropped|exit 1\b/.test(String(err)) &&
  !/Bad openflow flow syntax|prerequisites not met/.test(String(err));

/** Runs the differential test; starts and stops its own switch (restarted if OVS crashes). */
export async function runDifferential(options: DiffOptions): Promise<DiffReport> {
  const perPipeline = options.perPipeline ?? 20;
  const agree: Record<Figure, number> = { path: 0, verdict: 0, outputs: 0, final: 0 };
  const skipped = new Map<string, number>();
  const skip = (why: string): void => void skipped.set(why, (skipped.get(why) ?? 0) + 1);
  const disagreements: Disagreement[] = [];
  let compared = 0;
  let refused = 0;
  let pipelines = 0;
  const report = (): DiffReport => ({
    compared,
    agree: { ...agree },
    skipped: new Map(skipped),
    refused,
    pipelines,
    disagreements: [...disagreements],
  });
  let sw = await startSwitch();
  try {
    let left = options.packets;
    for (let k = 0; left > 0; k++) {
      const n = Math.min(perPipeline, left);
      left -= n;
      if (options.shard && k % options.shard.count !== options.shard.index) continue;
      const pipeline = generatePipeline((options.seed * 7919 + k) >>> 0, n);
      pipelines++;
      let loaded = await load(sw, pipeline);
      refused += loaded.refused;
      for (const probe of pipeline.probes) {
        let ours: TraceResult;
        try {
          ours = loaded.tracer.trace(loaded.tracer.parsePacket(probe.packet), {
            ctNext: probe.ctNext.map(parseCtNext),
            keepPackets: false,
          });
        } catch (err) {
          if (!(err instanceof PacketSpecError)) throw err;
          skip(`packet refused by flowscope: ${packetSpecProblemText(err.problem)}`);
          continue;
        }
        // Past its own bounds flowscope stops where OVS would go on (for minutes, printing
        // megabytes): nothing to compare.
        if (BEYOND_FLOWSCOPE(ours)) {
          skip("trace past flowscope's own bounds (steps or nesting), where OVS goes on");
          continue;
        }
        // A group that selects by dp_hash met without one (push_mpls clears it): OVS 3.1 asks the
        // datapath to compute it and its trace says `no live bucket`; flowscope follows each bucket.
        if (ours.problems.some((p) => p.kind === 'datapath-hash')) {
          skip('a dp_hash group met without dp_hash, which OVS leaves to the datapath');
          continue;
        }
        let ovsText: string;
        try {
          ovsText = await sw.trace(probe.packet, { ctNext: probe.ctNext });
        } catch (err) {
          if (/Bad openflow flow syntax|prerequisites not met/.test(String(err))) {
            skip('packet refused by ofproto/trace');
            continue;
          }
          const silent = /no answer within/.test(String(err));
          if (!silent && !ovsGone(err)) throw err;
          // OVS 3.1 aborts on some recirculations (ct(table=) with an action set): restart and go on.
          skip(silent ? 'ofproto/trace gave no answer' : 'ovs-vswitchd crashed');
          await sw.stop();
          sw = await startSwitch();
          loaded = await load(sw, pipeline);
          continue;
        }
        const inPort = Number(/in_port=(\d+)/.exec(probe.packet)?.[1] ?? 0);
        const ovs = parseOfprotoTrace(ovsText, inPort, BRIDGE_PORTS);
        compared++;
        const { figures, summary } = compare(loaded.tracer, ovs, ours);
        for (const f of FIGURES) if (!figures.includes(f)) agree[f]++;
        if (figures.length > 0) {
          disagreements.push({
            pipeline,
            probe,
            figures,
            summary,
            ovsText,
            flowscopeText: formatTrace(ours, { of: 15 }),
          });
        }
      }
      options.onPipeline?.(pipelines, report());
    }
  } finally {
    await sw.stop();
  }
  return report();
}

/** Agreement on a figure, in percent. */
export function percent(report: DiffReport, f: Figure): number {
  return report.compared === 0 ? 0 : (100 * report.agree[f]) / report.compared;
}

/** One text file per disagreement: the pipeline, the probe, what differs, and both traces. */
export function saveDisagreements(dir: string, report: DiffReport): void {
  mkdirSync(dir, { recursive: true });
  report.disagreements.forEach((d, i) => {
    const text = [
      `# seed ${d.pipeline.seed}; differs on ${d.figures.join(', ')}`,
      ...d.summary.map((s) => `# ${s}`),
      `# packet: ${d.probe.packet}${d.probe.ctNext.length > 0 ? ` --ct-next ${d.probe.ctNext.join(' --ct-next ')}` : ''}`,
      '',
      '## groups (add-groups, OpenFlow 1.5)',
      ...d.pipeline.groups,
      '',
      '## flows (add-flows, OpenFlow 1.3)',
      ...d.pipeline.flows,
      '',
      '## ofproto/trace',
      d.ovsText,
      '## flowscope trace',
      d.flowscopeText,
    ].join('\n');
    writeFileSync(join(dir, `${String(i + 1).padStart(5, '0')}-${d.figures.join('-')}.txt`), text + '\n');
  });
}

/** The report as lines: agreement per figure, what was left out, the commonest differences. */
export function summarize(report: DiffReport): string[] {
  const lines = [
    `${report.compared} packets compared over ${report.pipelines} pipelines (${report.refused} flows or groups refused by the switch)`,
  ];
  for (const f of FIGURES)
    lines.push(`  ${f.padEnd(8)} ${percent(report, f).toFixed(2)}% (${report.compared - report.agree[f]} differ)`);
  for (const [why, n] of report.skipped) lines.push(`  left out: ${n} (${why})`);
  return lines;
}
