import { homedir } from 'node:os';
import { userRunsDir } from '../system/user-dirs.js';

/** Where run journals live, and why per user (docs/runs.md, "Where"). */
export function resolveRunsDir(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (flag !== undefined && flag !== '') return flag;
  const fromEnv = env.EXAMCTL_RUNS_DIR;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return userRunsDir({ env, platform, home });
}
