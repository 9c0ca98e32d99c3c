import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Action } from '../src/model/actions.ts';
import { fieldByName } from '../src/model/fields.ts';
import type { OfVersion } from '../src/model/openflow.ts';
import { PortMap } from '../src/model/ports.ts';
import { ProblemSink } from '../src/model/problems.ts';
import { formatActions, versionProblems } from '../src/render/actions.ts';
import { parseActions } from '../src/syntax/actions.ts';
import { parseSubfield } from '../src/syntax/subfield.ts';
import { corpusText, readJsonl, recordVersion } from './support/corpus.ts';
import { parseFlow, skipUnlessOvs } from './support/ovs.ts';

/** Offset of the action list: after `actions=` (or `action=`) at the start or after a separator. */
function actionsStart(line: string): number {
  const m = /(?:^|[\s,])actions?=/.exec(line);
  return m ? m.index + m[0].length : -1;
}

function afterActions(line: string): string {
  return line.slice(actionsStart(line));
}

interface Parsed {
  readonly actions: Action[];
  readonly sink: ProblemSink;
}

/** Parses a line's actions; `strictPorts` mimics `ovs-ofctl parse-flow`, which knows no port names. */
function parseLine(line: string, strictPorts = true): Parsed {
  const sink = new ProblemSink();
  const start = actionsStart(line);
  const actions = parseActions(line, start, line.length, { sink, ...(strictPorts ? { portMap: new PortMap() } : {}) });
  return { actions, sink };
}

function parse(text: string): Parsed {
  return parseLine(`actions=${text}`);
}

function roundTrip(text: string, of: OfVersion): string {
  const p = parse(text);
  assert.deepEqual(p.sink.problems, [], text);
  return formatActions(p.actions, { of });
}

function describeMiss(input: string, want: string, got: string, p: Parsed): string {
  return `${input}\n  want ${want}\n  got  ${got}${p.sink.problems.map((x) => `\n  ${x.severity}: ${x.message}`).join('')}`;
}

test('every accepted OVS test flow prints its actions exactly as OVS 3.1 printed them', () => {
  let total = 0;
  const misses: string[] = [];
  for (const r of readJsonl('ovs-tests-flows.jsonl')) {
    if (r.canonical === undefined || actionsStart(r.input) < 0) continue;
    total++;
    const p = parseLine(r.input);
    const got = formatActions(p.actions, { of: recordVersion(r) });
    const want = afterActions(r.canonical);
    if (got !== want || p.sink.hasErrors) misses.push(describeMiss(r.input, want, got, p));
  }
  assert.equal(total, 1472);
  assert.deepEqual(misses, []);
});

test('OVS canonical action text is a fixed point of parse and print', () => {
  for (const r of readJsonl('ovs-tests-flows.jsonl')) {
    if (r.canonical === undefined) continue;
    const p = parseLine(r.canonical);
    assert.equal(formatActions(p.actions, { of: recordVersion(r) }), afterActions(r.canonical), r.canonical);
  }
});

/** Errors OVS reports about the action list (as opposed to the match, the flow header or the switch). */
const ACTION_ERROR =
  /unknown action|output to unknown|truncate port|unknown field|unknown fields|unknown algorithm|member delimiter|"conjunction" actions|does not fit|bad hex digit|must be specified on resubmit|instruction ordering|must not be accompanied|cannot set CT fields/;

test('OVS test flows rejected for their actions are reported', () => {
  let checked = 0;
  const silent: string[] = [];
  for (const r of readJsonl('ovs-tests-flows.jsonl')) {
    if (r.error === undefined || !ACTION_ERROR.test(r.error) || actionsStart(r.input) < 0) continue;
    // Unknown reg16+ / xreg8+ fields come from OVS releases newer than 3.1; flowscope knows them.
    if (/NXOXM_ET_REG(1[6-9]|2\d|3[01])|OXM_OF_PKT_REG([89]|1\d)|XXREG[4-7]/.test(r.input)) continue;
    checked++;
    const p = parseLine(r.input);
    // Unknown action names are warnings by design (a newer switch may know them); all else is an error.
    const flagged = /unknown action/.test(r.error) ? p.sink.problems.length > 0 : p.sink.hasErrors;
    if (!flagged) silent.push(`${r.input} => ${r.error}`);
  }
  assert.ok(checked >= 25, `only ${checked} records checked`);
  assert.deepEqual(silent, []);
});

test('group bucket actions of OVS test groups are a fixed point of parse and print', () => {
  let buckets = 0;
  for (const r of readJsonl('ovs-tests-groups.jsonl')) {
    if (r.canonical === undefined) continue;
    for (const bucket of r.canonical.split(',bucket=').slice(1)) {
      const p = parseLine(bucket);
      assert.deepEqual(p.sink.problems, [], bucket);
      assert.equal(formatActions(p.actions, { of: recordVersion(r) }), afterActions(bucket), bucket);
      buckets++;
    }
  }
  assert.ok(buckets > 60, `${buckets} buckets`);
});

function dumpLines(file: string): string[] {
  return corpusText(file)
    .split('\n')
    .filter((l) => actionsStart(l) >= 0);
}

test('a real OpenShift SDN OpenFlow 1.3 dump and the Antrea OpenFlow 1.5 doc dump print back unchanged', () => {
  for (const [file, of] of [
    ['openshift-sdn-3.x-multitenant-real-dump.txt', 13],
    ['antrea-ovs-pipeline-doc-HEAD.flows.txt', 15],
  ] as const) {
    const lines = dumpLines(file);
    assert.ok(lines.length > 50, file);
    for (const line of lines) {
      const p = parseLine(line, false);
      assert.deepEqual(p.sink.problems, [], line);
      assert.equal(formatActions(p.actions, { of }), afterActions(line).trimEnd(), line);
    }
  }
});

test('Antrea and OpenShift pipeline flows parse without problems', () => {
  const files = [
    'antrea-pipeline_test-ipv4-encap.txt',
    'antrea-pipeline_test-ipv4-encap-egresstrafficshaping.txt',
    'antrea-pipeline_test-ipv4-externalnode.txt',
    'antrea-pipeline_test-ipv4-noencap-bridging.txt',
    'antrea-pipeline_test-ipv6-encap.txt',
    'openshift-sdn-expectedFlows-v12.txt',
    'openshift-sdn-expectedFlows-v13.txt',
  ];
  for (const file of files) {
    for (const line of dumpLines(file)) {
      const p = parseLine(line, false);
      assert.deepEqual(p.sink.problems, [], `${file}: ${line}`);
      assert.ok(p.actions.every((a) => a.kind !== 'unknown'), line);
    }
  }
});
