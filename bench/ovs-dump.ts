/**
 * The everyday dump: a synthetic Antrea node of about 24k flows loaded into a real Open vSwitch
 * (test/support/ovs.ts) and dumped back with `ovs-ofctl -O OpenFlow13 dump-flows`, so the text is
 * exactly what the switch prints — its flow order, statistics and multipart chunking.
 *
 * Without Open vSwitch the synthetic dump itself stands in, and the caller is told so.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ovsAvailable, withOvsSwitch } from '../test/support/ovs.ts';
import { ensureDump, flowModOf, GENERATOR_VERSION, type DumpParameters } from './generate.ts';

export interface EverydayDump {
  readonly path: string;
  readonly reused: boolean;
  /** Whether the text came from a real switch (else the synthetic dump stands in). */
  readonly fromOvs: boolean;
}

export function ovsDumpPath(p: DumpParameters): string {
  return join(tmpdir(), `flowscope-bench-antrea-ovs-${p.flows}-seed${p.seed}-v${GENERATOR_VERSION}.flows.txt`);
}

/** A select group of one bucket for every `group:N` the flows use, so that the switch accepts them. */
function groupsFor(flowMods: readonly string[]): string {
  const ids = new Set<string>();
  for (const f of flowMods) for (const m of f.matchAll(/\bgroup:(\d+)/g)) ids.add(m[1]!);
  return [...ids].map((id) => `group_id=${id},type=select,bucket=weight:100,actions=resubmit(,11)`).join('\n');
}

/** The dump of a switch loaded with the synthetic flows of `p`, made once and then reused. */
export async function ensureOvsDump(p: DumpParameters): Promise<EverydayDump> {
  const synthetic = ensureDump(p);
  if (!ovsAvailable()) return { path: synthetic.path, reused: synthetic.reused, fromOvs: false };
  const path = ovsDumpPath(p);
  if (existsSync(path)) return { path, reused: true, fromOvs: true };
  const flowMods = readFileSync(synthetic.path, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith(' cookie='))
    .map(flowModOf);
  const dumped = await withOvsSwitch({ protocols: ['OpenFlow13'] }, async (sw) => {
    await sw.ofctl(['-O', 'OpenFlow13', 'add-meter', sw.bridge, 'meter=256,pktps,bands=type=drop,rate=100']);
    await sw.addGroups(groupsFor(flowMods), 13);
    await sw.addFlows(flowMods.join('\n'), 13);
    return sw.dumpFlows({ of: 13 });
  });
  const partial = `${path}.partial-${process.pid}`;
  writeFileSync(partial, dumped);
  renameSync(partial, path);
  return { path, reused: false, fromOvs: true };
}
