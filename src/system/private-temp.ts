import { chmod, lstat, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { UsageError } from './errors.js';
import { kindOf } from './regular-file.js';
import { processAlive } from './process-liveness.js';
import { userRunsDir } from './user-dirs.js';

/**
 * Every temporary file examctl makes lives in one private folder of the user's (docs/security.md,
 * "Temporary files": where, and which leftovers the first use in a process removes); each use gets
 * a folder of its own named by the pid and host (`<pid>@<host>@<purpose>-...`).
 */
let root: Promise<string> | undefined;

/** The private temp folder, made and cleared of dead runs' folders on first use in the process. */
export function privateTempRoot(): Promise<string> {
  return (root ??= preparedRoot().catch((error: unknown) => {
    root = undefined;
    throw error;
  }));
}

/** A new folder (0700) of this process's own in the private temp folder; the caller removes it. */
export async function makePrivateTempDir(purpose: string): Promise<string> {
  return mkdtemp(join(await privateTempRoot(), `${process.pid}@${hostname()}@${purpose}-`));
}

async function preparedRoot(): Promise<string> {
  const uid = process.getuid?.();
  const candidates = [
    () => join(dirname(userRunsDir({ env: process.env, platform: process.platform })), 'tmp'),
    () => join(tmpdir(), `examctl-${uid ?? 'user'}`),
  ];
  let failure: unknown;
  for (const candidate of candidates) {
    try {
      const base = candidate();
      // Something else at the name (a file, a FIFO, a link) fails the mkdir: judged below, by what it is.
      const made = await mkdir(base, { recursive: true, mode: 0o700 }).then(
        () => undefined,
        (error: unknown) => ({ error }),
      );
      const entry = await lstat(base).catch((error: unknown) => {
        throw made?.error ?? error;
      });
      // Another user's folder, or anything not a folder planted at the name: not ours to use.
      if (!entry.isDirectory() || (uid !== undefined && entry.uid !== uid))
        throw new UsageError(
          `${base}: the private temp folder is not a directory of yours (${entry.isDirectory() ? `owner: uid ${entry.uid}` : `${entry.isFile() ? 'a file' : kindOf(entry)}, owner: uid ${entry.uid}`}): remove it`,
          { code: 'E2400' },
        );
      if ((entry.mode & 0o077) !== 0 && process.platform !== 'win32') await chmod(base, 0o700);
      await removeDeadRuns(base);
      return base;
    } catch (error) {
      // Something planted at a private name is told at once (exit 2, naming it); else the fallback's failure is told:
      // the first place's only made examctl try it.
      if (error instanceof UsageError) throw error;
      failure = error;
    }
  }
  throw failure;
}

async function removeDeadRuns(base: string): Promise<void> {
  for (const name of await readdir(base)) {
    // Only this machine's runs are judged: a home shared with another machine or container (its
    // own pids) keeps theirs.
    const [pidText, host] = name.split('@');
    const pid = Number(pidText);
    if (host !== hostname() || !Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || processAlive(pid))
      continue;
    await rm(join(base, name), { recursive: true, force: true }).catch(() => undefined);
  }
}
