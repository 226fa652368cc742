import { argumentChoice } from '../../flags/option-table.js';
import { SHELLS } from '../../flags/completion.js';
import { declareCommand, type CommandOptions } from '../command-declaration.js';

export type CompletionOptions = CommandOptions<typeof COMPLETION>;

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
  options: [argumentChoice('shell', '<shell>', 'the shell to complete in', SHELLS)] as const,
  takes: ['--dry-run'],
  printsText: true,
});
