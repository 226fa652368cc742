import { TextDecoder } from 'node:util';
import { UsageError } from '../system/errors.js';

/**
 * Refuses an encoding name TextDecoder does not know (`windows-1252`, `utf-16le`... are known),
 * in the same words wherever it was given: `origin` is `--encoding` or `profile x: encoding`.
 */
export function refuseUnknownEncoding(origin: string, label: string): void {
  try {
    new TextDecoder(label);
  } catch {
    throw new UsageError(
      `${origin} ${label}: not an encoding name examctl knows (e.g. windows-1252, iso-8859-15, utf-16le, shift_jis)`,
    );
  }
}
