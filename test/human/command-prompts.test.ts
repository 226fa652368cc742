import { describe, it, expect } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiResult, IntegrationApi } from '../../src/port/integration-api.js';
import type { CommandDeps } from '../../src/context/command-deps.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { FakeTerminal, KEY, type Step } from './fake-terminal.js';
import { lineWith } from '../support/facts.js';

/**
 * Prompt flows through the real commands (runCli -> command `run`), in-process, with a fake
 * terminal as the prompts' streams and isTTY true: what a person at a terminal goes through.
 */

interface Session {
  code: number;
  stdout: string;
  stderr: string;
  screen: string;
}

async function atTerminal(
  dir: string,
  argv: string[],
  steps: readonly Step[],
  options: { env?: Record<string, string>; deps?: Partial<CommandDeps> } = {},
): Promise<Session> {
  const terminal = new FakeTerminal();
  const io = testDeps(dir, { isTTY: true, promptIo: terminal.io, ...options.deps }, options.env);
  // A step that never shows fails the test at once instead of leaving the command waiting.
  const [code] = await Promise.all([runCli(argv, io.deps), terminal.play(steps)]);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text, screen: terminal.screen };
}

async function cli(dir: string, argv: string[], deps: Partial<CommandDeps> = {}, env: Record<string, string> = {}) {
  const io = testDeps(dir, deps, env);
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

interface ExportedWorld {
  Users: Array<{
    ExternalId: string;
    FirstName: string;
    LastName: string;
    Email?: string;
    UserName: string;
    Role: string;
  }>;
  Schedules: Array<{ ScheduleExtId: string; Invigilators: string[]; Candidates: Array<{ CandidateExtId: string }> }>;
  Collections: Array<{ ExternalId: string; Title: string }>;
}

async function exported(dir: string): Promise<ExportedWorld> {
  const result = await cli(dir, ['local', 'export']);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as ExportedWorld;
}

describe('user sync on a terminal without --file', () => {
  it('asks one user, offers the world roles as a list, re-asks a bad e-mail, and creates the user', async () => {
    await withTempDir(async (dir) => {
      const session = await atTerminal(
        dir,
        ['user', 'sync'],
        [
          { expect: 'External id', keys: `u-500${KEY.enter}` },
          { expect: 'u-500 is new', keys: '' },
          { expect: 'First name', keys: `Ada${KEY.enter}` },
          { expect: 'Last name', keys: `Moreno${KEY.enter}` },
          { expect: 'E-mail', keys: `ada(at)example.test${KEY.enter}` },
          { expect: 'Email is not a valid address', keys: `${KEY.clearLine}ada@example.test${KEY.enter}` },
          { expect: 'User name', keys: `ada.moreno${KEY.enter}` },
          // The roles that take exams come first (Candidate), then the world's order: Administrator,
          // Author, Invigilator. Enter alone picks Candidate, never an administrator role.
          { expect: 'Invigilator', keys: KEY.enter },
          { expect: 'Add a hierarchy membership?', keys: `y${KEY.enter}` },
          // The local store's hierarchies are a searchable picker: the exact id comes first.
          { expect: 'Hierarchy (type to search)', keys: 'H-NORTH' },
          { expect: 'H-NORTH  ', keys: KEY.enter },
          { expect: 'Permissions in H-NORTH', keys: `${KEY.down}${KEY.down}${KEY.space}${KEY.enter}` },
          { expect: 'Add another hierarchy membership?', keys: KEY.enter },
        ],
      );
      expect(session.code, session.stderr).toBe(0);
      expect(session.screen).toContain('(code 209)');
      for (const role of ['Administrator', 'Author', 'Candidate', 'Invigilator'])
        expect(session.screen).toContain(role);
      expect(lineWith(session.stderr, 'user sync', 'local store')).toMatch(/^user sync /);
      // Prompts draw on their own stream, never on stdout.
      expect(session.stdout).toBe('');
      const user = (await exported(dir)).Users.find((entry) => entry.ExternalId === 'u-500');
      expect(user).toMatchObject({
        FirstName: 'Ada',
        LastName: 'Moreno',
        Email: 'ada@example.test',
        UserName: 'ada.moreno',
        Role: 'Candidate',
      });
    });
  });

  it('an existing user: says so, offers its values (Enter keeps them) and its role, then updates', async () => {
    await withTempDir(async (dir) => {
      expect((await cli(dir, ['local', 'init'])).code).toBe(0);
      const before = (await exported(dir)).Users.find((entry) => entry.ExternalId === 'c-1001')!;
      const session = await atTerminal(
        dir,
        ['user', 'sync'],
        [
          { expect: 'External id', keys: `c-1001${KEY.enter}` },
          { expect: 'c-1001 exists', keys: '' },
          { expect: 'First name', keys: KEY.enter },
          { expect: 'Last name', keys: `${KEY.clearLine}Renamed${KEY.enter}` },
          { expect: 'E-mail', keys: KEY.enter },
          { expect: 'User name', keys: KEY.enter },
          { expect: 'Role', keys: KEY.enter },
          { expect: 'Add a hierarchy membership?', keys: KEY.enter },
        ],
      );
      expect(session.code, session.stderr).toBe(0);
      expect(session.screen).toContain(`${before.FirstName} ${before.LastName}, ${before.Role}`);
      const after = (await exported(dir)).Users.find((entry) => entry.ExternalId === 'c-1001')!;
      expect(after).toMatchObject({
        FirstName: before.FirstName,
        LastName: 'Renamed',
        UserName: before.UserName,
        Role: before.Role,
      });
    });
  });

  it('Ctrl-C at a prompt exits 130 with nothing sent and no store created', async () => {
    await withTempDir(async (dir) => {
      const session = await atTerminal(
        dir,
        ['user', 'sync'],
        [
          { expect: 'External id', keys: `u-501${KEY.enter}` },
          { expect: 'First name', keys: KEY.ctrlC },
        ],
      );
      expect(session.code).toBe(130);
      expectCoded(session.stderr, 'E1302');
      expect(existsSync(join(dir, '.examctl-store'))).toBe(false);
    });
  });

  it('prompts are off with --no-input, with CI=true and without a terminal: a usage error naming the flag and the one that turned them off', async () => {
    await withTempDir(async (dir) => {
      for (const [argv, deps, env, off] of [
        [['user', 'sync', '--no-input'], { isTTY: true }, {}, '--no-input'],
        [['user', 'sync'], { isTTY: true }, { CI: '1' }, 'CI=1'],
        [['user', 'sync'], { isTTY: false }, {}, 'no terminal'],
      ] as const) {
        const result = await cli(dir, [...argv], deps, env);
        expect(result.code).toBe(2);
        expectCoded(result.stderr, 'E2000', 'missing --file', `(prompts are off: ${off})`);
      }
      expect(existsSync(join(dir, '.examctl-store'))).toBe(false);
    });
  });
});

describe('collection add on a terminal without --title', () => {
  it('asks the title, checks it at once (too long is refused), and creates the collection', async () => {
    await withTempDir(async (dir) => {
      const session = await atTerminal(
        dir,
        ['collection', 'add', '--taxonomy', 'TX-BLOOM'],
        [
          { expect: 'Collection title', keys: `${'x'.repeat(120)}${KEY.enter}` },
          { expect: 'code', keys: `${KEY.clearLine}Physics 2027${KEY.enter}` },
        ],
      );
      expect(session.code, session.stderr).toBe(0);
      const titles = (await exported(dir)).Collections.map((entry) => entry.Title);
      expect(titles).toContain('Physics 2027');
      expect(titles).not.toContain('x'.repeat(120));
    });
  });

  it('without a terminal: a usage error naming --title', async () => {
    await withTempDir(async (dir) => {
      const result = await cli(dir, ['collection', 'add']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('missing --title');
    });
  });
});

describe('invigilators remove on a terminal without ids', () => {
  it("local target: a checklist of the schedule's invigilators with their names; the ticked ones are removed", async () => {
    await withTempDir(async (dir) => {
      // An existing store: the list comes from the engine (without one, from the demo world, as the user test shows).
      expect((await cli(dir, ['local', 'init'])).code).toBe(0);
      const session = await atTerminal(
        dir,
        ['invigilators', 'remove', 'S-FUTURE'],
        [{ expect: 'inv-3', keys: `${KEY.down}${KEY.space}${KEY.enter}` }],
      );
      expect(session.code, session.stderr).toBe(0);
      expect(session.screen).toMatch(/inv-1 {2}\S/);
      const schedule = (await exported(dir)).Schedules.find((entry) => entry.ScheduleExtId === 'S-FUTURE')!;
      expect(schedule.Invigilators).toEqual(['inv-1', 'inv-3']);
    });
  });

  it('an unknown schedule on the local target: a usage error, nothing asked', async () => {
    await withTempDir(async (dir) => {
      const result = await cli(dir, ['invigilators', 'remove', 'S-NOPE'], { isTTY: true });
      expect(result.code).toBe(2);
      expectCoded(result.stderr, 'E2000', 'S-NOPE', 'local store');
    });
  });

  it('a schedule without invigilators on the local target: a usage error, nothing asked', async () => {
    await withTempDir(async (dir) => {
      expect((await cli(dir, ['local', 'init'])).code).toBe(0);
      expect((await cli(dir, ['invigilators', 'remove', 'S-LIVE', 'inv-3'])).code).toBe(0);
      const result = await cli(dir, ['invigilators', 'remove', 'S-LIVE'], { isTTY: true });
      expect(result.code).toBe(2);
      expectCoded(result.stderr, 'E2000', 'S-LIVE', 'no invigilators', 'local store');
    });
  });

  it('remote target: the ids are typed, then the summary asks before sending (what, how many, where)', async () => {
    await withTempDir(async (dir) => {
      const sent: string[][] = [];
      const api = {
        async removeInvigilators(_schedule: string, ids: string[]): Promise<ApiResult<unknown>> {
          sent.push(ids);
          return {
            status: 200,
            envelope: { Success: true, Content: { SuccessfullyRemoved: ids, Errors: [] } },
          } as unknown as ApiResult<unknown>;
        },
        async close() {},
      } as unknown as IntegrationApi;
      // A token file others can read gives a warning: the target is resolved once, so it shows once.
      await writeFile(join(dir, 'token'), 'tok-secret\n', { mode: 0o644 });
      const session = await atTerminal(
        dir,
        ['invigilators', 'remove', 'S-FUTURE', '--token-file', 'token'],
        [
          { expect: 'Invigilator user external ids to remove from S-FUTURE', keys: `inv-1, inv-2${KEY.enter}` },
          { expect: 'Send now?', keys: `y${KEY.enter}` },
        ],
        { env: { EXAMCTL_BASE_URL: 'https://exam.example.test' }, deps: { openApi: async () => api } },
      );
      expect(session.code, session.stderr).toBe(0);
      expect(
        lineWith(session.screen, 'invigilators remove', 'remote https://exam.example.test', '2 to remove'),
      ).toBeTruthy();
      expect(sent).toEqual([['inv-1', 'inv-2']]);
      expect(session.screen + session.stderr).not.toContain('tok-secret');
      expect(session.stderr.match(/is readable by group or others/g)).toHaveLength(1);
    });
  });
});

describe('schedule push on a terminal with a candidates file and no schedule flags', () => {
  it('asks only the missing required fields, checking the start time at once', async () => {
    await withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'candidates.csv'),
        'CandidateExtId,FirstName,LastName,Email\nstu-9001,Ada,Moreno,ada@example.test\nstu-9002,Ben,Okafor,ben@example.test\n',
      );
      const session = await atTerminal(
        dir,
        ['schedule', 'push', '--file', 'candidates.csv', '--assessment', 'A-MATH-1', '--schedule-id', 'S-PROMPTED'],
        [
          { expect: 'Start', keys: `next monday${KEY.enter}` },
          // The same message --start gives: the prompt reads the start as --start does.
          {
            expect: 'StartDateTime "next monday" is not an ISO date-time',
            keys: `${KEY.clearLine}2026-12-14T09:00:00Z${KEY.enter}`,
          },
          { expect: 'Group (hierarchy) external id', keys: `H-PROMPT${KEY.enter}` },
          { expect: 'Group name', keys: `Prompted group${KEY.enter}` },
        ],
      );
      expect(session.code, session.stderr).toBe(0);
      expect(session.screen).not.toContain('Assessment external id');
      const schedule = (await exported(dir)).Schedules.find((entry) => entry.ScheduleExtId === 'S-PROMPTED')!;
      expect(schedule.Candidates.map((c) => c.CandidateExtId)).toEqual(['stu-9001', 'stu-9002']);
    });
  });
});

describe('schedule push: the Start prompt reads --date-format and --timezone as --start does', () => {
  it('takes 25.01.2027 14:00 with --date-format "DD.MM.YYYY HH:mm" --timezone Europe/Berlin, and sends it in UTC', async () => {
    await withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'candidates.csv'),
        'CandidateExtId,FirstName,LastName,Email\nstu-9001,Ada,Moreno,ada@example.test\n',
      );
      const session = await atTerminal(
        dir,
        [
          'schedule',
          'push',
          '--file',
          'candidates.csv',
          '--assessment',
          'A-MATH-1',
          '--schedule-id',
          'S-LOCAL',
          '--group',
          'H-LOCAL',
          '--group-name',
          'Local',
          '--date-format',
          'DD.MM.YYYY HH:mm',
          '--timezone',
          'Europe/Berlin',
        ],
        [{ expect: 'Start in Europe/Berlin', keys: `25.01.2027 14:00${KEY.enter}` }],
      );
      expect(session.code, session.stderr).toBe(0);
      expect(session.screen + session.stderr).not.toContain('--date-format');
      const schedule = (await exported(dir)).Schedules.find((entry) => entry.ScheduleExtId === 'S-LOCAL')!;
      expect((schedule as unknown as { StartDateTime: string }).StartDateTime).toBe('2027-01-25T13:00:00.000Z');
    });
  });
});

describe('after a failed send from prompts: correct the answers instead of typing them all again', () => {
  it('schedule push: the refused answer is ticked, asked again with the earlier one as default, and sent again', async () => {
    await withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'candidates.csv'),
        'CandidateExtId,FirstName,LastName,Email\nstu-9001,Ada,Moreno,ada@example.test\n',
      );
      const sent: Array<Record<string, unknown>> = [];
      const api = {
        async createSchedule(request: { Schedule: Record<string, unknown> }): Promise<ApiResult<unknown>> {
          sent.push({ ...request.Schedule });
          return request.Schedule.AssessmentExtId === 'A-NOPE'
            ? ({
                status: 400,
                envelope: {
                  Success: false,
                  Content: null,
                  Errors: [{ Field: 'Schedule.AssessmentExtId', Code: null, Message: 'Assessment not found: A-NOPE' }],
                },
              } as ApiResult<unknown>)
            : ({ status: 200, envelope: { Success: true, Content: 'S-FIXED', Errors: null } } as ApiResult<unknown>);
        },
        async close() {},
      } as unknown as IntegrationApi;
      const session = await atTerminal(
        dir,
        [
          'schedule',
          'push',
          '--file',
          'candidates.csv',
          '--schedule-id',
          'S-FIXED',
          '--start',
          '2026-12-14T09:00:00Z',
          '--group',
          'H-NORTH',
          '--group-name',
          'North',
        ],
        [
          { expect: 'Assessment external id', keys: `A-NOPE${KEY.enter}` },
          { expect: 'Correct the answers and send again?', keys: KEY.enter },
          { expect: 'Answers to change', keys: KEY.enter },
          { expect: 'Assessment external id', keys: `${KEY.clearLine}A-MATH-1${KEY.enter}` },
        ],
        { deps: { openApi: async () => api, openDirectory: async () => null } },
      );
      expect(session.code, session.stderr).toBe(0);
      expect(session.screen).toContain('Assessment not found: A-NOPE');
      expect(sent.map((schedule) => schedule.AssessmentExtId)).toEqual(['A-NOPE', 'A-MATH-1']);
      expect(sent[1]).toMatchObject({ GroupExtId: 'H-NORTH', GroupName: 'North' });
    });
  });

  it('user sync: only the ticked answer (Role) is asked again; the others are sent as they were', async () => {
    await withTempDir(async (dir) => {
      const sent: Array<Record<string, unknown>> = [];
      const api = {
        async upsertUser(request: Record<string, unknown>): Promise<ApiResult<unknown>> {
          sent.push({ ...request });
          return request.Role === 'Wizard'
            ? ({
                status: 400,
                envelope: {
                  Success: false,
                  Content: null,
                  Errors: [{ Field: 'Role', Code: 241, Message: 'Role not found: Wizard' }],
                },
              } as ApiResult<unknown>)
            : ({
                status: 200,
                envelope: { Success: true, Content: { User: request, GroupErrors: [] }, Errors: null },
              } as ApiResult<unknown>);
        },
        async close() {},
      } as unknown as IntegrationApi;
      const session = await atTerminal(
        dir,
        ['user', 'sync'],
        [
          { expect: 'External id', keys: `u-901${KEY.enter}` },
          { expect: 'First name', keys: `Kim${KEY.enter}` },
          { expect: 'Last name', keys: `Ho${KEY.enter}` },
          { expect: 'E-mail', keys: KEY.enter },
          { expect: 'User name', keys: KEY.enter },
          { expect: 'Role (title of an existing role)', keys: `Wizard${KEY.enter}` },
          { expect: 'Add a hierarchy membership?', keys: KEY.enter },
          { expect: 'Correct the answers and send again?', keys: KEY.enter },
          { expect: 'Answers to change', keys: KEY.enter },
          // Straight to Role, asked afresh: no External id, name or e-mail question again.
          { expect: 'Role (title of an existing role)', keys: `Candidate${KEY.enter}` },
        ],
        { deps: { openApi: async () => api, openDirectory: async () => null } },
      );
      expect(session.code, session.stderr).toBe(0);
      expect(sent.map((user) => user.Role)).toEqual(['Wizard', 'Candidate']);
      expect(sent[1]).toMatchObject({ ExternalId: 'u-901', FirstName: 'Kim', LastName: 'Ho' });
      const afterCorrection = session.screen.slice(session.screen.lastIndexOf('Answers to change'));
      expect(afterCorrection).not.toContain('External id');
      expect(afterCorrection).not.toContain('First name');
    });
  });

  it('schedule push on the local store: the assessment is a picker of the store, an unknown id finds nothing', async () => {
    await withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'candidates.csv'),
        'CandidateExtId,FirstName,LastName,Email\nstu-9001,Ada,Moreno,ada@example.test\n',
      );
      const session = await atTerminal(
        dir,
        [
          'schedule',
          'push',
          '--file',
          'candidates.csv',
          '--schedule-id',
          'S-PICKED',
          '--start',
          '2026-12-14T09:00:00Z',
          '--group',
          'H-NORTH',
          '--group-name',
          'North',
        ],
        [
          { expect: 'Assessment external id (type to search)', keys: 'A-NOPE' },
          { expect: 'No results', keys: `${'\u007f'.repeat(6)}math` },
          { expect: 'A-MATH-1', keys: KEY.enter },
        ],
      );
      expect(session.code, session.stderr).toBe(0);
      expect((await exported(dir)).Schedules.some((entry) => entry.ScheduleExtId === 'S-PICKED')).toBe(true);
    });
  });
});

describe('review-session show at a terminal', () => {
  const ESC = '\u001b[';
  it('colour and width follow stdout, not stdin: a table piped elsewhere is plain, a terminal gets both', async () => {
    await withTempDir(async (dir) => {
      // stdin a terminal, stdout a pipe (`show X | less`): no colour, no fitting.
      const piped = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT'], {
        isTTY: true,
        stdoutIsTTY: false,
        stdoutColumns: 60,
      });
      expect(piped.code).toBe(0);
      expect(piped.stdout).not.toContain(ESC);
      expect(piped.stdout.split('\n').some((line) => line.length > 60)).toBe(true);
      // stdout a 60-column terminal, stdin not (`echo | examctl ...`): colour, and every line fits.
      const shown = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT'], {
        isTTY: false,
        stdoutIsTTY: true,
        stdoutColumns: 60,
      });
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain(ESC);
      const plain = shown.stdout.replace(/\u001b\[[0-9;]*m/g, '');
      for (const line of plain.split('\n')) expect(line.length, line).toBeLessThanOrEqual(60);
      expect(plain).toContain('c-1006');
      // NO_COLOR wins over a terminal.
      const noColour = await cli(
        dir,
        ['review-session', 'show', 'RS-MATH1-OCT'],
        { stdoutIsTTY: true },
        { NO_COLOR: '1' },
      );
      expect(noColour.stdout).not.toContain(ESC);
    });
  });
});
