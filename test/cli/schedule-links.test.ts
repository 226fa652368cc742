import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { run } from '../../src/cli/commands/schedule-links.js';
import { LINK_COLUMNS } from '../../src/pipeline/schedule-links.js';
import { runCli } from '../../src/cli/run-cli.js';
import type { CommandDeps } from '../../src/context/command-deps.js';
import { openLocalTarget } from '../../src/engine/local-target.js';
import { targetOnce } from '../../src/context/target.js';
import { parse } from 'csv-parse/sync';
import { testDeps, withTempDir } from './helpers.js';
import { FakeTerminal, KEY } from '../human/fake-terminal.js';

/** A store from the demo world plus schedule S-MAIL: a proctored one whose names try to be formulas. */
async function storeWithSchedule(dir: string): Promise<string> {
  const store = join(dir, 'store');
  const io = testDeps(dir);
  expect(await runCli(['--store', store, 'local', 'init'], io.deps)).toBe(0);
  const engine = await openLocalTarget(store);
  const result = await engine!.createSchedule({
    Schedule: {
      ScheduleExtId: 'S-MAIL',
      AssessmentExtId: 'A-PHYS-2',
      StartDateTime: '2026-12-20T09:00:00Z',
      GroupExtId: 'H-MAIL',
      GroupName: 'Mail merge group',
      UseProctoringService: true,
    },
    Candidates: [
      {
        CandidateExtId: 'c-9001',
        FirstName: '=HYPERLINK("http://evil.test")',
        LastName: 'Smith, Jr',
        Email: 'x@students.example.test',
        Password: 'Secret-123!',
      },
      { CandidateExtId: 'c-9002', FirstName: 'Bo', LastName: '@Lee', Email: 'bo@students.example.test' },
    ],
  });
  await engine!.close();
  expect(result.envelope.Success).toBe(true);
  return store;
}

function linksRun(
  dir: string,
  options: Record<string, unknown>,
  overrides: Partial<CommandDeps> = {},
  env: Record<string, string> = {},
) {
  const io = testDeps(dir, overrides, env);
  const given = { store: join(dir, 'store'), output: 'table' as const, ...options };
  return { io, done: run(given, io.deps, targetOnce(given, io.deps)) };
}

describe('schedule links', () => {
  it('-o csv: one row per candidate with both links, formula cells neutralised, no password', async () => {
    await withTempDir(async (dir) => {
      await storeWithSchedule(dir);
      const { io, done } = linksRun(dir, { scheduleExtId: 'S-MAIL', output: 'csv' });
      expect(await done).toBe(0);
      expect(io.stdout.text.startsWith('\uFEFFCandidateExtId,')).toBe(true);
      const rows = parse(io.stdout.text, { bom: true }) as string[][];
      expect(rows[0]).toEqual([...LINK_COLUMNS]);
      expect(rows.slice(1).map((row) => row.slice(0, 4))).toEqual([
        ['c-9001', `'=HYPERLINK("http://evil.test")`, 'Smith, Jr', 'x@students.example.test'],
        ['c-9002', 'Bo', "'@Lee", 'bo@students.example.test'],
      ]);
      for (const row of rows.slice(1)) {
        expect(row[4]).toMatch(/^https:\/\/exam\.example\.test\/delivery\/external-login\?session=/);
        expect(row[5]).toMatch(/^https:\/\/proctor\.example\.test\/launch\?t=.*#\/exam\/S-MAIL$/);
      }
      expect(io.stdout.text).toContain('\r\n');
      expect(io.stdout.text).not.toContain('Secret-123!');
      expect(io.stderr.text).toContain('2 candidates of S-MAIL');
      expect(io.stderr.text).toContain(`local store ${join(dir, 'store')}`);
    });
  });

  it('--json and -o json: the target, the schedule and its candidates; LaunchUrl absent without proctoring', async () => {
    await withTempDir(async (dir) => {
      await storeWithSchedule(dir);
      const { io, done } = linksRun(dir, { scheduleExtId: 'S-LIVE', json: true });
      expect(await done).toBe(0);
      const doc = JSON.parse(io.stdout.text);
      expect(doc.target).toEqual({ kind: 'local', store: join(dir, 'store') });
      expect(doc.ScheduleExtId).toBe('S-LIVE');
      expect(doc.UseProctoringService).toBe(false);
      expect(doc.Candidates.map((c: { CandidateExtId: string }) => c.CandidateExtId)).toEqual(['c-1005', 'c-1006']);
      expect(
        doc.Candidates.every((c: Record<string, unknown>) => typeof c.StartupLink === 'string' && !('LaunchUrl' in c)),
      ).toBe(true);
      const again = linksRun(dir, { scheduleExtId: 'S-LIVE', output: 'json' });
      expect(await again.done).toBe(0);
      expect(JSON.parse(again.io.stdout.text)).toEqual(doc);
    });
  });

  it('-o table: a table when piped, one block per candidate on a narrow terminal, links never cut', async () => {
    await withTempDir(async (dir) => {
      await storeWithSchedule(dir);
      const piped = linksRun(dir, { scheduleExtId: 'S-MAIL' });
      expect(await piped.done).toBe(0);
      expect(piped.io.stdout.text).toContain('│ Candidate');
      expect(piped.io.stdout.text).toContain('LaunchUrl');
      const narrow = linksRun(
        dir,
        { scheduleExtId: 'S-MAIL' },
        { stdoutIsTTY: true, stdoutColumns: 50 },
        { NO_COLOR: '1' },
      );
      expect(await narrow.done).toBe(0);
      const text = narrow.io.stdout.text;
      expect(text).not.toContain('│');
      expect(text).toContain(
        'c-9002  Bo @Lee\n  Email        bo@students.example.test\n  StartupLink  https://exam.example.test/delivery/external-login?session=',
      );
      const links = JSON.parse(
        await (async () => {
          const json = linksRun(dir, { scheduleExtId: 'S-MAIL', json: true });
          await json.done;
          return json.io.stdout.text;
        })(),
      ).Candidates as { StartupLink: string; LaunchUrl: string }[];
      for (const link of links) {
        expect(text).toContain(link.StartupLink);
        expect(text).toContain(link.LaunchUrl);
      }
    });
  });

  it('an unknown schedule is exit 2 naming the store, with the id meant when only the case differs', async () => {
    await withTempDir(async (dir) => {
      await storeWithSchedule(dir);
      const { done } = linksRun(dir, { scheduleExtId: 's-mail' });
      await expect(done).rejects.toMatchObject({
        exitCode: 2,
        message: expect.stringMatching(/no schedule s-mail on local store .*did you mean S-MAIL\?/),
      });
    });
  });

  it('a remote target is exit 2: the API does not return links', async () => {
    await withTempDir(async (dir) => {
      const { done } = linksRun(dir, {
        scheduleExtId: 'S-LIVE',
        store: undefined,
        target: 'remote',
        baseUrl: 'https://exam.example.test',
      });
      await expect(done).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('does not return') });
    });
  });

  it('no store: exit 2, and no store is created', async () => {
    await withTempDir(async (dir) => {
      const { done } = linksRun(dir, { scheduleExtId: 'S-LIVE' });
      await expect(done).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('no local store at') });
      const { existsSync } = await import('node:fs');
      expect(existsSync(join(dir, 'store'))).toBe(false);
    });
  });

  it('without an id: a schedule picker on a terminal, a usage error naming the argument otherwise', async () => {
    await withTempDir(async (dir) => {
      await storeWithSchedule(dir);
      const terminal = new FakeTerminal();
      const { io, done } = linksRun(dir, { output: 'csv' }, { isTTY: true, promptIo: terminal.io });
      await terminal.play([{ expect: 'Schedule (type to search)', keys: `mail${KEY.enter}` }]);
      expect(await done).toBe(0);
      expect(io.stdout.text.split(/\r?\n/).filter((line) => line !== '')).toHaveLength(3);
      const off = linksRun(dir, {}, { isTTY: false });
      await expect(off.done).rejects.toMatchObject({
        exitCode: 2,
        message: expect.stringContaining('missing <ScheduleExtId>'),
      });
    });
  });
});
