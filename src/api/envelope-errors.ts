import { ErrorCode, type ProblemCode } from '../domain/codes.js';
import type { Problem } from '../domain/problem.js';
import type { UserRequest } from '../domain/types.js';
import type { UserResponseContent } from '../domain/user.js';

/** Any envelope's Errors, whatever its shape, as Problems (docs/interpretations.md, "Tolerance (remote client)"). */
export function errorsOf(envelope: unknown): Problem[] {
  if (envelope === null || typeof envelope !== 'object') return [];
  const record = envelope as Record<string, unknown>;
  const errors = 'Errors' in record ? record.Errors : record.errors;
  return problemsFrom(errors, '');
}

/** A service's errors in one line: `1101 Review session not found; 3 ...`, empty for none. */
export function describeErrors(envelope: unknown): string {
  return errorsOf(envelope)
    .map((problem) => `${problem.code ?? '-'} ${problem.message}`)
    .join('; ');
}

/** Bounds on what one answer's Errors can become : a hostile answer stays small and is walked without recursion. */
export const ERROR_LIMITS = { depth: 32, problems: 100, messageChars: 2 * 1024, totalChars: 8 * 1024 } as const;

interface Work {
  value: unknown;
  prefix: string;
  /** Inside an array: an object is one error entry whatever its members. */
  entry: boolean;
  depth: number;
}

/**
 * Normalises one Errors value (the envelope's, or Content.Errors / GroupErrors) to Problems: at
 * most 100, each message at most 2 KiB (a longer one cut, saying so), 8 KiB of messages in all
 * (what the journal, the report and --json keep of one answer), nesting followed 32 levels deep;
 * what was left out is said by a last problem ("… and N more").
 */
export function problemsFrom(errors: unknown, fieldPrefix = ''): Problem[] {
  const problems: Problem[] = [];
  let more = 0;
  let tooDeep = false;
  let chars = 0;
  const emit = (problem: Problem): void => {
    const { message } = problem;
    if (problems.length < ERROR_LIMITS.problems && chars < ERROR_LIMITS.totalChars) {
      const kept = message.length <= ERROR_LIMITS.messageChars ? problem : { ...problem, message: cutMessage(message) };
      chars += kept.message.length;
      problems.push(kept);
    }
    // A list the reader cut ends in its count of the rest (envelope-reader.ts): that many, not one.
    else more += Number(MORE.exec(message)?.[1] ?? 1);
  };
  const stack: Work[] = [{ value: errors, prefix: fieldPrefix, entry: false, depth: 0 }];
  while (stack.length > 0) {
    const { value, prefix, entry, depth } = stack.pop() as Work;
    if (value === null || value === undefined) continue;
    if (typeof value === 'string') {
      // Code null: the service's own text, passed through; it gave no number.
      if (value.trim() !== '') emit({ field: prefix, code: null, message: value });
      continue;
    }
    if (typeof value === 'number' || typeof value === 'boolean') {
      emit({ field: prefix, code: null, message: String(value) });
      continue;
    }
    if (typeof value !== 'object') continue;
    if (depth >= ERROR_LIMITS.depth) {
      tooDeep = true;
      continue;
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i -= 1)
        stack.push({ value: value[i], prefix, entry: true, depth: depth + 1 });
      continue;
    }
    const record = value as Record<string, unknown>;
    if (entry || [...CODE_KEYS, ...MESSAGE_KEYS].some((key) => key in record)) {
      emit(entryToProblem(record, prefix));
      continue;
    }
    // ASP.NET-style model state: { "Email": ["is invalid"], "FirstName": "required" }.
    const members = Object.entries(record);
    for (let i = members.length - 1; i >= 0; i -= 1) {
      const [field, inner] = members[i] as [string, unknown];
      stack.push({ value: inner, prefix: joinField(prefix, field), entry: false, depth: depth + 1 });
    }
  }
  if (tooDeep)
    emit({
      field: fieldPrefix,
      code: ErrorCode.ErrorsLeftOut,
      message: `errors nested deeper than ${ERROR_LIMITS.depth} levels were left out`,
    });
  if (more > 0) problems.push({ field: fieldPrefix, code: ErrorCode.ErrorsLeftOut, message: `… and ${more} more` });
  return problems;
}

/** Problems put together from several reads (a user's GroupErrors) held to the same bounds as `problemsFrom`. */
export function capProblems(problems: Problem[]): Problem[] {
  let kept = 0;
  for (let chars = 0; kept < problems.length && kept < ERROR_LIMITS.problems && chars < ERROR_LIMITS.totalChars; kept++)
    chars += problems[kept]!.message.length;
  const last = problems[problems.length - 1];
  if (kept === problems.length || (kept === problems.length - 1 && MORE.test(last!.message))) return problems;
  let more = 0;
  for (const problem of problems.slice(kept)) more += Number(MORE.exec(problem.message)?.[1] ?? 1);
  return [...problems.slice(0, kept), { field: '', code: ErrorCode.ErrorsLeftOut, message: `… and ${more} more` }];
}

// \u2026, not the character: esbuild leaves a regular expression as written, and one character
// outside ASCII makes V8 hold the whole bundled script as two-byte text (test/e2e/startup-modules.test.ts).
const MORE = /^\u2026 and (\d+) more$/;

/** JSON of a member for a message (no answer is parsed deeper than JSON.stringify writes). */
function jsonOf(value: object): string {
  const text = JSON.stringify(value);
  return text.length > ERROR_LIMITS.messageChars ? text.slice(0, ERROR_LIMITS.messageChars) : text;
}

/** Each member name as the API writes it, then in camelCase. */
const bothCases = (keys: readonly string[]): string[] =>
  keys.flatMap((key) => [key, `${key[0]!.toLowerCase()}${key.slice(1)}`]);
const CODE_KEYS = bothCases(['Code', 'ErrorCode']);
const MESSAGE_KEYS = bothCases(['Message', 'Error', 'ErrorMessage', 'Description', 'Detail', 'Title']);
const FIELD_KEYS = bothCases(['Field', 'PropertyName', 'Path']);
const ID_KEYS = bothCases(['UserExtId', 'ExternalId']);

function entryToProblem(record: Record<string, unknown>, fieldPrefix: string): Problem {
  const code = pickCode(record);
  const message = pickMessage(record);
  const field = pickString(record, FIELD_KEYS);
  const id = pickString(record, ID_KEYS);
  const problem: Problem = {
    field: joinField(fieldPrefix, field ?? ''),
    code,
    message: message ?? (id !== undefined ? `error for ${id}` : jsonOf(record)),
  };
  if (id !== undefined && message !== undefined && !message.includes(id)) problem.message = `${id}: ${message}`;
  return problem;
}

function pickCode(record: Record<string, unknown>): ProblemCode {
  for (const key of CODE_KEYS) {
    const value = record[key];
    if (typeof value === 'number' && Number.isInteger(value)) return value as ProblemCode;
    if (typeof value === 'string' && /^\d+$/.test(value.trim())) return Number(value.trim()) as ProblemCode;
  }
  return null;
}

function pickMessage(record: Record<string, unknown>): string | undefined {
  for (const key of MESSAGE_KEYS) {
    const value = record[key];
    if (typeof value === 'string' && value.trim() !== '') return value;
    if (value !== null && typeof value === 'object') return jsonOf(value);
  }
  return undefined;
}

function pickString(record: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'number') return String(value);
  }
  return undefined;
}

function joinField(prefix: string, field: string): string {
  if (prefix === '') return field;
  if (field === '') return prefix;
  return field.startsWith('[') ? `${prefix}${field}` : `${prefix}.${field}`;
}

/** A server's message past ERROR_LIMITS.messageChars: its start, and how long it was. */
function cutMessage(message: string): string {
  return `${message.slice(0, ERROR_LIMITS.messageChars)}… (cut by examctl: ${message.length.toLocaleString('en-US')} characters)`;
}

/** GroupErrors name a hierarchy by ExternalId; the report names the request's Hierarchies[i]. */
export function groupErrorProblems(content: UserResponseContent, user: UserRequest): Problem[] {
  const errors: unknown = (content as { GroupErrors?: unknown }).GroupErrors;
  if (!Array.isArray(errors)) return problemsFrom(errors, 'Hierarchies');
  return errors.flatMap((entry: unknown) => {
    const id = typeof entry === 'object' && entry !== null ? (entry as { ExternalId?: unknown }).ExternalId : undefined;
    const index = typeof id === 'string' ? (user.Hierarchies ?? []).findIndex((h) => h.ExternalId === id) : -1;
    const field = index >= 0 ? `Hierarchies[${index}]` : 'Hierarchies';
    return problemsFrom([entry]).map((problem) => ({ ...problem, field }));
  });
}
