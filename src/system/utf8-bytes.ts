import { isUtf8 } from 'node:buffer';

/** Length of the UTF-8 sequence a lead byte announces; 0 for a continuation or invalid byte. */
export function sequenceLength(byte: number): number {
  if (byte < 0x80) return 1;
  if (byte >= 0xc2 && byte <= 0xdf) return 2;
  if (byte >= 0xe0 && byte <= 0xef) return 3;
  if (byte >= 0xf0 && byte <= 0xf4) return 4;
  return 0;
}

/** Offset of the first byte that breaks UTF-8 in `bytes` (asked once isUtf8 said no). */
export function firstInvalidOffset(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const length = sequenceLength(bytes[i] as number);
    if (length === 0) return i;
    if (length > 1) {
      if (i + length > bytes.length) return i;
      if (!isUtf8(bytes.subarray(i, i + length))) return i;
    }
    i += length;
  }
  return bytes.length;
}
