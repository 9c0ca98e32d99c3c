/**
 * The forms a command prints, chosen as kubectl and antctl choose them: `-o, --output
 * json|yaml|wide|name`, `--json` standing for `-o json`, and text for people when neither is
 * given; `--color`/`--no-color` for that text.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { jsonReplacer, SCHEMA_VERSION } from '../render/json.ts';
import { type Io, UserError, writeJson, writeOut, writeText } from './io.ts';

export const OUTPUT_FORMATS = ['json', 'yaml', 'wide', 'name'] as const;
/** `text` is the default form: for people, fitted to the terminal. */
export type OutputForm = (typeof OUTPUT_FORMATS)[number] | 'text';

export interface OutputCliOptions {
  output?: OutputForm;
  json?: boolean;
  color?: boolean;
}

function outputOption(value: string): OutputForm {
  if (!(OUTPUT_FORMATS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`expected ${OUTPUT_FORMATS.join(', ')}`);
  return value as OutputForm;
}

/**
 * -o/--output, --json, and --color/--no-color unless the command writes no text to colour
 * (`colour: false`). `name` says what -o name lists.
 */
export function addOutputOptions(
  cmd: Command,
  name: string,
  { colour = true }: { readonly colour?: boolean } = {},
): Command {
  cmd
    .addOption(
      new Option(
        '-o, --output <format>',
        `json, yaml (schemaVersion ${SCHEMA_VERSION}), wide (text not fitted to the terminal) or name (${name}, one a line)`,
      ).argParser(outputOption),
    )
    .option('--json', 'the same as -o json');
  if (colour)
    cmd
      .option('--color', 'colour the output even when it is not a terminal')
      .option('--no-color', 'never colour the output');
  return cmd;
}

/** The form asked for; --json and another -o contradict each other. */
export function outputForm(opts: OutputCliOptions): OutputForm {
  if (opts.json && opts.output !== undefined && opts.output !== 'json')
    throw new UserError(`give --json or -o ${opts.output}, not both: --json is -o json`);
  return opts.json ? 'json' : (opts.output ?? 'text');
}

/** Whether the form is data (JSON or YAML) rather than text. */
export function isDocumentForm(form: OutputForm): form is 'json' | 'yaml' {
  return form === 'json' || form === 'yaml';
}

/**
 * A report as JSON or YAML, with `schemaVersion` first whether or not the report carries it.
 * YAML is made from the JSON form, so both hold the same values (64-bit numbers as strings).
 */
export async function writeDocument(io: Io, form: 'json' | 'yaml', doc: Record<string, unknown>): Promise<void> {
  const versioned = 'schemaVersion' in doc ? doc : { schemaVersion: SCHEMA_VERSION, ...doc };
  if (form === 'json') {
    await writeJson(io, versioned);
    return;
  }
  // The YAML writer is loaded only when YAML is asked for: loading it costs more than many commands' work.
  const { stringify } = await import('yaml');
  writeOut(io, stringify(JSON.parse(JSON.stringify(versioned, jsonReplacer)) as unknown, { lineWidth: 0 }));
}

/**
 * The width text for people is fitted to: the terminal's, when standard output is one, except
 * with -o wide; undefined for text as long as it needs (a pipe, a file, -o wide).
 */
export function textWidth(io: Io, form: OutputForm): number | undefined {
  if (form !== 'text') return undefined;
  const out = io.stdout as { readonly isTTY?: boolean; readonly columns?: number };
  return out.isTTY && out.columns !== undefined && out.columns > 0 ? out.columns : undefined;
}

/** A report in each form a command prints it in. */
export interface ReportForms {
  /** -o json and -o yaml. */
  readonly document: () => Record<string, unknown>;
  /** -o name: what the report lists, one a line; a report without names gives its text. */
  readonly names?: () => Iterable<string>;
  /**
   * Text for people, fitted to `width` when there is one (see textWidth): a string is written
   * with a line end, pieces as they are.
   */
  readonly text: (width: number | undefined) => string | Iterable<string> | Promise<string>;
}

/** The report in the form asked for. */
export async function writeReport(io: Io, form: OutputForm, report: ReportForms): Promise<void> {
  if (isDocumentForm(form)) await writeDocument(io, form, report.document());
  else if (form === 'name' && report.names) await writeNames(io, report.names());
  else {
    const text = await report.text(textWidth(io, form));
    if (typeof text === 'string') writeOut(io, text);
    else await writeText(io, text);
  }
}

/** -o name: one name a line. */
export async function writeNames(io: Io, names: Iterable<string>): Promise<void> {
  await writeText(io, lines(names));
}

function* lines(names: Iterable<string>): Generator<string> {
  for (const name of names) yield name + '\n';
}
