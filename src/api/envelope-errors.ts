import type { Problem } from '../domain/problem.js';
import type { ProblemCode } from '../domain/codes.js';

/**
 * Normalises the Errors member of any envelope into Problems. The spec does not show its
 * shape (integration-api.md, "Errors"), so a real server may send null, a string, an array of
 * strings, an array of objects spelled `Code/Message/Field`, `code/message/field`,
 * `ErrorCode/ErrorMessage`, `Error`, `UserExtId`, `ExternalId`..., or an object map of
 * field -> message(s). Every message the server gave is kept; nothing is dropped.
 */
export function errorsOf(envelope: unknown): Problem[] {
  if (envelope === null || typeof envelope !== 'object') return [];
  const record = envelope as Record<string, unknown>;
  const errors = 'Errors' in record ? record.Errors : record.errors;
  return problemsFrom(errors, '');
}

/** Normalises one Errors value (the envelope's, or Content.Errors / GroupErrors) to Problems. */
export function problemsFrom(errors: unknown, fieldPrefix = ''): Problem[] {
  if (errors === null || errors === undefined) return [];
  if (typeof errors === 'string') return errors.trim() === '' ? [] : [{ field: fieldPrefix, code: null, message: errors }];
  if (typeof errors === 'number' || typeof errors === 'boolean') {
    return [{ field: fieldPrefix, code: null, message: String(errors) }];
  }
  if (Array.isArray(errors)) {
    return errors.flatMap((entry) => entryToProblems(entry, fieldPrefix));
  }
  if (typeof errors === 'object') {
    const objectEntry = errors as Record<string, unknown>;
    if (looksLikeErrorEntry(objectEntry)) return entryToProblems(objectEntry, fieldPrefix);
    // ASP.NET-style model state: { "Email": ["is invalid"], "FirstName": "required" }.
    return Object.entries(objectEntry).flatMap(([field, value]) =>
      problemsFrom(value, joinField(fieldPrefix, field)),
    );
  }
  return [];
}

const CODE_KEYS = ['Code', 'code', 'ErrorCode', 'errorCode'] as const;
const MESSAGE_KEYS = ['Message', 'message', 'Error', 'error', 'ErrorMessage', 'errorMessage', 'Description', 'description', 'Detail', 'detail', 'Title', 'title'] as const;
const FIELD_KEYS = ['Field', 'field', 'PropertyName', 'propertyName', 'Path', 'path'] as const;
const ID_KEYS = ['UserExtId', 'userExtId', 'ExternalId', 'externalId'] as const;

function looksLikeErrorEntry(entry: Record<string, unknown>): boolean {
  return [...CODE_KEYS, ...MESSAGE_KEYS].some((key) => key in entry);
}

function entryToProblems(entry: unknown, fieldPrefix: string): Problem[] {
  if (entry === null || entry === undefined) return [];
  if (typeof entry !== 'object') return problemsFrom(entry, fieldPrefix);
  if (Array.isArray(entry)) return entry.flatMap((inner) => entryToProblems(inner, fieldPrefix));
  const record = entry as Record<string, unknown>;
  const code = pickCode(record);
  const message = pickMessage(record);
  const field = pickString(record, FIELD_KEYS);
  const id = pickString(record, ID_KEYS);
  const problem: Problem = {
    field: joinField(fieldPrefix, field ?? ''),
    code,
    message: message ?? (id !== undefined ? `error for ${id}` : JSON.stringify(record)),
  };
  if (id !== undefined && message !== undefined && !message.includes(id)) problem.message = `${id}: ${message}`;
  return [problem];
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
    if (value !== null && typeof value === 'object') return JSON.stringify(value);
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
