/**
 * Every output of flowscope that a pipeline profile shapes, run on each dump of the shared corpus
 * and reduced to a digest: the record of what the built-in profiles said before they became YAML
 * files, and what they must still say.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './cli.ts';
import { corpusDir } from './paths.ts';

/** Built-in profile ids, each forced on every dump besides the detected one. */
const PROFILE_IDS = ['antrea', 'antrea-proxy', 'antrea-v1', 'antrea-cnp', 'antrea-policy-only', 'openshift-sdn', 'generic'];

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

/** The command line as a key: the arguments after the dump's path, joined by spaces. */
export function commandKey(args: readonly string[]): string {
  return args.join(' ');
}

/** Runs one command on one corpus dump; the digest covers exit status, standard output and error. */
export async function outputDigest(dump: string, args: readonly string[]): Promise<string> {
  const [command, ...rest] = args;
  const argv = command === 'trace' ? [command, ...rest.slice(0, -1), join(corpusDir, dump), ...rest.slice(-1)] : [command!, join(corpusDir, dump), ...rest];
  const r = await runCli(argv, { env: { NO_COLOR: '1' } });
  // The corpus's own path differs between checkouts: only what follows it is the output.
  const text = `${r.status}\n${r.stdout}\n--\n${r.stderr}`.replaceAll(corpusDir, '<corpus>');
  return createHash('sha256').update(text).digest('hex').slice(0, 24);
}
