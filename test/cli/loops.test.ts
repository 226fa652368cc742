import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { parse } from 'csv-parse/sync';
import { runCli } from '../../src/cli/run-cli.js';
import type { CommandDeps } from '../../src/context/command-deps.js';
import { testDeps, withTempDir } from './helpers.js';
import { lineWith, summaryOf } from '../support/facts.js';
import { answeredAsPlatform } from '../support/platform-store-route.js';

/**
 * Issue 31: the loops between commands (a report fed back, a resume, a refusal, the nightly job)
 * never silently do less than the admin meant. Every run goes through runCli against a loopback
 * service that counts the requests it receives.
 */

interface Counting {
  url: string;
  /** POST /user requests received, by ExternalId, in order. */
  received: string[];
  /** Ids answered 400 (a rule failure of the service). */
  reject: Set<string>;
  /** Answer every request 200 with a body declared far too large to read. */
  huge: boolean;
  /** Called with the count after each request is answered (a marker to interrupt at). */
  onAnswered?: (count: number) => void;
  close(): Promise<void>;
}

async function startCounting(): Promise<Counting> {
  const server = http.createServer((req, res) => {
    if (answeredAsPlatform(req, res)) return;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const user = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      const id = String(user.ExternalId);
      state.received.push(id);
      if (state.huge) {
        // A 2xx whose answer never ends: written until the client hangs up (past its size limit).
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(1024 * 1024, 0x5b);
        const more = (): void => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', more);
        };
        res.on('close', () => res.removeAllListeners('drain'));
        more();
        return;
      }
      if (state.reject.has(id)) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ Content: null, Success: false, Errors: [{ Code: 209, Message: 'Email is not valid' }] }),
        );
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ Content: { User: user, GroupErrors: [] }, Success: true, Errors: null }));
      }
      state.onAnswered?.(state.received.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const state: Counting = {
    url: `http://127.0.0.1:${port}`,
    received: [],
    reject: new Set(),
    huge: false,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return state;
}

let service: Counting;
beforeEach(async () => {
  service = await startCounting();
});
afterEach(async () => {
  await service.close();
});

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role';
const row = (id: string, email = `${id}@example.test`, last = 'Lee') =>
  `${id},Ann,${last},${email},name-${id},Candidate`;
const ids = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `stu-${from + i}`);

function writeCsv(file: string, lines: string[]): void {
  writeFileSync(file, `${[HEADER, ...lines].join('\n')}\n`);
}

/** One invocation in `dir` with its own runs and sync directories; env adds to (or, undefined, removes from) the defaults. */
async function cli(
  dir: string,
  argv: string[],
  env: Record<string, string | undefined> = {},
  overrides: Partial<CommandDeps> = {},
) {
  const base: Record<string, string> = {
    EXAMCTL_RUNS_DIR: join(dir, 'runs'),
    EXAMCTL_SYNC_DIR: join(dir, 'synced'),
    EXAMCTL_TOKEN: 'loops-token',
    EXAMCTL_BASE_URL: service.url,
  };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete base[name];
    else base[name] = value;
  }
  const io = testDeps(dir, overrides, base);
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

function csvStatuses(file: string): string[] {
  const rows = parse(readFileSync(file, 'utf8'), { columns: true }) as Record<string, string>[];
  return rows.map((row) => row.status as string);
}

describe("1. a dry run's report fed back", () => {
  it('says valid/invalid, never ok; --only-failed on it is exit 2 with nothing sent; without it every row is sent', () =>
    withTempDir(async (dir) => {
      writeCsv(join(dir, 'users.csv'), [
        row('stu-0'),
        row('stu-1', 'not-an-email'),
        row('stu-2'),
        row('stu-3', 'bad'),
        row('stu-4'),
      ]);
      const dry = await cli(dir, ['user', 'sync', '--file', 'users.csv', '--dry-run', '--report', 'dry.csv']);
      expect(dry.code).toBe(1);
      expect(csvStatuses(join(dir, 'dry.csv'))).toEqual(['valid', 'invalid', 'valid', 'invalid', 'valid']);
      // The admin fixes the invalid rows in the report (here: the e-mail cells).
      writeFileSync(
        join(dir, 'dry.csv'),
        readFileSync(join(dir, 'dry.csv'), 'utf8')
          .replace(',not-an-email,', ',stu-1@example.test,')
          .replace(',bad,', ',stu-3@example.test,'),
      );

      const retry = await cli(dir, ['user', 'sync', '--file', 'dry.csv', '--only-failed', '--yes']);
      expect(retry.code).toBe(2);
      expectCoded(retry.stderr, 'E2000', 'dry.csv', '--only-failed');
      expect(service.received).toEqual([]);

      const all = await cli(dir, ['user', 'sync', '--file', 'dry.csv', '--yes']);
      expect(all.code).toBe(0);
      expect(service.received.sort()).toEqual(ids(5));
    }));

  it("the same with an .xlsx report; a real run's report still sends only what is not ok", () =>
    withTempDir(async (dir) => {
      writeCsv(join(dir, 'users.csv'), [row('stu-0'), row('stu-1', 'not-an-email'), row('stu-2')]);
      expect((await cli(dir, ['user', 'sync', '--file', 'users.csv', '--dry-run', '--report', 'dry.xlsx'])).code).toBe(
        1,
      );
      const retry = await cli(dir, ['user', 'sync', '--file', 'dry.xlsx', '--only-failed', '--yes']);
      expect(retry.code).toBe(2);
      expect(retry.stderr).toContain("dry run's report");
      expect(service.received).toEqual([]);
      // Without --only-failed every row goes (the invalid one fails the local checks, as in the file).
      expect((await cli(dir, ['user', 'sync', '--file', 'dry.xlsx', '--yes'])).code).toBe(1);
      expect(service.received.sort()).toEqual(['stu-0', 'stu-2']);

      // A real run: stu-2 refused by the service; its report fed back sends only stu-2.
      service.received.length = 0;
      service.reject.add('stu-2');
      writeCsv(join(dir, 'users.csv'), [row('stu-0'), row('stu-2')]);
      expect((await cli(dir, ['user', 'sync', '--file', 'users.csv', '--yes', '--report', 'real.csv'])).code).toBe(1);
      expect(csvStatuses(join(dir, 'real.csv'))).toEqual(['ok', 'failed']);
      service.reject.clear();
      expect((await cli(dir, ['user', 'sync', '--file', 'real.csv', '--only-failed', '--yes'])).code).toBe(0);
      expect(service.received).toEqual(['stu-0', 'stu-2', 'stu-2']);
    }));
});

describe('2. runs resume resolves target and token like every command', () => {
  it('with the default profile (no EXAMCTL_TOKEN, no --profile) it sends the rest; its question counts what remains', () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'uni.token'), 'loops-token\n', { mode: 0o600 });
      const noEnv = { EXAMCTL_TOKEN: undefined, EXAMCTL_BASE_URL: undefined };
      expect(
        (
          await cli(
            dir,
            ['config', 'set-profile', 'uni', '--base-url', service.url, '--token-file', join(dir, 'uni.token')],
            noEnv,
          )
        ).code,
      ).toBe(0);
      writeCsv(
        join(dir, 'users.csv'),
        ids(20).map((id) => row(id)),
      );
      const interrupt = new AbortController();
      const questions: string[] = [];
      const person = { isTTY: true, confirm: async (question: string) => (questions.push(question), true) };
      // Killed (as by Ctrl-C) once the service answered 6: a marker, not a delay.
      service.onAnswered = (count) => {
        if (count === 6) interrupt.abort();
      };
      const first = await cli(dir, ['--concurrency', '1', 'user', 'sync', '--file', 'users.csv'], noEnv, {
        ...person,
        signal: interrupt.signal,
      });
      expect(first.code).toBe(130);
      service.onAnswered = undefined;
      const sentFirst = service.received.length;
      expect(questions[0]).toContain('20 records to send');

      const resume = await cli(dir, ['runs', 'resume'], noEnv, person);
      expect(resume.stderr).not.toContain('no token');
      expect(resume.code).toBe(0);
      expect(lineWith(questions[1]!, `${20 - sentFirst} records left`, 'of 20')).toBeTruthy();
      expect(new Set(service.received)).toEqual(new Set(ids(20)));
      expect(service.received.length).toBe(20);
    }));
});

/** Night 1: 20 users synced, so the memory remembers them. */
async function firstNight(dir: string): Promise<void> {
  writeCsv(
    join(dir, 'users.csv'),
    ids(20).map((id) => row(id)),
  );
  expect((await cli(dir, ['user', 'sync', '--file', 'users.csv', '--yes'])).code).toBe(0);
  service.received.length = 0;
}

describe('3. a run refused after reading still writes its documents', () => {
  it('--max-disable trips: --json is the whole document, every item skipped with the reason; CSV and JUnit written; nothing sent', () =>
    withTempDir(async (dir) => {
      await firstNight(dir);
      writeCsv(
        join(dir, 'half.csv'),
        ids(5).map((id) => row(id)),
      );
      const night = await cli(dir, [
        'user',
        'sync',
        '--file',
        'half.csv',
        '--disable-missing',
        '--max-disable',
        '2',
        '--yes',
        '--json',
        '--report',
        'sync.xml',
      ]);
      expect(night.code).toBe(2);
      expect(service.received).toEqual([]);
      const doc = JSON.parse(night.stdout) as {
        command: string;
        target: unknown;
        dryRun: boolean;
        error: { exitCode: number; message: string };
        items: { status: string; errors: { message: string }[] }[];
        summary: { total: number; skipped: number };
      };
      expect(doc).toMatchObject({
        command: 'user sync',
        target: { kind: 'remote' },
        dryRun: false,
        error: { exitCode: 2 },
      });
      // The 5 rows of the file and the 15 leavers it would have disabled.
      expect(doc.summary).toMatchObject({ total: 20, skipped: 20 });
      expect(
        doc.items.every(
          (item) =>
            item.status === 'skipped' &&
            /^not sent: the run was refused: --disable-missing would disable 15/.test(item.errors[0]?.message ?? ''),
        ),
      ).toBe(true);
      // The message names the flag, not the exact value that would let it through.
      expect(doc.error.message).toContain('--max-disable');
      expect(doc.error.message).not.toMatch(/--max-disable 15\b/);
      const junit = readFileSync(join(dir, 'sync.xml'), 'utf8');
      expect(junit).toMatch(/<testsuite [^>]*tests="21" failures="1"/);
      expect(junit).toMatch(/<failure message="E2503: --disable-missing would disable 15/);

      const again = await cli(dir, [
        'user',
        'sync',
        '--file',
        'half.csv',
        '--disable-missing',
        '--max-disable',
        '2',
        '--yes',
        '--report',
        'sync.csv',
      ]);
      expect(again.code).toBe(2);
      // The file's 5 rows with their cells, then the 15 leavers, well-formed rows under the same header (docs/sync.md, "Leavers").
      const rows = parse(readFileSync(join(dir, 'sync.csv'), 'utf8'), { relax_column_count: true }) as string[][];
      const status = (rows[0] as string[]).indexOf('status');
      expect(rows.slice(1, 6).map((cells) => cells[status])).toEqual(Array(5).fill('skipped'));
      expect(rows.slice(6).map((cells) => cells[status])).toEqual(Array(15).fill('skipped'));
      expect(service.received).toEqual([]);
    }));
});

describe('4/5. a nightly run with no memory says so everywhere; --require-memory refuses it', () => {
  it('summary line, JSON, JUnit property and GitHub annotation say no memory; --require-memory is exit 2 naming target and place', () =>
    withTempDir(async (dir) => {
      writeCsv(
        join(dir, 'users.csv'),
        ids(3).map((id) => row(id)),
      );
      const nightly = ['user', 'sync', '--file', 'users.csv', '--changed-only', '--disable-missing', '--yes'];
      const refused = await cli(dir, [...nightly, '--require-memory', '--report', 'r.xml'], {
        GITHUB_ACTIONS: 'true',
        GITHUB_WORKSPACE: dir,
      });
      expect(refused.code).toBe(2);
      expect(service.received).toEqual([]);
      expectCoded(refused.stderr, 'E2501', '--require-memory', service.url);
      expect(refused.stderr).toContain(join(dir, 'synced'));
      // The JUnit stopped case and the ::error annotation carry the code as stderr does.
      expect(readFileSync(join(dir, 'r.xml'), 'utf8')).toMatch(/<failure message="E2501: [^"]*--require-memory/);
      expect(lineWith(refused.stderr, '::error ', '--require-memory')).toMatch(
        /^::error title=examctl: the run stopped::E2501: /,
      );
      // One cause, one annotation: the refusal says the missing memory, no warning beside it.
      expect(refused.stderr.split('\n').filter((line) => line.startsWith('::'))).toHaveLength(1);

      const run = await cli(dir, [...nightly, '--json', '--report', 'sync.xml'], {
        GITHUB_ACTIONS: 'true',
        GITHUB_WORKSPACE: dir,
      });
      expect(run.code).toBe(0);
      expect(service.received.length).toBe(3);
      const doc = JSON.parse(run.stdout) as { syncMemory: { found: boolean; file: string } };
      expect(doc.syncMemory.found).toBe(false);
      expect(doc.syncMemory.file.startsWith(join(dir, 'synced'))).toBe(true);
      // What a night without the memory leaves undone, and the two ways back.
      const said = run.stderr.split('\n').filter((line) => line.startsWith('no sync memory for remote'));
      expect(said).toHaveLength(1);
      for (const fact of ['examctl synced import', 'examctl synced adopt', '"When the memory is lost"'])
        expect(said[0]).toContain(fact);
      expect(doc.syncMemory).toMatchObject({ population: null, populationFound: false });
      expect(run.stderr).toContain('::warning title=examctl: no sync memory::');
      expect(readFileSync(join(dir, 'sync.xml'), 'utf8')).toMatch(
        /<property name="syncMemory" value="none: no sync memory/,
      );

      // The next night has it: said as found, nothing sent again, and --require-memory passes.
      const next = await cli(dir, [...nightly, '--require-memory', '--json']);
      expect(next.code).toBe(0);
      expect(
        (JSON.parse(next.stdout) as { syncMemory: { found: boolean; remembered: number } }).syncMemory,
      ).toMatchObject({ found: true, remembered: 3, population: null, populationFound: true });
      expect(service.received.length).toBe(3);

      // A population the memory has no record of is a night without memory for it, in every sink.
      const staff = await cli(dir, [...nightly, '--population', 'staff', '--json', '--report', 'staff.xml'], {
        GITHUB_ACTIONS: 'true',
        GITHUB_WORKSPACE: dir,
      });
      expect(staff.code).toBe(0);
      expect((JSON.parse(staff.stdout) as { syncMemory: unknown }).syncMemory).toMatchObject({
        found: true,
        population: 'staff',
        populationFound: false,
      });
      expect(lineWith(staff.stderr, '::warning title=examctl: no sync memory::', '--population staff')).toBeTruthy();
      expect(readFileSync(join(dir, 'staff.xml'), 'utf8')).toMatch(
        /<property name="syncMemory" value="none: the sync memory of remote .* has no record of --population staff/,
      );
    }));
});

/** The nightly workflow of docs/ci.md: its memory artifact's upload step, its import and export, and its sync command, as written there. */
function nightlyRecipe(): {
  uploadIf: string | undefined;
  uploadWith: string;
  command: string;
  importCommand: string;
  exportCommand: string;
} {
  const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'ci.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## A nightly sync'));
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const upload =
    /- if: ([^\n]+)\n\s+uses: actions\/upload-artifact@v4\n\s+with: (\{ name: examctl-sync-memory[^\n]+)/.exec(yaml);
  return {
    uploadIf: upload?.[1]?.trim(),
    uploadWith: upload?.[2] ?? '',
    command: /run: examctl (user sync [^\n]+)/.exec(yaml)?.[1] ?? '',
    importCommand: /examctl (synced import [^\n]+)/.exec(yaml)?.[1] ?? '',
    exportCommand: /examctl (synced export [^\n]+)/.exec(yaml)?.[1] ?? '',
  };
}

/** The recipe's command as GitHub runs it: on the first night started by hand (first_night), without --require-memory. */
function argvOf(command: string, firstNight: boolean): string[] {
  return command
    .replace(/\$\{\{ !inputs\.first_night && '([^']*)' \|\| '' \}\}/, firstNight ? '' : '$1')
    .split(/\s+/)
    .filter((word) => word !== '');
}

/**
 * A model of the recipe's nights on fresh runners: the newest memory artifact imported (none on
 * the first night, started by hand), the sync, then the memory exported as tonight's artifact,
 * after a failed sync only when the upload runs `if: always() ...` (a step's default is
 * success()). Each night is the recipe's own commands, through runCli. stu-3 is refused by the
 * service every night (a row only the source system can fix); on night 2 stu-7 changed.
 */
async function nights(root: string, uploadAlways: boolean, recipe: ReturnType<typeof nightlyRecipe>) {
  const { mkdirSync } = await import('node:fs');
  const artifacts: string[] = [];
  const results: { code: number; sent: number; stderr: string }[] = [];
  service.reject = new Set(['stu-3']);
  for (let night = 1; night <= 2; night++) {
    const workspace = join(root, `runner-${uploadAlways ? 'always' : 'success'}-${night}`);
    mkdirSync(join(workspace, 'export'), { recursive: true });
    const env = { EXAMCTL_SYNC_DIR: join(workspace, '.examctl-synced'), CI: 'true' };
    const newest = artifacts.at(-1);
    if (newest !== undefined) {
      mkdirSync(join(workspace, 'kept'));
      writeFileSync(join(workspace, 'kept', 'sync-memory.json'), newest);
      const imported = await cli(workspace, argvOf(recipe.importCommand, false), env);
      expect(imported.code, imported.stderr).toBe(0);
    }
    // The export the recipe's command names (--file).
    const argv = argvOf(recipe.command, night === 1);
    writeCsv(
      join(workspace, argv[argv.indexOf('--file') + 1]!),
      ids(10).map((id) => row(id, undefined, night === 2 && id === 'stu-7' ? 'Married' : 'Lee')),
    );
    const before = service.received.length;
    const { code, stderr } = await cli(workspace, argv, env);
    results.push({ code, sent: service.received.length - before, stderr });
    if (code === 0 || uploadAlways) {
      mkdirSync(join(workspace, 'kept-tonight'));
      const exported = await cli(workspace, argvOf(recipe.exportCommand, false), env);
      expect(exported.code, exported.stderr).toBe(0);
      artifacts.push(readFileSync(join(workspace, 'kept-tonight', 'sync-memory.json'), 'utf8'));
    }
  }
  service.reject.clear();
  return results;
}

describe('4. docs/ci.md keeps the sync memory when the nightly job fails', () => {
  it("the recipe uploads the memory with if: always() and overwrite: true; modelled, night 2 still has night 1's memory", () =>
    withTempDir(async (dir) => {
      const recipe = nightlyRecipe();
      expect(recipe.uploadIf).toBe(
        "${{ always() && steps.memory.outcome != 'failure' && steps.memory.outcome != 'cancelled' }}",
      );
      expect(recipe.uploadWith).toContain('overwrite: true');
      expect(recipe.importCommand).toBe('synced import kept/sync-memory.json');
      expect(recipe.exportCommand).toBe('synced export --out kept-tonight/sync-memory.json');
      expect(argvOf(recipe.command, false)).toEqual(expect.arrayContaining(['--changed-only', '--require-memory']));
      expect(argvOf(recipe.command, true)).not.toContain('--require-memory');

      const always = await nights(dir, recipe.uploadIf?.startsWith('${{ always()') === true, recipe);
      expect(always[0]).toMatchObject({ code: 1, sent: 10 });
      // Night 2: only the changed row and the row the service refused last night.
      expect(always[1]).toMatchObject({ code: 1, sent: 2 });

      // Uploaded only when the job succeeds (a step's default): the failed first night's memory
      // is lost, and --require-memory stops night 2 with exit 2, nothing sent, instead of
      // sending everything again and disabling no leaver, night after night.
      const onSuccess = await nights(dir, false, recipe);
      expect(onSuccess[0]).toMatchObject({ code: 1, sent: 10 });
      expect(onSuccess[1]).toMatchObject({ code: 2, sent: 0 });
      expect(onSuccess[1]?.stderr).toContain('--require-memory: no sync memory');
    }));
});

describe('6. an answer lost after a 2xx is a target failure', () => {
  it('answers too large to read end with exit 3, journaled as possibly applied; a resume sends them again', () =>
    withTempDir(async (dir) => {
      writeCsv(
        join(dir, 'users.csv'),
        ids(4).map((id) => row(id)),
      );
      service.huge = true;
      const run = await cli(dir, ['user', 'sync', '--file', 'users.csv', '--yes', '--json']);
      expect(run.code).toBe(3);
      const doc = JSON.parse(run.stdout) as {
        error: { exitCode: number; message: string };
        items: { status: string; errors: { message: string }[] }[];
      };
      expect(doc.error).toMatchObject({ exitCode: 3 });
      // The count, the doubt and the resume that settles it.
      expect(doc.error).toMatchObject({
        code: 'E3001',
        message: expect.stringMatching(/^4 answers .*may have been applied.*examctl runs resume/),
      });
      expect(doc.items.map((item) => item.status)).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
      expect(doc.items[0]?.errors[0]?.message).toContain('may have been applied');
      expect(service.received.length).toBe(4);

      service.huge = false;
      const resume = await cli(dir, ['runs', 'resume', '--yes']);
      expect(resume.code).toBe(0);
      expect(service.received.length).toBe(8);
    }));
});

describe("3. a withheld PIN without --pin is refused with the run's documents", () => {
  it('schedule push of a report: exit 2, --json lists every schedule skipped, the JUnit report holds the refusal', () =>
    withTempDir(async (dir) => {
      const local = ['--target', 'local', '--store', join(dir, 'store')];
      writeFileSync(
        join(dir, 's.csv'),
        [
          'ScheduleExtId,AssessmentExtId,StartDateTime,GroupExtId,GroupName,Pin,CandidateExtId,FirstName,LastName,Email',
          'S-1,A-MATH-1,2026-12-01T09:00:00Z,G-1,Group one,7391,c-1,Ann,Lee,a@example.test',
          'S-2,A-MATH-1,2026-12-01T09:00:00Z,G-1,Group one,7391,c-2,Ben,Ray,b@example.test',
          '',
        ].join('\n'),
      );
      expect(
        (await cli(dir, [...local, 'schedule', 'push', '--file', 's.csv', '--upsert', '--report', 'r.csv'])).code,
      ).toBe(0);
      const refused = await cli(dir, [
        ...local,
        'schedule',
        'push',
        '--file',
        'r.csv',
        '--upsert',
        '--json',
        '--report',
        'again.xml',
      ]);
      expect(refused.code).toBe(2);
      const doc = JSON.parse(refused.stdout) as {
        error: { kind: string; message: string };
        items: { id: string; status: string; errors: { code: number | null; message: string }[] }[];
      };
      expect(doc.error.kind).toBe('input-file');
      expect(doc.items.map((item) => [item.id, item.status])).toEqual([
        ['S-1', 'skipped'],
        ['S-2', 'skipped'],
      ]);
      expect(doc.items[0]?.errors[0]).toMatchObject({ code: 9025, message: expect.stringContaining('withheld') });
      expect(readFileSync(join(dir, 'again.xml'), 'utf8')).toMatch(/<failure message="E2110: [^"]*withheld/);
    }));
});

describe('smaller items of the same trial', () => {
  it('runs list writes its counts as the run summary does (1,200, not 1200)', () =>
    withTempDir(async (dir) => {
      writeCsv(
        join(dir, 'users.csv'),
        ids(1200).map((id) => row(id)),
      );
      const run = await cli(dir, [
        '--target',
        'local',
        '--store',
        join(dir, 'store'),
        'user',
        'sync',
        '--file',
        'users.csv',
      ]);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain('1,200 items: 1,200 ok');
      const list = await cli(dir, ['runs', 'list']);
      expect(summaryOf(list.stdout)).toMatchObject({ total: 1200, ok: 1200, partial: 0, failed: 0, skipped: 0 });
    }));

  it('login says the token is masked (each character shows as *), not that it is not echoed', () =>
    withTempDir(async (dir) => {
      const help = await cli(dir, ['login', '--help']);
      expect(help.stdout + help.stderr).toContain('masked');
      expect(help.stdout + help.stderr).not.toMatch(/not echoed|without echo/);
    }));

  it('local serve on Ctrl-C says it stops the server, not that it writes a report', () =>
    withTempDir(async (dir) => {
      const { startExamctl } = await import('../support/cli.js');
      const running = startExamctl(['--store', join(dir, 'store'), 'local', 'serve', '--port', '0'], dir);
      // Interrupted once it says it listens: a marker, not a delay.
      await new Promise<void>((resolve) => {
        let text = '';
        running.child.stderr?.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
          if (text.includes('stop with Ctrl-C')) resolve();
        });
      });
      running.child.kill('SIGINT');
      const { stderr, code } = await running.done;
      expect(code).toBe(0);
      expect(stderr).toContain('interrupted: stopping the server after the requests in flight');
      expect(stderr).not.toContain('report');
    }));
});

describe('5. the remote confirmation says the plan the memory decided, per action (issue 79)', () => {
  it('a night of 2 changed, 3 gone, 15 unchanged is asked as that, not as 17 records; nothing sent when declined', () =>
    withTempDir(async (dir) => {
      await firstNight(dir);
      writeCsv(join(dir, 'night.csv'), [
        ...ids(2).map((id) => row(id, `${id}@example.test`, 'Changed')),
        ...ids(15, 2).map((id) => row(id)),
      ]);
      const questions: string[] = [];
      const person = { isTTY: true, confirm: async (question: string) => (questions.push(question), false) };
      const night = [
        'user',
        'sync',
        '--file',
        'night.csv',
        '--changed-only',
        '--disable-missing',
        '--max-disable',
        '5',
      ];
      expect((await cli(dir, night, {}, person)).code).toBe(2);
      expect(
        lineWith(questions[0]!, `user sync to remote ${service.url}`, '2 to update', '3 to disable', '15 unchanged'),
      ).toBeTruthy();
      expect(questions[0]).toContain('--dry-run --report plan.html');
      expect(service.received).toEqual([]);
      expect((await cli(dir, [...night, '--report', 'night.html'], {}, person)).code).toBe(2);
      expect(questions[1]).toContain('Every record: night.html, written when the run ends.');
      expect(service.received).toEqual([]);
      // Said yes to, the run sends what the question counted, after counting it on the same file.
      const yes = { isTTY: true, confirm: async () => true };
      expect((await cli(dir, night, {}, yes)).code).toBe(0);
      expect(service.received.sort()).toEqual(['stu-0', 'stu-1', 'stu-17', 'stu-18', 'stu-19']);
    }));
});
