/**
 * The randomized differential trace test at the suite's size: generated pipelines (every kind
 * of match field, action, group and conntrack recirculation the generator knows) loaded into a
 * real Open vSwitch, and packets derived from their flows traced by `ofproto/trace` and by
 * flowscope. The seed is fixed, and both sides are deterministic, so the figures are exactly
 * reproducible: the test asserts that no figure falls below what this seed measured when the
 * bound was last set. `npm run difftest` runs thousands of packets on demand.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Figure, FIGURES, runDifferential, summarize } from './support/difftest.ts';
import { skipUnlessOvs } from './support/ovs.ts';

const SEED = 20261126;
const PACKETS = 300;
/**
 * Packets of this seed that may disagree, per figure: the counts measured when the bound was set.
 * None do: packets through groups that select by dp_hash carry one, as the switch needs.
 */
const ALLOWED: Readonly<Record<Figure, number>> = { path: 0, verdict: 0, outputs: 0, final: 0 };

test(
  `trace agrees with ofproto/trace on ${PACKETS} packets through generated pipelines`,
  { ...skipUnlessOvs, timeout: 30 * 60_000 },
  async () => {
    const report = await runDifferential({ seed: SEED, packets: PACKETS });
    const lines = summarize(report);
    // Most packets must be compared: a generator whose packets OVS refuses would prove nothing.
    assert.ok(report.compared >= PACKETS * 0.9, lines.join('\n'));
    for (const f of FIGURES) {
      const differ = report.compared - report.agree[f];
      const examples = report.disagreements
        .filter((d) => d.figures.includes(f))
        .slice(0, 3)
        .map((d) => `${d.probe.packet}\n    ${d.summary.join('\n    ')}`);
      assert.ok(
        differ <= ALLOWED[f],
        `${f}: ${differ} packets differ, at most ${ALLOWED[f]} allowed\n${lines.join('\n')}\n  ${examples.join('\n  ')}`,
      );
    }
  },
);
