import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

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
