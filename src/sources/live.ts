/**
 * Dumps taken from a running switch: `ovs-ofctl` on this host, or inside a Pod through
 * `kubectl exec`. Commands run from an argument vector (never through a shell) with a timeout;
 * every failure becomes a SourceError that says what to fix.
 */
import { type NodeFile, type NodeSource, SourceError } from './node.ts';

export type LiveTarget =
  | {
      readonly kind: 'pod';
      readonly pod: string;
      readonly namespace: string;
      readonly container: string;
      readonly kubeconfig?: string;
      readonly context?: string;
    }
  | { readonly kind: 'local' };

export interface LiveOptions {
  readonly target: LiveTarget;
  readonly bridge: string;
  /** Per command. */
  readonly timeoutMs: number;
  /** The environment the commands run with (PATH finds kubectl/ovs-ofctl; OVS_RUNDIR finds the switch). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Node's timers hold at most 2^31 − 1 ms (24.8 days); a longer one would fire at once. */
export const MAX_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

export const LIVE_DEFAULTS = {
  namespace: 'kube-system',
  container: 'antrea-ovs',
  bridge: 'br-int',
  timeoutSeconds: 30,
} as const;

/** Antrea's own choice since v1.8; a bridge limited to older versions (OpenShift's br0) falls back to 1.3. */
const VERSIONS = ['OpenFlow15', 'OpenFlow13'] as const;
/** Large clusters dump hundreds of thousands of flows. */
const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;

interface Ran {
  readonly ok: boolean;
  readonly stdout: string;
  readonly message: string;
  /** ovs-ofctl and the bridge found no OpenFlow version in common. */
  readonly versionRefused: boolean;
}

function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function lastLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .pop() ?? ''
  );
}

/** RFC 1123 names, as Kubernetes checks them: a Pod's is a DNS subdomain, a namespace's and a container's a DNS label. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** A bridge is a network device: at most 15 bytes (IFNAMSIZ), no blank, `/` or `:` (which ovs-ofctl reads as a connection). */
const BRIDGE = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}$/;
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Why a name given for the live switch is not one Kubernetes or OVS would accept, or undefined.
 * Checked before anything runs: a value starting with `-` would otherwise become an option of
 * kubectl or ovs-ofctl (`--pod=--filename=/etc/passwd`).
 */
export function liveNameProblem(
  what: 'pod' | 'namespace' | 'container' | 'context' | 'kubeconfig' | 'bridge',
  value: string,
): string | undefined {
  const quoted = JSON.stringify(value);
  if (value === '') return `--${what}: an empty name`;
  if (value.startsWith('-')) return `--${what} ${quoted}: a name cannot start with "-"`;
  switch (what) {
    case 'pod':
      return value.length <= 253 && DNS_SUBDOMAIN.test(value)
        ? undefined
        : `--pod ${quoted}: not a Pod name (lower-case letters, digits, "-" and ".", at most 253, starting and ending with a letter or digit)`;
    case 'namespace':
    case 'container':
      return value.length <= 63 && DNS_LABEL.test(value)
        ? undefined
        : `--${what} ${quoted}: not a ${what} name (lower-case letters, digits and "-", at most 63, starting and ending with a letter or digit)`;
    case 'bridge':
      return BRIDGE.test(value)
        ? undefined
        : `--bridge ${quoted}: not a bridge name (letters, digits, "_", "-" and ".", at most 15)`;
    case 'context':
    case 'kubeconfig':
      return CONTROL.test(value) ? `--${what} ${quoted}: a control character in the name` : undefined;
  }
}

/** Every name of the live options that neither Kubernetes nor OVS would accept, refused before anything runs. */
function checkNames(options: LiveOptions): void {
  const t = options.target;
  const given: [Parameters<typeof liveNameProblem>[0], string | undefined][] = [['bridge', options.bridge]];
  if (t.kind === 'pod')
    given.push(
      ['pod', t.pod],
      ['namespace', t.namespace],
      ['container', t.container],
      ['context', t.context],
      ['kubeconfig', t.kubeconfig],
    );
  for (const [what, value] of given) {
    const problem = value === undefined ? undefined : liveNameProblem(what, value);
    if (problem !== undefined) throw new SourceError(problem);
  }
}

/**
 * The command line: option values joined to their options (`--context=…`), and `--` before
 * ovs-ofctl's operands, so that no value is read as an option.
 */
function argv(target: LiveTarget, ofctl: readonly string[]): { file: string; args: string[] } {
  if (target.kind === 'local') return { file: 'ovs-ofctl', args: [...ofctl] };
  const args: string[] = [];
  if (target.kubeconfig !== undefined) args.push(`--kubeconfig=${target.kubeconfig}`);
  if (target.context !== undefined) args.push(`--context=${target.context}`);
  args.push(
    'exec',
    `--namespace=${target.namespace}`,
    target.pod,
    `--container=${target.container}`,
    '--',
    'ovs-ofctl',
    ...ofctl,
  );
  return { file: 'kubectl', args };
}

/** What went wrong with kubectl itself, in the user's terms, or undefined when ovs-ofctl failed. */
function kubectlTrouble(target: LiveTarget & { kind: 'pod' }, stderr: string): string | undefined {
  if (/pods? "[^"]*" not found|NotFound/.test(stderr))
    return `pod ${target.pod} not found in namespace ${target.namespace}`;
  if (/container[^\n]*not found|not valid for pod|is not a container/i.test(stderr))
    return `pod ${target.pod} has no container ${target.container} (choose one with --container)`;
  if (
    /Unable to connect to the server|couldn't get current server API|connection refused|context .* does not exist|no configuration has been provided/i.test(
      stderr,
    )
  ) {
    return `kubectl cannot reach the cluster: ${lastLine(stderr)}`;
  }
  return undefined;
}

async function run(options: LiveOptions, ofctl: readonly string[]): Promise<Ran> {
  const { file, args } = argv(options.target, ofctl);
  const shown = [file, ...args].map(shellWord).join(' ');
  // Loaded here: it takes longer to load than most commands take to run, and only live input needs it.
  const { execa } = await import('execa');
  const r = await execa(file, args, {
    env: options.env,
    extendEnv: false,
    timeout: Math.min(options.timeoutMs, MAX_TIMEOUT_SECONDS * 1000),
    reject: false,
    stdin: 'ignore',
    stripFinalNewline: false,
    maxBuffer: MAX_OUTPUT_BYTES,
  });
  if (r.exitCode === 0 && !r.failed) return { ok: true, stdout: r.stdout, message: '', versionRefused: false };
  if ((r as { code?: string }).code === 'ENOENT') {
    throw new SourceError(`${file} not found: install it or add its directory to PATH`);
  }
  if (r.timedOut)
    throw new SourceError(
      `${shown}: no answer within ${options.timeoutMs / 1000} s (--timeout SECONDS to wait longer)`,
    );
  const stderr = String(r.stderr);
  if (options.target.kind === 'pod') {
    const trouble = kubectlTrouble(options.target, stderr);
    if (trouble !== undefined) throw new SourceError(trouble);
  }
  const why =
    lastLine(stderr) || (r.exitCode === undefined ? (r.shortMessage ?? 'failed') : `exit status ${r.exitCode}`);
  return {
    ok: false,
    stdout: '',
    message: `${shown}: ${why}`,
    versionRefused: /version negotiation failed/i.test(stderr),
  };
}

/** Runs one ovs-ofctl command, falling back to OpenFlow 1.3 when the bridge refuses 1.5. */
async function dump(options: LiveOptions, command: string, extra: readonly string[]): Promise<Ran> {
  let last: Ran | undefined;
  for (const version of VERSIONS) {
    last = await run(options, ['-O', version, ...extra, '--', command, options.bridge]);
    if (!last.versionRefused) return last;
  }
  return last!;
}

/** Flows (with names), groups and port descriptions of the bridge, as one node. */
export async function collectLive(options: LiveOptions): Promise<NodeSource> {
  checkNames(options);
  const t = options.target;
  const where = t.kind === 'pod' ? `${t.namespace}/${t.pod}` : 'local';
  const label = (cmd: string): string => `${where}:${cmd} ${options.bridge}`;
  const flows = await dump(options, 'dump-flows', ['--names']);
  if (!flows.ok) throw new SourceError(flows.message);
  const files: Partial<Record<'flows' | 'groups' | 'ports', NodeFile>> = {
    flows: { label: label('dump-flows'), text: flows.stdout },
  };
  const problems: string[] = [];
  for (const [kind, cmd] of [
    ['groups', 'dump-groups'],
    ['ports', 'dump-ports-desc'],
  ] as const) {
    const r = await dump(options, cmd, []);
    if (r.ok) files[kind] = { label: label(cmd), text: r.stdout };
    else problems.push(r.message);
  }
  return { name: t.kind === 'pod' ? t.pod : options.bridge, origin: where, files, problems };
}
