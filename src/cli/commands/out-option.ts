import { option, brief } from '../../flags/option-table.js';

/**
 * `--out <file>` of every command that writes a workbook or a document to stdout. PowerShell 5.1
 * re-encodes what `>` captures as UTF-16 (a corrupt workbook, a world file `local init --seed`
 * refuses), so such a command can write its file itself. Light: imported by option tables.
 */
export const OUT_OPTION = brief('write to this file (in PowerShell: use it)', option('--out <file>', 'write the output to <file> instead of stdout (a file is replaced whole once complete, a FIFO or device written into; use it in Windows PowerShell, whose > re-encodes output)'), 'stdout');
