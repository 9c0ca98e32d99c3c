/**
 * The differential harness: flows loaded into a real Open vSwitch, read back by flowscope from the
 * switch's own dumps, and packets traced by both `ofproto/trace` and flowscope, compared on every
 * pass, table, matched priority, the verdict, the output ports and a translation's failure.
 */
import assert from 'node:assert/strict';
import { Pipeline } from '../../src/model/pipeline.ts';
import { parseDump } from '../../src/syntax/reader.ts';
import { parsePacketSpec } from '../../src/analysis/trace/packet.ts';
import { packetSpecProblemText } from '../../src/render/words/packet-spec.ts';
import { type TraceResult, Tracer } from '../../src/analysis/trace/trace.ts';
import { XLATE_ERRORS } from '../../src/render/words/trace-notes.ts';
import { parseCtNext } from '../../src/cli/commands/trace.ts';
import type { OvsSwitch } from './ovs.ts';
import { type OfprotoTrace, parseOfprotoTrace } from './ofproto-trace.ts';

export interface Probe {
  /** ofproto/trace flow syntax (prerequisites first). */
  readonly packet: string;
  /** `--ct-next` values in ofproto/trace syntax (`trk,est`). */
  readonly ctNext?: readonly string[];
}

/** One probe traced by both. */
export interface ProbeTrace {
  readonly probe: Probe;
  /** What ofproto/trace printed, and that read. */
  readonly ovsText: string;
  readonly ovs: OfprotoTrace;
  readonly ours: TraceResult;
}

export interface Comparison {
  readonly mismatches: string[];
  readonly verdicts: Map<string, number>;
  readonly failures: Map<string, number>;
  readonly traces: ProbeTrace[];
}

/** Loads the switch's own dumps (flows, groups, ports with their states) into a tracer. */
export async function tracerFor(sw: OvsSwitch): Promise<Tracer> {
  const text = [await sw.dumpFlows({ of: 15 }), await sw.dumpGroups({ of: 15 }), await sw.show(13)].join('\n');
  const dump = parseDump(text, { file: 'live' });
  assert.equal(dump.badLines, 0, dump.diagnostics.map((d) => d.message).join('\n'));
  return new Tracer(new Pipeline(dump.flows, dump.groups, dump.ports));
}

/** Why our translation failed, in ofproto/trace's words. */
export function failureOf(result: TraceResult): string | undefined {
  const failed = result.problems.find((p) => p.kind === 'translation-failed');
  return failed ? XLATE_ERRORS[failed.limit] : undefined;
}

/** Traces every probe with both and describes each disagreement. */
export async function compare(sw: OvsSwitch, tracer: Tracer, probes: readonly Probe[]): Promise<Comparison> {
  const mismatches: string[] = [];
  const verdicts = new Map<string, number>();
  const failures = new Map<string, number>();
  const traces: ProbeTrace[] = [];
  for (const probe of probes) {
    const ovsText = await sw.trace(probe.packet, { ctNext: probe.ctNext ?? [] });
    const inPort = Number(/in_port=(\d+)/.exec(probe.packet)?.[1] ?? 0);
    const ovs = parseOfprotoTrace(ovsText, inPort);
    assert.ok(ovs.passes[0]!.steps.length > 0, `ofproto/trace output not understood:\n${ovsText}`);
    const spec = parsePacketSpec(probe.packet, tracer.pipeline.ports);
    assert.ok(spec.ok, `${probe.packet}: ${spec.ok ? '' : packetSpecProblemText(spec.problem)}`);
    // No bucket is given: the hash-selected groups pick theirs as the switch does.
    const ours = tracer.trace(spec.packet, { ctNext: (probe.ctNext ?? []).map(parseCtNext) });
    traces.push({ probe, ovsText, ovs, ours });
    const oursPasses = ours.passes.map((p) =>
      p.steps
        .map((s) => `${s.table.kind === 'number' ? s.table.number : s.table.name}:${s.flow?.priority ?? 'miss'}`)
        .join(' '),
    );
    const ovsPasses = ovs.passes.map((p) => p.steps.map((s) => `${s.table}:${s.priority ?? 'miss'}`).join(' '));
    const what = `${probe.packet}${probe.ctNext ? ` --ct-next ${probe.ctNext.join(' ')}` : ''}`;
    if (JSON.stringify(oursPasses) !== JSON.stringify(ovsPasses)) {
      mismatches.push(`${what}\n  ovs:       ${ovsPasses.join(' | ')}\n  flowscope: ${oursPasses.join(' | ')}`);
    } else if (ours.verdict !== ovs.verdict || JSON.stringify(ours.outputs) !== JSON.stringify(ovs.outputs)) {
      mismatches.push(
        `${what}\n  ovs:       ${ovs.verdict} ${ovs.outputs.join(',')}\n  flowscope: ${ours.verdict} ${ours.outputs.join(',')}`,
      );
    } else if (failureOf(ours) !== ovs.failure) {
      mismatches.push(
        `${what}\n  ovs:       translation failed: ${ovs.failure ?? 'no'}\n  flowscope: translation failed: ${failureOf(ours) ?? 'no'}`,
      );
    }
    verdicts.set(ours.verdict, (verdicts.get(ours.verdict) ?? 0) + 1);
    if (ovs.failure !== undefined) failures.set(ovs.failure, (failures.get(ovs.failure) ?? 0) + 1);
  }
  return { mismatches, verdicts, failures, traces };
}

export function assertAgree(result: { readonly mismatches: readonly string[] }, total: number): void {
  assert.equal(
    result.mismatches.length,
    0,
    `${result.mismatches.length} of ${total} traces differ:\n${result.mismatches.join('\n')}`,
  );
}
