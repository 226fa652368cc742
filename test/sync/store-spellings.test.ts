import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { examctlStep as examctl } from '../support/in-process.js';
import { compact, memoryDir, memoryFile, readMemory } from '../../src/sync/memory-files.js';
import { targetIdentity } from '../../src/report/run-report.js';
import { assertDocumentTarget, documentText, readDocument, summedText } from '../../src/sync/memory-document.js';

/**
 * One store, one sync memory, however its path is written (docs/sync.md, "The sync memory"):
 * a store reached through a link is its real path; a memory an older examctl kept under another
 * spelling is taken in; two memories of one store instance are said, and refused by a run that
 * disables from one (trial 14, f02).
 */

const NIGHTLY = ['--changed-only', '--disable-missing', '--max-disable', '100%', '--json'];
let dir: string;
let env: Record<string, string>;
const syncDir = () => join(dir, 'state', 'synced');
const users = (ids: string[]) => JSON.stringify(ids.map((id) => ({ ExternalId: id, FirstName: 'S', LastName: id, Role: 'Candidate', Hierarchies: [] })));
const night = (store: string, ids: string[], ...flags: string[]) => {
  writeFileSync(join(dir, 'users.json'), users(ids));
  return examctl(['user', 'sync', '--file', 'users.json', '--target', 'local', '--store', store, ...NIGHTLY, ...flags], dir, env);
};
const actions = (stdout: string) => (JSON.parse(stdout) as { items: { id: string; action?: string }[] }).items.map((item) => `${item.id} ${item.action}`);
const real = () => ({ kind: 'local' as const, store: join(dir, 'real', 's') });
const alias = () => ({ kind: 'local' as const, store: join(dir, 'alias', 's') });

/** The memory moved where an older examctl kept it for `--store alias/s`: the link's spelling, in its own directory. */
async function asOlderExamctlKeptIt(move = true): Promise<void> {
  const contents = await readMemory(memoryFile(syncDir(), real(), 'users'), 'users');
  mkdirSync(memoryDir(syncDir(), alias()), { mode: 0o700 });
  await compact({ ...contents, file: memoryFile(syncDir(), alias(), 'users') }, alias());
  if (move) await rm(memoryDir(syncDir(), real()), { recursive: true });
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-spellings-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'state', 'runs') };
  mkdirSync(join(dir, 'real'));
  symlinkSync('real', join(dir, 'alias'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a store reached through a link', () => {
  it('is its real path: one memory, and a leaver sent under either spelling is disabled', async () => {
    expect((await night('real/s', ['a', 'b'])).code).toBe(0);
    const second = await night('alias/s', ['a', 'b', 'c', 'd']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`local store ${real().store}`);
    const third = await night('real/s', ['a', 'd']);
    expect(third.code, third.stderr).toBe(0);
    expect(actions(third.stdout)).toEqual(['a unchanged', 'd unchanged', 'b disabled', 'c disabled']);
    expect(await readdir(syncDir())).toEqual([memoryDir(syncDir(), real()).slice(syncDir().length + 1)]);
  });

  it('a memory an older examctl kept under the link\'s spelling is taken in, said (a dry run says that a real run takes it in, and moves nothing)', async () => {
    expect((await night('alias/s', ['a', 'b', 'c'])).code).toBe(0);
    await asOlderExamctlKeptIt();
    const dry = await night('real/s', ['a', 'b'], '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(`note: a real run takes in ${memoryFile(syncDir(), alias(), 'users')} (local store ${alias().store}): this store's memory`);
    expect(dry.stdout).not.toContain('disabled');
    expect(existsSync(memoryFile(syncDir(), alias(), 'users'))).toBe(true);
    const taken = await night('alias/s', ['a', 'b'], '--require-memory');
    expect(taken.code, taken.stderr).toBe(0);
    expect(taken.stderr).toContain(`note: took in ${memoryFile(syncDir(), alias(), 'users')} (local store ${alias().store}): this store's memory`);
    expect(actions(taken.stdout)).toEqual(['a unchanged', 'b unchanged', 'c disabled']);
    expect((await readMemory(memoryFile(syncDir(), real(), 'users'), 'users', real())).entries.size).toBe(3);
    const again = await night('real/s', ['a', 'b']);
    expect(again.stderr).not.toContain('took in');
    expect(actions(again.stdout)).toEqual(['a unchanged', 'b unchanged']);
  });

  it('two memories of one store (kept apart by an older examctl): said in every sink; a run that disables from one is refused naming both', async () => {
    expect((await night('alias/s', ['a', 'b', 'c'])).code).toBe(0);
    await asOlderExamctlKeptIt(false);
    const refused = await night('real/s', ['a']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('refused, nothing sent: another memory of this store: ');
    expect(refused.stderr).toContain(`${memoryFile(syncDir(), alias(), 'users')} (local store ${alias().store}), besides ${memoryFile(syncDir(), real(), 'users')}`);
    expect(refused.stderr).toContain("keep one: synced forget this one, or remove the other's directory");
    writeFileSync(join(dir, 'users.json'), users(['a']));
    const changedOnly = await examctl(['user', 'sync', '--file', 'users.json', '--target', 'local', '--store', 'real/s', '--changed-only', '--json'], dir, env);
    expect(changedOnly.code, changedOnly.stderr).toBe(0);
    expect(changedOnly.stderr).toContain('warning: another memory of this store: ');
    expect((JSON.parse(changedOnly.stdout) as { syncMemory: { otherMemories: string[] } }).syncMemory.otherMemories).toEqual([`${memoryFile(syncDir(), alias(), 'users')} (local store ${alias().store})`]);
  });
});

describe('a store path on Windows', () => {
  it('is compared as Windows compares paths: a drive letter or folder in another case is the same store', () => {
    const upper = { kind: 'local' as const, store: 'Z:\\tmp\\Exams\\s' };
    const lower = { kind: 'local' as const, store: 'z:\\TMP\\exams\\s' };
    expect(targetIdentity(upper, 'win32')).toBe(targetIdentity(lower, 'win32'));
    expect(targetIdentity(upper, 'linux')).not.toBe(targetIdentity(lower, 'linux'));
  });

  it('an export is judged by the identity this examctl gives its target, not the one written in it (an older examctl kept the letter case)', async () => {
    const target = { kind: 'local' as const, store: join(dir, 'real', 's') };
    expect((await night('real/s', ['a'])).code).toBe(0);
    const memories = new Map([['users' as const, await readMemory(memoryFile(syncDir(), target, 'users'), 'users')]]);
    const { sha256: _sum, ...body } = JSON.parse(documentText(target, memories, 1)) as Record<string, unknown>;
    const written = summedText({ ...body, identity: `local ${target.store.toUpperCase()}` });
    const document = readDocument(written, 'old.json');
    expect(document.identity).toBe(targetIdentity(target));
    expect(() => assertDocumentTarget(document, 'old.json', target)).not.toThrow();
  });
});
