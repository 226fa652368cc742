/**
 * `local init` (context/local-init.ts): a fresh token only for a real store of the demo world, said on stderr
 * without --json and only in the document with it; a dry run makes none.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { examctlStep } from '../support/in-process.js';
import { withTempDir } from '../support/temp-dir.js';

const TOKEN = /shown only now \(the store keeps its digest\): ([\w-]{32})\n/;

describe('local init', () => {
  it('a store of the demo world: its fresh token said once, or only in the --json document', () =>
    withTempDir(async (dir) => {
      const said = await examctlStep(['--store', join(dir, 'a'), 'local', 'init'], dir);
      expect(said.code).toBe(0);
      expect(said.stdout).toBe('');
      expect(said.stderr).toMatch(TOKEN);
      const json = await examctlStep(['--store', join(dir, 'b'), '--json', 'local', 'init'], dir);
      expect(json.code).toBe(0);
      const document = JSON.parse(json.stdout) as { token: string; dryRun: boolean; target: object };
      expect(document.token).toMatch(/^[\w-]{32}$/);
      expect(document.token).not.toBe(said.stderr.match(TOKEN)?.[1]);
      expect(document).toMatchObject({ dryRun: false, target: { kind: 'local', store: join(dir, 'b') } });
      expect(json.stderr).not.toContain(document.token);
    }));

  it('a dry run makes no token', () =>
    withTempDir(async (dir) => {
      const dry = await examctlStep(['--store', join(dir, 'a'), '--json', '--dry-run', 'local', 'init'], dir);
      expect(dry.code).toBe(0);
      expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true });
      expect(JSON.parse(dry.stdout).token).toBeUndefined();
      expect(dry.stderr).toContain(`no store created at ${join(dir, 'a')}`);
    }));
});
