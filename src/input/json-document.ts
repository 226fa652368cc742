import { InputFileError } from '../system/errors.js';
import { INPUT_LIMITS, JsonFault, parseJson, type JsonLimits, type ScanOptions } from '../system/json-scan.js';

/**
 * Whole-document JSON (a world file, `--schedule file.json`, the config file, a map file): read
 * by the one bounded scanner (system/json-scan.ts) and JSON.parse, and on a fault refused as
 * `file:line: not valid JSON: expected X at column C`, quoting nothing of the file.
 */
export function parseJsonDocument(text: string, file: string, limits: JsonLimits = INPUT_LIMITS, tell?: Omit<ScanOptions, 'strict'>): unknown {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return parseJson(source, limits, tell);
  } catch (error) {
    throw jsonFaultError(error, file);
  }
}

/** A JsonFault as the InputFileError naming its line; anything else as it is. */
export function jsonFaultError(error: unknown, file: string): unknown {
  return error instanceof JsonFault ? new InputFileError(file, error.line, error.message) : error;
}
