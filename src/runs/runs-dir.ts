import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where run journals live: `--runs-dir`, else `EXAMCTL_RUNS_DIR`, else the per-user state
 * directory: `$XDG_STATE_HOME/examctl/runs` or `~/.local/state/examctl/runs` (Linux and other
 * Unixes), `~/Library/Application Support/examctl/runs` (macOS), `%LOCALAPPDATA%\examctl\runs`
 * (Windows). Per user and not per project: `runs list` shows every run of the user, wherever
 * it was started.
 */
export function resolveRunsDir(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (flag !== undefined && flag !== '') return flag;
  const fromEnv = env.EXAMCTL_RUNS_DIR;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'examctl', 'runs');
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'examctl', 'runs');
  const state = env.XDG_STATE_HOME;
  // The XDG spec ignores a relative value.
  const base = state !== undefined && state.startsWith('/') ? state : join(home, '.local', 'state');
  return join(base, 'examctl', 'runs');
}
