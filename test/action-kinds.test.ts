// Every layer that gives actions a meaning has an entry per action kind, and the compiler holds it
// to that: a kind added to the Action union without its parser, printer, description, trace step,
// check facts and roles does not compile, nor one without the cases of the roles it is given.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PerActionKind } from '../src/model/actions.ts';
import { repoRoot } from './support/paths.ts';

// A table that forgets a kind is refused by tsc (this file is compiled with the rest of the tests).
// @ts-expect-error: every kind but `output` is missing
export const incomplete: PerActionKind<number> = { output: 1 };

const NEW_KIND = `  | { readonly kind: 'brand_new'; readonly port: PortRef }\n`;

test('an action kind without parser, printer, description, trace step, check facts and role cases does not compile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flowscope-kinds-'));
  try {
    cpSync(join(repoRoot, 'src'), join(dir, 'src'), { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
    const config = JSON.parse(readFileSync(join(repoRoot, 'tsconfig.json'), 'utf8')) as {
      compilerOptions: Record<string, unknown>;
    };
    const compilerOptions = { ...config.compilerOptions, noEmit: true };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['src/**/*.ts'] }));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    const actions = join(dir, 'src', 'model', 'actions.ts');
    const union = '  /** Text the parser did not understand, kept verbatim. */\n';
    const text = readFileSync(actions, 'utf8');
    assert.ok(text.includes(union), 'the Action union ends with the unknown kind');
    // The new kind is given every role, so that each switch over a role's kinds must name it too.
    const roles = '  unknown: never;\n';
    assert.ok(text.includes(roles), 'the table of roles ends with the unknown kind');
    writeFileSync(actions, text.replace(union, NEW_KIND + union).replace(roles, '  brand_new: ActionRole;\n' + roles));

    const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', '.'], { cwd: dir, encoding: 'utf8', timeout: 600_000 });
    assert.notEqual(r.status, 0, 'the new kind compiles without its entries');
    const errors = [...r.stdout.matchAll(/^src\/(\S+?\.ts)\(\d+,\d+\): error (TS\d+): (.*)$/gm)];
    assert.ok(errors.length > 0, r.stdout + r.stderr);
    // Only the new kind is refused: the copy of the sources compiles otherwise.
    for (const [line, , , message] of errors)
      assert.match(message!, /brand_new|never|lacks ending return|parameter of type 'ActionOf</, line);
    const failing = new Set(errors.map((m) => m[1]));
    for (const layer of [
      'syntax/actions.ts', // parser
      'render/actions.ts', // printer, per OpenFlow version
      'render/words/flow.ts', // description
      'analysis/trace/trace.ts', // trace semantics
      'analysis/check/registers.ts', // check facts: the register bits it writes
      'model/flow-exits.ts', // role exit: where it sends the packet
      'model/port-refs.ts', // roles port and sends: the ports it names, those it sends to
      'model/action-equivalence.ts', // roles respelled and keyed: how it compares
      'syntax/consistency.ts', // role prerequisite: what it needs of the match
      'analysis/trace/action-set.ts', // role set-final: its rank in an action set
    ]) {
      assert.ok(failing.has(layer), `${layer} accepts a kind it has no entry for:\n${r.stdout}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
