import { errorCodeEntry, ERROR_CODES } from '../../system/error-codes.js';
import { UsageError } from '../../system/errors.js';
import { printJson, type CommandDeps } from '../../context/command-deps.js';
import { recordCodeEntry } from '../../domain/codes.js';
import { quotedValue } from '../../domain/problem.js';
import { printLine } from '../../formats/terminal-text.js';
import type { ExplainOptions } from './explain.options.js';

/**
 * `examctl explain CODE`: the entry of the table of codes (system/error-codes.ts), or of a record's
 * numbered code a run printed (domain/codes.ts, `209`), as text or one --json document.
 */
export async function run({ code, json }: ExplainOptions, deps: CommandDeps): Promise<number> {
  const entry = errorCodeEntry(code) ?? recordCodeEntry(code);
  if (entry === undefined) {
    throw new UsageError(
      `explain: no code ${quotedValue(code)} among examctl's ${Object.keys(ERROR_CODES).length} or the records' numbered codes: give it as a message ends with it, e.g. E3020, or as a record's error says it, e.g. 209 (docs/errors.md, docs/api-reference.md list them)`,
      { code: 'E2004' },
    );
  }
  if (json === true) {
    await printJson(deps, entry);
    return 0;
  }
  await printLine(deps, `${entry.code}: ${entry.title} (exit ${entry.exit ?? "of the run's error"})`);
  for (const line of ['', `Cause: ${entry.cause}`, '', `Fix: ${entry.fix}`]) await printLine(deps, line);
  return 0;
}
