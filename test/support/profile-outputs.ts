/**
 * Every output of flowscope that a pipeline profile shapes, run on each dump of the shared corpus
 * twice: by this build, which reads the built-in profiles from their YAML files, and by a copy of
 * it that reads the profiles as they were before they became files (test/golden/profiles-resolved.json).
 * Only the profiles differ between the two, so the outputs must be the same.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { profilesJson, readBuiltins } from '../../src/profiles/builtin.ts';
import { type CliMain, type CliRun, runMain } from './cli.ts';
import { corpusDir, repoRoot } from './paths.ts';

/** Built-in profile ids, each forced on every dump besides the detected one. */
const PROFILE_IDS = [
  'antrea',
  'antrea-proxy',
  'antrea-v1',
  'antrea-cnp',
  'antrea-policy-only',
  'openshift-sdn',
  'generic',
];

/** Packets for trace: Pod-to-Pod and Pod-to-Service TCP, ARP, IPv6, from the first ports and the gateways. */
const PACKETS = [
  'in_port=1,tcp,nw_src=10.10.0.2,nw_dst=10.10.1.3,tp_src=40000,tp_dst=80',
  'in_port=2,tcp,dl_src=aa:bb:cc:dd:ee:01,nw_src=10.10.0.5,nw_dst=10.96.0.10,tp_src=40001,tp_dst=53',
  'in_port=3,tcp,nw_src=10.128.0.4,nw_dst=172.30.0.1,tp_src=40002,tp_dst=443',
  'in_port=1,arp,arp_spa=10.10.0.2,arp_tpa=10.10.0.1,arp_op=1',
  'in_port=2,tcp6,ipv6_src=fd00:10:244::2,ipv6_dst=fd00:10:244:1::3,tp_dst=8080',
  'in_port=antrea-gw0,tcp,nw_src=10.10.0.1,nw_dst=10.10.0.2,tp_src=40003,tp_dst=80',
  'in_port=tun0,tcp,nw_src=10.128.0.1,nw_dst=10.128.0.5,tp_src=40004,tp_dst=8080',
];

/** The corpus dumps (text files; the JSON Lines records of OVS's own tests are single flows). */
export function corpusDumps(): string[] {
  return readdirSync(corpusDir)
    .filter((n) => n.endsWith('.txt'))
    .sort();
}

/** The argument lists, after the dump's path, of every profile-driven command run on a dump. */
export function profileCommands(): string[][] {
  const cmds: string[][] = [
    ['show'],
    ['show', '--json'],
    ['show', '-v'],
    ['tables'],
    ['tables', '--json'],
    ['check'],
    ['check', '--json'],
    ['conj'],
    ['conj', '--json'],
    ['graph'],
    ['graph', '--json'],
  ];
  for (const id of PROFILE_IDS) {
    cmds.push(['show', '--json', '--profile', id], ['tables', '--profile', id], ['check', '--json', '--profile', id]);
  }
  for (const p of PACKETS) cmds.push(['trace', '--json', p], ['trace', p]);
  return cmds;
}

/** Runs one command on one corpus dump with a build's entry point. */
export async function runOnDump(entry: CliMain, dump: string, args: readonly string[]): Promise<CliRun> {
  const [command, ...rest] = args;
  const path = join(corpusDir, dump);
  const argv =
    command === 'trace' ? [command, ...rest.slice(0, -1), path, ...rest.slice(-1)] : [command!, path, ...rest];
  return runMain(entry, argv, { env: { NO_COLOR: '1' } });
}

/**
 * A copy of this build (dist/src) whose compiled built-in profiles are the recorded ones (a
 * built-in profile added since is kept as it is), in a directory of its own, with its entry
 * point; `dispose` removes it.
 */
export async function buildWithRecordedProfiles(): Promise<{ readonly main: CliMain; readonly dispose: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-profiles-before-'));
  cpSync(join(repoRoot, 'dist', 'src'), join(dir, 'dist', 'src'), { recursive: true });
  cpSync(join(repoRoot, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
  const recorded = JSON.parse(readFileSync(join(repoRoot, 'test', 'golden', 'profiles-resolved.json'), 'utf8')) as {
    profiles: { id: string }[];
  };
  const compiled = join(dir, 'dist', 'src', 'profiles', 'builtin.json');
  // Written whole, as one JSON text, which the compiled file may be too (see compiledProfilesText).
  const now = JSON.parse(profilesJson(readBuiltins())) as { id: string }[];
  const before = new Map(recorded.profiles.map((p) => [p.id, p]));
  writeFileSync(compiled, JSON.stringify(now.map((p) => before.get(p.id) ?? p)));
  const { main } = (await import(pathToFileURL(join(dir, 'dist', 'src', 'cli', 'main.js')).href)) as { main: CliMain };
  return { main, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
