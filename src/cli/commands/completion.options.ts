import { argument, type OptionsOf } from '../../flags/option-table.js';
import { declareCommand } from '../command-declaration.js';
import type { GlobalOptions } from '../../flags/global-options.js';

export const COMPLETION_OPTIONS = [argument('shell', '[shell]', 'bash, zsh, fish or powershell')] as const;

export type CompletionOptions = OptionsOf<typeof COMPLETION_OPTIONS> & GlobalOptions;

export const COMPLETION = declareCommand({
  path: ['completion'],
  description: 'print a shell completion script for bash, zsh, fish or powershell, generated from the command tree',
  examples: [
    '# bash (also macOS bash 3.2): load it in every new shell',
    `echo 'eval "$(examctl completion bash)"' >> ~/.bashrc`,
    'examctl completion zsh > "${fpath[1]}/_examctl"',
    'examctl completion fish > ~/.config/fish/completions/examctl.fish',
    '# PowerShell: add to your profile (notepad $PROFILE)',
    'examctl completion powershell | Out-String | Invoke-Expression',
  ],
  options: COMPLETION_OPTIONS,
  takesDryRun: true,
  printsText: true,
});
