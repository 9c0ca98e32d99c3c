/**
 * fmt prints the flow-mod form of `ovs-ofctl parse-flow` (`idle:30 hard:60`), so its output must
 * read back: into the same text, and into dumps diff finds equal to the ones it came from.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Flow } from '../src/model/flow.ts';
import { OF_VERSIONS } from '../src/model/openflow.ts';
import { parseDump } from '../src/syntax/reader.ts';
import { runCli } from './support/cli.ts';
import { examplesDir } from './support/make-examples.ts';
import { ofpPrint, parseFlow, parseFlows, skipUnlessOvs, withOvsSwitch } from './support/ovs.ts';

/** Every example that holds flows or groups. */
const DUMPS = readdirSync(examplesDir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => readdirSync(join(examplesDir, d.name)).map((f) => join(examplesDir, d.name, f)))
  .filter((p) => /\/(?:dump-flows|dump-groups|flows|groups)[^/]*\.txt$/.test(p));

test('fmt output of every example reads back to the same text, and diffs equal to the example, in OpenFlow 1.0, 1.3 and 1.5', async () => {
  assert.ok(DUMPS.length > 10);
  for (const of of ['10', '13', '15']) {
    for (const dump of DUMPS) {
      const printed = await runCli(['fmt', '--of', of, dump]);
      assert.equal(printed.status, 0, `${dump}: ${printed.stderr}`);
      const again = await runCli(['fmt', '--of', of, '-'], { stdin: printed.stdout });
      assert.equal(again.stderr, '', `${dump} --of ${of}`);
      assert.equal(again.stdout, printed.stdout, `${dump} --of ${of}`);
      const diff = await runCli(['diff', '-', dump], { stdin: printed.stdout });
      assert.equal(diff.status, 0, `${dump} --of ${of}: ${diff.stdout}${diff.stderr}`);
    }
  }
});

/** The one flow of `text`, read without complaint. */
function readFlow(text: string): Flow {
  const r = parseDump(text, { file: 'print' });
  assert.deepEqual(r.diagnostics, [], text);
  assert.equal(r.flows.length, 1, text);
  return r.flows[0]!;
}

/**
 * An OpenFlow 1.0 flow_mod adding `in_port=1 actions=output:3` at priority 100, with cookie 0x5,
 * timeouts 30 and 60, buffer 0x10e, out_port 2 and send_flow_rem: every key of the print form
 * but `pri:` and importance, which OpenFlow 1.0 has no room for.
 */
function flowModOf10(): string {
  const match = Buffer.alloc(40);
  match.writeUInt32BE(0x3ffffe, 0); // every field wildcarded but in_port
  match.writeUInt16BE(1, 4);
  const body = Buffer.alloc(24);
  body.writeBigUInt64BE(0x5n, 0);
  body.writeUInt16BE(0, 8); // ADD
  body.writeUInt16BE(30, 10);
  body.writeUInt16BE(60, 12);
  body.writeUInt16BE(100, 14);
  body.writeUInt32BE(0x10e, 16);
  body.writeUInt16BE(2, 20);
  body.writeUInt16BE(1, 22); // OFPFF_SEND_FLOW_REM
  const output = Buffer.from([0, 0, 0, 8, 0, 3, 0, 0]);
  const header = Buffer.alloc(8);
  header.writeUInt8(1, 0);
  header.writeUInt8(14, 1); // OFPT_FLOW_MOD
  header.writeUInt16BE(8 + match.length + body.length + output.length, 2);
  header.writeUInt32BE(7, 4);
  return Buffer.concat([header, match, body, output]).toString('hex');
}

test(
  'real switch tools: each key of the flow-mod print form reads as the flow it describes',
  skipUnlessOvs,
  async () => {
    const printed = (await ofpPrint(flowModOf10())).replace(/^.*?: ADD /, '');
    assert.match(printed, / cookie:0x5 idle:30 hard:60 buf:0x10e out_port:2 send_flow_rem actions=/);
    const mod = readFlow(printed);
    assert.deepEqual(
      [mod.priority, mod.cookie, mod.idleTimeout, mod.hardTimeout, mod.flags],
      [100, 0x5n, 30, 60, ['send_flow_rem']],
    );

    // Printed at length, OpenFlow 1.0 lists the wildcards and gives the priority as pri:N.
    const long = await parseFlow('priority=100,ip,in_port=1 idle_timeout=30 actions=output:3', 10, 3);
    assert.ok(long.ok && / idle:30 pri:100 actions=/.test(long.canonical), long.ok ? long.canonical : long.error);
    assert.deepEqual([readFlow(long.canonical).priority, readFlow(long.canonical).idleTimeout], [100, 30]);

    const of15 = await parseFlow(
      'table=3,priority=7,tcp hard_timeout=60,importance=9,send_flow_rem,no_byte_counts actions=drop',
      15,
    );
    assert.ok(of15.ok, of15.ok ? '' : of15.error);
    assert.match(of15.canonical, / hard:60 importance:9 send_flow_rem no_byte_counts actions=/);
    const flow = readFlow(of15.canonical);
    assert.deepEqual(
      [flow.table, flow.hardTimeout, flow.importance, flow.flags],
      [{ kind: 'number', number: 3 }, 60, 9, ['send_flow_rem', 'no_byte_counts']],
    );
  },
);

/** Every flag word ovs-ofctl reads in a flow, in the order OVS prints them. */
const FLAG_WORDS = [
  'send_flow_rem',
  'check_overlap',
  'reset_counts',
  'no_packet_counts',
  'no_byte_counts',
  'allow_hidden_fields',
  'no_readonly_table',
];

/** The flags and the importance: each carried by a flow_mod only from some OpenFlow version on. */
const VERSIONED_WORDS = [...FLAG_WORDS, 'importance=5'];

/** A flow of table 1 with `flags`, written in the reverse of OVS's order so that fmt must reorder them. */
function flaggedFlow(flags: readonly string[]): string {
  return `table=1, ${[...flags]
    .reverse()
    .map((f) => `${f},`)
    .join('')}priority=5,ip actions=drop`;
}

/** parse-flows' `table:1 ` in the `table=1, ` of fmt's lines. */
const fmtTable = (line: string): string => line.replace(/^table:(\d+) /, 'table=$1, ');

test(
  'real switch tools: fmt --of V prints the flags and importance of a flow as ovs-ofctl -O V parse-flow does, for every version and set of them',
  skipUnlessOvs,
  async () => {
    const subsets = Array.from({ length: 1 << VERSIONED_WORDS.length }, (_, bits) =>
      VERSIONED_WORDS.filter((_, i) => bits & (1 << i)),
    );
    const mismatches: string[] = [];
    for (const of of OF_VERSIONS) {
      // Flags a version cannot send make OVS refuse the flow (reset_counts before OpenFlow 1.2,
      // where every add resets the counters; the no_*_counts before 1.3): what OVS prints for the
      // flow in that version is then the flow without them.
      const refused: string[] = [];
      for (const word of VERSIONED_WORDS) if (!(await parseFlow(flaggedFlow([word]), of)).ok) refused.push(word);
      if (of < 12) assert.ok(refused.includes('reset_counts'), `OpenFlow 1.${of - 10} accepts reset_counts`);
      // Importance OVS takes in every version, and leaves out of the flow before OpenFlow 1.4.
      assert.ok(!refused.includes('importance=5'), `OpenFlow 1.${of - 10} refuses importance`);
      const expected = await parseFlows(
        subsets.map((flags) => flaggedFlow(flags.filter((f) => !refused.includes(f)))),
        of,
      );
      const alone = expected[1 << VERSIONED_WORDS.indexOf('importance=5')]!;
      assert.equal(alone.includes(' importance:5 '), of >= 14, `OpenFlow 1.${of - 10}: ${alone}`);
      const printed = await runCli(['fmt', '--of', String(of), '-'], {
        stdin: subsets.map((flags) => flaggedFlow(flags) + '\n').join(''),
      });
      assert.equal(printed.stderr, '', `--of ${of}`);
      const lines = printed.stdout.split('\n').slice(0, -1);
      assert.equal(lines.length, subsets.length);
      subsets.forEach((flags, i) => {
        if (lines[i] !== fmtTable(expected[i]!))
          mismatches.push(
            `OF1.${of - 10} ${flags.join(' ')}\n  ovs:       ${fmtTable(expected[i]!)}\n  flowscope: ${lines[i]}`,
          );
      });
    }
    assert.deepEqual(mismatches, []);
  },
);

test(
  'real switch tools: flows added over OpenFlow 1.0 dump with reset_counts in OpenFlow 1.3, which fmt --of 10 leaves out as parse-flow does',
  skipUnlessOvs,
  async () => {
    const flows = [flaggedFlow([]), flaggedFlow(['send_flow_rem']).replace('priority=5', 'priority=6')];
    const dump = await withOvsSwitch({}, async (sw) => {
      await sw.addFlows(flows.join('\n') + '\n', 10);
      return sw.dumpFlows({ of: 13, noStats: true, sort: true });
    });
    assert.match(dump, / table=1, reset_counts priority=5,ip actions=drop\n/);
    for (const of of OF_VERSIONS) {
      const printed = await runCli(['fmt', '--of', String(of), '-'], { stdin: dump });
      assert.equal(printed.stderr, '', `--of ${of}`);
      // The dump's flags as parse-flow of that version prints them: all of them from 1.2 on.
      const asDumped = dump
        .split('\n')
        .filter((l) => l.includes('actions='))
        .map((l) => l.trim());
      const expected = (await parseFlows(of >= 12 ? asDumped : flows, of)).map(fmtTable);
      assert.deepEqual(printed.stdout.split('\n').slice(0, -1).sort(), expected.sort(), `--of ${of}`);
    }
  },
);

test(
  'real switch tools: a tunnel metadata option matched for its presence alone (no value, or a zero mask) is kept, as parse-flow keeps it',
  skipUnlessOvs,
  async () => {
    const flows = [
      'table=0,tun_metadata0,actions=drop',
      'table=0,priority=5,tun_metadata3=0/0,ip,actions=drop',
      'table=0,tun_metadata2,tun_metadata1=0x1/0x1,actions=drop',
      'table=0,tun_metadata7=*,actions=drop',
    ];
    // OpenFlow 1.1 and 1.2 have no way to send tunnel metadata.
    for (const of of [10, 13, 14, 15] as const) {
      const printed = await runCli(['fmt', '--of', String(of), '-'], { stdin: flows.join('\n') + '\n' });
      assert.equal(printed.stderr, '', `--of ${of}`);
      const expected: string[] = [];
      for (const flow of flows) {
        const real = await parseFlow(flow, of);
        assert.ok(real.ok, real.ok ? '' : real.error);
        expected.push(real.canonical);
      }
      assert.deepEqual(printed.stdout.split('\n').slice(0, -1), expected, `--of ${of}`);
    }
  },
);
