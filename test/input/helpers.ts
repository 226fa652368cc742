import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { InputFileError } from '../../src/system/errors.js';
import type { ColumnSpec } from '../../src/domain/columns.js';

export const fixturesDir = fileURLToPath(new URL('../../fixtures/input/', import.meta.url));
export const fixture = (name: string): string => join(fixturesDir, name);

/** The users columns most fixtures use. */
export const userColumns: readonly ColumnSpec[] = [
  { name: 'ExternalId', kind: 'string' },
  { name: 'FirstName', kind: 'string' },
  { name: 'LastName', kind: 'string' },
  { name: 'Email', kind: 'string' },
  { name: 'Company', kind: 'string' },
  { name: 'Labels', kind: 'list' },
  { name: 'SpecialNeeds', kind: 'string' },
];

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** Asserts the promise rejects with an InputFileError at `line` whose reason matches. */
export async function expectInputFileError(
  promise: Promise<unknown>,
  expected: { file?: string; line: number | undefined; reason: RegExp },
): Promise<InputFileError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(InputFileError);
  const inputError = error as InputFileError;
  expect(inputError.exitCode).toBe(2);
  expect(inputError.line).toBe(expected.line);
  expect(inputError.reason).toMatch(expected.reason);
  if (expected.file !== undefined) expect(inputError.file).toBe(expected.file);
  return inputError;
}
