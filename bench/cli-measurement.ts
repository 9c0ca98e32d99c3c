/**
 * The command line end to end, process start included: `node bin/flowscope.js fmt FILE > /dev/null`,
 * run under GNU time for the CPU and peak RSS of the command's own process.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Measurement, Tally } from './measurement.ts';

const TIME = '/usr/bin/time';
const bin = fileURLToPath(new URL('../../bin/flowscope.js', import.meta.url));

export const cliFmt: Measurement = {
  name: 'cli-fmt',
  label: 'flowscope fmt > /dev/null',
  covers: 'the whole command in a process of its own: node start, module loading, parse, canonical text written to /dev/null',
  load: ({ dump }) =>
    Promise.resolve({
      run: () => {
        const dir = mkdtempSync(join(tmpdir(), 'flowscope-bench-time-'));
        const report = join(dir, 'time.txt');
        const devNull = openSync('/dev/null', 'w');
        try {
          const child = spawnSync(TIME, ['-f', '%U %S %M', '-o', report, process.execPath, bin, 'fmt', dump], { stdio: ['ignore', devNull, 'pipe'], encoding: 'utf8' });
          if (child.error) throw new Error(`${TIME}: ${child.error.message} (GNU time is needed for this measurement)`);
          if (child.status !== 0) throw new Error(`flowscope fmt exited with ${child.status}: ${child.stderr.trim().split('\n').pop() ?? ''}`);
          return readFileSync(report, 'utf8');
        } finally {
          closeSync(devNull);
          rmSync(dir, { recursive: true, force: true });
        }
      },
      count: (result: unknown): Tally => {
        const [user, system, rss] = (result as string).trim().split('\n').pop()!.split(' ').map(Number);
        let flows = 0;
        for (const line of readFileSync(dump, 'utf8').split('\n')) if (line.startsWith(' cookie=')) flows++;
        return { flows, child: { cpuMs: (user! + system!) * 1000, maxRssKiB: rss! } };
      },
    }),
};
