// The reader must survive anything: mutated real lines, binary garbage, huge and deeply
// nested lines, and files cut off anywhere. Every diagnostic must point inside the input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDump, type ParseResult } from '../src/syntax/reader.ts';
import { formatFlowCanonical } from '../src/render/flow.ts';
import { formatGroup } from '../src/render/group.ts';
import { corpusText, readJsonl } from './support/corpus.ts';
import { repoRoot } from './support/paths.ts';
import { Random } from '../bench/random.ts';
import { fuzzCase, mutate, runCase, seedLines } from './support/fuzz.ts';

/** A seeded source, so that a failure can be replayed. */
function rng(seed: number): () => number {
  const random = new Random(seed);
  return () => random.next();
}

function checkWellFormed(input: string, result: ParseResult): void {
  const lines = input.split(/\r\n|\r|\n/).length;
  for (const d of result.diagnostics) {
    assert.ok(d.line >= 1 && d.line <= lines, `diagnostic line ${d.line} outside 1..${lines}`);
    assert.ok(d.column >= 1, `diagnostic column ${d.column}`);
    assert.ok(d.message.length > 0);
  }
  // Whatever was accepted must also print.
  for (const f of result.flows) for (const of of [10, 13, 15] as const) formatFlowCanonical(f, of);
  for (const g of result.groups) for (const of of [10, 13, 15] as const) formatGroup(g, of);
}

const realLines = [
  ...readJsonl('ovs-tests-flows.jsonl').map((r) => r.input),
  ...readJsonl('ovs-tests-groups.jsonl').map((r) => r.input),
  ...corpusText('antrea-ovs-pipeline-doc-HEAD.flows.txt').split('\n'),
  ...corpusText('openshift-sdn-3.x-multitenant-real-dump.txt').split('\n'),
].filter(Boolean);

test('mutated real lines never crash the reader', () => {
  const random = new Random(20261122);
  for (let i = 0; i < 20000; i++) {
    const input = mutate(realLines[random.int(0, realLines.length - 1)]!, random);
    let result: ParseResult | undefined;
    assert.doesNotThrow(() => {
      result = parseDump(input, { file: 'fuzz' });
    }, JSON.stringify(input));
    checkWellFormed(input, result!);
  }
});

test('binary garbage is diagnosed, not fatal', () => {
  const next = rng(7);
  for (let i = 0; i < 200; i++) {
    const bytes = Buffer.alloc(1 + Math.floor(next() * 2000));
    for (let j = 0; j < bytes.length; j++) bytes[j] = Math.floor(next() * 256);
    const input = bytes.toString('latin1');
    const result = parseDump(input, { file: 'garbage' });
    checkWellFormed(input, result);
  }
});

test('huge and deeply nested lines are handled', () => {
  const cases = [
    'priority=1,' + 'ip,'.repeat(100000) + ' actions=drop',
    'actions=' + 'output:1,'.repeat(50000) + 'drop',
    'actions=' + 'clone('.repeat(20000) + 'drop' + ')'.repeat(20000),
    'actions=' + 'clone('.repeat(20000),
    'actions=ct(commit,exec(' + 'load:0x1->NXM_NX_CT_MARK[],'.repeat(20000) + '))',
    'group_id=1,type=all,' + 'bucket=output:1,'.repeat(20000),
    'x'.repeat(2_000_000),
    ' cookie=0x0, duration=1s, table=0, n_packets=0, n_bytes=0, priority=1,nw_src=' +
      '1'.repeat(100000) +
      ' actions=drop',
  ];
  for (const input of cases) {
    const result = parseDump(input, { file: 'huge' });
    checkWellFormed(input, result);
  }
});

test('a real dump cut off at any point still yields its complete lines', () => {
  const dump = readFileSync(join(repoRoot, 'examples', 'antrea', 'dump-flows.of10.txt'), 'utf8');
  const whole = parseDump(dump, { file: 'whole' });
  assert.equal(whole.badLines, 0);
  const next = rng(99);
  for (let i = 0; i < 200; i++) {
    const cut = Math.floor(next() * dump.length);
    const part = dump.slice(0, cut);
    const result = parseDump(part, { file: 'cut' });
    checkWellFormed(part, result);
    const completeLines = part.slice(0, part.lastIndexOf('\n') + 1);
    const complete = parseDump(completeLines, { file: 'complete' }).flows.length;
    // The last, cut line may or may not still be a valid flow; every complete one is.
    assert.ok(result.flows.length >= complete, `cut at ${cut}: ${result.flows.length} < ${complete}`);
  }
});

test('seeded mutated and composed inputs through every command (trace --compare, diff --impact and policy matching too): no exception, no internal error, output bounded by the input', async () => {
  // The same cases as `npm run fuzz` with this seed, only fewer of them (and no clock).
  const seeds = seedLines();
  const failures: string[] = [];
  const commands = new Set<string>();
  const forms = new Set<string>();
  for (let i = 0; i < 1200; i++) {
    const c = fuzzCase(20261126, i, seeds);
    commands.add(c.args[0]!);
    for (const form of ['--compare', '--impact', '-o']) if (c.args.includes(form)) forms.add(`${c.args[0]} ${form}`);
    const outcome = await runCase(c);
    if (outcome.failure !== undefined)
      failures.push(
        `case ${i}: flowscope ${c.args.join(' ')} < ${JSON.stringify(c.stdin.slice(0, 300))}\n${outcome.failure}`,
      );
  }
  assert.deepEqual(failures, []);
  assert.deepEqual([...commands].sort(), [
    'check',
    'conj',
    'diff',
    'fmt',
    'graph',
    'parse',
    'policies',
    'show',
    'tables',
    'trace',
    'verify',
  ]);
  // Two traces side by side, a diff's impact, the list of a trace's tables.
  assert.deepEqual([...forms].sort(), ['diff --impact', 'trace --compare', 'trace -o']);
});
