import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { corpus, inTempDir } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { expectOnlyErrorDocument } from '../support/error-document.js';

// `--only-failed` reads a run report CSV. A file without a status column (the original CSV
// picked instead of result.csv) is a usage error, exit 2, nothing sent, naming the file and the
// missing column: otherwise it would re-send every row (every schedule, for schedule push).
describe('--only-failed on a file without a status column', () => {
  it('is a usage error', async () => {
    await inTempDir(async (dir) => {
      const run = await examctl(
        [
          'user',
          'sync',
          '--file',
          corpus('booleans.csv'),
          '--only-failed',
          '--dry-run',
          '--json',
          '--store',
          join(dir, 's'),
        ],
        dir,
      );
      expect(run.code).toBe(2);
      expectOnlyErrorDocument(run.stdout, 2);
      expect(run.stderr).toContain('no status column in');
      expect(run.stderr).toContain('booleans.csv');
    });
  });

  it('is a usage error on JSON input too, and for a real run nothing is created', async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 's');
      const run = await examctl(
        ['user', 'sync', '--file', corpus('passwords.json'), '--only-failed', '--store', store],
        dir,
      );
      expect(run.code).toBe(2);
      expectCoded(run.stderr, 'E2000', 'passwords.json', 'CSV', '.xlsx');
      const { existsSync } = await import('node:fs');
      expect(existsSync(store)).toBe(false);
    });
  });

  it('keeps the original header in the new CSV report when nothing is left to send', async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 's');
      const first = join(dir, 'r.csv');
      const retry = join(dir, 'retry.csv');
      const { readFile, writeFile } = await import('node:fs/promises');
      const input = join(dir, 'u.csv');
      await writeFile(
        input,
        'ExternalId,FirstName,LastName,Email,Role,Hierarchies\nn-1,Ann,Lee,n1@students.example.test,Candidate,H-NORTH\n',
      );
      expect((await examctl(['user', 'sync', '--file', input, '--report', first, '--store', store], dir)).code).toBe(0);
      const run = await examctl(
        ['user', 'sync', '--file', first, '--only-failed', '--report', retry, '--store', store],
        dir,
      );
      expect(run.code).toBe(0);
      expect(await readFile(retry, 'utf8')).toBe(
        'ExternalId,FirstName,LastName,Email,Role,Hierarchies,status,error_codes,error_messages,action,note,run\n',
      );
    });
  });

  it('invigilators remove: an id list without a status column, or no --file, is a usage error and nothing is removed', async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 's');
      const { writeFile } = await import('node:fs/promises');
      const ids = join(dir, 'leavers.txt');
      await writeFile(ids, 'inv-1\ninv-2\n');
      const run = await examctl(
        ['invigilators', 'remove', 'S-FUTURE', '--file', ids, '--only-failed', '--json', '--store', store],
        dir,
      );
      expect(run.code).toBe(2);
      expectOnlyErrorDocument(run.stdout, 2);
      expectCoded(run.stderr, 'E2000', '--only-failed');
      expect(run.stderr).toContain('no status column in');
      const bare = await examctl(
        ['invigilators', 'remove', 'S-FUTURE', 'inv-1', '--only-failed', '--store', store],
        dir,
      );
      expect(bare.code).toBe(2);
      expectCoded(bare.stderr, 'E2000', '--only-failed', '--file');
      const { existsSync } = await import('node:fs');
      expect(existsSync(store)).toBe(false);
    });
  });

  it('invigilators remove: its own JSON report is refused as --only-failed input, as every command refuses JSON', async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 's');
      const report = join(dir, 'r.json');
      const first = await examctl(
        ['invigilators', 'remove', 'S-FUTURE', 'inv-1', 'inv-9', '--report', report, '--store', store],
        dir,
      );
      expect(first.code).toBe(1);
      const retry = await examctl(
        ['invigilators', 'remove', 'S-FUTURE', '--file', report, '--only-failed', '--json', '--store', store],
        dir,
      );
      expect(retry.code).toBe(2);
      expectOnlyErrorDocument(retry.stdout, 2);
      expectCoded(retry.stderr, 'E2000', '--only-failed', 'r.json', 'CSV', '.xlsx');
    });
  });

  it('invigilators remove: with its own CSV report, sends only the ids that were not ok', async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 's');
      const { readFile, writeFile } = await import('node:fs/promises');
      const ids = join(dir, 'ids.csv');
      await writeFile(ids, 'UserExtId\ninv-1\nnot-an-invigilator-x\n');
      const report = join(dir, 'r.csv');
      const first = await examctl(
        ['invigilators', 'remove', 'S-FUTURE', '--file', ids, '--report', report, '--store', store],
        dir,
      );
      expect([0, 1]).toContain(first.code);
      const text = await readFile(report, 'utf8');
      expect(text.split(/\r?\n/)[0]).toContain('status');
      const retry = await examctl(
        ['invigilators', 'remove', 'S-FUTURE', '--file', report, '--only-failed', '--json', '--store', store],
        dir,
      );
      const ids2 = (JSON.parse(retry.stdout) as { items: { id: string }[] }).items.map((item) => item.id);
      expect(ids2).not.toContain('inv-1');
      expect(ids2).toContain('not-an-invigilator-x');
    });
  });

  it("invigilators remove: a report of an export with its own Status column is read by the report's status, the last", async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 's');
      const { writeFile } = await import('node:fs/promises');
      const report = join(dir, 'r.csv');
      await writeFile(
        report,
        'UserExtId,Status,status,error_codes,error_messages\ninv-1,active,ok,,\nnot-an-invigilator-x,OK,failed,319,not an invigilator\n',
      );
      const retry = await examctl(
        ['invigilators', 'remove', 'S-FUTURE', '--file', report, '--only-failed', '--json', '--store', store],
        dir,
      );
      const ids = (JSON.parse(retry.stdout) as { items: { id: string }[] }).items.map((item) => item.id);
      expect(ids).toEqual(['not-an-invigilator-x']);
    });
  });
});
