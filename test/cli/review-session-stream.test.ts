import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BIN } from '../support/cli.js';
import { childEnv } from '../support/child-env.js';
import { json, startHostileServer, type HostileServer } from '../support/hostile-server.js';
import { withTempDir } from '../support/temp-dir.js';
import { testDeps } from './helpers.js';
import { runCli } from '../../src/cli/run-cli.js';

/**
 * Issue 60, item 4: `review-session show` streams its results session by session, so memory
 * stays bounded whatever the number of sessions and results; and an id that a URL normaliser
 * would read as a path step (`.`, `..`) never goes out with the token.
 */

const TOKEN = 'stream-test-token-0123456789';
const SESSIONS = 1000;
const RESULTS = 1000;
let server: HostileServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** One session's answer: the same thousand small results under its own id, made once. */
function sessionAnswers(): (id: string) => string {
  const results = JSON.stringify(
    Array.from({ length: RESULTS }, (_, i) => ({
      CandidateExtId: `c-${i}`,
      PassedStatus: 'SATISFACTORY',
      Score: i % 100,
    })),
  );
  return (id) => `{"Success":true,"Content":{"ExternalId":${JSON.stringify(id)},"Results":${results}},"Errors":null}`;
}

describe('review-session show streams the results (issue 60)', () => {
  // The process and its heap limit are the subject: spawned.
  it('a million results (1,000 sessions of 1,000) go to csv inside a 300 MB heap, every row written', async () => {
    const answer = sessionAnswers();
    server = await startHostileServer((request, res) =>
      json(res, 200, answer(decodeURIComponent(request.url.replace(/^.*\//, '')))),
    );
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'ids.txt'), Array.from({ length: SESSIONS }, (_, i) => `RS-${i}`).join('\n'));
      const argv = [
        '--max-old-space-size=300',
        BIN,
        '--target',
        'remote',
        '--base-url',
        server!.url,
        'review-session',
        'show',
        '--file',
        'ids.txt',
        '-o',
        'csv',
        '--no-bom',
      ];
      const child = spawn(process.execPath, argv, {
        cwd: dir,
        env: { ...childEnv(dir), EXAMCTL_TOKEN: TOKEN },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // Counted as they come: the test holds no more of the output than the command does.
      let lines = 0;
      let last = '';
      child.stdout.on('data', (chunk: Buffer) => {
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
        last = chunk.subarray(Math.max(0, chunk.length - 200)).toString('utf8');
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect([code, stderr]).toEqual([
        0,
        `target: remote ${server!.url} (--base-url), token from EXAMCTL_TOKEN\n1,000 review sessions from remote ${server!.url}: 1,000 read (1,000,000 results)\n`,
      ]);
      expect(lines).toBe(SESSIONS * RESULTS + 1);
      expect(last.trimEnd().split('\r\n').at(-1)).toMatch(/^RS-999,c-999,/);
      expect(server!.requests).toHaveLength(SESSIONS);
    });
  }, 180_000);
});

describe('an id that is a path step (issue 60)', () => {
  it('. and .. are refused before anything is sent, exit 2, for review-session show and invigilators remove', async () => {
    server = await startHostileServer((_request, res) =>
      json(res, 200, { Success: true, Content: { ExternalId: 'RS', Results: [] }, Errors: null }),
    );
    await withTempDir(async (dir) => {
      const cli = async (argv: string[]) => {
        const io = testDeps(dir, {}, { EXAMCTL_TOKEN: TOKEN });
        const code = await runCli(['--target', 'remote', '--base-url', server!.url, ...argv], io.deps);
        return { code, stdout: io.stdout.text, stderr: io.stderr.text };
      };
      for (const id of ['..', '.']) {
        const shown = await cli(['review-session', 'show', 'RS-1', id, '-o', 'csv']);
        expect([shown.code, shown.stdout, shown.stderr]).toEqual([
          2,
          '',
          `target: remote ${server!.url} (--base-url), token from EXAMCTL_TOKEN\nexamctl: E2000: review-session show: the review session id "${id}" cannot be sent in a URL path (a proxy would read it as a step to another path): nothing was sent\n`,
        ]);
        const removed = await cli(['invigilators', 'remove', id, 'u-1', '--yes']);
        expect(removed.code).toBe(2);
        expect(removed.stderr).toContain(`the schedule id "${id}" cannot be sent in a URL path`);
      }
      expect(server!.requests).toEqual([]);
      // Dots within an id are an id's own: sent, encoded as one segment.
      await cli(['review-session', 'show', '...', '--json']);
      expect(server!.requests.map((request) => request.url)).toEqual([
        '/api/v1/integrations/external/review-sessions/...',
      ]);
    });
  });
});
