// An id list's id column is found by one list of names, the same for a CSV and a workbook
// (docs/input-formats.md, "Id list files").
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readIdList } from '../../src/input/id-list.js';
import { inTempDir, writeWorkbook } from '../xlsx/helpers.js';

describe('the id column of an id list', () => {
  it('InvigilatorExternalId is one in a CSV and in a workbook alike, preferred to Id', async () => {
    await inTempDir(async (dir) => {
      const csv = join(dir, 'ids.csv');
      await writeFile(csv, 'Id,InvigilatorExternalId\nrow-1,inv-1\nrow-2,inv-2\n');
      const xlsx = join(dir, 'ids.xlsx');
      await writeWorkbook(xlsx, [
        {
          name: 'Ids',
          rows: [
            ['Id', 'InvigilatorExternalId'],
            ['row-1', 'inv-1'],
            ['row-2', 'inv-2'],
          ],
        },
      ]);
      expect((await readIdList(csv)).map((entry) => entry.id)).toEqual(['inv-1', 'inv-2']);
      expect((await readIdList(xlsx)).map((entry) => entry.id)).toEqual(['inv-1', 'inv-2']);
    });
  });

  it('a workbook read with --map naming one of those columns in another case reads it (the field the header maps)', async () => {
    await inTempDir(async (dir) => {
      const xlsx = join(dir, 'ids.xlsx');
      await writeWorkbook(xlsx, [{ name: 'Ids', rows: [['UserExtId'], ['inv-1'], ['inv-2']] }]);
      expect((await readIdList(xlsx, { idColumn: 'userextid' })).map((entry) => entry.id)).toEqual(['inv-1', 'inv-2']);
    });
  });

  it('a CSV without one is refused naming every name the column may have', async () => {
    await inTempDir(async (dir) => {
      const csv = join(dir, 'ids.csv');
      await writeFile(csv, 'Name,Room\nAnn,R1\n');
      await expect(readIdList(csv)).rejects.toMatchObject({
        line: 1,
        reason:
          'no id column: name one of the columns UserExtId, UserExternalId, InvigilatorExtId, InvigilatorExternalId, ExternalId, ExtId, Id, or say which with --map "Column=UserExtId"',
      });
    });
  });
});
