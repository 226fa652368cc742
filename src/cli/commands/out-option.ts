import { option, brief } from '../../flags/option-table.js';

/**
 * `--out <file>` of every command that writes a workbook or a document to stdout (why: docs/windows.md,
 * "The README's commands in PowerShell"). Light: imported by option tables.
 */
export const OUT_OPTION = brief(
  'write to this file (in PowerShell: use it)',
  option(
    '--out <file>',
    'write the output to <file> instead of stdout (a file is replaced whole once complete, a FIFO or device written into; use it in Windows PowerShell, whose > re-encodes output)',
  ),
  'stdout',
);
