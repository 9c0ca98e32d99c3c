#!/usr/bin/env node
// Part of `npm run build`: compiles the built-in YAML profiles into dist/src/profiles/builtin.json,
// so that commands read one file of JSON texts (see compiledProfilesText); a problem in a profile file fails the build at its line.
import { writeFileSync } from 'node:fs';
import { COMPILED_FILE, compileBuiltins, compiledProfilesText } from '../dist/src/profiles/builtin.js';

const { profiles, problems } = compileBuiltins();
for (const p of problems)
  console.error(`${p.file}:${p.line}:${p.col}: error: ${p.path ? `${p.path}: ` : ''}${p.message}`);
if (problems.length > 0) process.exit(1);
writeFileSync(COMPILED_FILE, compiledProfilesText(profiles));
