import { TextDecoder } from 'node:util';
import { sniffEncoding } from '../input/text-source.js';

/**
 * The text of a small file examctl reads whole (the config, a token file), by its BOM: UTF-8
 * with or without one, or UTF-16 LE/BE with one. Windows PowerShell 5.1 writes UTF-16LE with a
 * BOM for `echo $t > token.txt` and `Out-File`, and Notepad may save UTF-16 ("Unicode").
 */
export function decodeTextFile(bytes: Buffer): string {
  const { encoding, chunk } = sniffEncoding(bytes);
  return new TextDecoder(encoding, { ignoreBOM: true }).decode(chunk);
}
