// A text input that is not text (a NUL, bytes of another encoding, UTF-8 read as windows-1252)
// is refused at its line, counted as the file is read: far past the first chunks, in each encoding.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTextDocument, readUtf8Chunks } from '../../src/input/text-source.js';
import { detectFormat } from '../../src/input/format.js';
import { collect, expectInputFileError } from './helpers.js';

/** Lines before the fault: far more than one 64 KiB chunk of them. */
const LINES = 5000;
const body = 'ExternalId,FirstName\n' + Array.from({ length: LINES - 1 }, (_, i) => `u-${i},Zoë\n`).join('');

describe('a refusal of the text names the line of the fault', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'examctl-lines-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const file = async (name: string, bytes: Buffer): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, bytes);
    return path;
  };

  it('a NUL byte, on its line', async () => {
    const path = await file('nul.csv', Buffer.concat([Buffer.from(body), Buffer.from('u-x,A\u0000n\n')]));
    await expectInputFileError(collect(readUtf8Chunks(path)), { line: LINES + 1, reason: /binary content/ });
  });

  it('invalid UTF-8 in a file of letters beyond ASCII (cut by chunk ends and carried), on its line', async () => {
    const path = await file('utf8.csv', Buffer.concat([Buffer.from(body), Buffer.from('u-x,\xff\n', 'latin1')]));
    await expectInputFileError(collect(readUtf8Chunks(path)), { line: LINES + 1, reason: /invalid UTF-8/ });
  });

  it('UTF-8 read as windows-1252, at the line of its first letter beyond ASCII', async () => {
    const ascii = 'ExternalId,FirstName\n' + Array.from({ length: LINES - 1 }, (_, i) => `u-${i},Ann\n`).join('');
    const path = await file('legacy.csv', Buffer.from(`${ascii}u-x,Jürgen\nu-y,Zoë\n`));
    await expectInputFileError(collect(readUtf8Chunks(path, path, { encoding: 'windows-1252' })), {
      line: LINES + 1,
      reason: /is UTF-8 text \(these bytes read as UTF-8 are "ürgen/,
    });
  });

  it('bytes that are not the --encoding given (a multi-byte one), on their line', async () => {
    const ascii = 'ExternalId,FirstName\n' + Array.from({ length: LINES - 1 }, (_, i) => `u-${i},Ann\n`).join('');
    const path = await file('sjis.csv', Buffer.concat([Buffer.from(ascii), Buffer.from([0x75, 0x2c, 0xff, 0x0a])]));
    await expectInputFileError(collect(readUtf8Chunks(path, path, { encoding: 'shift_jis' })), {
      line: LINES + 1,
      reason: /bytes that are not shift_jis/,
    });
  });

  it('a lone surrogate in UTF-16, on its line', async () => {
    const text = Buffer.from(`\ufeff${body}u-x,`, 'utf16le');
    const path = await file(
      'utf16.csv',
      Buffer.concat([text, Buffer.from([0x00, 0xdc]), Buffer.from('\n', 'utf16le')]),
    );
    await expectInputFileError(collect(readUtf8Chunks(path)), { line: LINES + 1, reason: /invalid UTF-16/ });
  });

  it('a document read whole (a --schedule file, a world file, a map file) in Latin-1, on its line: never stored with U+FFFD in place of its letters', async () => {
    const latin1 = Buffer.from('{\n  "Title": "Caf\u00e9 exam"\n}\n', 'latin1');
    await expectInputFileError(
      Promise.resolve().then(() => decodeTextDocument(latin1, 'sched.json')),
      { line: 2, reason: /^not a text file \(binary content\): invalid UTF-8; save the file as UTF-8 text$/ },
    );
    expect(decodeTextDocument(Buffer.from('\ufeff{"Title": "Caf\u00e9"}'), 'sched.json')).toBe(
      '{"Title": "Caf\u00e9"}',
    );
    // UTF-16 without a BOM (trial30 F05): binary, as a streamed input's NUL is, not a JSON syntax error.
    await expectInputFileError(
      Promise.resolve().then(() => decodeTextDocument(Buffer.from('{\n"Title": "x"}', 'utf16le'), 'sched.json')),
      { line: 1, reason: /^not a text file \(binary content\): UTF-16 without a BOM\? save the file as UTF-8 text$/ },
    );
    // Other binary (a gzip file) is not guessed UTF-16; a streamed input gets the guess too, CSV its flag (trial33 F08).
    await expectInputFileError(
      Promise.resolve().then(() =>
        decodeTextDocument(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00]), 'map.json.gz'),
      ),
      { line: 1, reason: /^not a text file \(binary content\)$/ },
    );
    const utf16 = await file('u16.csv', Buffer.from('ExternalId,FirstName\nu-1,Ann\n', 'utf16le'));
    await expectInputFileError(collect(readUtf8Chunks(utf16, utf16, { encodingFlag: true })), {
      line: 1,
      reason:
        /^not a text file \(binary content\): UTF-16 without a BOM\? save the file as UTF-8 text, or name its encoding with --encoding utf-16le$/,
    });
  });

  it('UTF-16 without a BOM names the encoding that reads it, a sniffed input (stdin) too unless it reads as JSON (trial34 F05, F06)', async () => {
    const be = Buffer.from('ExternalId,FirstName\nu-1,Ann\n', 'utf16le').swap16();
    await expectInputFileError(collect(readUtf8Chunks(await file('be.csv', be), 'be.csv', { encodingFlag: true })), {
      line: 1,
      reason: /--encoding utf-16be$/,
    });
    await expectInputFileError(detectFormat(await file('stdin-be', be), 'stdin'), {
      line: 1,
      reason: /--encoding utf-16be$/,
    });
    const le = await file('stdin-le', Buffer.from(' ExternalId\nu-1\n', 'utf16le'));
    await expectInputFileError(detectFormat(le, 'stdin'), { line: 1, reason: /--encoding utf-16le$/ });
    const json = await file('stdin-json', Buffer.from(' [{"ExternalId": "u-1"}]\n', 'utf16le'));
    await expectInputFileError(detectFormat(json, 'stdin'), {
      line: 1,
      reason: /UTF-16 without a BOM\? save the file as UTF-8 text$/,
    });
    const latin1 = await file('stdin-latin1', Buffer.from('ExternalId,FirstName\nu-1,Zo\u00eb\n', 'latin1'));
    await expectInputFileError(detectFormat(latin1, 'stdin'), { line: 2, reason: /--encoding windows-1252 for Excel/ });
  });
});
