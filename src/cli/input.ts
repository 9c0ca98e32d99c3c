/** Reading the flows a command is given: a file, or `-` for standard input. */
import { readFile } from 'node:fs/promises';
import { type Io, UserError } from './io.ts';

export interface InputText {
  /** As the user named it; `-` for stdin. */
  readonly name: string;
  readonly text: string;
}

async function readStdin(io: Io): Promise<string> {
  if (io.stdin.isTTY) {
    throw new UserError('no input: standard input is a terminal; give a file name, or pipe a dump in (… | flowscope CMD -)');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

function describe(err: unknown): string {
  const code = (err as { code?: string }).code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}

export async function readInput(name: string, io: Io): Promise<InputText> {
  if (name === '-') return { name, text: await readStdin(io) };
  try {
    return { name, text: await readFile(name, 'utf8') };
  } catch (err) {
    throw new UserError(`cannot read ${name}: ${describe(err)}`);
  }
}
