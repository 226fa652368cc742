import { decodeChecksummedLine } from '../../src/system/checksummed-line.js';

/** The bodies of a journal's or sync memory's checksummed lines, in order; a line that fails its check throws. */
export function checkedLineBodies(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const decoded = decodeChecksummedLine(Buffer.from(line, 'utf8'));
      if (!decoded.ok) throw new Error(decoded.reason);
      return decoded.body as Record<string, unknown>;
    });
}
