/** The package's version, and whether a command line asks for it alone (answered before anything else is loaded). */
import { readFileSync } from 'node:fs';

export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** Whether the command line asks for the version alone, which is answered without the command-line parser. */
export function versionOnly(argv: readonly string[]): boolean {
  return argv.length === 1 && (argv[0] === '-V' || argv[0] === '--version');
}
