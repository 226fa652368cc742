import { InputFileError } from '../system/errors.js';
import { quotedValue } from '../domain/problem.js';
import { INPUT_LIMITS, JsonFault, parseJson, type OnKey, type ScanOptions } from '../system/json-scan.js';

/**
 * Whole-document JSON (a world file, `--schedule file.json`, the config file, an id list): read
 * by the one bounded scanner (system/json-scan.ts) and JSON.parse, and on a fault refused as
 * `file:line: not valid JSON: expected X at column C`, quoting nothing of the file; a key given
 * twice in one object too (JSON.parse would keep the last), unless `twice` is false.
 */
export function parseJsonDocument(
  text: string,
  file: string,
  tell: Omit<ScanOptions, 'strict'> = {},
  twice = true,
): unknown {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // The keys of the object last met at each depth (by its path): memory bounded by the depth.
  const objects: [string, Map<string, number>][] = [];
  const onKey: OnKey = (key, path, line) => {
    const at = JSON.stringify(path.slice(0, -1));
    if (objects[path.length]?.[0] !== at) objects[path.length] = [at, new Map()];
    const first = objects[path.length]![1].get(key);
    if (first !== undefined)
      throw new InputFileError(
        file,
        line,
        `the key ${quotedValue(key)} is given twice in one object (first on line ${first}); JSON would keep only the last`,
      );
    objects[path.length]![1].set(key, line);
  };
  try {
    return parseJson(source, INPUT_LIMITS, twice ? { ...tell, onKey } : tell);
  } catch (error) {
    throw jsonFaultError(error, file);
  }
}

/** A JsonFault as the InputFileError naming its line; anything else as it is. */
export function jsonFaultError(error: unknown, file: string): unknown {
  return error instanceof JsonFault ? new InputFileError(file, error.line, error.message) : error;
}
