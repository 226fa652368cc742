import { userRunsDir } from '../system/user-dirs.js';

/**
 * Where run journals live: `--runs-dir`, else `EXAMCTL_RUNS_DIR`, else the per-user state
 * directory (src/system/user-dirs.ts). Per user and not per project: `runs list` shows every run of the user, wherever
 * it was started.
 */
export function resolveRunsDir(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home?: string,
): string {
  return flag || env.EXAMCTL_RUNS_DIR || userRunsDir({ env, platform, home });
}
