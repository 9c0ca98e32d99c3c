/**
 * Differential tests against a real Open vSwitch: the same flows, dumped by OVS in every
 * format, must read back as the same flow set; and flowscope's canonical printing must equal
 * what `ovs-ofctl parse-flow` prints for the same input.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { OfVersion } from '../src/model/openflow.ts';
import { PortMap } from '../src/model/ports.ts';
import { formatFlowCanonical } from '../src/render/flow.ts';
import { parseDump, type ParseResult } from '../src/syntax/reader.ts';
import { flowKeys, groupKeys, type KeyContext, type KeyParts } from './support/flow-key.ts';
import { ANTREA, EXAMPLES, exampleFile, type Example, type ExampleOutput } from './support/make-examples.ts';
import { decorated, flowLines, numberPorts, respelled } from './support/flow-variants.ts';
import { OvsSwitch, parseFlows, skipUnlessOvs, type DumpFlowsOptions } from './support/ovs.ts';

function read(example: Example, file: string, portMap?: PortMap): ParseResult {
  return parseDump(readFileSync(exampleFile(example, file), 'utf8'), { file, ...(portMap ? { portMap } : {}) });
}

function context(example: Example, ports: PortMap): KeyContext {
  const tables = new Map(
    Object.entries(example.bridge.tableNames ?? {}).map(([n, name]) => [name, Number(n)] as const),
  );
  return { ports, tables };
}

function errors(r: ParseResult): string[] {
  return r.diagnostics
    .filter((d) => d.severity === 'error')
    .map((d) => `${d.file}:${d.line}:${d.column}: ${d.message}`);
}

/** What a dump of this kind carries (ovs-dump-format.md §3): flags from OF1.3, importance from OF1.4. */
function partsOf(of: OfVersion | undefined): KeyParts {
  const v = of ?? 10;
  return { timeouts: true, flags: v >= 13, importance: v >= 14 };
}

/** Flow lines as OVS printed them: every flow line starts with one space. */
function flowLineCount(text: string): number {
  return text.split('\n').filter((l) => / actions=/.test(l)).length;
}

const flowOutputs = (e: Example): Extract<ExampleOutput, { kind: 'flows' }>[] =>
  e.outputs.filter((o): o is Extract<ExampleOutput, { kind: 'flows' }> => o.kind === 'flows');

for (const example of EXAMPLES) {
  describe(`examples/${example.name}: committed dumps read back as one flow set`, () => {
    const show = example.outputs.find((o) => o.kind === 'show');
    assert.ok(show);
    const ports = read(example, show.file).ports;
    const ctx = context(example, ports);
    const source = read(example, 'flows.txt', ports);

    test('the port map from show holds the bridge ports', () => {
      for (const p of example.bridge.ports ?? []) assert.equal(ports.name(p.ofport), p.name);
    });

    test('flows.txt reads without errors', () => {
      assert.deepEqual(errors(source), []);
      assert.equal(source.flows.length, flowLines(readFileSync(exampleFile(example, 'flows.txt'), 'utf8')).length);
    });

    for (const output of flowOutputs(example)) {
      test(output.file, () => {
        const text = readFileSync(exampleFile(example, output.file), 'utf8');
        const dump = parseDump(text, { file: output.file, portMap: ports });
        assert.deepEqual(errors(dump), []);
        assert.equal(dump.flows.length, flowLineCount(text));
        assert.equal(dump.flows.length, source.flows.length);
        const parts = partsOf(output.of);
        assert.deepEqual(flowKeys(dump.flows, ctx, parts), flowKeys(source.flows, ctx, parts));

        const headed =
          output.names !== true && output.noStats !== true && output.sort !== true && output.rsort !== true;
        assert.deepEqual(dump.protocols, headed ? [output.of ?? 10] : []);
        for (const f of dump.flows) assert.equal(f.stats !== undefined, output.noStats !== true, f.origin.text);
        if (output.sort === true || output.rsort === true) {
          const prios = dump.flows.map((f) => f.priority);
          const sorted = [...prios].sort((a, b) => (output.sort === true ? a - b : b - a));
          assert.deepEqual(prios, sorted);
        }
      });
    }

    for (const output of example.outputs) {
      if (output.kind !== 'groups') continue;
      test(output.file, () => {
        const groups = read(example, 'groups.txt', ports);
        assert.deepEqual(errors(groups), []);
        const text = readFileSync(exampleFile(example, output.file), 'utf8');
        const dump = parseDump(text, { file: output.file, portMap: ports });
        assert.deepEqual(errors(dump), []);
        assert.equal(dump.groups.length, text.split('\n').filter((l) => l.startsWith(' group_id=')).length);
        const selection = output.of === undefined || output.of === 10 || output.of === 15;
        assert.deepEqual(groupKeys(dump.groups, ctx, selection), groupKeys(groups.groups, ctx, selection));
      });
    }
  });
}

describe(
  'a real switch loaded with decorated Antrea flows dumps them identically in every format',
  skipUnlessOvs,
  () => {
    let sw: OvsSwitch | undefined;
    let input = '';
    before(async () => {
      sw = await OvsSwitch.start(ANTREA.bridge);
      const original = flowLines(readFileSync(exampleFile(ANTREA, 'flows.txt'), 'utf8'));
      input = [...original, ...decorated(original)].join('\n') + '\n';
      await sw.addFlows(input, 15);
    });
    after(async () => {
      await sw?.stop();
    });

    const formats: DumpFlowsOptions[] = [
      {},
      { of: 13 },
      { of: 14 },
      { of: 15 },
      { noStats: true },
      { of: 13, names: true },
      { of: 15, names: true, noStats: true },
      { of: 15, sort: true },
    ];
    for (const format of formats) {
      test(`dump-flows ${JSON.stringify(format)}`, async () => {
        assert.ok(sw);
        const ports = parseDump(await sw.show(), { file: 'show' }).ports;
        const ctx = context(ANTREA, ports);
        const source = parseDump(input, { file: 'input', portMap: ports });
        assert.deepEqual(errors(source), []);
        const text = await sw.dumpFlows(format);
        const dump = parseDump(text, { file: 'dump', portMap: ports });
        assert.deepEqual(errors(dump), []);
        assert.equal(dump.flows.length, flowLineCount(text));
        const parts = partsOf(format.of);
        assert.deepEqual(flowKeys(dump.flows, ctx, parts), flowKeys(source.flows, ctx, parts));
      });
    }
  },
);

/** OpenFlow 1.0 cannot carry these flow flags, so OVS refuses such flows for it. */
const OF13_ONLY_FLAGS = /\b(?:no_packet_counts|no_byte_counts)\b/;

test('canonical printing equals ovs-ofctl parse-flows for OpenFlow 1.0, 1.3 and 1.5', skipUnlessOvs, async () => {
  const lines = new Set<string>();
  for (const example of EXAMPLES) {
    const original = flowLines(readFileSync(exampleFile(example, 'flows.txt'), 'utf8'))
      // One explicit table for every flow, see parseFlows.
      .map((l) => (l.startsWith('table=') ? l : `table=0, ${l}`))
      .map((l) => numberPorts(l, example));
    for (const l of [...original, ...decorated(original)]) {
      lines.add(l);
      for (const r of respelled(l)) lines.add(r);
    }
  }
  let compared = 0;
  const mismatches: string[] = [];
  for (const of of [10, 13, 15] as const) {
    const input = [...lines].filter((l) => of >= 13 || !OF13_ONLY_FLAGS.test(l));
    const canonical = await parseFlows(input, of);
    input.forEach((line, i) => {
      const parsed = parseDump(line, { file: 'flow' });
      const flow = parsed.flows[0];
      const expected = canonical[i]!.replace(/^table:(\d+) /, 'table=$1, ');
      const actual =
        flow === undefined || errors(parsed).length > 0
          ? `unreadable: ${errors(parsed).join('; ')}`
          : formatFlowCanonical(flow, of);
      compared++;
      if (actual !== expected)
        mismatches.push(`OF1.${of - 10} ${line}\n  ovs:       ${expected}\n  flowscope: ${actual}`);
    });
  }
  assert.ok(compared >= 2000, `only ${compared} cases`);
  assert.deepEqual(mismatches, []);
});
