import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inTempDir, parseReport } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

// CSV messages say as much as xlsx ones (issue 23, 6): the offending value quoted (cut and
// escaped), the | hint on a list cell split by , or ;, one field path for both formats.

interface Item {
  errors: { field: string; message: string }[];
  warnings?: { field: string; message: string }[];
}

describe('CSV messages quote the offending value and hint at |', () => {
  it('a DateOfBirth 15/03/2005 is quoted; a Hierarchies cell "H-NORTH, H-SOUTH" gets the | hint', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'users.csv');
      await writeFile(
        file,
        'ExternalId,FirstName,LastName,Email,Role,DateOfBirth,Hierarchies\n' +
          'u-1,Ann,Lee,u1@students.example.test,Candidate,15/03/2005,H-NORTH\n' +
          'u-2,Ben,Okafor,u2@students.example.test,Candidate,,"H-NORTH, H-SOUTH"\n',
      );
      const run = await examctl(
        ['user', 'sync', '--file', file, '--dry-run', '--json', '--store', join(dir, 'store')],
        dir,
      );
      const items = parseReport(run).items as unknown as Item[];
      // Never guessed: the format it looks like and the flag that reads it (docs/input-formats.md, "Dates, times and time zones").
      expect(items[0]!.errors).toEqual([
        expect.objectContaining({
          field: 'DateOfBirth',
          code: 246,
          message:
            'DateOfBirth "15/03/2005" is not ISO YYYY-MM-DD; it looks like DD/MM/YYYY: give --date-format DD/MM/YYYY (examctl never guesses a date\'s order)',
        }),
      ]);
      expect(items[1]!.warnings).toEqual([
        expect.objectContaining({
          field: 'Hierarchies',
          code: 9004,
          message: expect.stringContaining(
            'Hierarchies "H-NORTH, H-SOUTH" is read as one entry: entries of a list cell are separated by |, not , or ; (write "H-NORTH|H-SOUTH")',
          ),
        }),
      ]);
    });
  });

  it('a StartDateTime without a zone in a sittings CSV quotes the value, on Schedule.StartDateTime (the xlsx path)', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'sittings.csv');
      await writeFile(
        file,
        'ScheduleExtId,AssessmentExtId,Title,StartDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email\n' +
          'S-MSG-1,A-MATH-1,One,2026-12-21 09:00,H-CORPUS,Corpus group,cand-1,Ann,Lee,c1@students.example.test\n',
      );
      const run = await examctl(
        ['schedule', 'push', '--file', file, '--dry-run', '--json', '--store', join(dir, 'store')],
        dir,
      );
      const items = parseReport(run).items as unknown as Item[];
      expect(items[0]!.errors).toEqual([
        expect.objectContaining({
          field: 'Schedule.StartDateTime',
          message: expect.stringMatching(/^StartDateTime "2026-12-21 09:00" /),
        }),
      ]);
    });
  });
});
