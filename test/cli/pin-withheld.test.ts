import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { IntegrationApi } from '../../src/port/integration-api.js';
import type { CommandDeps } from '../../src/context/command-deps.js';
import { runCli } from '../../src/cli/run-cli.js';
import { ZipEntries } from '../../src/input/zip-entries.js';
import { checkSpreadsheetValues } from '../../src/domain/spreadsheet-warnings.js';
import { testDeps, withTempDir } from './helpers.js';
import { onTarget } from '../support/target-flags.js';
import { lineWith } from '../support/facts.js';

/**
 * docs/cli-contract.md, "Run report": schedule PINs never appear in output or reports. A report's PIN
 * cell says `withheld`; fed back, it takes --pin or the run is refused before anything is sent.
 */

async function cli(dir: string, argv: string[], overrides: Partial<CommandDeps> = {}) {
  const io = testDeps(dir, overrides, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
  const code = await runCli(onTarget(['--target', 'local', '--store', join(dir, 'store')], argv), io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

const HEAD =
  'ScheduleExtId,AssessmentExtId,StartDateTime,GroupExtId,GroupName,Pin,CandidateExtId,FirstName,LastName,Email';
/** S-OK is sent; S-BAD fails on a bad e-mail (line 4), so a report of it has a row to retry. */
const SITTINGS = [
  HEAD,
  'S-OK,A-MATH-1,2026-12-01T09:00:00Z,G-1,Group one,7391,c-1,Ann,Lee,a@example.test',
  'S-BAD,A-MATH-1,2026-12-01T09:00:00Z,G-1,Group one,7391,c-2,Ben,Ray,b@example.test',
  'S-BAD,A-MATH-1,2026-12-01T09:00:00Z,G-1,Group one,7391,c-3,Cy,Lu,not-an-address',
  'S-NOPIN,A-MATH-1,2026-12-01T09:00:00Z,G-1,Group one,,c-4,Di,Ho,d@example.test',
  '',
].join('\n');

async function xlsxText(path: string): Promise<string> {
  const zip = await ZipEntries.open(path);
  let text = '';
  for (const entry of zip.entries.values()) {
    const chunks: Buffer[] = [];
    for await (const chunk of zip.chunks(entry.name, 1 << 24)) chunks.push(chunk);
    text += Buffer.concat(chunks).toString('utf8');
  }
  return text;
}

type Schedule = { ScheduleExtId: string; PIN?: string };
async function schedulesOf(dir: string): Promise<Schedule[]> {
  return (JSON.parse((await cli(dir, ['local', 'export'])).stdout) as { Schedules: Schedule[] }).Schedules;
}

describe('schedule PINs in run reports', () => {
  it('a CSV and an .xlsx report hold the marker, never the PIN; an empty PIN cell stays empty', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 's.csv'), SITTINGS);
      const run = await cli(dir, ['schedule', 'push', '--file', 's.csv', '--report', 'r.csv']);
      expect(run.code).toBe(1);
      expect(run.stdout + run.stderr).not.toContain('7391');
      const report = await readFile(join(dir, 'r.csv'), 'utf8');
      expect(report).not.toContain('7391');
      const lines = report.split(/\r?\n/);
      expect(lines[0]).toBe(`${HEAD},status,error_codes,error_messages,action,note,run`);
      expect(lines[1]).toMatch(
        /^S-OK,A-MATH-1,2026-12-01T09:00:00Z,G-1,Group one,withheld,c-1,Ann,Lee,a@example\.test,ok,,,created,,\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{4}$/,
      );
      expect(lines[4]).toMatch(/^S-NOPIN,A-MATH-1,2026-12-01T09:00:00Z,G-1,Group one,,c-4,/);

      const xlsx = await cli(dir, ['schedule', 'push', '--file', 's.csv', '--upsert', '--report', 'r.xlsx']);
      expect(xlsx.code).toBe(1);
      const text = await xlsxText(join(dir, 'r.xlsx'));
      expect(text).toContain('withheld');
      expect(text).not.toContain('7391');
      // `runs show --report` rebuilds the report from the input: the same marker.
      const shown = await cli(dir, ['runs', 'show', 'last', '--report', 'again.csv']);
      expect(shown.code).toBe(1);
      const again = await readFile(join(dir, 'again.csv'), 'utf8');
      expect(again).toContain(',withheld,');
      expect(again).not.toContain('7391');
    });
  });

  it('--only-failed of such a report without --pin is refused before anything is sent; with --pin the PIN is sent', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 's.csv'), SITTINGS);
      expect((await cli(dir, ['schedule', 'push', '--file', 's.csv', '--report', 'r.csv'])).code).toBe(1);
      const report = await readFile(join(dir, 'r.csv'), 'utf8');
      await writeFile(join(dir, 'r.csv'), report.replace('not-an-address', 'c@example.test'));
      const before = (await cli(dir, ['local', 'export'])).stdout;

      const refused = await cli(dir, ['schedule', 'push', '--file', 'r.csv', '--only-failed']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/^examctl: E2110: \S*r\.csv:3: Pin holds "withheld" on lines 3, 4 /m);
      expect(refused.stderr).toContain('--pin');
      expect((await cli(dir, ['local', 'export'])).stdout).toBe(before);
      // A dry run is refused alike; the whole report as plain --file names the ok row's line too.
      expect((await cli(dir, ['--dry-run', 'schedule', 'push', '--file', 'r.csv', '--only-failed'])).code).toBe(2);
      const whole = await cli(dir, ['schedule', 'push', '--file', 'r.csv', '--upsert']);
      expect(whole.code).toBe(2);
      expect(whole.stderr).toContain('r.csv:2: Pin holds "withheld" on lines 2, 3, 4 ');
      expect((await cli(dir, ['local', 'export'])).stdout).toBe(before);

      const sent = await cli(dir, ['schedule', 'push', '--file', 'r.csv', '--only-failed', '--pin', '4821', '--json']);
      expect(sent.code).toBe(0);
      expect((JSON.parse(sent.stdout) as { items: { id: string }[] }).items.map((item) => item.id)).toEqual(['S-BAD']);
      const schedules = await schedulesOf(dir);
      expect(schedules.find((s) => s.ScheduleExtId === 'S-BAD')?.PIN).toBe('4821');
      expect(schedules.find((s) => s.ScheduleExtId === 'S-OK')?.PIN).toBe('7391');
    });
  });

  it('the PIN off the command line (ps shows it): --pin-file, EXAMCTL_PIN, or asked on a terminal; each reaches the schedule', async () => {
    for (const way of ['file', 'env', 'prompt'] as const) {
      await withTempDir(async (dir) => {
        await writeFile(join(dir, 's.csv'), SITTINGS);
        expect((await cli(dir, ['schedule', 'push', '--file', 's.csv', '--report', 'r.csv'])).code).toBe(1);
        await writeFile(
          join(dir, 'r.csv'),
          (await readFile(join(dir, 'r.csv'), 'utf8')).replace('not-an-address', 'c@example.test'),
        );
        await writeFile(join(dir, 'pin.txt'), '4821\n', { mode: 0o600 });
        const asked: string[] = [];
        const askSecret = async (message: string) => (asked.push(message), '4821');
        const argv = [
          'schedule',
          'push',
          '--file',
          'r.csv',
          '--only-failed',
          ...(way === 'file' ? ['--pin-file', 'pin.txt'] : []),
        ];
        const io = testDeps(dir, way === 'prompt' ? ({ isTTY: true, askSecret } as Partial<CommandDeps>) : {}, {
          EXAMCTL_RUNS_DIR: join(dir, 'runs'),
          ...(way === 'env' ? { EXAMCTL_PIN: '4821' } : {}),
        });
        const code = await runCli(['--target', 'local', '--store', join(dir, 'store'), '--yes', ...argv], io.deps);
        expect(code, `${way}: ${io.stderr.text}`).toBe(0);
        expect(asked).toEqual(way === 'prompt' ? ['the report withholds the schedule PIN: PIN'] : []);
        expect((await schedulesOf(dir)).find((s) => s.ScheduleExtId === 'S-BAD')?.PIN).toBe('4821');
      });
    }
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'pin.txt'), '4821\n');
      expectCoded(
        (await cli(dir, ['schedule', 'push', '--file', 's.csv', '--pin', '1', '--pin-file', 'pin.txt'])).stderr,
        'E2000',
        '--pin and --pin-file',
      );
    });
  });

  it('a PIN cell that is a real PIN still wins over --pin, and a file without a PIN column is not read for it', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 's.csv'), SITTINGS.replace('not-an-address', 'c@example.test'));
      expect((await cli(dir, ['schedule', 'push', '--file', 's.csv', '--pin', '1111'])).code).toBe(0);
      const schedules = await schedulesOf(dir);
      expect(schedules.find((s) => s.ScheduleExtId === 'S-OK')?.PIN).toBe('7391');
      expect(schedules.find((s) => s.ScheduleExtId === 'S-NOPIN')?.PIN).toBe('1111');
    });
  });

  it('rows of one schedule that disagree on the PIN are named by line, without the digits', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 's.csv'), SITTINGS.replace('Group one,7391,c-2', 'Group one,5502,c-2'));
      const run = await cli(dir, ['schedule', 'push', '--file', 's.csv', '--json']);
      expect(run.code).toBe(1);
      expect(lineWith(run.stdout, '"S-BAD"', 'PIN', 'line 3')).toBeTruthy();
      expect(run.stdout + run.stderr).not.toMatch(/7391|5502/);
    });
  });

  it('a PIN with an invisible U+FEFF (a JSON value): the warning says so without the PIN', () => {
    const { fields, warnings } = checkSpreadsheetValues({ PIN: '\uFEFF7391' });
    expect(fields.PIN).toBe('7391');
    expect(warnings[0]?.message).toContain('U+FEFF');
    expect(JSON.stringify(warnings)).not.toContain('7391');
  });
});

describe('review-session show and the PIN', () => {
  it('--json writes Content.Pin as the marker, UsePin and the rest as the service sent them', async () => {
    await withTempDir(async (dir) => {
      const run = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '--json']);
      expect(run.code).toBe(0);
      const session = JSON.parse(run.stdout) as Record<string, unknown>;
      expect(session.Pin).toBe('withheld');
      expect(session.UsePin).toBe(true);
      expect(session.ExternalId).toBe('RS-MATH1-OCT');
      // The demo world's PIN for this session.
      expect(run.stdout + run.stderr).not.toContain('3197');
      // A session without a PIN keeps its null.
      expect(
        (
          JSON.parse((await cli(dir, ['review-session', 'show', 'RS-LANG-PRACTICE', '--json'])).stdout) as {
            Pin: unknown;
          }
        ).Pin,
      ).toBeNull();
    });
  });

  it('-o csv and the table: no PIN, also one a server quotes back in a result row', async () => {
    await withTempDir(async (dir) => {
      const plain = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '--json']);
      const session = { ...(JSON.parse(plain.stdout) as Record<string, unknown>), Pin: '3197' } as unknown as {
        Results: Record<string, unknown>[];
      };
      (session.Results[0] as Record<string, unknown>).PIN = '3197';
      const api = {
        getReviewSession: async () => ({ status: 200, envelope: { Success: true, Content: session } }),
        close: async () => undefined,
      } as unknown as IntegrationApi;
      const csv = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv'], { openApi: async () => api });
      expect(csv.code).toBe(0);
      expect(csv.stdout).toMatch(/,PIN\r\n/);
      expect(csv.stdout).toContain(',withheld\r\n');
      expect(csv.stdout).not.toContain('3197');
      const json = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '--json'], { openApi: async () => api });
      expect(json.stdout).not.toContain('3197');
      const table = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT'], { openApi: async () => api });
      expect(table.stdout).toContain('PIN: used');
      expect(table.stdout).not.toContain('3197');
    });
  });

  it("the PIN quoted back in a free-text field (a Title, a schedule title) is redacted too, as the gate does a record's own PIN; --show-pin keeps it", async () => {
    await withTempDir(async (dir) => {
      const plain = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '--json']);
      const session = {
        ...(JSON.parse(plain.stdout) as Record<string, unknown>),
        Pin: 'K7P2Q9',
        Title: 'Review (PIN K7P2Q9)',
      } as unknown as { Results: Record<string, unknown>[] };
      session.Results[0]!.ScheduleTitle = 'use PIN k7p2q9';
      const api = {
        getReviewSession: async () => ({ status: 200, envelope: { Success: true, Content: session } }),
        close: async () => undefined,
      } as unknown as IntegrationApi;
      for (const output of ['table', 'json', 'csv']) {
        const run = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', output], {
          openApi: async () => api,
        });
        expect([run.code, run.stdout]).toEqual([
          0,
          expect.stringContaining(output === 'csv' ? 'use PIN [redacted]' : 'Review (PIN [redacted])'),
        ]);
        expect(run.stdout.toLowerCase()).not.toContain('k7p2q9');
      }
      const shown = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'json', '--show-pin'], {
        openApi: async () => api,
      });
      expect(shown.stdout).toContain('"Title": "Review (PIN K7P2Q9)"');
    });
  });

  it('a PIN whose digits stand in an id, a date or a number leaves them as sent; only free-text fields are redacted, and stderr says how many', async () => {
    await withTempDir(async (dir) => {
      const plain = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '--json']);
      const session = {
        ...(JSON.parse(plain.stdout) as Record<string, unknown>),
        Pin: '2026',
        Title: 'Autumn 2026',
      } as unknown as { Results: Record<string, unknown>[] };
      Object.assign(session.Results[0]!, {
        CandidateExtId: 'c-2026',
        UserName: 'c-2026',
        Score: 2026,
        LastSatDate: '2026-10-05T11:12:00.000Z',
        LastName: 'Lee 2026',
      });
      const api = {
        getReviewSession: async () => ({ status: 200, envelope: { Success: true, Content: session } }),
        close: async () => undefined,
      } as unknown as IntegrationApi;
      const run = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv'], { openApi: async () => api });
      expect(run.stdout).toMatch(/^\uFEFF?CandidateExtId,.*\nc-2026,.*,c-2026,.*,2026-10-05T11:12:00\.000Z,.*,2026,/s);
      expect(run.stdout.match(/\[redacted\]/g)).toEqual(['[redacted]']);
      expect(lineWith(run.stderr, 'PIN [redacted]', '2 free-text field')).toBeTruthy();
      const table = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT'], { openApi: async () => api });
      expect([table.stdout, table.stderr]).toEqual([
        expect.stringContaining('Autumn [redacted]'),
        expect.stringContaining('in 2 free-text field(s)'),
      ]);
    });
  });

  it('--show-pin shows the exact PIN in the table, JSON, CSV and xlsx, and nowhere on stderr (--debug included)', async () => {
    await withTempDir(async (dir) => {
      const show = (extra: string[]) =>
        cli(dir, ['--debug', 'review-session', 'show', 'RS-MATH1-OCT', '--show-pin', ...extra]);
      const json = await show(['--json']);
      expect(json.code).toBe(0);
      expect((JSON.parse(json.stdout) as { Pin: unknown }).Pin).toBe('3197');
      const table = await show([]);
      expect(table.stdout).toContain('PIN: 3197');
      const csv = await show(['-o', 'csv']);
      const lines = csv.stdout
        .replace(/^\uFEFF/, '')
        .trimEnd()
        .split(/\r?\n/);
      expect(lines[0]).toMatch(/,Grade,Pin$/);
      expect(lines.length).toBeGreaterThan(1);
      for (const line of lines.slice(1)) expect(line).toMatch(/,3197$/);
      const xlsx = await show(['-o', 'xlsx', '--out', join(dir, 'results.xlsx')]);
      expect(xlsx.code).toBe(0);
      // The whole workbook reached --out before it was renamed into place (it was cut short once).
      expect(await xlsxText(join(dir, 'results.xlsx'))).toContain('3197');
      for (const run of [json, table, csv, xlsx]) expect(run.stderr).not.toContain('3197');
      // Without the flag, the same outputs withhold it; a session without a PIN shows none.
      const plain = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv']);
      expect(plain.stdout).not.toContain('3197');
      expect(plain.stdout).not.toMatch(/,Pin\r\n/);
      const none = await cli(dir, ['review-session', 'show', 'RS-LANG-PRACTICE', '--show-pin', '-o', 'csv']);
      expect(none.stdout).toMatch(/,Pin\r\n/);
      expect(
        (
          JSON.parse(
            (await cli(dir, ['review-session', 'show', 'RS-LANG-PRACTICE', '--show-pin', '--json'])).stdout,
          ) as { Pin: unknown }
        ).Pin,
      ).toBeNull();
    });
  });
});
