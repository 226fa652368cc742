import type { Env, ProfileDefaults } from './config-file.js';

/** The profile a command's settings come from, its defaults, and the directory its relative paths are read from. */
export interface ActiveProfile {
  name: string;
  defaults: ProfileDefaults;
  configDir: string;
}

/**
 * The profile whose defaults complete a command's flags (docs/input-formats.md, "Mapping an
 * export"; docs/cli.md, "review-session show"): the one named by --profile or EXAMCTL_PROFILE,
 * else the default one when no base URL is given (its settings never follow a target named
 * another way). Undefined when there is none, or it holds no defaults; an unknown profile is the
 * target's to refuse (remote-settings.ts).
 */
export async function activeProfile(options: { profile?: string | undefined; baseUrl?: string | undefined }, env: Env): Promise<ActiveProfile | undefined> {
  const { configDir, loadConfig } = await import('./config-file.js');
  const explicit = nonEmpty(options.profile) ?? nonEmpty(env.EXAMCTL_PROFILE);
  const config = await loadConfig(env);
  const name = explicit ?? (nonEmpty(options.baseUrl) ?? nonEmpty(env.EXAMCTL_BASE_URL) ? undefined : config.defaultProfile);
  const defaults = name === undefined ? undefined : config.profiles[name]?.defaults;
  return name === undefined || defaults === undefined ? undefined : { name, defaults, configDir: configDir(env) };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value : undefined;
}
