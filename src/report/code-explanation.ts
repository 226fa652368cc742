import { errorCodeEntry, ERROR_CODES } from '../system/error-codes.js';
import { UsageError } from '../system/errors.js';
import { recordCodeEntry } from '../domain/codes.js';
import { quotedValue } from '../domain/problem.js';

/** What `examctl explain CODE` prints: an entry of system/error-codes.ts or of domain/codes.ts (`209`). */

type CodeEntry = NonNullable<ReturnType<typeof errorCodeEntry> | ReturnType<typeof recordCodeEntry>>;

/** The entry of `code`; exit 2 (E2004) naming where codes are listed when it is none. */
export function explainedCode(code: string): CodeEntry {
  const entry = errorCodeEntry(code) ?? recordCodeEntry(code);
  if (entry !== undefined) return entry;
  throw new UsageError(
    `explain: no code ${quotedValue(code)} among examctl's ${Object.keys(ERROR_CODES).length} or the records' numbered codes: give it as a message ends with it, e.g. E3020, or as a record's error says it, e.g. 209 (docs/errors.md, docs/api-reference.md list them)`,
    { code: 'E2004' },
  );
}

/** The entry as text lines: its code, title and exit, then its cause and its fix. */
export function explanationLines(entry: CodeEntry): string[] {
  return [
    `${entry.code}: ${entry.title} (exit ${entry.exit ?? "of the run's error"})`,
    '',
    `Cause: ${entry.cause}`,
    '',
    `Fix: ${entry.fix}`,
  ];
}
