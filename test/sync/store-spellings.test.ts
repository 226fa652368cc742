import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded, failedCheck } from '../support/coded-message.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { PINNED_NOW, ROOT } from '../support/cli.js';
import { childEnv } from '../support/child-env.js';
import { StringSink } from '../support/string-sink.js';
import { runCli } from '../../src/cli/run-cli.js';
import { stateServerPerTest } from '../support/state-server.js';
import { compact, memoryFile, readMemory } from '../../src/sync/memory-files.js';
import { memoryDir } from '../../src/context/target.js';
import { targetIdentity } from '../../src/report/run-report.js';
import { headerLine } from '../../src/sync/memory-lines.js';
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
const users = (ids: string[]) =>
  JSON.stringify(
    ids.map((id) => ({ ExternalId: id, FirstName: 'S', LastName: id, Role: 'Candidate', Hierarchies: [] })),
  );
const night = (store: string, ids: string[], ...flags: string[]) => {
  writeFileSync(join(dir, 'users.json'), users(ids));
  return examctl(
    ['user', 'sync', '--file', 'users.json', '--target', 'local', '--store', store, ...NIGHTLY, ...flags],
    dir,
    env,
  );
};
const actions = (stdout: string) =>
  (JSON.parse(stdout) as { items: { id: string; action?: string }[] }).items.map((item) => `${item.id} ${item.action}`);
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

  it("a memory an older examctl kept under the link's spelling is taken in, said (a dry run says that a real run takes it in, and moves nothing)", async () => {
    expect((await night('alias/s', ['a', 'b', 'c'])).code).toBe(0);
    await asOlderExamctlKeptIt();
    // The dry run reads the memory the real run takes in (trial17 f04: it read none, planned no leaver, and --require-memory refused it).
    const dry = await night('real/s', ['a', 'b'], '--dry-run', '--require-memory');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(
      `note: a real run takes in ${memoryFile(syncDir(), alias(), 'users')} (local store ${alias().store}): this store's memory`,
    );
    expect(actions(dry.stdout)).toEqual(['a unchanged', 'b unchanged', 'c disabled']);
    expect(existsSync(memoryFile(syncDir(), alias(), 'users'))).toBe(true);
    expect(existsSync(memoryDir(syncDir(), real()))).toBe(false);
    const taken = await night('alias/s', ['a', 'b'], '--require-memory');
    expect(taken.code, taken.stderr).toBe(0);
    expect(taken.stderr).toContain(
      `note: took in ${memoryFile(syncDir(), alias(), 'users')} (local store ${alias().store}): this store's memory`,
    );
    expect(actions(taken.stdout)).toEqual(['a unchanged', 'b unchanged', 'c disabled']);
    expect((await readMemory(memoryFile(syncDir(), real(), 'users'), 'users', real())).entries.size).toBe(3);
    const again = await night('real/s', ['a', 'b']);
    expect(again.stderr).not.toContain('took in');
    expect(actions(again.stdout)).toEqual(['a unchanged', 'b unchanged']);
  });

  it('a memory of the store holding no id (the header a refused run left) never counts (trial17 f01)', async () => {
    expect((await night('alias/s', ['a', 'b', 'c'])).code).toBe(0);
    mkdirSync(memoryDir(syncDir(), alias()), { mode: 0o700 });
    writeFileSync(memoryFile(syncDir(), alias(), 'users'), headerLine('users', alias()), { mode: 0o600 });
    const next = await night('real/s', ['a', 'b']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toContain('another memory');
    expect(actions(next.stdout)).toEqual(['a unchanged', 'b unchanged', 'c disabled']);
  });

  it('two memories of one store (kept apart by an older examctl): said in every sink; a run that disables from one is refused naming both', async () => {
    expect((await night('alias/s', ['a', 'b', 'c'])).code).toBe(0);
    await asOlderExamctlKeptIt(false);
    const refused = await night('real/s', ['a']);
    expect(refused.code).toBe(2);
    expectCoded(refused.stderr, 'E2000', memoryFile(syncDir(), alias(), 'users'));
    expect(refused.stderr).toContain(
      `${memoryFile(syncDir(), alias(), 'users')} (local store ${alias().store}), besides ${memoryFile(syncDir(), real(), 'users')}`,
    );
    expect(refused.stderr).toContain('synced forget');
    writeFileSync(join(dir, 'users.json'), users(['a']));
    const changedOnly = await examctl(
      ['user', 'sync', '--file', 'users.json', '--target', 'local', '--store', 'real/s', '--changed-only', '--json'],
      dir,
      env,
    );
    expect(changedOnly.code, changedOnly.stderr).toBe(0);
    expect(changedOnly.stderr).toContain('warning: another memory of this store: ');
    expect(
      (JSON.parse(changedOnly.stdout) as { syncMemory: { otherMemories: string[] } }).syncMemory.otherMemories,
    ).toEqual([`${memoryFile(syncDir(), alias(), 'users')} (local store ${alias().store})`]);
  });
});

/** Whether this machine lets the suite bind-mount (root on Linux): one directory at two paths no link explains. */
const bindMount = (from: string, to: string): boolean =>
  spawnSync('mount', ['--bind', from, to], { stdio: 'ignore' }).status === 0;

describe('a store reached through a bind mount (trial24 f01)', () => {
  it('is the same store: one memory, taken in under either path, and a leaver sent under one is disabled from the other', async (context) => {
    expect((await night('real/s', ['a', 'b'])).code).toBe(0);
    mkdirSync(join(dir, 'mnt'));
    if (process.platform !== 'linux' || !bindMount(join(dir, 'real'), join(dir, 'mnt'))) return context.skip();
    try {
      const second = await night('mnt/s', ['a', 'b', 'c']);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toContain('note: took in');
      const third = await night('real/s', ['a'], '--allow-disable-recent');
      expect(third.code, third.stderr).toBe(0);
      expect(actions(third.stdout)).toEqual(['a unchanged', 'b disabled', 'c disabled']);
    } finally {
      spawnSync('umount', [join(dir, 'mnt')]);
    }
  });
});

describe('a store copied or moved: its heads go with it (trial17 f01, f02, f03)', () => {
  it("a `cp -a` copy's memory is the copy's own: neither refuses the other's nights, and each disables its own leavers", async () => {
    expect((await night('real/s', ['a', 'b', 'c'])).code).toBe(0);
    cpSync(join(dir, 'real', 's'), join(dir, 'copy'), { recursive: true });
    const copy = await night('copy', ['a', 'b']);
    expect(copy.code, copy.stderr).toBe(0);
    expect(copy.stderr).not.toContain('another memory');
    const own = await night('real/s', ['a', 'b']);
    expect(own.code, own.stderr).toBe(0);
    expect(own.stderr).not.toContain('another memory');
    expect(actions(own.stdout)).toEqual(['a unchanged', 'b unchanged', 'c disabled']);
  });

  it("a copy whose original is gone: the original's memory, beside the copy's own, is said, not refused", async () => {
    expect((await night('real/s', ['a', 'b', 'c'])).code).toBe(0);
    cpSync(join(dir, 'real', 's'), join(dir, 'copy'), { recursive: true });
    expect((await night('copy', ['a', 'b', 'c'])).code).toBe(0);
    await rm(join(dir, 'real', 's'), { recursive: true });
    const copy = await night('copy', ['a', 'b']);
    expect(copy.code, copy.stderr).toBe(0);
    expect(copy.stderr).toContain(
      `warning: another memory of this store: ${memoryFile(syncDir(), real(), 'users')} (local store ${real().store})`,
    );
    expect(actions(copy.stdout)).toEqual(['a unchanged', 'b unchanged', 'c disabled']);
  });

  it('a store moved with `mv`: its memory under the old path is taken in by the first night (nothing holds it there); an export of it imports', async () => {
    expect((await night('real/s', ['a', 'b', 'c'])).code).toBe(0);
    expect(
      (await examctl(['synced', 'export', '--target', 'local', '--store', 'real/s', '--out', 'kept.json'], dir, env))
        .code,
    ).toBe(0);
    renameSync(join(dir, 'real', 's'), join(dir, 'moved'));
    const moved = await night('moved', ['a', 'b']);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stderr).toContain(
      `note: took in ${memoryFile(syncDir(), real(), 'users')} (local store ${real().store}): this store's memory`,
    );
    expect(actions(moved.stdout)).toEqual(['a unchanged', 'b unchanged', 'c disabled']);
    const imported = await examctl(
      ['synced', 'import', 'kept.json', '--target', 'local', '--store', 'moved', '--force'],
      dir,
      env,
    );
    expect(imported.code, imported.stderr).toBe(0);
    const header = await readMemory(
      memoryFile(syncDir(), { kind: 'local', store: join(dir, 'moved') }, 'users'),
      'users',
    );
    expect(header.target).toEqual({ kind: 'local', store: join(dir, 'moved') });
    // A really different store (none of the heads) is still refused the export.
    expect((await night('other', ['a'])).code).toBe(0);
    const other = await examctl(
      ['synced', 'import', 'kept.json', '--target', 'local', '--store', 'other', '--force'],
      dir,
      env,
    );
    expect(other.code).toBe(2);
    expectCoded(other.stderr, 'E2504', `local ${real().store}`, `local ${join(dir, 'other')}`);
  });

  it("a run at the moved store's old path makes no store there and leaves its memory: the moved store's next night disables its leavers (trial35 F03)", async () => {
    expect((await night('real/s', ['a', 'b', 'c'])).code).toBe(0);
    const kept = readFileSync(memoryFile(syncDir(), real(), 'users'), 'utf8');
    renameSync(join(dir, 'real', 's'), join(dir, 'moved'));
    for (const flags of [[], ['--dry-run']]) {
      const old = await night('real/s', ['a', 'b'], ...flags);
      expect(old.code, old.stderr).toBe(flags.length === 0 ? 2 : 0);
    }
    const old = await examctl(
      ['schedule', 'push', '--file', join(ROOT, 'fixtures', 'sittings.csv'), '--target', 'local', '--store', 'real/s'],
      dir,
      env,
    );
    expect(old.code).toBe(2);
    expectCoded(
      old.stderr,
      'E2301',
      real().store,
      memoryDir(syncDir(), real()),
      `examctl local init --store ${real().store}`,
    );
    expect(existsSync(join(dir, 'real', 's'))).toBe(false);
    expect(readFileSync(memoryFile(syncDir(), real(), 'users'), 'utf8')).toBe(kept);
    const moved = await night('moved', ['a', 'b']);
    expect(actions(moved.stdout)).toEqual(['a unchanged', 'b unchanged', 'c disabled']);
    // Nothing names the old path now: a run there makes a store, as on a fresh machine.
    expect((await night('real/s', ['a'])).code).toBe(0);
  });

  describe("what else would make a store at the moved store's old path (trial36 F01, F02, F07)", () => {
    const gone = (): string[] => [real().store, memoryDir(syncDir(), real())];
    beforeEach(async () => {
      expect((await night('real/s', ['a', 'b', 'c'])).code).toBe(0);
      renameSync(join(dir, 'real', 's'), join(dir, 'moved'));
    });

    it('doctor fails the store check with the run\'s refusal, not "the first command that sends creates it"', async () => {
      const doctor = await examctl(['doctor', '--target', 'local', '--store', 'real/s'], dir, env);
      expect(doctor.code).toBe(3);
      failedCheck(doctor.stdout, 'store', 'E2301', ...gone(), 'exit 2', `examctl local init --store ${real().store}`);
    });

    it('local serve refuses as a run does (exit 2), creating nothing; the moved store keeps its memory', async () => {
      const stderr = new StringSink();
      const io = {
        stdout: new StringSink(),
        stderr,
        env: { ...childEnv(dir), EXAMCTL_NOW: PINNED_NOW, ...env },
        now: () => new Date(),
        isTTY: false,
        cwd: dir,
      };
      // Stopped before it starts: a serve that does start stops at once (exit 0).
      expect(
        await runCli(['--store', 'real/s', 'local', 'serve', '--port', '0'], { ...io, signal: AbortSignal.abort() }),
      ).toBe(2);
      expectCoded(stderr.text, 'E2301', ...gone());
      expect(existsSync(join(dir, 'real', 's'))).toBe(false);
      expect(actions((await night('moved', ['a', 'b'])).stdout)).toEqual(['a unchanged', 'b unchanged', 'c disabled']);
    });

    it("local init there sets the memory aside, said: the moved store's next night takes it in", async () => {
      const dry = await examctl(['local', 'init', '--store', 'real/s', '--dry-run'], dir, env);
      expect(dry.stderr).toContain(
        `no store created at ${real().store}; a real one moves the sync memory ${memoryDir(syncDir(), real())} aside`,
      );
      const init = await examctl(['local', 'init', '--store', 'real/s'], dir, env);
      expect(init.code, init.stderr).toBe(0);
      expect(init.stderr).toMatch(
        new RegExp(
          `note: the sync memory ${memoryDir(syncDir(), real())} names a store made here before: moved to ${syncDir()}/[0-9a-f]{16} \\(a store moved from here takes it in\\)`,
        ),
      );
      const there = await night('real/s', ['a']);
      expect(there.code, there.stderr).toBe(0);
      expect(there.stderr).not.toContain('replaced');
      const moved = await night('moved', ['a', 'b']);
      expect(moved.stderr).toContain('note: took in');
      expect(actions(moved.stdout)).toEqual(['a unchanged', 'b unchanged', 'c disabled']);
      // The new store's own memory stays its own.
      expect(actions((await night('real/s', ['a'], '--dry-run')).stdout)).toEqual(['a unchanged']);
    });
  });

  it("an export (or a state service's document) an older examctl made under the link's spelling is the store's: imported, made its own", async () => {
    expect((await night('alias/s', ['a', 'b', 'c'])).code).toBe(0);
    await asOlderExamctlKeptIt();
    const memories = new Map([['users' as const, await readMemory(memoryFile(syncDir(), alias(), 'users'), 'users')]]);
    writeFileSync(join(dir, 'kept.json'), documentText(alias(), memories, 1));
    const document = readDocument(documentText(alias(), memories, 1), 'kept.json');
    await assertDocumentTarget(document, 'kept.json', real());
    expect(document.texts.get('users')).toContain(JSON.stringify(real()).slice(1, -1));
    expect(document.texts.get('users')).not.toContain(alias().store);
    await rm(memoryDir(syncDir(), alias()), { recursive: true });
    for (const store of ['alias/s', 'real/s']) {
      const imported = await examctl(
        ['synced', 'import', 'kept.json', '--target', 'local', '--store', store, '--force'],
        dir,
        env,
      );
      expect(imported.code, imported.stderr).toBe(0);
    }
    expect(actions((await night('real/s', ['a', 'b'])).stdout)).toEqual(['a unchanged', 'b unchanged', 'c disabled']);
  });
});

describe('a state service', () => {
  const server = stateServerPerTest();
  it("a document an older examctl stored under the link's spelling is the store's: the next night loads it (trial17 f03)", async () => {
    env.EXAMCTL_SYNC_DIR = server.address('m');
    expect((await night('alias/s', ['a', 'b', 'c'])).code).toBe(0);
    const path = new URL(server.address('m')).pathname;
    const document = readDocument(server.states.get(path)!, 'm');
    server.states.set(path, documentText(alias(), document.memories, document.serial));
    const second = await night('real/s', ['a', 'b'], '--require-memory');
    expect(second.code, second.stderr).toBe(0);
    expect(actions(second.stdout)).toEqual(['a unchanged', 'b unchanged', 'c disabled']);
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
    await expect(assertDocumentTarget(document, 'old.json', target)).resolves.toBeUndefined();
  });
});
