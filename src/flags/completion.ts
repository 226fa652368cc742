/** Shell completion generated from the commander tree, so a new flag needs no script edit; bash's keeps to bash 3.2. */
import type { Command, Option } from 'commander';
import { REFUSED_GLOBALS } from './option-table.js';

/** Each shell's script, in the order `examctl completion` lists them. */
export const COMPLETION_SCRIPTS = {
  bash: bashCompletion,
  zsh: zshCompletion,
  fish: fishCompletion,
  powershell: powershellCompletion,
} as const;
export const SHELLS = Object.keys(COMPLETION_SCRIPTS) as (keyof typeof COMPLETION_SCRIPTS)[];
const generated = (shell: string): string =>
  `# ${shell} completion for examctl, generated from its command tree by \`examctl completion ${shell.toLowerCase()}\`.`;

interface OptionNode {
  names: string[];
  description: string;
  takesValue: boolean;
  /** A path is expected (`<path>`, `<file>`, `<world.json>`...): the shell offers file names. */
  file: boolean;
  choices: string[];
}

interface CommandNode {
  /** Words from the root, e.g. ['schedule', 'push']; [] for the root. */
  path: string[];
  description: string;
  children: CommandNode[];
  /** Its own options; a command's also the global ones it takes (not REFUSED_GLOBALS). */
  options: OptionNode[];
}

const FILE_PLACEHOLDER = /<[^>]*(path|file|json|dir|csv)[^>]*>/i;

function optionNode(option: Option): OptionNode {
  const names = [option.short, option.long].filter((name): name is string => typeof name === 'string');
  return {
    names,
    description: option.description,
    takesValue: option.required || option.optional,
    file: FILE_PLACEHOLDER.test(option.flags),
    choices: option.argChoices ?? [],
  };
}

function visibleOptions(command: Command): OptionNode[] {
  return command.options.filter((option) => !option.hidden).map(optionNode);
}

/** The tree as completion sees it; `help` is listed as commander answers it (`examctl help <command>`). */
export function commandTree(program: Command): CommandNode {
  const globals = visibleOptions(program).filter((option) => !option.names.includes('--version'));
  // A group's: those any of its commands takes (`examctl user --store st sync` runs).
  const taken = (command: Command): OptionNode[] =>
    globals.filter((option) =>
      command.commands.length > 0
        ? command.commands.some((child) => taken(child).includes(option))
        : !REFUSED_GLOBALS.get(command)?.includes(option.names.at(-1)!),
    );
  const walk = (command: Command, path: string[]): CommandNode => ({
    path,
    description: command.description(),
    children: command.commands
      .filter((child) => !(child as unknown as { _hidden?: boolean })._hidden)
      .map((child) => walk(child, [...path, child.name()])),
    options: [
      ...visibleOptions(command),
      { names: ['-h', '--help'], description: 'display help', takesValue: false, file: false, choices: [] },
      ...(path.length > 0 ? taken(command) : []),
    ],
  });
  const root = walk(program, []);
  // `help <command...>` completes the command tree below it, plus the `environment` topic.
  const [help] = root.children.splice(
    root.children.findIndex((child) => child.path[0] === 'help'),
    1,
  );
  const helpOf = (node: CommandNode, path: string[]): CommandNode => ({
    path,
    description: node.description,
    children: node.children.map((child) => helpOf(child, [...path, child.path[child.path.length - 1]!])),
    options: [],
  });
  const environment: CommandNode = {
    path: ['help', 'environment'],
    description: 'the environment variables examctl reads',
    children: [],
    options: [],
  };
  root.children.push({
    ...help!,
    children: [...root.children.map((child) => helpOf(child, ['help', child.path[0]!])), environment],
    options: [],
  });
  return root;
}

function allNodes(node: CommandNode): CommandNode[] {
  return [node, ...node.children.flatMap(allNodes)];
}

function allOptions(root: CommandNode): OptionNode[] {
  const seen = new Map<string, OptionNode>();
  for (const node of allNodes(root))
    for (const option of node.options)
      if (option.choices.length > 0 || !seen.has(option.names.join(' '))) seen.set(option.names.join(' '), option);
  return [...seen.values()];
}

/** A word for a single-quoted shell string. */
function quoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function caseArm(pattern: string, body: string): string {
  return `    ${pattern}) ${body} ;;`;
}

export function bashCompletion(program: Command): string {
  const root = commandTree(program);
  const nodes = allNodes(root);
  // Global options apply below the root, except the root's own --version and --help (each command has its --help).
  const globals = root.options
    .flatMap((option) => option.names)
    .filter((name) => !['-V', '--version', '-h', '--help'].includes(name));
  const options = allOptions(root);
  const key = (node: CommandNode): string => quoted(node.path.join(' '));
  const children = nodes
    .filter((node) => node.children.length > 0)
    .map((node) =>
      caseArm(key(node), `echo ${quoted(node.children.map((child) => child.path[child.path.length - 1]).join(' '))}`),
    );
  const optionWords = nodes.map((node) =>
    caseArm(key(node), `echo ${quoted([...new Set(node.options.flatMap((option) => option.names))].join(' '))}`),
  );
  const valued = options.filter((option) => option.takesValue).flatMap((option) => option.names);
  const choiceArms = options
    .filter((option) => option.choices.length > 0)
    .map((option) => caseArm(option.names.map(quoted).join('|'), `echo ${quoted(option.choices.join(' '))}`));
  const files = options.filter((option) => option.file).flatMap((option) => option.names);
  return `${generated('bash')}
# Load it with:  eval "$(examctl completion bash)"   (in ~/.bashrc; works in bash 3.2 too)
_examctl_children() {
  case "$1" in
${children.join('\n')}
  esac
}
_examctl_options() {
  case "$1" in
${optionWords.join('\n')}
    *) echo ${quoted([...globals, '-h', '--help'].join(' '))} ;;
  esac
}
_examctl_choices() {
  case "$1" in
${choiceArms.join('\n')}
  esac
}
_examctl_takes_value() {
  case "$1" in
    ${valued.map(quoted).join('|') || "''"}) return 0 ;;
  esac
  return 1
}
_examctl_wants_file() {
  case "$1" in
    ${files.map(quoted).join('|') || "''"}) return 0 ;;
  esac
  return 1
}
_examctl() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" path="" i word child
  (( COMP_CWORD > 0 )) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for (( i = 1; i < COMP_CWORD; i++ )); do
    word="\${COMP_WORDS[i]}"
    if [[ "$word" == -* ]]; then
      [[ "$word" != *=* ]] && _examctl_takes_value "$word" && (( i++ ))
      continue
    fi
    for child in $(_examctl_children "$path"); do
      if [[ "$child" == "$word" ]]; then
        path="\${path:+$path }$word"
        break
      fi
    done
  done
  COMPREPLY=()
  if [[ "$cur" != -* ]] && _examctl_takes_value "$prev"; then
    local choices
    choices="$(_examctl_choices "$prev")"
    if [[ -n "$choices" ]]; then
      COMPREPLY=( $(compgen -W "$choices" -- "$cur") )
    elif _examctl_wants_file "$prev"; then
      compopt -o filenames 2>/dev/null
      COMPREPLY=( $(compgen -f -- "$cur") )
    fi
    return 0
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$(_examctl_options "$path")" -- "$cur") )
  else
    COMPREPLY=( $(compgen -W "$(_examctl_children "$path")" -- "$cur") )
  fi
  return 0
}
complete -F _examctl examctl
`;
}

/** zsh runs the bash function through bashcompinit: one generated logic for both shells. */
export function zshCompletion(program: Command): string {
  return `#compdef examctl
${generated('zsh')}
# Load it with:  source <(examctl completion zsh)   (after compinit)
autoload -U +X compinit && { (( \${+_comps} )) || compinit; }
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(program).split('\n').slice(2).join('\n')}`;
}

export function fishCompletion(program: Command): string {
  const root = commandTree(program);
  const lines = [
    generated('fish'),
    '# Install it with:  examctl completion fish > ~/.config/fish/completions/examctl.fish',
    'complete -c examctl -f',
  ];
  const optionLine = (option: OptionNode, condition: string | undefined): string => {
    const parts = ['complete -c examctl'];
    if (condition !== undefined) parts.push(`-n ${quoted(condition)}`);
    for (const name of option.names) parts.push(name.startsWith('--') ? `-l ${name.slice(2)}` : `-s ${name.slice(1)}`);
    if (option.takesValue) parts.push(option.file ? '-r -F' : '-x');
    if (option.choices.length > 0) parts.push(`-a ${quoted(option.choices.join(' '))}`);
    parts.push(`-d ${quoted(option.description)}`);
    return parts.join(' ');
  };
  for (const option of root.options) lines.push(optionLine(option, '__fish_use_subcommand'));
  const seen = (path: string[]): string => path.map((word) => `__fish_seen_subcommand_from ${word}`).join('; and ');
  for (const node of allNodes(root)) {
    const childNames = node.children.map((child) => child.path[child.path.length - 1]!);
    const here =
      node === root
        ? '__fish_use_subcommand'
        : `${seen(node.path)}; and not __fish_seen_subcommand_from ${childNames.join(' ')}`;
    for (const child of node.children) {
      lines.push(
        `complete -c examctl -n ${quoted(here)} -a ${quoted(child.path[child.path.length - 1]!)} -d ${quoted(child.description.split('\n')[0] ?? '')}`,
      );
    }
    if (node !== root) for (const option of node.options) lines.push(optionLine(option, seen(node.path)));
  }
  return `${lines.join('\n')}\n`;
}

/** A PowerShell single-quoted string. */
function psQuoted(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

function psArray(words: readonly string[]): string {
  return `@(${words.map(psQuoted).join(', ')})`;
}

/** PowerShell 5.1 and 7 (a path option gives nothing: it offers file names), with the `.cmd`/`.ps1` shims. */
export function powershellCompletion(program: Command): string {
  const root = commandTree(program);
  const nodes = allNodes(root);
  const key = (node: CommandNode): string => psQuoted(node.path.join(' '));
  const children = nodes
    .filter((node) => node.children.length > 0)
    .map((node) => `  ${key(node)} = ${psArray(node.children.map((child) => child.path[child.path.length - 1]!))}`);
  const optionWords = nodes.map(
    (node) => `  ${key(node)} = ${psArray([...new Set(node.options.flatMap((option) => option.names))])}`,
  );
  const choices: string[] = [];
  const valued = new Set<string>();
  for (const node of nodes) {
    for (const option of node.options) {
      if (option.takesValue) for (const name of option.names) valued.add(name);
      if (option.choices.length === 0) continue;
      for (const name of option.names)
        choices.push(`  ${psQuoted(`${node.path.join(' ')}|${name}`)} = ${psArray(option.choices)}`);
    }
  }
  return `${generated('PowerShell')}
# Load it in your profile (notepad $PROFILE):  examctl completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName @('examctl', 'examctl.cmd', 'examctl.ps1') -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  # The tables live inside the completer: it may run in another scope than the one that loaded it.
  $examctlChildren = @{
${children.map((line) => `  ${line}`).join('\n')}
  }
  $examctlOptions = @{
${optionWords.map((line) => `  ${line}`).join('\n')}
  }
  $examctlChoices = @{
${choices.map((line) => `  ${line}`).join('\n')}
  }
  $examctlTakesValue = ${psArray([...valued])}
  $words = @($commandAst.CommandElements | Where-Object { $_.Extent.EndOffset -le $cursorPosition } | ForEach-Object { $_.Extent.Text })
  if ($wordToComplete -ne '' -and $words.Count -gt 0) { $words = @($words | Select-Object -First ($words.Count - 1)) }
  $path = ''
  for ($i = 1; $i -lt $words.Count; $i++) {
    $word = $words[$i]
    if ($word.StartsWith('-')) {
      if (-not $word.Contains('=') -and $examctlTakesValue -contains $word) { $i++ }
      continue
    }
    if ($examctlChildren[$path] -contains $word) { $path = if ($path -eq '') { $word } else { "$path $word" } }
  }
  $prev = if ($words.Count -gt 1) { $words[$words.Count - 1] } else { '' }
  if (-not $wordToComplete.StartsWith('-') -and $examctlTakesValue -contains $prev) {
    $values = $examctlChoices["$path|$prev"]
    if ($null -eq $values) { $values = $examctlChoices["|$prev"] }
    # No choices: a file or a free value; returning nothing lets PowerShell offer file names.
    if ($null -eq $values) { return }
  } elseif ($wordToComplete.StartsWith('-')) {
    $values = $examctlOptions[$path]
    if ($null -eq $values) { $values = $examctlOptions[''] }
  } else {
    $values = $examctlChildren[$path]
    if ($null -eq $values) { return }
  }
  $values | Where-Object { $_ -like "$wordToComplete*" } | ForEach-Object {
    [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
  }
}
`;
}
