import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { json, startHostileServer, type HostileServer } from '../support/hostile-server.js';

/** A 4xx answer whose body says `Success: true` (seen by an outside fuzz pass): never a success. */
let server: HostileServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a 4xx that says Success: true', () => {
  it.each([400, 404, 409, 422])(
    'HTTP %i: the record is failed, the run exits 1, the report names the status',
    async (status) => {
      server = await startHostileServer((_request, res) =>
        json(res, status, {
          Content: { User: { ExternalId: 'u-1', FirstName: 'Ann', LastName: 'Lee' }, GroupErrors: [] },
          Success: true,
          Errors: null,
        }),
      );
      await withTempDir(async (dir) => {
        await writeFile(
          join(dir, 'users.json'),
          JSON.stringify([{ ExternalId: 'u-1', FirstName: 'Ann', LastName: 'Lee', Role: 'Candidate' }]),
        );
        const io = testDeps(dir, {}, { EXAMCTL_TOKEN: 'fuzz-token-0123456789', EXAMCTL_RUNS_DIR: join(dir, 'runs') });
        const code = await runCli(
          [
            '--target',
            'remote',
            '--base-url',
            server!.url,
            '--yes',
            '--json',
            'user',
            'sync',
            '--file',
            join(dir, 'users.json'),
          ],
          io.deps,
        );
        expect(code).toBe(1);
        const report = JSON.parse(io.stdout.text) as { items: { status: string; errors: { message: string }[] }[] };
        expect(report.items.map((item) => item.status)).toEqual(['failed']);
        expect(report.items[0]?.errors[0]?.message).toContain(`HTTP ${status} `);
        expect(report.items[0]?.errors[0]?.message).toContain('Success: true');
      });
    },
  );

  it('a 4xx with Success: true and its own errors keeps them', async () => {
    server = await startHostileServer((_request, res) =>
      json(res, 400, { Content: null, Success: true, Errors: [{ Code: 209, Message: 'Email not valid' }] }),
    );
    await withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'users.json'),
        JSON.stringify([{ ExternalId: 'u-1', FirstName: 'Ann', LastName: 'Lee', Role: 'Candidate' }]),
      );
      const io = testDeps(dir, {}, { EXAMCTL_TOKEN: 'fuzz-token-0123456789', EXAMCTL_RUNS_DIR: join(dir, 'runs') });
      const code = await runCli(
        [
          '--target',
          'remote',
          '--base-url',
          server!.url,
          '--yes',
          '--json',
          'user',
          'sync',
          '--file',
          join(dir, 'users.json'),
        ],
        io.deps,
      );
      expect(code).toBe(1);
      const report = JSON.parse(io.stdout.text) as { items: { status: string; errors: { code: number | null }[] }[] };
      expect(report.items[0]).toMatchObject({ status: 'failed', errors: [{ code: 209 }] });
    });
  });
});
