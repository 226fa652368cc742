import { crc32 } from 'node:zlib';
import { CRC_AT, LINE_PREFIX } from '../system/checksummed-line.js';
import type { SourceRef } from '../input/record.js';
import type { ItemRef, OutcomeLine, UnsentLine } from './journal-lines.js';

/*
 * The run journal's and the sync memory's lines (docs/runs.md, "The journal"; system/checksummed-line.ts).
 * A remote run writes two lines per record, so the per-item bodies are built as text (no object,
 * no JSON.stringify), and a group is encoded into one reused buffer, each crc32 taken there.
 */

const PREFIX = Buffer.from(LINE_PREFIX, 'latin1');
const HEX = Buffer.from('0123456789abcdef', 'latin1');
const CLOSE_BRACE = 0x7d;
const NEWLINE = 0x0a;

/**
 * tsc fails here when a field is added to a line kind the fast encoders below write, so a new
 * field cannot be dropped from the journal silently: write it in `itemBody`/`outcomeBody` too.
 */
type Exactly<T, Known extends PropertyKey> = Exclude<keyof T, Known> extends never ? true : never;
const encodesEverySourceField: Exactly<SourceRef, 'file' | 'line' | 'index'> = true;
const encodesEveryRefField: Exactly<ItemRef, 'n' | 'source' | 'id'> = true;
const encodesEveryUnsentField: Exactly<UnsentLine, 't' | 'n' | 'source' | 'id' | 'reason'> = true;
const encodesEveryOutcomeField: Exactly<
  OutcomeLine,
  't' | 'n' | 'source' | 'id' | 'status' | 'errors' | 'action' | 'note' | 'removed' | 'transient' | 'committed'
> = true;
void [encodesEverySourceField, encodesEveryRefField, encodesEveryUnsentField, encodesEveryOutcomeField];

/** A number as JSON.stringify writes it (a non-finite one as null). */
function numberJson(value: number): string {
  return Number.isFinite(value) ? `${value}` : 'null';
}

/** Source refs of one run name one file: its JSON is made once, not per line. */
let lastFile: string | undefined;
let lastFileJson = '';

function sourceJson(source: SourceRef): string {
  if (source.file !== lastFile) {
    lastFile = source.file;
    lastFileJson = JSON.stringify(source.file);
  }
  const index = source.index === undefined ? '' : `,"index":${numberJson(source.index)}`;
  return `{"file":${lastFileJson},"line":${numberJson(source.line)}${index}}`;
}

function itemHead(t: string, ref: ItemRef): string {
  return `{"t":"${t}","n":${numberJson(ref.n)},"source":${sourceJson(ref.source)},"id":${ref.id === null ? 'null' : JSON.stringify(ref.id)}`;
}

/** The body of a `sent` or `unsent` line for the item (an `unsent` line's `reason` when it has one). */
export function refBody(t: 'sent' | 'unsent', ref: ItemRef, reason?: string): string {
  return reason === undefined ? `${itemHead(t, ref)}}` : `${itemHead(t, ref)},"reason":${JSON.stringify(reason)}}`;
}

/** An outcome line's body; the journal writes it without building the line with its `t` first. */
export function outcomeBody(line: Omit<OutcomeLine, 't'>): string {
  let body = `${itemHead('outcome', line)},"status":${JSON.stringify(line.status)},"errors":${line.errors.length === 0 ? '[]' : JSON.stringify(line.errors)},"transient":${line.transient === true}`;
  if (line.action !== undefined) body += `,"action":${JSON.stringify(line.action)}`;
  if (line.note !== undefined) body += `,"note":${JSON.stringify(line.note)}`;
  if (line.removed !== undefined) body += `,"removed":${JSON.stringify(line.removed)}`;
  // A head is 22 base64url characters (store-head.ts): nothing to escape.
  if (line.committed !== undefined) body += `,"committed":"${line.committed}"`;
  return `${body}}`;
}

/** Encodes a group as checksummed lines into one reused buffer: what `encode` returns is valid until the next call. */
export class JournalGroupEncoder {
  // Grown from the first group on, so V8 holds the field mutable before code that inlines
  // `encode` is optimized: a first growth mid-run would throw that code away.
  private buffer = Buffer.alloc(0);

  encode(bodies: readonly string[]): Buffer {
    // At most 3 UTF-8 bytes per UTF-16 unit (a surrogate pair: 4 for 2).
    let text = '';
    for (const body of bodies) text += `${LINE_PREFIX}${body}}\n`;
    if (text.length * 3 > this.buffer.length)
      this.buffer = Buffer.allocUnsafe(Math.max(text.length * 3, this.buffer.length * 2));
    const buffer = this.buffer;
    const length = buffer.write(text, 0, 'utf8');
    // All ASCII (ids and file names usually are): each body's bytes are where its characters are.
    if (length === text.length) {
      let at = 0;
      for (const body of bodies) {
        const start = at + PREFIX.length;
        checksum(buffer, at, start + body.length);
        at = start + body.length + 2;
      }
      return buffer.subarray(0, length);
    }
    let at = 0;
    for (const body of bodies) {
      PREFIX.copy(buffer, at);
      const end = at + PREFIX.length + buffer.write(body, at + PREFIX.length, 'utf8');
      checksum(buffer, at, end);
      buffer[end] = CLOSE_BRACE;
      buffer[end + 1] = NEWLINE;
      at = end + 2;
    }
    return buffer.subarray(0, at);
  }
}

/** Writes the crc32 of the body (from after the prefix at `at` to `end`) into the line's prefix. */
function checksum(buffer: Buffer, at: number, end: number): void {
  const crc = crc32(buffer.subarray(at + PREFIX.length, end));
  for (let i = 0; i < 8; i++) buffer[at + CRC_AT + i] = HEX[(crc >>> (28 - 4 * i)) & 15] as number;
}
