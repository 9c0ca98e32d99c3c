// The command line leaves functions longer unoptimised for a short run, its optimising compiler off,
// and turns the compiler back on once a large input or a second one makes the run longer (one read
// along the first once its lines stop coming in order), giving V8
// its own budget back once an input makes the run long; tiering the user set up for node is left alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  LONG_RUN_CHARS,
  MEDIUM_RUN_BUDGET,
  MEDIUM_RUN_CHARS,
  SHORT_RUN_BUDGET,
  tiering,
  USUAL_BUDGET,
} from '../src/cli/tiering.ts';

function recorded(userFlags: readonly string[] = []): { set: string[]; t: ReturnType<typeof tiering> } {
  const set: string[] = [];
  return { set, t: tiering((flags) => set.push(flags), userFlags) };
}

const SHORT_RUN = `--no-turbofan --interrupt-budget=${SHORT_RUN_BUDGET}`;

test('a short run raises the budget and turns the compiler off once; one input up to the medium-run size keeps both', () => {
  const { set, t } = recorded(['--enable-source-maps']);
  t.shortRun();
  t.shortRun();
  t.input(MEDIUM_RUN_CHARS);
  assert.deepEqual(set, [SHORT_RUN]);
});

test('a second input turns the compiler back on, once, and keeps the budget', () => {
  const { set, t } = recorded();
  t.shortRun();
  t.input(4_000_000);
  t.input(4_000_000);
  t.input(4_000_000);
  assert.deepEqual(set, [SHORT_RUN, '--turbofan']);
});

test('a second input read along the first keeps the compiler off until its lines stop coming in order, then turns it on once', () => {
  const { set, t } = recorded();
  t.shortRun();
  t.input(4_000_000);
  t.input(4_000_000, true);
  assert.deepEqual(set, [SHORT_RUN]);
  t.unordered();
  t.unordered();
  t.input(4_000_000);
  assert.deepEqual(set, [SHORT_RUN, '--turbofan']);
});

test('an input up to the long-run size lowers the budget to the medium one, once; a smaller one later keeps it', () => {
  const { set, t } = recorded();
  t.shortRun();
  t.input(MEDIUM_RUN_CHARS + 1);
  t.input(LONG_RUN_CHARS);
  t.input(1_000);
  assert.deepEqual(set, [SHORT_RUN, `--turbofan --interrupt-budget=${MEDIUM_RUN_BUDGET}`]);
});

test("an input larger than the long-run size puts V8's budget back, once", () => {
  const { set, t } = recorded();
  t.shortRun();
  t.input(LONG_RUN_CHARS + 1);
  t.input(190_000_000);
  t.input(MEDIUM_RUN_CHARS + 1);
  t.shortRun();
  assert.deepEqual(set, [SHORT_RUN, `--turbofan --interrupt-budget=${USUAL_BUDGET}`]);
});

test('a budget or compiler given to node (an argument or NODE_OPTIONS) is never changed', () => {
  for (const flags of [
    ['--interrupt-budget=10000'],
    ['--max-old-space-size=4096 --interrupt_budget=5000'],
    ['--no-turbofan'],
    ['--turbofan'],
    ['--optimize-for-size --no-opt'],
  ]) {
    const { set, t } = recorded(flags);
    t.shortRun();
    t.input(190_000_000);
    assert.deepEqual(set, [], flags.join(' '));
  }
});

test('a run never raised is never lowered (the library and tests in-process)', () => {
  const { set, t } = recorded();
  t.input(190_000_000);
  t.unordered();
  assert.deepEqual(set, []);
});
