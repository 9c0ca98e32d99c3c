// The library as it ships: importing it does nothing but define its exports, every export the
// README documents is there with its kind, and the README's example, type-checked against the
// packed package's declarations, runs and prints what the commands print.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { runCli } from './support/cli.ts';
import { repoRoot } from './support/paths.ts';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const librarySection = readme.slice(
  readme.indexOf('## Library\n'),
  readme.indexOf('\n## ', readme.indexOf('## Library\n') + 1),
);

/** The exports the README lists, with the kind each must have: `f()` a function, `new C()` a class, `NAME` an object. */
function documentedExports(): Map<string, 'function' | 'class' | 'object'> {
  const list = librarySection.slice(librarySection.indexOf('What it exports'));
  const out = new Map<string, 'function' | 'class' | 'object'>();
  for (const m of list.matchAll(/`(new )?([A-Za-z_]\w*)(\(\))?`/g)) {
    const [, isNew, name, call] = m;
    if (isNew && call) out.set(name!, 'class');
    else if (call) out.set(name!, 'function');
    else if (/^[A-Z][A-Z0-9_]+$/.test(name!)) out.set(name!, 'object');
  }
  return out;
}

// Runs in a fresh process: what the import did to the process goes out on fd 3, so that any
// output of the import itself is seen on stdout and stderr.
const PROBE = `
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import cp from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
const calls = [];
const watch = (mod, name, names) => { for (const n of names) { const orig = mod[n]; mod[n] = function (...args) { calls.push(name + '.' + n + ' ' + String(args[0])); return orig.apply(this, args); }; } };
watch(fs, 'fs', ['readFileSync', 'readFile', 'openSync', 'open', 'createReadStream', 'readdirSync', 'readdir', 'statSync', 'stat', 'existsSync', 'writeFileSync', 'writeFile']);
watch(fsp, 'fs/promises', ['readFile', 'open', 'readdir', 'stat', 'writeFile']);
watch(cp, 'child_process', ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']);
syncBuiltinESMExports();
const chalk = (await import('chalk')).default;
const chalkLevel = chalk.level;
const listeners = () => Object.fromEntries(process.eventNames().map((e) => [String(e), process.listenerCount(e)]));
const before = { listeners: listeners(), resources: process.getActiveResourcesInfo(), exitCode: process.exitCode };
const lib = await import(process.argv[1]);
const report = {
  before,
  after: { listeners: listeners(), resources: process.getActiveResourcesInfo(), exitCode: process.exitCode },
  chalk: [chalkLevel, chalk.level],
  calls,
  exports: Object.fromEntries(Object.entries(lib).map(([k, v]) => [k, typeof v === 'function' && /^class\\b/.test(Function.prototype.toString.call(v)) ? 'class' : typeof v === 'function' ? 'function' : typeof v])),
};
fs.writeSync(3, JSON.stringify(report));
`;

interface ProbeReport {
  readonly before: { listeners: Record<string, number>; resources: string[]; exitCode?: number };
  readonly after: { listeners: Record<string, number>; resources: string[]; exitCode?: number };
  readonly chalk: [number, number];
  readonly calls: string[];
  readonly exports: Record<string, string>;
}

test('importing the library prints nothing, reads and starts nothing, and leaves the process as it was', () => {
  const entry = pathToFileURL(join(repoRoot, 'dist', 'src', 'index.js')).href;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE, entry], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '1' },
  });
  assert.equal(r.status, 0, String(r.stderr));
  assert.equal(String(r.stdout), '');
  assert.equal(String(r.stderr), '');
  const report = JSON.parse(String(r.output[3])) as ProbeReport;
  assert.deepEqual(report.after.listeners, report.before.listeners);
  assert.deepEqual(report.after.resources, report.before.resources);
  assert.equal(report.after.exitCode, undefined);
  // Node's module loaders read the modules themselves through fs: those are no reads of the library's.
  const loading = (call: string): boolean => /^(?:fs\/promises\.readFile|fs\.readFileSync) \S+\.[cm]?js$/.test(call);
  assert.deepEqual(
    report.calls.filter((c) => !loading(c)),
    [],
  );
  assert.deepEqual(report.chalk, [report.chalk[0], report.chalk[0]]);

  // Every documented export is there with its kind, and nothing is exported undocumented.
  const documented = documentedExports();
  assert.ok(documented.size > 50, `${documented.size} exports documented`);
  const kinds = Object.fromEntries([...documented].map(([name, kind]) => [name, kind === 'object' ? 'object' : kind]));
  const actual = Object.fromEntries(Object.entries(report.exports).map(([name, kind]) => [name, kind]));
  assert.deepEqual(actual, kinds);
});

// The package as `npm pack` makes it, installed beside a consumer's program.
const work = mkdtempSync(join(tmpdir(), 'flowscope-consumer-'));
after(() => rmSync(work, { recursive: true, force: true }));

function npm(args: readonly string[], cwd: string): string {
  const r = spawnSync('npm', [...args], { cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

test('the packed package type-checks and runs the README example, which prints what the commands print, as does its command line', async () => {
  const packed = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], repoRoot)) as {
    filename: string;
    files: { path: string }[];
  }[];
  const files = new Set(packed[0]!.files.map((f) => f.path));
  for (const needed of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/render/trace-words.d.ts', 'package.json'])
    assert.ok(files.has(needed), needed);
  assert.ok(
    ![...files].some((f) => f.startsWith('dist/test/') || f.startsWith('src/')),
    'only the built library ships',
  );

  // Installed as npm would: the package unpacked under node_modules, its dependencies beside it.
  const modules = join(work, 'node_modules');
  mkdirSync(join(modules, 'flowscope'), { recursive: true });
  const untar = spawnSync('tar', [
    '-xzf',
    join(work, packed[0]!.filename),
    '-C',
    join(modules, 'flowscope'),
    '--strip-components=1',
  ]);
  assert.equal(untar.status, 0, String(untar.stderr));
  const deps = Object.keys(
    (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
      .dependencies,
  );
  for (const dep of [...deps, '@types', 'typescript'])
    symlinkSync(join(repoRoot, 'node_modules', dep), join(modules, dep));

  const example = /```ts\n([\s\S]*?)```/.exec(librarySection)?.[1];
  assert.ok(example, 'the README has a TypeScript example under Library');
  writeFileSync(join(work, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(work, 'example.ts'), example);
  writeFileSync(
    join(work, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'ES2022',
        types: ['node'],
        outDir: 'out',
      },
      files: ['example.ts'],
    }),
  );
  const tsc = spawnSync(process.execPath, [join(modules, 'typescript', 'bin', 'tsc'), '-p', work], {
    encoding: 'utf8',
  });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);

  // A mistake in a consumer's types is caught against the package's declarations.
  writeFileSync(
    join(work, 'wrong.ts'),
    "import { findConjunctions } from 'flowscope';\nconst n: string = findConjunctions(undefined as never).conjunctions.length;\nconsole.log(n);\n",
  );
  const wrong = spawnSync(
    process.execPath,
    [
      join(modules, 'typescript', 'bin', 'tsc'),
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--types',
      'node',
      join(work, 'wrong.ts'),
    ],
    { encoding: 'utf8', cwd: work },
  );
  assert.match(wrong.stdout, /wrong\.ts\(2,7\): error TS2322/);

  // Run from the repository, where the example's relative path names the bundled example.
  const run = spawnSync(process.execPath, [join(work, 'out', 'example.js')], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stderr, '');
  const dump = join('examples', 'antrea', 'dump-flows.of13.txt');
  const packet = /tracePacket\('([^']+)'\)/.exec(example)![1]!;
  const conj = await runCli(['conj', dump]);
  const trace = await runCli(['trace', dump, packet]);
  assert.equal(
    run.stdout.replace(/\n+$/, ''),
    [
      'antrea-v1 0.13',
      ...[...conj.stdout.matchAll(/^conjunction (\d+) .* (\d+) dimensions$/gm)].map(
        (m) => `conjunction ${m[1]}: ${m[2]} dimensions`,
      ),
      conj.stdout.replace(/\n$/, ''),
      'output 1',
      trace.stdout.replace(/\n+$/, ''),
    ].join('\n'),
  );

  // The command line as packed (bundled by the build) prints what the command line of the modules prints.
  for (const built of [
    'dist/src/bundle/cli.cjs',
    'dist/src/bundle/cli.cjs.cache',
    'dist/src/bundle/tables.cjs',
    'dist/src/bundle/tables.cjs.cache',
  ])
    assert.ok(files.has(built), built);
  // The scripts are read as Latin-1 (bin/cli-script.js): a character beyond ASCII would be read as others.
  for (const name of ['cli.cjs', 'tables.cjs']) {
    const script = readFileSync(join(modules, 'flowscope', 'dist', 'src', 'bundle', name), 'utf8');
    assert.equal(/[^\0-\x7f]/.exec(script)?.[0], undefined, name);
  }
  // The code the build cached, that of the script of every command and that of one command's, is
  // taken by this Node (V8 ignores a cache of another version); each in a process of its own, as V8
  // keeps a script compiled.
  for (const args of [[], ['tables']]) {
    const cache = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { loadCli, readCodeCache, scriptFor } from ${JSON.stringify(pathToFileURL(join(modules, 'flowscope', 'bin', 'cli-script.js')).href)};
const script = scriptFor(${JSON.stringify(args)});
console.log(script.endsWith(${JSON.stringify(args.length === 0 ? 'cli.cjs' : `${args[0]}.cjs`)}), loadCli(script, readCodeCache(script)).script.cachedDataRejected);`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(cache.stdout.trim(), 'true false', cache.stderr);
  }
  const bin = join(modules, 'flowscope', 'bin', 'flowscope.js');
  for (const args of [['tables', dump], ['trace', dump, packet], ['--version']]) {
    const packedRun = spawnSync(process.execPath, [bin, ...args], { cwd: repoRoot, encoding: 'utf8' });
    const inProcess = await runCli(args);
    assert.equal(packedRun.stderr, inProcess.stderr, args.join(' '));
    assert.equal(packedRun.stdout, inProcess.stdout, args.join(' '));
    assert.equal(packedRun.status, inProcess.status, args.join(' '));
  }
});
