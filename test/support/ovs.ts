/**
 * Runs a real Open vSwitch (ovsdb-server + ovs-vswitchd with the userspace dummy datapath)
 * in a private temporary directory, so tests can load flows into an actual switch and
 * compare its dumps with what flowscope reads. Nothing touches the system's OVS: every
 * socket, pidfile, log and database lives in the directory, and no TCP remote is opened.
 */
import { execa } from 'execa';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { OfVersion } from '../../src/model/openflow.ts';

const BINARIES = ['ovsdb-tool', 'ovsdb-server', 'ovs-vswitchd', 'ovs-vsctl', 'ovs-ofctl', 'ovs-appctl'] as const;
type Binary = (typeof BINARIES)[number];

const SCHEMA = '/usr/share/openvswitch/vswitch.ovsschema';
/**
 * Generous: on a loaded two-core machine loading thousands of flows or starting the daemons can
 * take minutes. A command that runs out says how long it was waited for.
 */
const COMMAND_TIMEOUT_MS = 240_000;
const STOP_TIMEOUT_MS = 5_000;

/** Absolute path of an OVS binary; the daemons live in /usr/sbin, often outside a user's PATH. */
function findBinary(name: Binary): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  for (const dir of dirs) {
    const p = join(dir, name);
    if (existsSync(p)) return p;
  }
  return undefined;
}

export function ovsAvailable(): boolean {
  return BINARIES.every((b) => findBinary(b) !== undefined) && existsSync(SCHEMA);
}

/**
 * Options for node:test that skip a test when OVS is missing, except on CI, where OVS is
 * always installed: there a missing binary must fail the test instead of hiding it.
 */
export const skipUnlessOvs: { skip?: string } =
  ovsAvailable() || process.env.CI === 'true' ? {} : { skip: 'Open vSwitch binaries not installed' };

function binary(name: Binary): string {
  const p = findBinary(name);
  if (p === undefined) throw new Error(`Open vSwitch binary ${name} not found (install openvswitch-switch)`);
  return p;
}

export interface OvsPort {
  readonly name: string;
  /** Requested OpenFlow port number (`ofport_request`). */
  readonly ofport: number;
}

export interface OvsSwitchOptions {
  /** Bridge name; `br-int` unless given. */
  readonly bridge?: string;
  readonly ports?: readonly OvsPort[];
  /** Table number → name, stored in the bridge's Flow_Table rows. */
  readonly tableNames?: Readonly<Record<number, string>>;
  /** The bridge's `protocols` column, e.g. `['OpenFlow13']`; OVS's default when absent. */
  readonly protocols?: readonly string[];
  /** 16 hex digits; fixed so that `show` output does not change between runs. */
  readonly datapathId?: string;
  /** MAC of the bridge's LOCAL port; random unless given. */
  readonly hwaddr?: string;
}

/** Flags of `ovs-ofctl dump-flows`. */
export interface DumpFlowsOptions {
  readonly of?: OfVersion;
  readonly names?: boolean;
  readonly noStats?: boolean;
  readonly sort?: boolean;
  readonly rsort?: boolean;
}

export interface TraceOptions {
  readonly names?: boolean;
  /** One `--ct-next` per conntrack fork, e.g. `'est|trk'`. */
  readonly ctNext?: readonly string[];
}

function versionArgs(of: OfVersion | undefined): string[] {
  return of === undefined ? [] : ['-O', `OpenFlow${of}`];
}

/** Switches not yet stopped, so an aborted test run still kills its daemons. */
const running = new Set<OvsSwitch>();
const killRunning = (): void => {
  for (const sw of running) sw.killNow();
};
process.on('exit', killRunning);
// A run stopped by a signal never reaches 'exit': its daemons would outlive it. Once killed, the
// signal is raised again, to end the process as it would have without this listener.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
  process.once(sig, () => {
    killRunning();
    process.kill(process.pid, sig);
  });

export class OvsSwitch {
  readonly dir: string;
  readonly bridge: string;
  private readonly env: Record<string, string>;
  private stopped = false;

  private constructor(dir: string, bridge: string) {
    this.dir = dir;
    this.bridge = bridge;
    this.env = {
      OVS_RUNDIR: dir,
      OVS_LOGDIR: dir,
      OVS_DBDIR: dir,
      OVS_SYSCONFDIR: dir,
      OVS_PKGDATADIR: '/usr/share/openvswitch',
    };
  }

  /** Starts the daemons and creates the bridge and ports; cleans up if any step fails. */
  static async start(options: OvsSwitchOptions = {}): Promise<OvsSwitch> {
    for (const b of BINARIES) binary(b);
    const sw = new OvsSwitch(mkdtempSync(join(tmpdir(), 'flowscope-ovs-')), options.bridge ?? 'br-int');
    running.add(sw);
    try {
      await sw.boot(options);
    } catch (err) {
      await sw.stop();
      throw err;
    }
    return sw;
  }

  private path(name: string): string {
    return join(this.dir, name);
  }

  private async run(name: Binary, args: readonly string[], input?: string): Promise<string> {
    const r = await execa(binary(name), args, {
      cwd: this.dir,
      env: this.env,
      timeout: COMMAND_TIMEOUT_MS,
      reject: false,
      stripFinalNewline: false,
      ...(input === undefined ? {} : { input }),
    });
    if (r.exitCode !== 0 || r.timedOut) {
      const why = r.timedOut ? `no answer within ${COMMAND_TIMEOUT_MS / 1000} s` : `exit ${String(r.exitCode)}`;
      throw new Error(`${name} ${args.join(' ')}: ${why}\n${r.stderr}`);
    }
    return r.stdout;
  }

  private vsctl(args: readonly string[]): Promise<string> {
    return this.run('ovs-vsctl', [`--db=unix:${this.path('db.sock')}`, '--timeout=240', ...args]);
  }

  private async boot(options: OvsSwitchOptions): Promise<void> {
    const db = this.path('conf.db');
    await this.run('ovsdb-tool', ['create', db, SCHEMA]);
    await this.run('ovsdb-server', [
      db,
      `--remote=punix:${this.path('db.sock')}`,
      `--pidfile=${this.path('ovsdb-server.pid')}`,
      `--unixctl=${this.path('ovsdb-server.ctl')}`,
      `--log-file=${this.path('ovsdb-server.log')}`,
      '--detach',
      '--no-chdir',
    ]);
    await this.vsctl(['--no-wait', 'init']);
    await this.run('ovs-vswitchd', [
      `unix:${this.path('db.sock')}`,
      '--enable-dummy',
      '--disable-system',
      `--pidfile=${this.path('ovs-vswitchd.pid')}`,
      `--unixctl=${this.path('ovs-vswitchd.ctl')}`,
      `--log-file=${this.path('ovs-vswitchd.log')}`,
      '--detach',
      '--no-chdir',
    ]);

    // `secure` keeps OVS from adding its default NORMAL flow, so the bridge holds exactly
    // the flows a test loads.
    const br = this.bridge;
    const args = ['add-br', br, '--', 'set', 'Bridge', br, 'datapath_type=dummy', 'fail_mode=secure'];
    if (options.protocols !== undefined) args.push(`protocols=${options.protocols.join(',')}`);
    if (options.datapathId !== undefined) args.push(`other_config:datapath-id=${options.datapathId}`);
    if (options.hwaddr !== undefined) args.push(`other_config:hwaddr="${options.hwaddr}"`);
    for (const [table, name] of Object.entries(options.tableNames ?? {})) {
      args.push('--', `--id=@t${table}`, 'create', 'Flow_Table', `name=${name}`);
      args.push('--', 'set', 'Bridge', br, `flow_tables:${table}=@t${table}`);
    }
    await this.vsctl(args);
    // One port per transaction: dummy ports get MACs aa:55:aa:55:00:NN in creation order,
    // so a fixed order keeps `show` output identical between runs.
    for (const p of options.ports ?? []) {
      await this.vsctl([
        'add-port',
        br,
        p.name,
        '--',
        'set',
        'Interface',
        p.name,
        'type=dummy',
        `ofport_request=${p.ofport}`,
      ]);
    }
    await this.checkPorts(options.ports ?? []);
  }

  /** ofport_request is a request; a clash would silently renumber and corrupt every fixture. */
  private async checkPorts(ports: readonly OvsPort[]): Promise<void> {
    for (const p of ports) {
      const got = (await this.vsctl(['get', 'Interface', p.name, 'ofport'])).trim();
      if (got !== String(p.ofport)) throw new Error(`port ${p.name} got ofport ${got}, not ${p.ofport}`);
    }
  }

  /** Runs `ovs-ofctl ARGS` and returns its standard output. */
  ofctl(args: readonly string[]): Promise<string> {
    return this.run('ovs-ofctl', args);
  }

  /** Runs `ovs-appctl` against this switch's ovs-vswitchd. */
  appctl(args: readonly string[]): Promise<string> {
    return this.run('ovs-appctl', ['-t', this.path('ovs-vswitchd.ctl'), ...args]);
  }

  private writeTemp(name: string, text: string): string {
    const p = this.path(name);
    writeFileSync(p, text);
    return p;
  }

  /** Loads an add-flows file's text (one flow per line, `#` comments allowed). */
  async addFlows(text: string, of?: OfVersion): Promise<void> {
    await this.ofctl([...versionArgs(of), 'add-flows', this.bridge, this.writeTemp('flows.in', text)]);
  }

  async addGroups(text: string, of?: OfVersion): Promise<void> {
    await this.ofctl([...versionArgs(of), 'add-groups', this.bridge, this.writeTemp('groups.in', text)]);
  }

  async deleteFlows(of?: OfVersion): Promise<void> {
    await this.ofctl([...versionArgs(of), 'del-flows', this.bridge]);
  }

  async deleteGroups(of: OfVersion = 15): Promise<void> {
    await this.ofctl([...versionArgs(of), 'del-groups', this.bridge]);
  }

  dumpFlows(options: DumpFlowsOptions = {}): Promise<string> {
    const args = versionArgs(options.of);
    if (options.names === true) args.push('--names');
    else args.push('--no-names');
    if (options.noStats === true) args.push('--no-stats');
    if (options.sort === true) args.push('--sort');
    if (options.rsort === true) args.push('--rsort');
    return this.ofctl([...args, 'dump-flows', this.bridge]);
  }

  dumpGroups(options: { readonly of?: OfVersion; readonly names?: boolean } = {}): Promise<string> {
    return this.ofctl([
      ...versionArgs(options.of),
      options.names === true ? '--names' : '--no-names',
      'dump-groups',
      this.bridge,
    ]);
  }

  dumpPortsDesc(of?: OfVersion): Promise<string> {
    return this.ofctl([...versionArgs(of), 'dump-ports-desc', this.bridge]);
  }

  show(of?: OfVersion): Promise<string> {
    return this.ofctl([...versionArgs(of), 'show', this.bridge]);
  }

  /** `ovs-appctl ofproto/trace BRIDGE FLOW`; FLOW in exact-flow syntax (prerequisites first). */
  trace(flow: string, options: TraceOptions = {}): Promise<string> {
    const args = ['ofproto/trace'];
    if (options.names === true) args.push('--names');
    for (const ct of options.ctNext ?? []) args.push('--ct-next', ct);
    return this.appctl([...args, this.bridge, flow]);
  }

  private pids(): number[] {
    const out: number[] = [];
    for (const daemon of ['ovs-vswitchd', 'ovsdb-server']) {
      try {
        const pid = Number(readFileSync(this.path(`${daemon}.pid`), 'utf8').trim());
        if (Number.isInteger(pid) && pid > 0) out.push(pid);
      } catch {
        // Not started (or already gone): nothing to kill.
      }
    }
    return out;
  }

  /** Stops both daemons (SIGTERM, then SIGKILL after a grace period) and removes the directory. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    running.delete(this);
    const pids = this.pids();
    for (const pid of pids) signal(pid, 'SIGTERM');
    const deadline = Date.now() + STOP_TIMEOUT_MS;
    while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const pid of pids.filter(alive)) signal(pid, 'SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Synchronous last resort for process exit. */
  killNow(): void {
    for (const pid of this.pids()) signal(pid, 'SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already exited.
  }
}

/** A zombie counts as gone: a container without an init process may never reap it. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** Starts a switch, runs `fn`, and stops the switch whatever happens. */
export async function withOvsSwitch<T>(options: OvsSwitchOptions, fn: (sw: OvsSwitch) => Promise<T>): Promise<T> {
  const sw = await OvsSwitch.start(options);
  try {
    return await fn(sw);
  } finally {
    await sw.stop();
  }
}

export type ParsedFlow =
  | {
      readonly ok: true;
      /** Protocol ovs-ofctl chose, e.g. `OXM-OpenFlow13`, `NXM+table_id`. */
      readonly protocol: string;
      /** Flow-mod header, e.g. `OFPT_FLOW_MOD (OF1.3) (xid=0x1)`. */
      readonly message: string;
      /** The flow as OVS prints it back, after `ADD `. */
      readonly canonical: string;
    }
  | { readonly ok: false; readonly error: string };

/**
 * `ovs-ofctl [-O OpenFlow1N] parse-flow FLOW`; needs no switch. Rejections are results, not
 * exceptions. `more` adds as many `-m`: from 3 on, OpenFlow 1.0 prints every wildcarded field
 * and the priority as `pri:N`.
 */
export async function parseFlow(flow: string, of?: OfVersion, more = 0): Promise<ParsedFlow> {
  const args = [...versionArgs(of), ...Array<string>(more).fill('-m'), 'parse-flow', flow];
  const r = await execa(binary('ovs-ofctl'), args, { timeout: COMMAND_TIMEOUT_MS, reject: false });
  if (r.exitCode !== 0) return { ok: false, error: r.stderr.replace(/^ovs-ofctl: /, '') };
  const protocol = /^chosen protocol: (\S+)$/m.exec(r.stdout)?.[1];
  const mod = /^(\S+ .*?\(xid=0x[0-9a-f]+\)): ADD (.*)$/m.exec(r.stdout);
  if (protocol === undefined || mod?.[1] === undefined || mod[2] === undefined) {
    return { ok: false, error: `unexpected parse-flow output: ${r.stdout}` };
  }
  return { ok: true, protocol, message: mod[1], canonical: mod[2] };
}

/** `ovs-ofctl ofp-print HEX`: how OVS prints the OpenFlow message `hex`; needs no switch. */
export async function ofpPrint(hex: string): Promise<string> {
  const r = await execa(binary('ovs-ofctl'), ['ofp-print', hex], { timeout: COMMAND_TIMEOUT_MS });
  return r.stdout;
}

/**
 * `ovs-ofctl -O OpenFlow1N parse-flows FILE`: many flows in one process. OVS picks one protocol
 * for the whole file, so with OpenFlow 1.0 a flow without `table=` prints as `table:255`; give
 * every flow a table to get the same text as parse-flow. Throws on the first rejected flow.
 */
export async function parseFlows(flows: readonly string[], of: OfVersion): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-parse-'));
  try {
    const file = join(dir, 'flows.txt');
    writeFileSync(file, flows.join('\n') + '\n');
    const r = await execa(binary('ovs-ofctl'), [...versionArgs(of), 'parse-flows', file], {
      timeout: COMMAND_TIMEOUT_MS,
      reject: false,
    });
    if (r.exitCode !== 0) throw new Error(`ovs-ofctl parse-flows: ${r.stderr}`);
    const out = r.stdout.split('\n').flatMap((l) => {
      const m = /^\S+ .*?\(xid=0x[0-9a-f]+\): ADD (.*)$/.exec(l);
      return m?.[1] === undefined ? [] : [m[1]];
    });
    if (out.length !== flows.length) throw new Error(`parse-flows printed ${out.length} flows for ${flows.length}`);
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
