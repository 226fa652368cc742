import type { Env } from '../system/env-values.js';
import { userRunsDir } from '../system/user-dirs.js';

/** Where run journals live, and why per user (docs/runs.md, "Where"). */
export function resolveRunsDir(
  flag: string | undefined,
  env: Env = process.env,
  platform: NodeJS.Platform = process.platform,
  home?: string,
): string {
  return flag || env.EXAMCTL_RUNS_DIR || userRunsDir({ env, platform, home });
}
