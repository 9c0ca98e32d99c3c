/** Wall time of the named parts of a timed piece of work, to tell where its time goes. */
import { performance } from 'node:perf_hooks';

export class Phases {
  private readonly laps: Record<string, number> = {};

  time<T>(name: string, work: () => T): T {
    const t0 = performance.now();
    const result = work();
    this.laps[name] = (this.laps[name] ?? 0) + performance.now() - t0;
    return result;
  }

  get record(): Readonly<Record<string, number>> {
    return this.laps;
  }
}
