/**
 * `flowscope completion bash|zsh|fish`: a script that completes the commands and each command's
 * options, made from the program itself so that it never lists an option the program lacks.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { type Io, writeOut } from '../io.ts';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

function shellArgument(value: string): Shell {
  if (!(SHELLS as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected ${SHELLS.join(', ')}`);
  return value as Shell;
}

interface CommandWords {
  readonly name: string;
  readonly description: string;
  /** Long and short flags, e.g. `--table`, `-T`: the command's, and those of its subcommands. */
  readonly flags: readonly { readonly long?: string; readonly short?: string; readonly description: string }[];
  /** Subcommands (`profile check`, `profile fit`), completed as the word after the command. */
  readonly subcommands: readonly string[];
}

function commandWords(program: Command): CommandWords[] {
  return program.commands
    .filter((c) => c.name() !== 'completion')
    .map((c) => {
      const options = [...c.options, ...c.commands.flatMap((s) => s.options)].filter(
        (o, i, all) => all.findIndex((x) => x.flags === o.flags) === i,
      );
      return {
        name: c.name(),
        description: c.description(),
        flags: [
          ...options.map((o) => ({
            ...(o.long ? { long: o.long } : {}),
            ...(o.short ? { short: o.short } : {}),
            description: o.description,
          })),
          { long: '--help', short: '-h', description: 'display help' },
        ],
        subcommands: c.commands.map((s) => s.name()),
      };
    });
}

function bash(commands: readonly CommandWords[]): string {
  const cases = commands.map(
    (c) =>
      `    ${c.name}) opts="${c.flags.flatMap((f) => [f.long, f.short].filter((x) => x !== undefined)).join(' ')}"${c.subcommands.length > 0 ? `; subs="${c.subcommands.join(' ')}"` : ''} ;;`,
  );
  return [
    '# flowscope completion for bash: eval "$(flowscope completion bash)"',
    '_flowscope() {',
    '  local cur=${COMP_WORDS[COMP_CWORD]} opts',
    '  if [ "$COMP_CWORD" -eq 1 ]; then',
    `    COMPREPLY=($(compgen -W "${commands.map((c) => c.name).join(' ')} help" -- "$cur"))`,
    '    return',
    '  fi',
    '  local subs=""',
    '  case "${COMP_WORDS[1]}" in',
    ...cases,
    '    *) opts="" ;;',
    '  esac',
    '  if [ "$COMP_CWORD" -eq 2 ] && [ -n "$subs" ] && [[ $cur != -* ]]; then COMPREPLY=($(compgen -W "$subs" -- "$cur")); return; fi',
    '  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi',
    '}',
    'complete -o filenames -F _flowscope flowscope',
    '',
  ].join('\n');
}

function zsh(commands: readonly CommandWords[]): string {
  // zsh runs the bash script through its bash completion layer.
  return [
    '# flowscope completion for zsh: eval "$(flowscope completion zsh)"',
    'autoload -U +X compinit && compinit',
    'autoload -U +X bashcompinit && bashcompinit',
    bash(commands),
  ].join('\n');
}

function fishQuote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function fish(commands: readonly CommandWords[]): string {
  const lines = ['# flowscope completion for fish: flowscope completion fish | source', 'complete -c flowscope -f'];
  for (const c of commands)
    lines.push(`complete -c flowscope -n __fish_use_subcommand -a ${c.name} -d ${fishQuote(c.description)}`);
  for (const c of commands)
    if (c.subcommands.length > 0)
      lines.push(
        `complete -c flowscope -n '__fish_seen_subcommand_from ${c.name}' -a ${fishQuote(c.subcommands.join(' '))}`,
      );
  for (const c of commands) {
    for (const f of c.flags) {
      const long = f.long ? ` -l ${f.long.slice(2)}` : '';
      const short = f.short ? ` -s ${f.short.slice(1)}` : '';
      lines.push(
        `complete -c flowscope -n '__fish_seen_subcommand_from ${c.name}'${long}${short} -d ${fishQuote(f.description)}`,
      );
    }
    lines.push(`complete -c flowscope -n '__fish_seen_subcommand_from ${c.name}' -F`);
  }
  return lines.join('\n') + '\n';
}

export function registerCommand(program: Command, io: Io): void {
  program
    .command('completion')
    .description('print a shell completion script for flowscope: bash, zsh or fish')
    .argument('<shell>', 'bash, zsh or fish', shellArgument)
    .action((shell: Shell) => {
      const commands = commandWords(program);
      writeOut(io, shell === 'bash' ? bash(commands) : shell === 'zsh' ? zsh(commands) : fish(commands));
    });
}
