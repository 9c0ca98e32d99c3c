/**
 * The `yaml` library, loaded when a profile file is first read: commands that read only the
 * compiled built-in profiles, or none, do not pay for loading it.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let lib: typeof Yaml | undefined;

export function yamlLib(): typeof Yaml {
  return (lib ??= createRequire(import.meta.url)('yaml') as typeof Yaml);
}
