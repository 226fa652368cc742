// Paths that now go through one shared helper each: a profile's field through the one field
// lookup (field-map.ts), a workbook opened as every text input is (text-source.ts openForReading).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkProfileField } from '../../src/input/field-map.js';
import { readXlsxRecords } from '../../src/input/xlsx-reader.js';
import { InputFileError, UsageError } from '../../src/system/errors.js';
import { userColumns } from './helpers.js';

describe('a profile field', () => {
  it('is refused when no record command takes it, with the nearest field and every field named once', () => {
    let error: unknown;
    try {
      checkProfileField('--set', 'Emial', 'x@example.test', {});
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    expect(message).toMatch(
      /^--set Emial: unknown field "Emial" \(did you mean Email\?\); the fields of the record commands: ExternalId, /,
    );
    const fields = message.slice(message.indexOf(': ', message.indexOf('record commands')) + 2).split(', ');
    expect(new Set(fields).size).toBe(fields.length);
    expect(fields).toContain('StartDateTime');
  });

  it('of any record command is taken, by its own spelling', () => {
    expect(checkProfileField('--map', 'startdatetime', undefined, {})).toBe('StartDateTime');
    expect(checkProfileField('--map', 'external_id', undefined, {})).toBe('ExternalId');
  });
});

describe('a workbook path', () => {
  it('that is a directory is refused as one, before any zip is looked for', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'examctl-shared-'));
    try {
      let error: unknown;
      try {
        for await (const _ of readXlsxRecords(join(dir), { columns: userColumns, displayName: 'users.xlsx' }));
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(InputFileError);
      expect(error).toMatchObject({ file: 'users.xlsx', reason: 'cannot read: is a directory' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
