import { isPlainObject } from '../domain/field-rules.js';
import type { ScheduleDefaults } from '../domain/sittings.js';
import { InputFileError, UsageError } from '../system/errors.js';
import { readRegularFileWithStat, SETTINGS_FILE_MAX_BYTES } from '../system/regular-file.js';
import { parseJsonDocument } from './json-document.js';
import { cannotRead, decodeTextDocument } from './text-source.js';

/**
 * Reads `--schedule file.json`: one JSON object holding either the Schedule fields or a
 * request with `Schedule` (and optionally Workflow, Upsert). Anything else is an
 * InputFileError naming the file, before anything is read from the main input.
 */
export async function readScheduleFile(
  path: string,
  file: string,
  same?: { sha256?: string },
): Promise<Omit<ScheduleDefaults, 'written'>> {
  // The JSON itself given for the file (the contract's `--schedule <json>`): said, not "no such
  // file". A file, never text: a PIN in it would show in `ps` and in the run journal's options.
  if (file.trimStart().startsWith('{')) {
    throw new UsageError(
      '--schedule takes the path of a file holding the JSON object, not the JSON itself (given on the command line, a PIN in it would show in ps and in the run journal): write it to a file, e.g. schedule.json',
    );
  }
  let bytes: Buffer;
  try {
    ({ bytes } = await readRegularFileWithStat(path, { followLinks: true, maxBytes: SETTINGS_FILE_MAX_BYTES, same }));
  } catch (error) {
    throw cannotRead(file, error);
  }
  const text = decodeTextDocument(bytes, file);
  const parsed = parseJsonDocument(text, file);
  if (!isPlainObject(parsed))
    throw new InputFileError(
      file,
      undefined,
      'must hold one JSON object: the Schedule fields, or a request with Schedule',
    );
  if (!('Schedule' in parsed)) return { schedule: { ...parsed } };
  if (!isPlainObject(parsed.Schedule)) throw new InputFileError(file, undefined, 'Schedule must be a JSON object');
  return { schedule: { ...parsed.Schedule }, workflow: parsed.Workflow, upsert: parsed.Upsert };
}
