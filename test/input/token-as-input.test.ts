import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

/**
 * A token file given as --file by mistake (issue 60, "errors that quote nothing of a file that may
 * hold a secret"): its one line is the CSV's header, and a header of one cell that names no field,
 * nor anything like one, is not quoted. A one-cell header that looks like a column keeps its hint.
 */

const TOKEN = 'eapi_9f8e7d6c5b4a39281706f5e4d3c2b1a0';

async function dryRun(dir: string, file: string): Promise<{ code: number; out: string }> {
  const io = testDeps(dir);
  const code = await runCli(['user', 'sync', '--file', file, '--dry-run', '--json'], io.deps);
  return { code, out: io.stdout.text + io.stderr.text };
}

describe('a one-cell header that names no field', () => {
  it('a token file as the users file: exit 2, what is expected said, no piece of the token in any sink', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'token.txt'), `${TOKEN}\n`);
      const run = await dryRun(dir, 'token.txt');
      expect(run.code).toBe(2);
      expectCoded(run.out, 'E2100', 'token.txt:1: ', '(not shown', 'ExternalId');
      for (let i = 0; i + 6 <= TOKEN.length; i++) expect(run.out).not.toContain(TOKEN.slice(i, i + 6));
    });
  });

  it('a one-cell header like a column is quoted with its hint', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'ids.csv'), 'Student ID\ns-1\n');
      expect((await dryRun(dir, 'ids.csv')).out).toContain('unknown column: \\"Student ID\\" (likely ExternalId)');
      await writeFile(join(dir, 'typo.csv'), 'ExternalIdd\ns-1\n');
      expect((await dryRun(dir, 'typo.csv')).out).toContain('(did you mean \\"ExternalId\\"?)');
    });
  });
});
