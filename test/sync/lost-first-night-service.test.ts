import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { stateServerPerTest } from '../support/state-server.js';

/**
 * A first night on a state service whose end was never stored (its runner lost, or the store
 * failed): only its intents lie beside the memory's address. `synced show` and `synced export`
 * take them in as the next night does (docs/sync.md, "Written ahead"), found by a trial.
 */
const server = stateServerPerTest();

async function cli(dir: string, argv: string[], env: Record<string, string>) {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_LOCK_TIMEOUT_MS: '0', ...env });
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

describe('a lost first night on a state service', () => {
  it('synced show and synced export take in what it wrote ahead', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_SYNC_DIR: server.address('first') };
      writeFileSync(
        join(dir, 'users.csv'),
        'ExternalId,FirstName,LastName,Email,UserName,Role\nlf-1,Ann,Lee,lf1@example.test,lf1,Candidate\nlf-2,Bo,Ng,lf2@example.test,lf2,Candidate\n',
      );
      // Its intents go; the memory's own store (the POST to the address itself, after them) fails.
      server.onRequest((request) => {
        if (request.method === 'POST' && !request.path.includes('-intents-')) server.fail('POST', 500, 1);
      });
      const night = await cli(
        dir,
        ['user', 'sync', '--file', 'users.csv', '--target', 'local', '--store', 'store', '--json'],
        env,
      );
      expect(night.code, night.stderr).toBe(3);
      server.onRequest(undefined);
      expect(server.requests.some((request) => request.method === 'POST' && request.path.includes('-intents-'))).toBe(
        true,
      );
      const shown = await cli(dir, ['synced', 'show', '--json'], env);
      expect(shown.code, shown.stderr).toBe(0);
      expect(JSON.parse(shown.stdout)).toMatchObject({ memories: [{ kind: 'users', remembered: 2 }] });
      const exported = await cli(
        dir,
        ['synced', 'export', '--out', 'memory.json', '--target', 'local', '--store', 'store'],
        env,
      );
      expect(exported.code, exported.stderr).toBe(0);
      const { readFileSync } = await import('node:fs');
      const users = JSON.parse(readFileSync(join(dir, 'memory.json'), 'utf8')).memories.users as string;
      expect(users).toContain('"lf-1"');
      expect(users).toContain('"lf-2"');
    }));
});
