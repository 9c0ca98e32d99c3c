// Bundles that inflate without bound are refused once they pass the budget one bundle may read
// (1 GiB decompressed, 250,000 files, across all its archives), the gzip stream inflated as it
// is read and never held: the test process's peak memory stays far below the budget. Every
// bomb is made here in memory; what is checked is the refusal and the memory, never the time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { runCli } from './support/cli.ts';
import { agentText, antreaAgentFiles, example, tar, type TarFile } from './support/bundle.ts';

const MiB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'flowscope-bombs-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** The tar data of the files without the end-of-archive blocks, so that more entries may follow. */
async function tarBody(files: readonly TarFile[]): Promise<Buffer> {
  const whole = await tar(files);
  const end = Buffer.alloc(1024);
  assert.ok(whole.subarray(whole.length - 1024).equals(end), 'the archive ends in two zero blocks');
  return whole.subarray(0, whole.length - 1024);
}

/** One gzip member holding a 64 MiB log file of zeros: a few KB that inflate to 64 MiB. */
async function bigLogMember(): Promise<Buffer> {
  return gzipSync(await tarBody([{ name: 'logs/agent.log', data: Buffer.alloc(64 * MiB) }]), { level: 9 });
}

/** A node's agent archive whose log files add up to `logs` × 64 MiB, its dumps real. */
async function agentArchive(node: string, logs: number, member: Buffer): Promise<Buffer> {
  return Buffer.concat([
    gzipSync(await tarBody(antreaAgentFiles(node))),
    ...Array.from({ length: logs }, () => member),
    gzipSync(Buffer.alloc(1024)),
  ]);
}

/** Peak resident memory of this process so far, in MiB. */
function peakMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

const refusal = (what: string, much: string): string =>
  `flowscope: error: ${what}: the bundle holds ${much}, more than flowscope reads\n`;

test('a 10 GiB gzip bomb of log files is refused once 1 GiB is inflated, and never held in memory', async () => {
  const file = join(dir, 'agent_bomb.tar.gz');
  // 160 gzip members of one 64 MiB file each: 10 GiB of tar data from about 10 MB.
  writeFileSync(file, await agentArchive('bomb', 160, await bigLogMember()));
  const r = await runCli(['show', '--bundle', file]);
  assert.deepEqual([r.status, r.stderr], [2, refusal(file, 'more than 1024 MiB once decompressed')]);
  assert.ok(peakMiB() < 512, `peak memory ${peakMiB()} MiB`);
});

test('one file announcing more than the budget is refused at its header, before its data is inflated', async () => {
  // A header saying 8 GiB, then 1 GiB of the zeros it announces: read no further than the header.
  const header = (await tar([{ name: 'logs/huge', data: Buffer.alloc(0) }])).subarray(0, 512);
  header.write('77777777777\0', 124, 'latin1');
  let sum = 0;
  header.fill(' ', 148, 156);
  for (const b of header) sum += b;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  const zeros = gzipSync(Buffer.alloc(64 * MiB), { level: 9 });
  const file = join(dir, 'huge.tar.gz');
  writeFileSync(file, Buffer.concat([gzipSync(header), ...Array.from({ length: 16 }, () => zeros)]));
  const r = await runCli(['show', '--bundle', file]);
  assert.deepEqual([r.status, r.stderr], [2, refusal(file, 'more than 1024 MiB once decompressed')]);
  assert.ok(peakMiB() < 512, `peak memory ${peakMiB()} MiB`);
});

test('the budget is the whole bundle: two agent archives each within it, together beyond it', async () => {
  const member = await bigLogMember();
  const bundle = join(dir, 'support-bundle');
  mkdirSync(bundle);
  // Each archive inflates to 576 MiB: one alone is read, both are more than one bundle may hold.
  const a = await agentArchive('node-a', 9, member);
  writeFileSync(join(bundle, 'agent_node-a.tar.gz'), a);
  const alone = await runCli(['show', '--bundle', join(bundle, 'agent_node-a.tar.gz'), '-o', 'name']);
  assert.equal(alone.status, 0, alone.stderr);
  assert.ok(alone.stdout.length > 0);
  writeFileSync(join(bundle, 'agent_node-b.tar.gz'), await agentArchive('node-b', 9, member));
  const both = await runCli(['bundle', bundle]);
  assert.deepEqual(
    [both.status, both.stderr],
    [2, refusal(join(bundle, 'agent_node-b.tar.gz'), 'more than 1024 MiB once decompressed')],
  );
  assert.ok(peakMiB() < 512, `peak memory ${peakMiB()} MiB`);
});

test('a bomb of empty files is refused past 250,000 files', async () => {
  // 1,024 empty log files per gzip member, 250 members: 256,000 files from a few hundred KB.
  const member = gzipSync(await tarBody(Array.from({ length: 1024 }, (_, i) => ({ name: `logs/${i}`, data: '' }))), {
    level: 9,
  });
  const file = join(dir, 'many.tar.gz');
  writeFileSync(
    file,
    Buffer.concat([gzipSync(await tarBody(antreaAgentFiles('many'))), ...Array.from({ length: 250 }, () => member)]),
  );
  const r = await runCli(['show', '--bundle', file]);
  assert.deepEqual([r.status, r.stderr], [2, refusal(file, 'more than 250,000 files')]);
});

test('zeros after the end of the archive are not read: a bundle followed by 10 GiB of them reads as the bundle', async () => {
  const zeros = gzipSync(Buffer.alloc(64 * MiB), { level: 9 });
  const file = join(dir, 'agent_tail.tar.gz');
  writeFileSync(
    file,
    Buffer.concat([gzipSync(await tar(antreaAgentFiles('tail'))), ...Array.from({ length: 160 }, () => zeros)]),
  );
  const r = await runCli(['fmt', '--bundle', file]);
  assert.equal(r.status, 0, r.stderr);
  const flows = agentText(example('antrea/dump-flows.of13.names.txt'));
  assert.equal(r.stdout.trim().split('\n').length, flows.split('\n').filter((l) => /actions=/.test(l)).length);
  assert.ok(peakMiB() < 512, `peak memory ${peakMiB()} MiB`);
});

test('archives are opened one level deep: an agent archive inside an agent archive is not read', async () => {
  // A bundle of one agent whose archive holds another agent's, which holds a 64 MiB log member.
  const member = await bigLogMember();
  const innermost = await agentArchive('node-z', 1, member);
  const inner = gzipSync(await tar([...antreaAgentFiles('node-y'), { name: 'agent_node-z.tar.gz', data: innermost }]));
  const outer = await tar([...antreaAgentFiles('node-x'), { name: 'agent_node-y.tar.gz', data: inner }]);
  const bundle = join(dir, 'nested');
  mkdirSync(bundle);
  writeFileSync(join(bundle, 'agent_node-x.tar.gz'), gzipSync(outer));
  const r = await runCli(['bundle', '--json', bundle]);
  assert.equal(r.status, 0, r.stderr);
  const nodes = (JSON.parse(r.stdout) as { nodes: { name: string }[] }).nodes.map((n) => n.name);
  // The agent archive in the bundle is read; the one inside it is a file of it, and the third is never reached.
  assert.deepEqual(nodes, ['node-x']);
});
