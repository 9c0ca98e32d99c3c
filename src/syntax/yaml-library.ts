/**
 * The `yaml` library, loaded when a text needs it (antctl's YAML output, a bundle's policy
 * objects, a profile file): loading it costs more than reading an everyday dump. Required, not imported, because
 * the readers that use it are synchronous.
 */
import { createRequire } from 'node:module';

export function yamlLibrary(): typeof import('yaml') {
  return createRequire(import.meta.url)('yaml') as typeof import('yaml');
}
