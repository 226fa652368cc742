import { readFile } from 'node:fs/promises';
import { isPlainObject } from '../domain/field-rules.js';
import { InputFileError } from '../system/errors.js';
import { parseJsonDocument } from './json-document.js';
import { decodeTextDocument } from './text-source.js';
import { cannotReadReason } from './text-source.js';

/** What a `--schedule file.json` gives: Schedule fields, and a whole request's Workflow and Upsert. */
export interface ScheduleFileContent {
  schedule: Record<string, unknown>;
  workflow?: unknown;
  upsert?: unknown;
}

/**
 * Reads `--schedule file.json`: one JSON object holding either the Schedule fields or a
 * request with `Schedule` (and optionally Workflow, Upsert). Anything else is an
 * InputFileError naming the file, before anything is read from the main input.
 */
export async function readScheduleFile(path: string, file: string): Promise<ScheduleFileContent> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new InputFileError(file, undefined, `cannot read: ${cannotReadReason(error)}`);
  }
  const text = decodeTextDocument(bytes, file);
  const parsed = parseJsonDocument(text, file);
  if (!isPlainObject(parsed)) throw new InputFileError(file, undefined, 'must hold one JSON object: the Schedule fields, or a request with Schedule');
  if (!('Schedule' in parsed)) return { schedule: { ...parsed } };
  if (!isPlainObject(parsed.Schedule)) throw new InputFileError(file, undefined, 'Schedule must be a JSON object');
  return { schedule: { ...parsed.Schedule }, workflow: parsed.Workflow, upsert: parsed.Upsert };
}
