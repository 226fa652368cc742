import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import type { IntegrationApi } from '../../src/port/integration-api.js';
import type { OpenDirectory } from '../../src/port/local-directory.js';
import type { CommandDeps } from '../../src/context/command-deps.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { onTarget } from '../support/target-flags.js';
import { openSpools } from '../support/open-files.js';
import { lineWith } from '../support/facts.js';

/**
 * Issue 22 (5): every text that reaches a terminal passes the one gate (terminalLine): the
 * "errors by code" block (the service's messages and local ones quoting input), dry-run plan
 * lines, --debug stack traces, and `review-session show -o csv` on a terminal. Each is fed ESC
 * (CSI), OSC 52 (writes the clipboard), a C1 control (CSI as one byte) and a bidi override.
 */

const HOSTILE = ['\x1b[2J', '\x1b]52;c;SGVsbG8=\x07', '\x9b31m', '\u202e'];
const RAW = /[\x1b\x07\x9b\u202e]/;

async function cli(
  dir: string,
  argv: string[],
  overrides: Partial<CommandDeps> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = testDeps(dir, overrides, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
  // A test that names its own store gives it instead of the default one (a flag is taken once).
  const store = argv.includes('--store') ? [] : ['--store', join(dir, 'store')];
  const code = await runCli(onTarget(['--target', 'local', ...store], argv), io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

const HEAD = 'ExternalId,FirstName,LastName,Email,Role,Hierarchies';

describe('the terminal gate', () => {
  it('dry-run plan lines and the errors-by-code block of local messages quoting input', async () => {
    await withTempDir(async (dir) => {
      expect((await cli(dir, ['local', 'init'])).code).toBe(0);
      // Invalid rows (a bad Email) with hostile ids; valid ones whose hierarchy the store lacks.
      const rows = HOSTILE.flatMap((bad, i) => [
        `u-e${i}${bad},Ann,Lee,not-an-email,Candidate,`,
        `u-h${i},Ann,Lee,h${i}@example.test,Candidate,H-${bad}`,
      ]);
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
      await writeFile(
        join(dir, 'users.csv'),
        `${HEAD}\n${['a', 'b', 'c'].map((id) => `u-${id},Ann,Lee,${id}@example.test,Candidate,`).join('\n')}\n`,
      );
      const api = {
        upsertUser: async () => ({
          status: 400,
          envelope: { Success: false, Errors: [{ Code: 302, Message: `Hierarchy not found: ${HOSTILE.join(' H-')}` }] },
        }),
        close: async () => undefined,
      } as unknown as IntegrationApi;
      const run = await cli(dir, ['user', 'sync', '--file', 'users.csv'], { openApi: async () => api });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /errors by code:\n +302 x 3 +Hierarchy not found: \?\[2J H-\?\]52;c;SGVsbG8=\? H-\?31m H-\?/,
      );
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
      const api = {
        getReviewSession: async () => ({ status: 200, envelope: { Success: true, Content: session } }),
        close: async () => undefined,
      } as unknown as IntegrationApi;
      const onTerminal = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv'], {
        openApi: async () => api,
        stdoutIsTTY: true,
      });
      expect(onTerminal.code).toBe(0);
      expect(onTerminal.stdout).toContain('stu-?[2J?]52;c;SGVsbG8=??31m?');
      expect(onTerminal.stdout).not.toMatch(RAW);
      const intoFile = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv'], {
        openApi: async () => api,
        stdoutIsTTY: false,
      });
      expect(intoFile.stdout).toContain(`stu-${HOSTILE.join('')}`);
    });
  });

  it('JSON on a terminal (-o json, -o ndjson, --json, the error document): C1, bidi and U+2028 as escapes, the same values; into a pipe unchanged', async () => {
    await withTempDir(async (dir) => {
      const session = JSON.parse((await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '--json'])).stdout) as {
        Results: Record<string, unknown>[];
      };
      (session.Results[0] as Record<string, unknown>).CandidateExtId = 'stu-\x9b2J\x9d0;x\x9c\x85\u202e\u2066\u2028';
      const api = {
        getReviewSession: async () => ({ status: 200, envelope: { Success: true, Content: session } }),
        close: async () => undefined,
      } as unknown as IntegrationApi;
      const UNESCAPED = /[\x80-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
      for (const output of [['-o', 'json'], ['-o', 'ndjson'], ['--json']]) {
        const parsed = (text: string): unknown =>
          output[1] === 'ndjson'
            ? text
                .trim()
                .split('\n')
                .map((line) => JSON.parse(line))
            : JSON.parse(text);
        const onTerminal = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', ...output], {
          openApi: async () => api,
          stdoutIsTTY: true,
        });
        const intoPipe = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', ...output], {
          openApi: async () => api,
          stdoutIsTTY: false,
        });
        expect(onTerminal.stdout).toContain('stu-\\u009b2J\\u009d0;x\\u009c\\u0085\\u202e\\u2066\\u2028');
        expect(onTerminal.stdout).not.toMatch(UNESCAPED);
        expect(parsed(onTerminal.stdout)).toEqual(parsed(intoPipe.stdout));
        expect(intoPipe.stdout).toContain('stu-\x9b2J\x9d0;x\x9c\x85\u202e\u2066\u2028');
      }
      const refused = await cli(dir, ['--json', '--x\x9b\u202e', 'runs', 'list'], { stdoutIsTTY: true });
      expect(refused.code).toBe(2);
      expect(refused.stdout).toContain('--x\\u009b\\u202e');
    });
  });

  it.skipIf(process.platform !== 'linux')(
    'review-session show -o xlsx of many sessions on a terminal: refused, the sessions held aside past 8 MB let go',
    async () => {
      await withTempDir(async (dir) => {
        const session = JSON.parse((await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '--json'])).stdout) as {
          Results: unknown[];
        };
        session.Results = Array.from({ length: 3000 }, () => session.Results[0]);
        const api = {
          getReviewSession: async () => ({ status: 200, envelope: { Success: true, Content: session } }),
          close: async () => undefined,
        } as unknown as IntegrationApi;
        const ids = Array.from({ length: 10 }, (_, i) => `RS-${i}`);
        // Past what a spool keeps in memory (text-sink.ts): the sessions wait in its temp file.
        expect(JSON.stringify(session).length * ids.length).toBeGreaterThan(8 * 1024 * 1024);
        const before = await openSpools();
        const onTerminal = await cli(dir, ['review-session', 'show', ...ids, '-o', 'xlsx'], {
          openApi: async () => api,
          stdoutIsTTY: true,
        });
        expect(onTerminal.code).toBe(2);
        expectCoded(onTerminal.stderr, 'E2000', '.xlsx', 'terminal', '--out <file>');
        expect(await openSpools()).toBe(before);
      });
    },
  );

  it('schedule links -o csv: gated on a terminal, exact into a file or pipe', async () => {
    await withTempDir(async (dir) => {
      const links = {
        ScheduleExtId: 'S-1',
        Title: 'T',
        StartDateTime: '2026-12-14T09:00:00Z',
        EndDateTime: '2026-12-14T12:00:00Z',
        UseProctoringService: false,
        Candidates: [
          {
            CandidateExtId: `stu-${HOSTILE.join('')}`,
            FirstName: 'Ann',
            LastName: 'Lee',
            Email: 'a@example.test',
            StartupLink: 'https://exam.example.test/s/1',
          },
        ],
      };
      const directory = { scheduleLinks: () => links, close: async () => undefined } as unknown as OpenDirectory;
      const onTerminal = await cli(dir, ['schedule', 'links', 'S-1', '-o', 'csv'], {
        openDirectory: async () => directory,
        stdoutIsTTY: true,
      });
      expect(onTerminal.code, onTerminal.stderr).toBe(0);
      expect(onTerminal.stdout).toContain('stu-?[2J?]52;c;SGVsbG8=??31m?');
      expect(onTerminal.stdout).not.toMatch(RAW);
      const intoFile = await cli(dir, ['schedule', 'links', 'S-1', '-o', 'csv'], {
        openDirectory: async () => directory,
        stdoutIsTTY: false,
      });
      expect(intoFile.stdout).toContain(`stu-${HOSTILE.join('')}`);
    });
  });
  it("a colour terminal: examctl's own colours reach it as escapes, values from the input are still gated", async () => {
    await withTempDir(async (dir) => {
      expect((await cli(dir, ['local', 'init'])).code).toBe(0);
      const rows = [
        ...HOSTILE.map((bad, i) => `u-e${i}${bad},Ann,Lee,not-an-email,Candidate,`),
        'u-ok,Ann,Lee,ok@example.test,Candidate,',
      ];
      await writeFile(join(dir, 'users.csv'), `${HEAD}\n${rows.join('\n')}\n`);
      const run = await cli(dir, ['--no-input', 'user', 'sync', '--file', 'users.csv'], {
        isTTY: true,
        env: { ...testDeps(dir).deps.env, FORCE_COLOR: '1', LANG: 'en_GB.UTF-8' },
      });
      expect(run.code, run.stderr).toBe(1);
      // The counts table: header and counts painted by examctl, not turned into `?[36m` debris.
      expect(run.stderr).toContain('\x1b[36mtotal\x1b[39m');
      expect(run.stderr).toContain('\x1b[32m1\x1b[39m');
      expect(run.stderr).not.toMatch(/\?\[(36|32|31|39)m/);
      // The hostile ids in the error lines are still made inert.
      expect(run.stderr).toContain('u-e0?[2J');
      expect(run.stderr).toContain('u-e1?]52;c;SGVsbG8=?');
      expect(run.stderr).not.toMatch(/\x1b\[2J|\x1b\]52|[\x07\x9b\u202e]/);
    });
  });

  it('schedule links on a colour terminal: the table keeps its colours, a hostile title or id is gated', async () => {
    await withTempDir(async (dir) => {
      const links = {
        ScheduleExtId: `S-1${HOSTILE[0]}`,
        Title: `T${HOSTILE[1]}`,
        StartDateTime: '2026-12-14T09:00:00Z',
        EndDateTime: '2026-12-14T12:00:00Z',
        UseProctoringService: false,
        Candidates: [
          {
            CandidateExtId: `stu-${HOSTILE.join('')}`,
            FirstName: 'Ann',
            LastName: 'Lee',
            Email: 'a@example.test',
            StartupLink: 'https://exam.example.test/s/1',
          },
        ],
      };
      const directory = { scheduleLinks: () => links, close: async () => undefined } as unknown as OpenDirectory;
      const run = await cli(dir, ['schedule', 'links', 'S-1'], {
        openDirectory: async () => directory,
        stdoutIsTTY: true,
        env: { ...testDeps(dir).deps.env, FORCE_COLOR: '1' },
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('\x1b[36mCandidate\x1b[39m');
      expect(run.stdout).toContain('stu-?[2J?]52;c;SGVsbG8=??31m?');
      expect(run.stdout).not.toMatch(/\?\[(36|39)m|\x1b\[2J|[\x07\x9b\u202e]/);
      expect(run.stderr).toContain('of S-1?[2J (T?]52;c;SGVsbG8=?)');
      expect(run.stderr).not.toMatch(RAW);
    });
  });
  it('schedule push: the id a hostile answer generated is gated in the note and the --upsert hint', async () => {
    await withTempDir(async (dir) => {
      await writeFile(
        join(dir, 's.csv'),
        'AssessmentExtId,Title,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email\nA-1,T,2999-12-14T09:00:00Z,2999-12-14T12:00:00Z,H-N,N,stu-1,Ann,Lee,a@example.test\n',
      );
      const api = {
        createSchedule: async () => ({ status: 200, envelope: { Success: true, Content: `S-${HOSTILE.join('')}` } }),
        close: async () => undefined,
      } as unknown as IntegrationApi;
      const run = await cli(dir, ['--yes', 'schedule', 'push', '--file', 's.csv'], { openApi: async () => api });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain('generated ScheduleExtId: S-?[2J?]52;c;SGVsbG8=??31m?');
      expect(run.stderr).toContain('--schedule-id S-?[2J');
      expect(run.stderr).not.toMatch(RAW);
    });
  });
  it('schedule push --dry-run: a hostile ScheduleExtId in the "StartDateTime already past" warning is gated', async () => {
    await withTempDir(async (dir) => {
      await writeFile(
        join(dir, 's.csv'),
        `ScheduleExtId,AssessmentExtId,Title,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email\nS-1${HOSTILE.join('')},A-1,T,2001-12-14T09:00:00Z,2001-12-14T12:00:00Z,H-N,N,stu-1,Ann,Lee,a@example.test\n`,
      );
      const run = await cli(dir, ['--dry-run', 'schedule', 'push', '--file', 's.csv']);
      expect(lineWith(run.stderr, 'S-1?[2J?]52;c;SGVsbG8=??31m?')).toMatch(/^warning: StartDateTime /);
      expect(run.stderr).not.toMatch(RAW);
    });
  });
  it('a flag commander does not know and a config directory from the environment are gated', async () => {
    await withTempDir(async (dir) => {
      const unknown = await cli(dir, [`--x${HOSTILE.join('')}`, 'runs', 'list']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("unknown option '--x?[2J");
      const env = { ...testDeps(dir).deps.env, EXAMCTL_CONFIG_DIR: join(dir, `c${HOSTILE.join('')}`) };
      const list = await cli(dir, ['config', 'list'], { env });
      expect(list.stderr).toContain('c?[2J?]52;c;SGVsbG8=??31m?');
      expect(`${unknown.stderr}${list.stderr}`).not.toMatch(RAW);
    });
  });
  it("doctor's check lines (a path, a service message) are gated", async () => {
    await withTempDir(async (dir) => {
      const run = await cli(dir, ['--store', join(dir, `s${HOSTILE.join('')}`), 'doctor']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('s?[2J?]52;c;SGVsbG8=??31m?');
      expect(run.stdout).not.toMatch(RAW);
    });
  });
});
