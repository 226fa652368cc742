import type { GlobalOptions } from '../global-options.js';
import { argument, type OptionsOf } from '../option-table.js';

export const COMPLETION_OPTIONS = [argument('shell', '[shell]', 'bash, zsh, fish or powershell')] as const;

export type CompletionOptions = OptionsOf<typeof COMPLETION_OPTIONS> & GlobalOptions;
