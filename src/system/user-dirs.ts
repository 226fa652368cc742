import { homedir, userInfo } from 'node:os';
import { isAbsolute, posix, resolve, win32 } from 'node:path';
import { UsageError } from './errors.js';
import type { Env } from './env-values.js';

/**
 * The per-user directories, one rule per platform (docs/windows.md, "Where examctl keeps its
 * files"); an absolute `XDG_CONFIG_HOME` is honoured on every platform: whoever sets it wants it.
 */
interface UserDirsContext {
  env: Env;
  platform: NodeJS.Platform;
  /** Default userHome(env), refused where there is none. */
  home?: string | undefined;
}

function pathFor(platform: NodeJS.Platform) {
  return platform === 'win32' ? win32 : posix;
}

function absoluteXdg(value: string | undefined, platform: NodeJS.Platform): string | undefined {
  // The XDG spec ignores a relative value.
  return value !== undefined && value !== '' && pathFor(platform).isAbsolute(value) ? value : undefined;
}

/**
 * The user's home, the one answer for every place that uses one (docs/windows.md, "Where examctl
 * keeps its files"): HOME when absolute, else the account's own (passwd; Windows: the profile).
 */
export function userHome(env: UserDirsContext['env']): string | undefined {
  // process.env is `env` but in tests, which keep a HOME of their own there (test/support/private-home.ts).
  const given = [env.HOME, process.env.HOME].find((home) => home && isAbsolute(home));
  try {
    const home = given ?? (process.platform === 'win32' ? homedir() : userInfo().homedir);
    return isAbsolute(home) ? resolve(home) : undefined;
  } catch {
    return undefined;
  }
}

/** The home, or exit 2 naming what to set: HOME, or `instead`, which makes it unneeded. */
export function requiredHome(env: UserDirsContext['env'], instead: string): string {
  const home = userHome(env);
  if (home !== undefined) return home;
  const uid = process.getuid?.();
  throw new UsageError(
    `HOME is ${env.HOME ? 'not an absolute path' : 'not set'} and ${uid === undefined ? 'this account' : `uid ${uid}`} has no home directory: set HOME (or ${instead})`,
    { code: 'E2006' },
  );
}

export function userConfigDir({ env, platform, home }: UserDirsContext): string {
  const path = pathFor(platform);
  const base =
    absoluteXdg(env.XDG_CONFIG_HOME, platform) ?? (platform === 'win32' ? env.APPDATA || undefined : undefined);
  const parts =
    platform === 'darwin'
      ? ['Library', 'Application Support']
      : platform === 'win32'
        ? ['AppData', 'Roaming']
        : ['.config'];
  return path.join(base ?? path.join(home ?? requiredHome(env, 'EXAMCTL_CONFIG_DIR'), ...parts), 'examctl');
}

export function userRunsDir({ env, platform, home }: UserDirsContext): string {
  const path = pathFor(platform);
  const base =
    platform === 'win32'
      ? env.LOCALAPPDATA || undefined
      : platform === 'darwin'
        ? undefined
        : absoluteXdg(env.XDG_STATE_HOME, platform);
  const parts =
    platform === 'darwin'
      ? ['Library', 'Application Support']
      : platform === 'win32'
        ? ['AppData', 'Local']
        : ['.local', 'state'];
  return path.join(base ?? path.join(home ?? requiredHome(env, 'EXAMCTL_RUNS_DIR'), ...parts), 'examctl', 'runs');
}
