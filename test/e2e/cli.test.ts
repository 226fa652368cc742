import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT, examctl, startExamctl } from '../support/cli.js';
import { withTempDir } from '../support/temp-dir.js';
import { expectOnlyErrorDocument } from '../support/error-document.js';
import { okEnvelope, startFaultServer } from '../support/fault-server.js';
import { expectCoded } from '../support/coded-message.js';

const FIXTURES = join(ROOT, 'fixtures');

function inTempDir(run: (dir: string) => Promise<void>): Promise<void> {
  return withTempDir(run, 'examctl-e2e-');
}

describe('examctl binary', () => {
  it('--help lists the commands and exits 0; --version prints the package version and the Node it runs on', async () => {
    await inTempDir(async (dir) => {
      const help = await examctl(['--help'], dir);
      expect(help.code).toBe(0);
      for (const command of ['schedule', 'user', 'collection', 'invigilators', 'review-session', 'local'])
        expect(help.stdout).toContain(command);
      const version = await examctl(['--version'], dir);
      expect(version.code).toBe(0);
      const pkg = (await import(join(ROOT, 'package.json'), { with: { type: 'json' } })).default as { version: string };
      expect(version.stdout.trim()).toBe(
        `examctl ${pkg.version} (Node ${process.version}, zone rules ${process.versions.tz}, build ${readFileSync(join(ROOT, 'dist', 'bundle', 'examctl.sha256'), 'utf8').slice(0, 12)})`,
      );
      const sub = await examctl(['schedule', 'push', '--help'], dir);
      expect(sub.stdout).toContain('--assessment');
    });
  });

  it('a dry run of a shipped fixture prints one JSON report and creates no store', async () => {
    await inTempDir(async (dir) => {
      const run = await examctl(
        ['user', 'sync', '--file', join(FIXTURES, 'users-with-errors.csv'), '--dry-run', '--json'],
        dir,
      );
      expect(run.code).toBe(1);
      const doc = JSON.parse(run.stdout);
      expect(doc.dryRun).toBe(true);
      expect(doc.summary).toMatchObject({ total: 5, ok: 2, partial: 0, failed: 3, skipped: 0 });
      expect(existsSync(join(dir, '.examctl-store'))).toBe(false);
    });
  });

  it('a real push on a fresh store, then review-session show --json', async () => {
    await inTempDir(async (dir) => {
      const push = await examctl(['schedule', 'push', '--file', join(FIXTURES, 'sittings.csv'), '--json'], dir);
      expect(push.code).toBe(0);
      const doc = JSON.parse(push.stdout);
      expect(doc.target).toEqual({ kind: 'local', store: join(dir, '.examctl-store') });
      expect(doc.summary.ok).toBe(2);
      expect(push.stderr).toContain('created local store');
      const show = await examctl(['review-session', 'show', 'RS-MATH1-OCT', '--json'], dir);
      expect(show.code).toBe(0);
      expect(JSON.parse(show.stdout).ExternalId).toBe('RS-MATH1-OCT');
    });
  });

  it('a bad input file exits 2 naming file:line, with only the error document on stdout', async () => {
    await inTempDir(async (dir) => {
      await writeFile(
        join(dir, 'bad.json'),
        '[\n  {"ExternalId": "u-1", "FirstName": "A", "LastName": "B"},\n  {"ExternalId": \n',
      );
      const run = await examctl(['user', 'sync', '--file', 'bad.json', '--json'], dir);
      expect(run.code).toBe(2);
      expectOnlyErrorDocument(run.stdout, 2);
      expect(run.stderr).toMatch(/^examctl: E2100: bad\.json:\d+: /);
    });
  });

  it('SIGINT: finishes in-flight work, writes the report with the rest skipped, exits 130', async () => {
    await inTempDir(async (dir) => {
      const rows = ['ExternalId,FirstName,LastName,Role'];
      for (let i = 0; i < 1500; i++) rows.push(`u-${i},First,Last,Candidate`);
      await writeFile(join(dir, 'many.csv'), `${rows.join('\n')}\n`);
      // The run sends itself SIGINT after its 500th outcome (a point it reaches, not a delay), as a
      // Ctrl-C mid-run would: the rest is skipped however fast the machine is.
      const run = startExamctl(['user', 'sync', '--file', 'many.csv', '--json'], dir, {
        EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:500:SIGINT',
      });
      const { code, stdout, stderr } = await run.done;
      expect(code, stderr).toBe(130);
      const doc = JSON.parse(stdout);
      expect(doc.summary.total).toBe(1500);
      expect(doc.summary.ok).toBeGreaterThanOrEqual(500);
      expect(doc.summary.skipped).toBeGreaterThan(0);
      expect(doc.summary.ok + doc.summary.skipped).toBe(1500);
    });
  });
});

describe('examctl on a real terminal (util-linux script gives it a pty)', () => {
  // util-linux's script (-qc); macOS's BSD script takes other arguments, Windows has none.
  const hasScript = process.platform === 'linux' && existsSync('/usr/bin/script');

  /**
   * Runs `args` under a pty; once `waitFor` is on screen, types `keys` (or calls it); the exit
   * status and the screen.
   */
  async function onTerminal(
    dir: string,
    args: string[],
    waitFor: RegExp,
    keys: string | (() => void),
    withEnv = false,
  ): Promise<{ status: string; screen: string }> {
    const { spawn } = await import('node:child_process');
    const { BIN } = await import('../support/cli.js');
    // withEnv: args[0] is VAR=value pairs for the command, args[1] is '--'.
    const run = withEnv
      ? `env ${args[0]} "${process.execPath}" "${BIN}" ${args.slice(2).join(' ')}`
      : `"${process.execPath}" "${BIN}" ${args.join(' ')}`;
    // script's pty reports 0 columns, which examctl takes for no terminal to draw on: give it a size.
    const command = `stty cols 100 rows 30; ${run}; echo "status=$?"`;
    // A plain environment: the test runner's own (FORCE_COLOR, CI...) would decide colours and prompts.
    const child = spawn('script', ['-qc', command, '/dev/null'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, EXAMCTL_STORE: join(dir, 'store'), TERM: 'xterm' },
    });
    let screen = '';
    let sent = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      screen += chunk;
      if (!sent && waitFor.test(screen)) {
        sent = true;
        if (typeof keys === 'function') keys();
        else child.stdin.write(keys);
      }
    });
    await new Promise((resolve) => child.on('close', resolve));
    return { status: /status=(\d+)/.exec(screen)?.[1] ?? '', screen };
  }

  it.skipIf(!hasScript)(
    'the progress line: coloured by default, no colour with NO_COLOR, none at all on a dumb terminal',
    async () => {
      await inTempDir(async (dir) => {
        await writeFile(
          join(dir, 'users.csv'),
          'ExternalId,FirstName,LastName,Email,Role\np-1,F,L,p1@example.test,Candidate\np-2,F,L,p2@example.test,Candidate\n',
        );
        // Slow by construction: the server holds every answer until the screen shows what the test
        // waits for, so the run lasts past the line's delay on a machine of any speed.
        const server = await startFaultServer();
        try {
          const run = async (env: string, waitFor: RegExp): Promise<{ status: string; screen: string }> => {
            let release = (): void => undefined;
            server.fallback = { ...okEnvelope(null), hold: new Promise<void>((resolve) => (release = resolve)) };
            const target = `EXAMCTL_TOKEN=dev-token EXAMCTL_BASE_URL=${server.url}`;
            return onTerminal(
              dir,
              [`${env} ${target}`, '--', '--yes', 'user', 'sync', '--file', 'users.csv'],
              waitFor,
              () => release(),
              true,
            );
          };
          // A frame, in colour or not, then the line's text.
          const frame = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏](\u001b\[39m)? user sync/;
          const coloured = await run('TERM=xterm', frame);
          const plain = await run('NO_COLOR=1 TERM=xterm', frame);
          // A dumb terminal: held until the plain periodic line (after ~10 s), long past the spinner's delay.
          const dumb = await run('TERM=dumb', /user sync: 0\/2 /);
          for (const ended of [coloured, plain, dumb]) expect(ended.status).toBe('0');
          // The spinner's frame is drawn in cyan unless NO_COLOR says otherwise.
          expect(coloured.screen).toMatch(/\u001b\[36m[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
          expect(plain.screen).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] user sync/);
          expect(plain.screen).not.toMatch(/\u001b\[3\dm/);
          // A dumb terminal gets no line redrawn with cursor controls at all, only the plain line.
          expect(dumb.screen).toMatch(/user sync: 0\/2 ok 0 failed 0/);
          expect(dumb.screen).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
          expect(dumb.screen).not.toContain('\u001b[?25l');
        } finally {
          await server.close();
        }
      });
    },
  );

  it.skipIf(!hasScript)('Ctrl-D at a prompt is an interrupt: exit 130, nothing sent, not exit 0', async () => {
    await inTempDir(async (dir) => {
      const ended = await onTerminal(dir, ['user', 'sync'], /External id/, '\x04');
      expect(ended.status).toBe('130');
      expect(ended.screen).toMatch(/interrupted at a prompt/);
      expect(existsSync(join(dir, 'store'))).toBe(false);
    });
  });

  it.skipIf(!hasScript)(
    "Ctrl-D or Ctrl-C at login's token prompt is said once (the prompt library's own exit is not said again), as nothing changed: login sends nothing",
    async () => {
      for (const key of ['\x04', '\x03']) {
        await inTempDir(async (dir) => {
          const args = ['login', '--profile', 'p', '--base-url', 'http://127.0.0.1:9'];
          const ended = await onTerminal(dir, args, /EAPI token for/, key);
          expect(ended.status).toBe('130');
          expect(ended.screen.match(/E1302/g)).toHaveLength(1);
          expect(ended.screen).toContain('nothing was changed');
          expect(ended.screen).not.toContain('nothing was sent');
        });
      }
    },
  );
});

describe('a workbook on stdout that cannot be written', () => {
  it.skipIf(!existsSync('/dev/full'))('template -o xlsx > /dev/full exits 141, not 0, and says why', async () => {
    await inTempDir(async (dir) => {
      const { execFile } = await import('node:child_process');
      const { BIN } = await import('../support/cli.js');
      const ended = await new Promise<{ stdout: string; stderr: string }>((resolve) =>
        execFile(
          'bash',
          ['-c', `"${process.execPath}" "${BIN}" template users -o xlsx > /dev/full; echo "status=$?"`],
          { cwd: dir },
          (_error, stdout, stderr) => resolve({ stdout, stderr }),
        ),
      );
      expect(ended.stdout.trim()).toBe('status=141');
      expectCoded(ended.stderr, 'E1410', 'standard output', 'ENOSPC');
    });
  });
});
