import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';

/** What Windows needs of the parent's environment for a child (Node and the OS find their own files with it). */
const PASSED_THROUGH = ['SystemRoot', 'SYSTEMROOT', 'windir', 'ComSpec', 'PATHEXT', 'TEMP', 'TMP'] as const;

/**
 * The environment of a spawned examctl: PATH, and on Windows what the OS needs; a private home
 * in `home` (HOME, and USERPROFILE/APPDATA/LOCALAPPDATA where the parent has them, i.e. on
 * Windows) and a private config and runs directory, so no test reads or writes the developer's
 * own files; UTC as the zone; nothing else of the parent's (no TTY hints, CI unset). On Linux the runs directory
 * is where HOME would put it anyway.
 */
export function childEnv(home: string, parent: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {
    PATH: parent.PATH ?? parent.Path ?? '',
    HOME: home,
    EXAMCTL_CONFIG_DIR: ownConfigDir(home),
    EXAMCTL_RUNS_DIR: join(home, '.local', 'state', 'examctl', 'runs'),
    // The computer's zone, which a review session's table shows its times in: the same on every machine.
    TZ: 'UTC',
  };
  for (const name of PASSED_THROUGH) {
    const value = parent[name];
    if (value !== undefined && value !== '') env[name] = value;
  }
  if (parent.USERPROFILE !== undefined) env.USERPROFILE = home;
  if (parent.APPDATA !== undefined) env.APPDATA = join(home, 'AppData', 'Roaming');
  if (parent.LOCALAPPDATA !== undefined) env.LOCALAPPDATA = join(home, 'AppData', 'Local');
  return env;
}

/**
 * `<dir>/.config`, a test's own config directory (no developer's profile steers a test), made
 * when `dir` is an existing folder inside the temp directory: one named but missing is refused
 * by a run that sends to the local store by default (docs/remote.md, "Where each setting comes
 * from"). A test of that refusal names a folder of its own that is not there.
 */
export function ownConfigDir(dir: string): string {
  const config = join(dir, '.config');
  const inside = relative(tmpdir(), dir);
  if (inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) && existsSync(dir))
    mkdirSync(config, { recursive: true, mode: 0o700 });
  return config;
}
