/**
 * Two findings of the trial (issue 59), through the real CLI in-process: `Y` and `N` are yes and
 * no in every yes/no field (UK SIS exports); re-running `invigilators remove` without
 * --missing-ok fails the id ("not an invigilator of S"), it is not `partial`.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

async function cli(dir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = testDeps(dir);
  const code = await runCli(['--target', 'local', '--store', join(dir, 'store'), ...args], io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

interface Item {
  id: string;
  status: string;
  errors: { field: string; code: number | null; message: string }[];
  note?: string;
}

describe('Y and N in a yes/no field', () => {
  it('user sync reads Y as yes and n as no (any case): SpecialNeeds Y allows a percentage, n refuses it (250)', () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'sis.csv'),
        'ExternalId,FirstName,LastName,Email,UserName,Role,SpecialNeeds,ReasonableAdjustmentPercentage,DisableLogin\n' +
          's-1,Ann,Lee,ann@example.test,s-1,Candidate,Y,25,N\n' +
          's-2,Bo,Li,bo@example.test,s-2,Candidate,n,25,y\n',
      );
      const run = await cli(dir, ['user', 'sync', '--file', 'sis.csv', '--dry-run', '--json']);
      expect(run.code).toBe(1);
      const items = (JSON.parse(run.stdout) as { items: Item[] }).items;
      expect(items.map((item) => [item.id, item.status, item.errors.map((e) => e.code)])).toEqual([
        ['s-1', 'ok', []],
        ['s-2', 'failed', [250]],
      ]);
    }));

  it('a spelling that is none of them names the accepted ones, Y/N among them', () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'u.csv'),
        'ExternalId,FirstName,LastName,Email,UserName,Role,SpecialNeeds\ns-1,Ann,Lee,ann@example.test,s-1,Candidate,ja\n',
      );
      const run = await cli(dir, ['user', 'sync', '--file', 'u.csv', '--dry-run', '--json']);
      const [item] = (JSON.parse(run.stdout) as { items: Item[] }).items;
      expect(item?.errors[0]?.message).toBe('SpecialNeeds must be true/false, yes/no, Y/N or 1/0 (any case), not "ja"');
    }));
});

describe('invigilators remove run again', () => {
  it('without --missing-ok the id already removed is failed, "not an invigilator of S-FUTURE", exit 1; with it ok, exit 0', () =>
    withTempDir(async (dir) => {
      const first = await cli(dir, ['invigilators', 'remove', 'S-FUTURE', 'inv-1', '--json']);
      expect(first.code, first.stderr).toBe(0);
      const again = await cli(dir, ['invigilators', 'remove', 'S-FUTURE', 'inv-1', '--json']);
      expect(again.code).toBe(1);
      const doc = JSON.parse(again.stdout) as { items: Item[]; summary: Record<string, number> };
      expect(doc.items[0]).toMatchObject({
        id: 'inv-1',
        status: 'failed',
        errors: [expect.objectContaining({ code: 319 })],
        note: 'not an invigilator of S-FUTURE: nothing to remove (with --missing-ok that is ok)',
      });
      expect(doc.summary).toMatchObject({ ok: 0, partial: 0, failed: 1 });
      const missingOk = await cli(dir, ['invigilators', 'remove', 'S-FUTURE', 'inv-1', '--missing-ok', '--json']);
      expect(missingOk.code).toBe(0);
      expect((JSON.parse(missingOk.stdout) as { items: Item[] }).items[0]).toMatchObject({
        status: 'ok',
        action: 'unchanged',
      });
    }));
});
