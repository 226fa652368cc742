import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

export { BIN, DIST_MAIN, ROOT, examctl, startExamctl, type Finished, type Running } from '../support/cli.js';

/** Writes a users CSV of the given rows (ExternalId, names, e-mail, UserName, Role Candidate). */
export async function writeUsersCsv(file: string, ids: readonly string[]): Promise<void> {
  const lines = ['ExternalId,FirstName,LastName,Email,UserName,Role'];
  for (const id of ids) lines.push(`${id},First ${id},Last ${id},${id}@example.test,name-${id},Candidate`);
  await writeFile(file, `${lines.join('\n')}\n`);
}

export function range(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(5, '0')}`);
}

/** Every file of a directory with the sha256 of its bytes, to prove that nothing was written. */
export async function fingerprint(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) {
    result[name] = createHash('sha256')
      .update(await readFile(join(dir, name)))
      .digest('hex');
  }
  return result;
}

export interface ReportItem {
  id: string;
  status: string;
  action?: string;
  note?: string;
}

/** The items of a `--json` run report; tolerates a report cut off by a kill (keeps whole item lines only). */
export function reportItems(stdout: string): ReportItem[] {
  const items: ReportItem[] = [];
  for (const line of stdout.split('\n')) {
    const text = line.trim().replace(/,$/, '');
    if (!text.startsWith('{"source"')) continue;
    try {
      items.push(JSON.parse(text) as ReportItem);
    } catch {
      // The last line of a killed run can be cut in the middle.
    }
  }
  return items;
}

/** A resume's `--json` report that finished the run: `total` items, every one ok, none with an error ("already exists"). */
export function expectAllOk(finished: { code: number | null; stdout: string; stderr: string }, total: number): void {
  expect(finished.code, finished.stderr).toBe(0);
  const report = JSON.parse(finished.stdout) as {
    summary: { total: number; ok: number; failed: number };
    items: { errors: unknown[] }[];
  };
  expect(report.summary).toMatchObject({ total, ok: total, failed: 0 });
  expect(report.items.filter((item) => item.errors.length > 0)).toEqual([]);
}

/** `sittings.csv` in `dir`: `count` schedules S-R-<n>, one new candidate each. */
export function writeSittings(dir: string, count: number): void {
  const lines = [
    'ScheduleExtId,AssessmentExtId,Title,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email',
  ];
  for (let s = 0; s < count; s++)
    lines.push(
      `S-R-${s},A-MATH-1,Sitting ${s},2026-12-14T09:00:00Z,2026-12-14T12:00:00Z,H-R-${s},Group ${s},stu-r${s},Ann,Lee,ann${s}@students.example.test`,
    );
  writeFileSync(join(dir, 'sittings.csv'), `${lines.join('\n')}\n`);
}
