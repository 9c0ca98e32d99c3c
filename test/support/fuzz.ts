/**
 * Fuzzing flowscope through every command, in-process: seeded inputs made by mutating real
 * lines (OVS's own test suite, the corpus dumps, the examples) and by composing pipelines from
 * parts that loop, branch and nest, each run through one command and the reader. A run fails on
 * an exception or an internal error, on output beyond a fixed multiple of the input, and (for
 * the campaign, never in the suite) past a time or memory bound.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { Random } from '../../bench/random.ts';
import { main } from '../../src/cli/main.ts';
import { capDiagnostics, DEFAULT_MAX_DIAGNOSTICS, formatDiagnostic } from '../../src/render/diagnostics.ts';
import { formatFlowCanonical } from '../../src/render/flow.ts';
import { formatGroup } from '../../src/render/group.ts';
import { parseDump } from '../../src/syntax/reader.ts';
import { matchPipelinePolicies } from '../../src/analysis/conjunctions/policy-match.ts';
import { annotatePipeline } from '../../src/analysis/detect/profile-choice.ts';
import { Pipeline } from '../../src/model/pipeline.ts';
import { conjunctionRuleText, policyLines, policyMatchJson, ruleName } from '../../src/render/policy-words.ts';
import { readPolicyObjects } from '../../src/sources/antrea-policies.ts';
import { antrea2NamedFlows } from './antrea2-pipeline.ts';
import { antrea2PolicyFiles } from './antrea2-policies.ts';
import { corpusText, readJsonl } from './corpus.ts';
import { repoRoot } from './paths.ts';

export interface FuzzCase {
  readonly args: readonly string[];
  readonly stdin: string;
  /**
   * A node's policy objects (mutated YAML) matched to the conjunctions of the dump on stdin through
   * the library, as `conj`, `show`, `trace` and `check` on a bundle match them (`args` is `policies`).
   */
  readonly policies?: PolicyTexts;
}

type PolicyTexts = Readonly<Record<'networkpolicies' | 'addressgroups' | 'appliedtogroups', string>>;

export interface FuzzOutcome {
  readonly status: number;
  readonly outBytes: number;
  readonly errBytes: number;
  /** Set when the run failed in a way the fuzzer hunts for. */
  readonly failure?: string;
}

/** Output allowed per byte of input, over a floor that a trace of a few looping flows may reach. */
export const OUTPUT_MULTIPLE = 1000;
export const OUTPUT_FLOOR = 16 * 1024;

export const EXAMPLE_DUMP = join(repoRoot, 'examples', 'antrea', 'dump-flows.of13.txt');
export const EXAMPLE_FLOWS = join(repoRoot, 'examples', 'antrea', 'flows.txt');

/** The lines inputs are made from. */
export function seedLines(): string[] {
  const examples = [
    'antrea/dump-flows.of13.txt',
    'antrea/dump-groups.of13.txt',
    'antrea-proxy/dump-flows.of15.txt',
    'antrea-proxy/dump-groups.of15.txt',
    'openshift-sdn/dump-flows.of13.names.txt',
    'antrea/show.of13.txt',
  ]
    .map((f) => {
      try {
        return readFileSync(join(repoRoot, 'examples', f), 'utf8');
      } catch {
        return '';
      }
    })
    .join('\n');
  return [
    ...readJsonl('ovs-tests-flows.jsonl').map((r) => r.input),
    ...readJsonl('ovs-tests-groups.jsonl').map((r) => r.input),
    ...corpusText('openshift-sdn-3.x-multitenant-real-dump.txt').split('\n'),
    ...examples.split('\n'),
  ].filter((l) => l.trim() !== '');
}

const SPECIAL = [
  ',',
  '=',
  '(',
  ')',
  '[',
  ']',
  '"',
  '\\',
  ':',
  '/',
  '-',
  '>',
  '.',
  ' ',
  '\t',
  '\r',
  '\n',
  '\\\n',
  '\u0000',
  '\u00e9',
  '\ud83d',
  'x',
  '0',
  '9',
  'ff',
  '..',
  '->',
  'actions=',
  'bucket=',
  '0x',
  'constructor',
  '__proto__',
  'toString',
  'resubmit(,0)',
  'ct(table=0)',
  'clone(',
  'group:1',
  'goto_table:1',
  'exit',
  'push:NXM_NX_REG0[]',
  'learn(',
  'exec(',
];

/** One to four edits: deletions, insertions of syntax, splices and stray characters. */
export function mutate(line: string, r: Random): string {
  let s = line;
  const edits = r.int(1, 4);
  for (let i = 0; i < edits; i++) {
    const at = r.int(0, s.length);
    switch (r.int(0, 4)) {
      case 0:
        s = s.slice(0, at) + s.slice(at + r.int(1, 5));
        break;
      case 1:
        s = s.slice(0, at) + SPECIAL[r.int(0, SPECIAL.length - 1)]! + s.slice(at);
        break;
      case 2:
        s = s.slice(0, at) + s.slice(r.int(0, s.length));
        break;
      case 3:
        s = s.slice(0, at) + String.fromCharCode(r.int(0, 0x2ff)) + s.slice(at + 1);
        break;
      default: {
        // A piece of the line repeated: long lists and deep nesting.
        const from = r.int(0, s.length);
        const piece = s.slice(from, from + r.int(1, 24));
        s = s.slice(0, at) + piece.repeat(r.int(2, 200)) + s.slice(at);
      }
    }
  }
  return s;
}

const TABLES = [0, 1, 2, 3, 10, 254];
const ACTIONS = [
  () => 'drop',
  (r: Random) => `output:${r.int(1, 4)}`,
  (r: Random) => `resubmit(,${TABLES[r.int(0, TABLES.length - 1)]})`,
  (r: Random) => `goto_table:${TABLES[r.int(1, TABLES.length - 1)]}`,
  (r: Random) => `group:${r.int(1, 4)}`,
  (r: Random) =>
    `ct(table=${TABLES[r.int(0, TABLES.length - 1)]},zone=${r.int(0, 3)}${r.chance(0.3) ? ',commit,exec(set_field:0x1->ct_mark)' : ''})`,
  (r: Random) => `clone(${r.chance(0.5) ? 'output:2' : `resubmit(,${r.int(0, 3)})`})`,
  (r: Random) => `set_field:${r.int(0, 9)}->reg${r.int(0, 3)}`,
  () => 'push:NXM_NX_REG0[]',
  () => 'pop:NXM_NX_REG1[]',
  () => 'exit',
  () => 'dec_ttl',
  () => 'learn(table=3,NXM_OF_ETH_DST[]=NXM_OF_ETH_SRC[],output:NXM_OF_IN_PORT[])',
  () => 'conjunction(7,1/2)',
  () => 'CONTROLLER:65535',
  () => 'NORMAL',
];
const MATCHES = [
  '',
  'ip,',
  'tcp,tp_dst=80,',
  'reg0=0x1,',
  'ct_state=+trk+new,',
  'in_port=1,',
  'conj_id=7,',
  'nw_dst=10.0.0.0/8,',
];

/** A small pipeline of flows and groups that resubmit, recirculate, fan out and nest. */
export function composedDump(r: Random): string {
  const lines: string[] = [];
  const flows = r.int(1, 12);
  for (let i = 0; i < flows; i++) {
    const actions = Array.from({ length: r.int(1, 5) }, () => ACTIONS[r.int(0, ACTIONS.length - 1)]!(r)).join(',');
    lines.push(
      `table=${TABLES[r.int(0, TABLES.length - 2)]},priority=${r.int(0, 3)},${MATCHES[r.int(0, MATCHES.length - 1)]}actions=${actions}`,
    );
  }
  for (let g = 1; g <= r.int(0, 4); g++) {
    const type = ['all', 'select', 'indirect', 'ff'][r.int(0, 3)]!;
    const buckets = Array.from({ length: r.int(1, 4) }, () => `bucket=${ACTIONS[r.int(0, 7)]!(r)}`).join(',');
    lines.push(`group_id=${g},type=${type},${buckets}`);
  }
  return lines.join('\n') + '\n';
}

const PACKETS = [
  'in_port=1',
  'in_port=1,ip,nw_src=10.0.0.1,nw_dst=10.0.0.2,nw_ttl=64',
  'in_port=2,tcp,tp_dst=80,nw_ttl=2',
  'in_port=3,ct_state=+trk,reg0=1',
  'in_port=1,ipv6',
  'in_port=LOCAL,arp',
];

/** Commands and arguments an input is run through; `-` is where the input goes. */
const COMMANDS: readonly ((r: Random) => string[])[] = [
  () => ['parse', '-'],
  (r) => ['fmt', '--of', ['10', '13', '15'][r.int(0, 2)]!, '-'],
  () => ['show', '-'],
  () => ['show', '--json', '-'],
  () => ['tables', '-'],
  () => ['check', '-'],
  () => ['check', '--json', '-'],
  () => ['graph', '-'],
  (r) => ['graph', '--format', r.chance(0.5) ? 'dot' : 'mermaid', '-'],
  () => ['conj', '-'],
  (r) => [
    'trace',
    '-',
    r.chance(0.8) ? PACKETS[r.int(0, PACKETS.length - 1)]! : mutate(PACKETS[r.int(0, PACKETS.length - 1)]!, r),
  ],
  (r) => ['trace', '--json', '-', PACKETS[r.int(0, PACKETS.length - 1)]!],
  (r) => ['trace', '-o', 'name', '-', PACKETS[r.int(0, PACKETS.length - 1)]!],
  (r) => [
    'trace',
    ...(r.chance(0.5) ? ['--json'] : []),
    '-',
    '--compare',
    EXAMPLE_DUMP,
    PACKETS[r.int(0, PACKETS.length - 1)]!,
  ],
  (r) => ['trace', EXAMPLE_DUMP, '--compare', '-', PACKETS[r.int(0, PACKETS.length - 1)]!],
  () => ['diff', EXAMPLE_DUMP, '-'],
  // One probe a change: the example's 86 flows each make a change against a fuzzed dump.
  (r) => [
    'diff',
    '--impact',
    '--max-probes',
    '1',
    ...(r.chance(0.5) ? ['--json'] : []),
    ...(r.chance(0.5) ? [EXAMPLE_DUMP, '-'] : ['-', EXAMPLE_DUMP]),
  ],
  () => ['verify', '--expect', EXAMPLE_FLOWS, '-'],
];

/** The generated Antrea pipeline and the policies behind its conjunctions, made once. */
let policySeed: { readonly flows: string[]; readonly files: PolicyTexts } | undefined;

/** Some lines of a text mutated, at `rate` a line. */
function mutateLines(lines: readonly string[], rate: number, r: Random): string {
  return lines.map((l) => (r.chance(rate) ? mutate(l, r) : l)).join('\n');
}

/** The generated pipeline and its policy objects, a few lines of each mutated (or the policies' shape broken). */
function policyCase(r: Random): FuzzCase {
  policySeed ??= { flows: antrea2NamedFlows().split('\n'), files: antrea2PolicyFiles() };
  const { flows, files } = policySeed;
  const yaml = (text: string): string =>
    r.chance(0.1)
      ? text.replace(/^(\s*)- /gm, (m, pad: string) => (r.chance(0.3) ? `${pad}` : m))
      : mutateLines(text.split('\n'), 0.05, r);
  return {
    args: ['policies'],
    stdin: mutateLines(flows, 0.02, r),
    policies: {
      networkpolicies: yaml(files.networkpolicies),
      addressgroups: yaml(files.addressgroups),
      appliedtogroups: yaml(files.appliedtogroups),
    },
  };
}

/** The `index`th case of the campaign seeded `seed`: the same pair always yields the same case. */
export function fuzzCase(seed: number, index: number, seeds: readonly string[]): FuzzCase {
  const r = new Random((seed * 0x9e3779b1 + index * 0x85ebca6b) >>> 0);
  r.next();
  // One case in 40 matches policy objects to conjunctions.
  if (r.int(0, 39) === 0) return policyCase(r);
  let stdin: string;
  const kind = r.int(0, 9);
  if (kind < 5) {
    const n = r.int(1, 6);
    stdin = Array.from({ length: n }, () => {
      const line = seeds[r.int(0, seeds.length - 1)]!;
      return r.chance(0.7) ? mutate(line, r) : line;
    }).join('\n');
  } else if (kind < 9) {
    stdin = composedDump(r);
    if (r.chance(0.3)) stdin = mutate(stdin, r);
  } else {
    // Bytes of no text at all.
    stdin = Array.from({ length: r.int(1, 400) }, () => String.fromCharCode(r.int(0, 255))).join('');
  }
  return { args: COMMANDS[r.int(0, COMMANDS.length - 1)]!(r), stdin };
}

/** A sink that counts what is written and keeps only the start of it. */
function counter(keep: number): { stream: PassThrough; bytes: () => number; text: () => string } {
  const stream = new PassThrough();
  let bytes = 0;
  const kept: Buffer[] = [];
  let keptBytes = 0;
  stream.on('data', (c: Buffer) => {
    bytes += c.length;
    if (keptBytes < keep) {
      kept.push(c);
      keptBytes += c.length;
    }
  });
  return { stream, bytes: () => bytes, text: () => Buffer.concat(kept).toString('utf8') };
}

/**
 * The input through the library's reader and printers (what `parse` and `fmt` do): flows and
 * groups in every OpenFlow version, diagnostics as shown. Returns the failure, if any.
 */
export function readerFailure(input: string): string | undefined {
  try {
    const r = parseDump(input, { file: 'fuzz' });
    let printed = 0;
    for (const f of r.flows) for (const of of [10, 13, 15] as const) printed += formatFlowCanonical(f, of).length;
    for (const g of r.groups) for (const of of [10, 13, 15] as const) printed += formatGroup(g, of).length;
    for (const d of capDiagnostics(r.diagnostics, DEFAULT_MAX_DIAGNOSTICS).shown) printed += formatDiagnostic(d).length;
    const allowed = OUTPUT_MULTIPLE * Math.max(input.length, OUTPUT_FLOOR);
    return printed > allowed ? `the reader printed ${printed} characters for ${input.length} of input` : undefined;
  } catch (err) {
    return `the reader threw: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
  }
}

/** The policy objects matched to the dump's conjunctions and rendered as the commands render them; the failure, if any. */
function policyFailure(input: string, texts: PolicyTexts): string | undefined {
  try {
    const dump = parseDump(input, { file: 'fuzz' });
    const read = annotatePipeline(new Pipeline(dump.flows, dump.groups, dump.ports));
    const file = (name: keyof PolicyTexts): { label: string; text: string } => ({ label: name, text: texts[name] });
    const objects = readPolicyObjects({
      networkpolicies: file('networkpolicies'),
      addressgroups: file('addressgroups'),
      appliedtogroups: file('appliedtogroups'),
    });
    if (!objects) return 'the policy objects were not read';
    const matching = matchPipelinePolicies(read, objects);
    let printed = objects.problems.reduce((n, p) => n + p.length, 0);
    for (const m of matching.matches)
      printed +=
        policyLines(m).join('\n').length + JSON.stringify(policyMatchJson(m)).length + conjunctionRuleText(m).length;
    for (const ref of matching.unimplemented) printed += ruleName(ref).length;
    const size = input.length + Object.values(texts).reduce((n, t) => n + t.length, 0);
    const allowed = OUTPUT_MULTIPLE * Math.max(size, OUTPUT_FLOOR);
    return printed > allowed ? `policy matching printed ${printed} characters for ${size} of input` : undefined;
  } catch (err) {
    return `policy matching threw: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
  }
}

/** Runs one case through the reader and its command. */
export async function runCase(c: FuzzCase): Promise<FuzzOutcome> {
  const read = readerFailure(c.stdin);
  if (read !== undefined) return { status: -1, outBytes: 0, errBytes: 0, failure: read };
  if (c.policies) {
    const failure = policyFailure(c.stdin, c.policies);
    return { status: 0, outBytes: 0, errBytes: 0, ...(failure === undefined ? {} : { failure }) };
  }
  const out = counter(0);
  const err = counter(64 * 1024);
  let status: number;
  try {
    status = await main(c.args, {
      stdin: Readable.from([Buffer.from(c.stdin)]),
      stdout: out.stream,
      stderr: err.stream,
      env: {},
    });
  } catch (e) {
    return {
      status: -1,
      outBytes: out.bytes(),
      errBytes: err.bytes(),
      failure: `main threw: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
    };
  }
  // Let the sinks take what was written.
  await new Promise<void>((resolve) => setImmediate(resolve));
  const outcome = { status, outBytes: out.bytes(), errBytes: err.bytes() };
  const stderr = err.text();
  if (/internal error/.test(stderr)) return { ...outcome, failure: stderr.slice(0, 4000) };
  if (![0, 1, 2].includes(status)) return { ...outcome, failure: `exit status ${status}` };
  const allowed = OUTPUT_MULTIPLE * Math.max(Buffer.byteLength(c.stdin), OUTPUT_FLOOR);
  if (outcome.outBytes + outcome.errBytes > allowed)
    return {
      ...outcome,
      failure: `${outcome.outBytes + outcome.errBytes} bytes of output for ${Buffer.byteLength(c.stdin)} of input`,
    };
  return outcome;
}
