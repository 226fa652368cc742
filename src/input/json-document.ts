import { InputFileError } from '../system/errors.js';
import { faultReason, JsonFault, MAX_JSON_DEPTH, parseJson, positionOf, type JsonLimits, type ScanOptions } from '../formats/json-scan.js';

/**
 * Whole-document JSON (a world file, `--schedule file.json`, the config file, a map file): read
 * by the one bounded scanner (formats/json-scan.ts) and JSON.parse, and on a fault refused as
 * `file:line: not valid JSON: expected X at column C`, quoting nothing of the file.
 */
export function parseJsonDocument(text: string, file: string, limits: JsonLimits = { depth: MAX_JSON_DEPTH }, tell?: Omit<ScanOptions, 'strict'>): unknown {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return parseJson(source, limits, tell);
  } catch (error) {
    throw jsonFaultError(error, source, file);
  }
}

/** A JsonFault as the InputFileError naming its line (`firstLine`: the text's first line in the file); anything else as it is. */
export function jsonFaultError(error: unknown, text: string, file: string, firstLine = 1, firstColumn = 1): unknown {
  if (!(error instanceof JsonFault)) return error;
  const { line, column } = positionOf(text, error.offset);
  return new InputFileError(file, firstLine + line - 1, faultReason(error, line === 1 ? firstColumn + column - 1 : column, error.offset >= text.length));
}
