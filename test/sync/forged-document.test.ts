/**
 * A sync memory document whose outer target (the document's) and inner target (its memory's
 * first line) disagree is refused, exit 2, each target named as what it is: the memory's as
 * the memory's, the document's as the document's, never the run's (issue 60: they were swapped).
 */
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { hash } from 'node:crypto';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { canonicalJson } from '../../src/sync/memory-lines.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

async function cli(dir: string, argv: string[]) {
  const io = testDeps(dir);
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

describe('synced import of a document whose two targets disagree', () => {
  it('names the memory’s target and the document’s, each as what it is; nothing written', () =>
    withTempDir(async (dir) => {
      await copyFile(join(__dirname, '../../fixtures/users.csv'), join(dir, 'users.csv'));
      const a = ['--target', 'local', '--store', 'a'];
      expect((await cli(dir, ['user', 'sync', '--file', 'users.csv', ...a])).code).toBe(0);
      expect((await cli(dir, ['synced', 'export', ...a, '--out', 'm.json'])).code).toBe(0);
      // The forger moves the outer target to store b and makes the checksum hold again.
      const { sha256: _old, ...body } = JSON.parse(await readFile(join(dir, 'm.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      const forged = { ...body, identity: `local ${join(dir, 'b')}`, target: { kind: 'local', store: join(dir, 'b') } };
      await writeFile(
        join(dir, 'forged.json'),
        JSON.stringify({ ...forged, sha256: hash('sha256', canonicalJson(forged), 'hex') }),
      );
      const before = await readFile(join(dir, 'm.json'), 'utf8');
      for (const store of ['a', 'b']) {
        const imported = await cli(dir, ['synced', 'import', 'forged.json', '--target', 'local', '--store', store]);
        expect(imported.code).toBe(2);
        expectCoded(imported.stderr, 'E2507', 'forged.json: ', `local ${join(dir, 'a')}`, `local ${join(dir, 'b')}`);
        expect(imported.stderr).not.toContain("this run's target");
      }
      expect((await cli(dir, ['synced', 'export', ...a, '--out', 'after.json'])).code).toBe(0);
      expect(JSON.parse(await readFile(join(dir, 'after.json'), 'utf8'))).toMatchObject({
        newestRun: (JSON.parse(before) as { newestRun: string }).newestRun,
      });
    }));
});
