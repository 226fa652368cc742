import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../..');
export const BIN = join(ROOT, 'bin/examctl');
export const DIST_MAIN = join(ROOT, 'dist/cli/main.js');

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  /** Everything written to stdout so far (grows while the process runs). */
  stdout(): string;
  done: Promise<Finished>;
}

/**
 * Spawns the built CLI the way a user runs it, in `cwd`, with a private HOME and config dir.
 * stdout is collected without a size cap (exports of 20k users are several MB).
 */
export function startExamctl(args: string[], cwd: string, env: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, EXAMCTL_CONFIG_DIR: join(cwd, '.config'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: string[] = [];
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => out.push(chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const done = new Promise<Finished>((resolveDone) =>
    child.on('close', (code, signal) => resolveDone({ code, signal, stdout: out.join(''), stderr: err })),
  );
  return { child, stdout: () => out.join(''), done };
}

export function examctl(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Finished> {
  return startExamctl(args, cwd, env).done;
}

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
    result[name] = createHash('sha256').update(await readFile(join(dir, name))).digest('hex');
  }
  return result;
}

export function requireBuild(): void {
  if (!existsSync(DIST_MAIN)) throw new Error(`${DIST_MAIN} is missing: run npx tsc -p tsconfig.build.json before these tests (npm test does)`);
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
