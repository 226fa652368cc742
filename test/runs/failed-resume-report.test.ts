import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { startStateServer, type StateServer } from '../support/state-server.js';
import { okEnvelope, startFaultServer, type FaultServer } from '../support/fault-server.js';

/**
 * A resume refused before it sends (here: the state service locked by another run) leaves the
 * run's --report file as the run wrote it; it no longer becomes a report of nothing (docs/runs.md,
 * "runs resume").
 */

let state: StateServer;
let api: FaultServer;

beforeEach(async () => {
  state = await startStateServer();
  api = await startFaultServer();
});

afterEach(async () => {
  await api.close();
  await state.close();
});

async function cli(dir: string, argv: string[]) {
  const io = testDeps(
    dir,
    {},
    {
      EXAMCTL_RUNS_DIR: join(dir, 'runs'),
      EXAMCTL_LOCK_TIMEOUT_MS: '0',
      EXAMCTL_SYNC_DIR: state.address('n'),
      EXAMCTL_TOKEN: 'dev-token',
    },
  );
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

it("a resume refused for a locked state service leaves the run's report as it was", () =>
  withTempDir(async (dir) => {
    const ids = Array.from({ length: 5 }, (_, i) => `rr-${i}`);
    writeFileSync(
      join(dir, 'users.csv'),
      `ExternalId,FirstName,LastName,Email,UserName,Role\n${ids.map((id) => `${id},F,L,${id}@example.test,n-${id},Candidate`).join('\n')}\n`,
    );
    // The platform acknowledges two users, then refuses the token: the run stops (exit 3), resumable.
    let answered = 0;
    api.fallback = (request) => {
      answered += 1;
      if (answered > 2)
        return {
          status: 401,
          body: { Content: null, Success: false, Errors: [{ Code: 401, Message: 'token revoked' }] },
        };
      return okEnvelope({
        User: { ExternalId: (JSON.parse(request.body) as { ExternalId: string }).ExternalId },
        GroupErrors: [],
      });
    };
    const remote = [
      '--target',
      'remote',
      '--base-url',
      api.url,
      '--allow-insecure-http',
      '--yes',
      '--concurrency',
      '1',
    ];
    const stopped = await cli(dir, [
      'user',
      'sync',
      '--file',
      'users.csv',
      ...remote,
      '--changed-only',
      '--report',
      'report.csv',
    ]);
    expect(stopped.code, stopped.stderr).toBe(3);
    const report = readFileSync(join(dir, 'report.csv'), 'utf8');
    expect(report).toMatch(/rr-0,.*ok/);

    state.locks.set('/state/n', {
      ID: 'other',
      Operation: 'examctl user sync',
      Who: 'ci@another-host.example',
      Created: '2026-11-21T02:00:00Z',
    });
    const refused = await cli(dir, ['runs', 'resume', '--base-url', api.url, '--allow-insecure-http', '--yes']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('is locked by ci@another-host.example');
    expect(readFileSync(join(dir, 'report.csv'), 'utf8')).toBe(report);
  }));
