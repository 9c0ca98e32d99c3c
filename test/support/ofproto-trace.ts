/**
 * Reads the text `ovs-appctl ofproto/trace` prints (OVS 3.1) into what the differential tests
 * compare: per pass the tables looked up with the matched priority, the OpenFlow ports the packet
 * was output to, and whether it went to NORMAL or the controller.
 */

export interface OfprotoStep {
  readonly table: number;
  /** null for "No match." */
  readonly priority: number | null;
}

export interface OfprotoPass {
  readonly steps: readonly OfprotoStep[];
  /** The packet the pass starts with and ends with, in flow syntax (`Flow:`, `Final flow:`). */
  readonly flow?: string;
  readonly final?: string;
}

export interface OfprotoTrace {
  readonly passes: readonly OfprotoPass[];
  readonly outputs: readonly number[];
  readonly normal: boolean;
  readonly controller: boolean;
  readonly verdict: 'output' | 'drop' | 'normal' | 'controller';
  /** Buckets the select groups used (`-> using bucket N`), in order. */
  readonly buckets: readonly number[];
  /** Why translation failed (`Recursion too deep`), when it did. */
  readonly failure?: string;
}

const RULE = /^={79}$/;
const TABLE = /^\s*(\d+)\. (?:(?:.*), )?priority (\d+)(?:, cookie 0x[0-9a-f]+)?$/;
const MISS = /^\s*(\d+)\. No match/;
/** Warnings that cancel the output just reported. */
const NOT_SENT = /^ >> (?:skipping output to input port|Nonexistent output port|output port .* is down)/;

const RESERVED: Readonly<Record<string, number>> = { LOCAL: 0xfffe };

/**
 * `ports`: the bridge's ports (LOCAL included), which FLOOD and ALL send to, the input port
 * excepted; ofproto/trace prints no line per port for them.
 */
export function parseOfprotoTrace(text: string, inPort: number, ports: readonly number[] = []): OfprotoTrace {
  const passes: { steps: OfprotoStep[]; flow?: string; final?: string }[] = [];
  const outputs: number[] = [];
  const buckets: number[] = [];
  let normal = false;
  let controller = false;
  let failure: string | undefined;
  let current: { steps: OfprotoStep[]; flow?: string; final?: string } | undefined = { steps: [] };
  passes.push(current);
  // What the pass found sent before it began: a pass whose translation fails sends nothing.
  let before = { outputs: 0, normal, controller };
  let inHeader = false;
  for (const raw of text.split('\n')) {
    if (RULE.test(raw)) {
      // The recirculation header sits between two rules; the next pass starts after it.
      inHeader = !inHeader;
      if (!inHeader) {
        passes.push((current = { steps: [] }));
        before = { outputs: outputs.length, normal, controller };
      }
      continue;
    }
    if (inHeader || current === undefined) continue;
    const line = raw.trim();
    if (raw.startsWith('Flow: ')) current.flow = raw.slice('Flow: '.length);
    if (raw.startsWith('Final flow: ')) {
      const final = raw.slice('Final flow: '.length);
      const resolved = final === 'unchanged' ? current.flow : final;
      if (resolved !== undefined) current.final = resolved;
      continue;
    }
    // IN_PORT sends to the port the packet is in on now, which a flow may have rewritten. The
    // packet a group bucket or clone rewrote is not restored here: tests rewrite in_port plainly.
    const rewritten =
      /^(?:Flow: .*?\bin_port=(\d+)|set_field:(\d+)->in_port|load:(0x[0-9a-f]+|\d+)->NXM_OF_IN_PORT\[\])(?:,|$)/.exec(
        line,
      );
    if (rewritten) {
      inPort = Number(rewritten[1] ?? rewritten[2] ?? rewritten[3]);
      continue;
    }
    const table = TABLE.exec(raw);
    if (table) {
      current.steps.push({ table: Number(table[1]), priority: Number(table[2]) });
      continue;
    }
    const miss = MISS.exec(raw);
    if (miss) {
      current.steps.push({ table: Number(miss[1]), priority: null });
      continue;
    }
    let m: RegExpExecArray | null;
    if ((m = /^output:(\d+)$/.exec(line))) outputs.push(Number(m[1]));
    else if ((m = /^-> output port is (\d+)$/.exec(line))) outputs.push(Number(m[1]));
    else if (line === 'IN_PORT') outputs.push(inPort);
    else if (line in RESERVED) outputs.push(RESERVED[line]!);
    else if (line === 'NORMAL') normal = true;
    else if (line === 'FLOOD' || line === 'ALL') outputs.push(...ports.filter((p) => p !== inPort));
    else if (/^(?:CONTROLLER|controller)\b/.test(line) || /^>> .*TTL exception/.test(line)) controller = true;
    else if ((m = /^-> using bucket (\d+)$/.exec(line))) buckets.push(Number(m[1]));
    else if (NOT_SENT.test(' ' + line)) outputs.pop();
    else if ((m = /^Translation failed \((.+)\), packet is dropped\.$/.exec(line))) {
      failure = m[1];
      outputs.length = before.outputs;
      ({ normal, controller } = before);
    }
  }
  const verdict = outputs.length > 0 ? 'output' : normal ? 'normal' : controller ? 'controller' : 'drop';
  return { passes, outputs, normal, controller, verdict, buckets, ...(failure === undefined ? {} : { failure }) };
}
