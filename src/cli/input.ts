/** Reading a command's inputs through one reader per run, its refusals turned into user errors. */
import { InputReader, type InputText } from '../sources/input.ts';
import { SourceError } from '../sources/node.ts';
import { type Io, UserError } from './io.ts';

/** One per run: standard input and FIFOs can be read once, and several looks at them want what they held. */
const readers = new WeakMap<Io, InputReader>();

export function inputReader(io: Io): InputReader {
  let reader = readers.get(io);
  if (reader === undefined) readers.set(io, (reader = new InputReader(() => io.stdin)));
  return reader;
}

/** A source's refusal as the user error it is (exit 2); anything else as it was. */
export function asUserError(err: unknown): unknown {
  return err instanceof SourceError ? new UserError(err.message) : err;
}

/** The text of a file or of standard input; binary data (an image, an archive) is refused by name. */
export async function readInput(name: string, io: Io): Promise<InputText> {
  try {
    return await inputReader(io).readInput(name);
  } catch (err) {
    throw asUserError(err);
  }
}
