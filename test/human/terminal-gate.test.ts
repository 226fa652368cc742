import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IntegrationApi } from '../../src/api/integration-api.js';
import type { OpenDirectory } from '../../src/api/local-directory.js';
import type { CommandDeps } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

/**
 * Issue 22 (5): every text that reaches a terminal passes the one gate (terminalLine): the
 * "errors by code" block (the service's messages and local ones quoting input), dry-run plan
 * lines, --debug stack traces, and `review-session show -o csv` on a terminal. Each is fed ESC
 * (CSI), OSC 52 (writes the clipboard), a C1 control (CSI as one byte) and a bidi override.
 */

const HOSTILE = ['\x1b[2J', '\x1b]52;c;SGVsbG8=\x07', '\x9b31m', '\u202e'];
const RAW = /[\x1b\x07\x9b\u202e]/;

async function cli(dir: string, argv: string[], overrides: Partial<CommandDeps> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = testDeps(dir, overrides, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
  const code = await runCli(['--target', 'local', '--store', join(dir, 'store'), ...argv], io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

const HEAD = 'ExternalId,FirstName,LastName,Email,Role,Hierarchies';

describe('the terminal gate', () => {
  it('dry-run plan lines and the errors-by-code block of local messages quoting input', async () => {
    await withTempDir(async (dir) => {
      expect((await cli(dir, ['local', 'init'])).code).toBe(0);
      // Invalid rows (a bad Email) with hostile ids; valid ones whose hierarchy the store lacks.
      const rows = HOSTILE.flatMap((bad, i) => [`u-e${i}${bad},Ann,Lee,not-an-email,Candidate,`, `u-h${i},Ann,Lee,h${i}@example.test,Candidate,H-${bad}`]);
      await writeFile(join(dir, 'users.csv'), `${HEAD}\n${rows.join('\n')}\n`);
      const dry = await cli(dir, ['--dry-run', 'user', 'sync', '--file', 'users.csv']);
      expect(dry.stderr).toMatch(/plan: /);
      expect(dry.stderr).toMatch(/! u-e1\?\]52;c;SGVsbG8=\? \(invalid\)/);
      expect(dry.stderr).toMatch(/errors by code:/);
      expect(dry.stderr).not.toMatch(RAW);
      const real = await cli(dir, ['user', 'sync', '--file', 'users.csv']);
      expect(real.code).toBe(1);
      expect(real.stderr).toMatch(/errors by code:/);
      expect(real.stderr).not.toMatch(RAW);
    });
  });

  it("the errors-by-code block of the service's messages", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), `${HEAD}\n${['a', 'b', 'c'].map((id) => `u-${id},Ann,Lee,${id}@example.test,Candidate,`).join('\n')}\n`);
      const api = {
        upsertUser: async () => ({ status: 400, envelope: { Success: false, Errors: [{ Code: 302, Message: `Hierarchy not found: ${HOSTILE.join(' H-')}` }] } }),
        close: async () => undefined,
      } as unknown as IntegrationApi;
      const run = await cli(dir, ['user', 'sync', '--file', 'users.csv'], { openApi: async () => api });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/errors by code:\n +302 x 3 +Hierarchy not found: \?\[2J H-\?\]52;c;SGVsbG8=\? H-\?31m H-\?/);
      expect(run.stderr).not.toMatch(RAW);
    });
  });

  it('a --debug stack trace', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), `ExternalId,${HOSTILE.join('X,')}X\nu-1,a,b,c,d\n`);
      const run = await cli(dir, ['--debug', 'user', 'sync', '--file', 'users.csv']);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/\n\S*Error: .*\n\s+at /);
      expect(run.stderr).not.toMatch(RAW);
    });
  });

  it('review-session show -o csv: gated on a terminal, exact into a file or pipe', async () => {
    await withTempDir(async (dir) => {
      const plain = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '--json']);
      const session = JSON.parse(plain.stdout) as { Results: Record<string, unknown>[] };
      (session.Results[0] as Record<string, unknown>).CandidateExtId = `stu-${HOSTILE.join('')}`;
      const api = { getReviewSession: async () => ({ status: 200, envelope: { Success: true, Content: session } }), close: async () => undefined } as unknown as IntegrationApi;
      const onTerminal = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv'], { openApi: async () => api, stdoutIsTTY: true });
      expect(onTerminal.code).toBe(0);
      expect(onTerminal.stdout).toContain('stu-?[2J?]52;c;SGVsbG8=??31m?');
      expect(onTerminal.stdout).not.toMatch(RAW);
      const intoFile = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv'], { openApi: async () => api, stdoutIsTTY: false });
      expect(intoFile.stdout).toContain(`stu-${HOSTILE.join('')}`);
    });
  });

  it('schedule links -o csv: gated on a terminal, exact into a file or pipe', async () => {
    await withTempDir(async (dir) => {
      const links = {
        ScheduleExtId: 'S-1',
        Title: 'T',
        StartDateTime: '2026-12-14T09:00:00Z',
        EndDateTime: '2026-12-14T12:00:00Z',
        UseProctoringService: false,
        Candidates: [{ CandidateExtId: `stu-${HOSTILE.join('')}`, FirstName: 'Ann', LastName: 'Lee', Email: 'a@example.test', StartupLink: 'https://exam.example.test/s/1' }],
      };
      const directory = { scheduleLinks: () => links, close: async () => undefined } as unknown as OpenDirectory;
      const onTerminal = await cli(dir, ['schedule', 'links', 'S-1', '-o', 'csv'], { openDirectory: async () => directory, stdoutIsTTY: true });
      expect(onTerminal.code, onTerminal.stderr).toBe(0);
      expect(onTerminal.stdout).toContain('stu-?[2J?]52;c;SGVsbG8=??31m?');
      expect(onTerminal.stdout).not.toMatch(RAW);
      const intoFile = await cli(dir, ['schedule', 'links', 'S-1', '-o', 'csv'], { openDirectory: async () => directory, stdoutIsTTY: false });
      expect(intoFile.stdout).toContain(`stu-${HOSTILE.join('')}`);
    });
  });
});
