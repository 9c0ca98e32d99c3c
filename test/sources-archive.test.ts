import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { normaliseEntryPath, readArchive, sniff } from '../src/sources/archive.ts';
import { agentText, antreaAgentFiles, example, tar, tarGz } from './support/bundle.ts';

const flows = agentText(example('antrea/dump-flows.of13.names.txt'));

test('a tar.gz is read in memory: every regular file, paths without ./', async () => {
  const data = await tarGz([
    { name: './flows', data: flows },
    { name: 'sub/', data: '', type: 'directory' },
    { name: 'sub/ovsports', data: 'x' },
  ]);
  assert.equal(sniff(data), 'gzip');
  const r = await readArchive(data);
  assert.deepEqual(r.problems, []);
  assert.deepEqual(
    r.entries.map((e) => e.path),
    ['flows', 'sub/ovsports'],
  );
  assert.equal(r.entries[0]!.data.toString('utf8'), flows);
});

test('plain tar is recognised by its ustar magic and read the same way', async () => {
  const data = await tar([{ name: 'flows', data: flows }]);
  assert.equal(sniff(data), 'tar');
  const r = await readArchive(data);
  assert.equal(r.entries[0]?.data.toString('utf8'), flows);
});

test('only wanted entries are kept', async () => {
  const r = await readArchive(await tarGz(antreaAgentFiles('n1')), { wanted: (p) => !p.startsWith('logs/') });
  assert.deepEqual(r.entries.map((e) => e.path).sort(), ['agentinfo', 'flows', 'networkpolicies', 'ovsports']);
});

test('entries whose paths leave the archive and links are skipped, never followed', async () => {
  const r = await readArchive(
    await tarGz([
      { name: '../../etc/evil', data: 'x' },
      { name: 'flows', data: '', type: 'symlink', linkname: '/etc/passwd' },
      { name: 'groups', data: 'group_id=1,type=all' },
    ]),
  );
  assert.deepEqual(
    r.entries.map((e) => e.path),
    ['groups'],
  );
  assert.equal(r.problems.length, 1);
  assert.match(r.problems[0]!, /"\.\.\/\.\.\/etc\/evil" skipped: its path leaves the archive/);
  assert.equal(normaliseEntryPath('/abs/flows'), 'abs/flows');
  assert.equal(normaliseEntryPath('a/../../b'), undefined);
});

test('a gzip stream cut short keeps the start of the entry it was cut in', async () => {
  const full = await tarGz([
    { name: 'ovsports', data: agentText(example('antrea/dump-ports-desc.of10.txt')) },
    { name: 'flows', data: flows },
  ]);
  const cut = full.subarray(0, Math.floor(full.length * 0.8));
  const r = await readArchive(cut);
  assert.match(r.problems[0]!, /^is truncated \(the gzip stream ends early\)$/);
  const ports = r.entries.find((e) => e.path === 'ovsports');
  assert.ok(ports && ports.cutFrom === undefined, 'the entry before the cut is whole');
  const f = r.entries.find((e) => e.path === 'flows');
  assert.ok(f, 'the cut entry is kept');
  assert.equal(f.cutFrom, Buffer.byteLength(flows));
  assert.ok(f.data.length > 0 && f.data.length < Buffer.byteLength(flows));
  assert.ok(flows.startsWith(f.data.toString('utf8')), 'what was read is the start of the file');
});

test('an uncompressed tar cut inside an entry says so', async () => {
  const full = await tar([{ name: 'flows', data: flows }]);
  const r = await readArchive(full.subarray(0, 512 + 3000));
  assert.deepEqual(r.problems, ['is truncated (the tar data ends inside an entry)']);
  assert.equal(r.entries[0]?.data.length, 3000);
});

test('corrupt gzip data and gzip without a tar inside are named as such', async () => {
  const full = await tarGz([{ name: 'flows', data: flows }]);
  const corrupt = Buffer.from(full);
  for (let i = 20; i < 60; i++) corrupt[i] = 0xff;
  const r = await readArchive(corrupt);
  assert.match(r.problems[0]!, /^is corrupt \(/);

  const notTar = await readArchive(gzipSync(Buffer.from(flows)));
  assert.deepEqual(notTar.entries, []);
  assert.deepEqual(notTar.problems, ['is not a tar archive']);
});

test('file kinds are told by their first bytes', () => {
  assert.equal(sniff(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'png');
  assert.equal(sniff(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00])), 'xz');
  assert.equal(sniff(Buffer.from(flows)), undefined);
});
