import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';

export const ROOT = resolve(__dirname, '../..');
export const BIN = join(ROOT, 'bin/examctl');
export const CORPUS = join(ROOT, 'fixtures/corpus');
export const corpus = (name: string): string => join(CORPUS, name);

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The run report as the contract shows it (only the parts these tests read). */
export interface Report {
  command: string;
  target: { kind: string; store?: string };
  dryRun: boolean;
  summary: { total: number; ok: number; partial: number; failed: number; skipped: number };
  items: {
    source: { file: string; line: number; index?: number };
    id: string | null;
    status: 'ok' | 'partial' | 'failed' | 'skipped';
    errors: { line?: number; field: string | null; code: number | null; message: string }[];
    action?: string;
  }[];
}

/** Builds dist/ once when missing (`npm test` builds before vitest; a lone run may not have). */
export function ensureBuilt(): void {
  if (!existsSync(join(ROOT, 'dist/cli/main.js'))) {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
  }
}

/**
 * Runs the built CLI as a user would: its own cwd, HOME and config dir, the engine clock pinned,
 * no TTY (so no prompts, no spinners), CI unset so the human summary is the normal one.
 */
export function examctl(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        cwd,
        maxBuffer: 64 * 1024 * 1024,
        env: { PATH: process.env.PATH ?? '', HOME: cwd, EXAMCTL_CONFIG_DIR: join(cwd, '.config'), EXAMCTL_NOW: '2026-11-21T10:00:00Z', ...env },
      },
      (error, stdout, stderr) => done({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

export async function inTempDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'examctl-corpus-'));
  try {
    return await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Stack frames never reach a user without --debug. */
export function expectNoStack(run: Run): void {
  expect(run.stderr).not.toMatch(/^\s+at .+\(.*:\d+:\d+\)$/m);
  expect(run.stderr).not.toMatch(/internal error/);
}

/** With --json: stdout is exactly one JSON document (and parses). */
export function parseReport(run: Run): Report {
  expectNoStack(run);
  const text = run.stdout.trim();
  expect(text.startsWith('{') && text.endsWith('}')).toBe(true);
  return JSON.parse(text) as Report;
}

/** A structural refusal: exit 2, nothing on stdout, one `examctl: file:line: reason` line. */
export function expectRefused(run: Run, file: string, line: number, reason: RegExp): void {
  expectNoStack(run);
  expect(run.code).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr).toContain(`${file}:${line}: `);
  expect(run.stderr).toMatch(reason);
}

/** `[line, id, status, [field, code]...]` per item that is not ok: compact to compare in tables. */
export function problems(report: Report): [number, string | null, string, ...[string | null, number | null][]][] {
  return report.items
    .filter((item) => item.status !== 'ok')
    .map((item) => [item.source.line, item.id, item.status, ...item.errors.map((e) => [e.field, e.code] as [string | null, number | null])]);
}

/** Minimal RFC 4180 CSV parser (for reading reports back; test-only, whole text in memory). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}
