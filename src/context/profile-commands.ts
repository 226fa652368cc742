/**
 * What `examctl config ...` and `login` decide of a profile (docs/remote.md): the name refused blank, the change
 * written, and what each says of it. No line or document holds a token value.
 */
import { UsageError } from '../system/errors.js';
import { printLine, say } from '../formats/terminal-text.js';
import { redactUrl } from '../domain/problem.js';
import type { Env } from '../system/env-values.js';
import type { GlobalOptions } from '../flags/global-options.js';
import {
  checkedBaseUrl,
  configPath,
  listProfiles,
  loadConfig,
  removeProfile,
  setProfile,
  useProfile,
  type ProfileSummary,
  type ProfileUpdate,
} from './config-file.js';
import { readTokenFile } from './remote-settings.js';
import { checkedTokenFile, profileSettings, settingsText, unsetKeys } from './profile-settings.js';
import { printJson, type CommandDeps } from './command-deps.js';

/**
 * `config set-profile <name>`: the global --base-url and --token-file checked as a run checks them, the settings
 * as the commands would; the profile written, and what was made or changed said.
 */
export async function setProfileFrom(
  given: string,
  options: GlobalOptions,
  settings: Record<string, unknown>,
  unset: readonly string[] | undefined,
  makeDefault: boolean | undefined,
  deps: CommandDeps,
): Promise<void> {
  const env = deps.env;
  const name = profileName(given, 'set-profile');
  const update: ProfileUpdate = {};
  if (options.baseUrl !== undefined)
    update.baseUrl = await checkedBaseUrl(options.baseUrl, options.allowInsecureHttp ?? false);
  const [tokenFile, tokenWarnings] =
    options.tokenFile === undefined ? [] : await checkedTokenFile(options.tokenFile, deps);
  if (tokenFile !== undefined) update.tokenFile = tokenFile;
  const before = await loadConfig(env, true);
  const defaults = await profileSettings(
    { concurrency: options.concurrency, rate: options.rate, ...settings },
    before.profiles[name]?.defaults ?? {},
    deps,
  );
  if (Object.keys(defaults).length > 0) update.defaults = defaults;
  if (unset !== undefined && unset.length > 0) update.unset = unsetKeys(unset);
  if (makeDefault) update.makeDefault = true;
  const config = await setProfile(name, update, env);
  const verb = Object.hasOwn(before.profiles, name) ? 'updated' : 'created';
  const [was, made] = [before.profiles[name], config.profiles[name]];
  const lines = changedLines(name, [['base URL', was?.baseUrl, made?.baseUrl]]);
  const isDefault = config.defaultProfile === name ? ' (the default profile)' : '';
  lines.push(`${verb} profile ${name} in ${configPath(env)}${isDefault}`, ...(tokenWarnings ?? []));
  if (made?.baseUrl !== undefined && made.tokenFile === undefined && made.token === undefined) {
    const dropped =
      (was?.token ?? was?.tokenFile)
        ? `profile ${name}: its token was for ${was?.baseUrl && redactUrl(was.baseUrl)}, not kept`
        : 'no token yet';
    lines.push(`${dropped}: run examctl login --profile ${name}, or set-profile with --token-file`);
  }
  if (options.baseUrl && !(await checkedBaseUrl(options.baseUrl, false).catch(() => '')))
    lines.push('--allow-insecure-http is not kept: give it on each run');
  for (const line of lines) await say(deps, line);
  await profileDone(options.json, name, { done: verb }, deps);
}

/** What login or set-profile changed in a profile: `[what, before, now]` (before: maybe hand-written). */
export function changedLines(name: string, changes: [string, string?, string?][]): string[] {
  return changes.flatMap(([what, before, now]) =>
    before && before !== now
      ? [`profile ${name}: ${what} changed, ${what === 'base URL' ? redactUrl(before) : before} -> ${now}`]
      : [],
  );
}

/** Every profile as `config list` shows it (a token file read as a run reads it; never its value). */
const profilesOf = (env: Env) => listProfiles(env, (file) => readTokenFile(file, 'not usable', [], env));

/** --json: what a profile command did, the profile as `config list` shows it (no token), or its name once removed. */
export async function profileDone(json: unknown, name: string, done: object, deps: CommandDeps): Promise<void> {
  if (json)
    await printJson(deps, { ...done, profile: (await profilesOf(deps.env)).find((p) => p.name === name) ?? name });
}

/** `config list`: every profile; without any, where to make the first. */
export async function listProfilesOut(options: GlobalOptions, deps: CommandDeps): Promise<void> {
  const profiles = await profilesOf(deps.env);
  if (options.json) await printJson(deps, profiles, 2);
  else if (profiles.length === 0)
    await say(
      deps,
      `no profiles in ${configPath(deps.env)}: create one with examctl config set-profile <name> --base-url <url>`,
    );
  else for (const profile of profiles) await printLine(deps, profileLine(profile));
}

/** `config remove`: a removed default leaves none (while other profiles remain, it says how to choose one). */
export async function removeProfileNamed(given: string, options: GlobalOptions, deps: CommandDeps): Promise<void> {
  const name = profileName(given, 'remove');
  const config = await removeProfile(name, deps.env);
  const none = config.defaultProfile === undefined && Object.keys(config.profiles).length > 0;
  await say(deps, `removed profile ${name}${none ? '; no default profile now (examctl config use <name>)' : ''}`);
  await profileDone(options.json, name, { done: 'removed' }, deps);
}

/** `config use`: EXAMCTL_PROFILE naming another still wins where it is set, said. */
export async function useProfileNamed(given: string, options: GlobalOptions, deps: CommandDeps): Promise<void> {
  const name = profileName(given, 'use');
  await useProfile(name, deps.env);
  const beaten = deps.env.EXAMCTL_PROFILE?.trim();
  await say(
    deps,
    `default profile: ${name}${beaten && beaten !== name ? `; EXAMCTL_PROFILE=${beaten} still wins here` : ''}`,
  );
  await profileDone(options.json, name, { done: 'default' }, deps);
}

/** `config show`: the file, the default profile, every profile. */
export async function showConfig(options: GlobalOptions, deps: CommandDeps): Promise<void> {
  const env = deps.env;
  const profiles = await profilesOf(env);
  const config = await loadConfig(env);
  const document = { path: configPath(env), defaultProfile: config.defaultProfile ?? null, profiles };
  if (options.json) return printJson(deps, document, 2);
  const lines = [`config file: ${document.path}`, `default profile: ${document.defaultProfile ?? '(none)'}`];
  for (const line of [...lines, ...profiles.map(profileLine)]) await printLine(deps, line);
}

/** A profile's name as given, trimmed; a blank one refused (exit 2). */
function profileName(name: string, subcommand: string): string {
  if (name.trim() === '') throw new UsageError(`examctl config ${subcommand}: a profile name is required`);
  return name.trim();
}

/** A profile's line in `config list` and `config show`: `*` marks the default. */
function profileLine(profile: ProfileSummary): string {
  const defaults = settingsText(profile.defaults);
  const where =
    profile.baseUrl === undefined ? 'local engine (no base URL)' : `${profile.baseUrl}  token: ${profile.token}`;
  return `${profile.isDefault ? '*' : ' '} ${profile.name}  ${where}${defaults ? `  (${defaults})` : ''}`;
}
