/** The committed example dumps must be what a real Open vSwitch prints for them today. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { EXAMPLES, exampleFile, loadExample, produce } from './support/make-examples.ts';
import { skipUnlessOvs, withOvsSwitch } from './support/ovs.ts';

for (const example of EXAMPLES) {
  test(
    `examples/${example.name} is what the switch dumps today (apart from durations and ages)`,
    skipUnlessOvs,
    async () => {
      const volatile = (s: string): string =>
        s.replace(/duration=[0-9.]+s/g, 'duration=Xs').replace(/idle_age=\d+/g, 'idle_age=X');
      await withOvsSwitch(example.bridge, async (sw) => {
        await loadExample(sw, example);
        for (const output of example.outputs) {
          const committed = readFileSync(exampleFile(example, output.file), 'utf8');
          const now = await produce(sw, output);
          // Unsorted dumps come in classifier order, which may differ between runs: compare as sets.
          assert.deepEqual(volatile(now).split('\n').sort(), volatile(committed).split('\n').sort(), output.file);
        }
      });
    },
  );
}
