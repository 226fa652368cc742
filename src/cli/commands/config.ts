import { UsageError } from '../../system/errors.js';
import { redactUrl } from '../../domain/problem.js';
import { printLine, say } from '../../formats/terminal-text.js';
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
} from '../../context/config-file.js';
import { printJson, type CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals, type GlobalOptions } from '../../flags/global-options.js';
import type { Env } from '../../system/env-values.js';
import { readTokenFile } from '../../context/remote-settings.js';
import { checkedTokenFile, profileSettings, settingsText, unsetKeys } from '../../context/profile-settings.js';
import { PROFILE_SETTINGS, type ConfigProfileNameOptions, type ConfigSetProfileOptions } from './config.options.js';
import { takeTableFlags } from '../../flags/option-table.js';

/* `examctl config ...`: no output ever holds a token value. */

/** `config set-profile <name>`: the global --base-url, --token-file, --concurrency and --rate are its values. */
export async function runSetProfile(all: ConfigSetProfileOptions, deps: CommandDeps): Promise<number> {
  const [{ unset, ...settings }, { name: given, default: makeDefault, ...globals }] = takeTableFlags(
    all,
    PROFILE_SETTINGS,
  );
  const options = onlyGlobals(globals);
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
  await sayChanged(name, [['base URL', was?.baseUrl, made?.baseUrl]], deps);
  const dropped =
    (was?.token ?? was?.tokenFile)
      ? `profile ${name}: its token was for ${was?.baseUrl && redactUrl(was.baseUrl)}, not kept`
      : 'no token yet';
  await say(
    deps,
    `${verb} profile ${name} in ${configPath(env)}${config.defaultProfile === name ? ' (the default profile)' : ''}`,
  );
  for (const warning of tokenWarnings ?? []) await say(deps, warning);
  if (made?.baseUrl !== undefined && made.tokenFile === undefined && made.token === undefined) {
    await say(deps, `${dropped}: run examctl login --profile ${name}, or set-profile with --token-file`);
  }
  if (options.baseUrl && !(await checkedBaseUrl(options.baseUrl, false).catch(() => ''))) {
    await say(deps, '--allow-insecure-http is not kept: give it on each run');
  }
  await profileDone(options.json, name, { done: verb }, deps);
  return 0;
}

/** What login or set-profile changed in a profile: `[what, before, now]` (before: maybe hand-written). */
export async function sayChanged(
  name: string,
  changes: [string, string?, string?][],
  deps: CommandDeps,
): Promise<void> {
  for (const [what, before, now] of changes) {
    if (before && before !== now)
      await say(
        deps,
        `profile ${name}: ${what} changed, ${what === 'base URL' ? redactUrl(before) : before} -> ${now}`,
      );
  }
}

/** --json: what a profile command did, the profile as `config list` shows it (no token), or its name once removed. */
export async function profileDone(json: unknown, name: string, done: object, deps: CommandDeps): Promise<void> {
  const profile = json && ((await profilesOf(deps.env)).find((entry) => entry.name === name) ?? name);
  if (profile) await printJson(deps, { ...done, profile });
}

export async function runList(options: GlobalOptions, deps: CommandDeps): Promise<number> {
  const env = deps.env;
  const profiles = await profilesOf(env);
  if (options.json) {
    await printJson(deps, profiles, 2);
  } else if (profiles.length === 0) {
    await say(
      deps,
      `no profiles in ${configPath(env)}: create one with examctl config set-profile <name> --base-url <url>`,
    );
  } else {
    for (const profile of profiles) await printLine(deps, profileLine(profile));
  }
  return 0;
}

export async function runRemove(
  { name: given, ...globals }: ConfigProfileNameOptions,
  deps: CommandDeps,
): Promise<number> {
  const name = profileName(given, 'remove');
  const config = await removeProfile(name, deps.env);
  await say(
    deps,
    `removed profile ${name}${config.defaultProfile === undefined && Object.keys(config.profiles).length > 0 ? '; no default profile now (examctl config use <name>)' : ''}`,
  );
  await profileDone(onlyGlobals(globals).json, name, { done: 'removed' }, deps);
  return 0;
}

export async function runUse(
  { name: given, ...globals }: ConfigProfileNameOptions,
  deps: CommandDeps,
): Promise<number> {
  const name = profileName(given, 'use');
  await useProfile(name, deps.env);
  const beaten = deps.env.EXAMCTL_PROFILE?.trim();
  await say(
    deps,
    `default profile: ${name}${beaten && beaten !== name ? `; EXAMCTL_PROFILE=${beaten} still wins here` : ''}`,
  );
  await profileDone(onlyGlobals(globals).json, name, { done: 'default' }, deps);
  return 0;
}

export async function runShow(options: GlobalOptions, deps: CommandDeps): Promise<number> {
  const env = deps.env;
  const profiles = await profilesOf(env);
  const config = await loadConfig(env);
  const document = { path: configPath(env), defaultProfile: config.defaultProfile ?? null, profiles };
  if (options.json) {
    await printJson(deps, document, 2);
  } else {
    const lines = [`config file: ${document.path}`, `default profile: ${document.defaultProfile ?? '(none)'}`];
    for (const profile of profiles) lines.push(profileLine(profile));
    for (const line of lines) await printLine(deps, line);
  }
  return 0;
}

const profilesOf = (env: Env) => listProfiles(env, (file) => readTokenFile(file, 'not usable', [], env));

function profileName(name: string, subcommand: string): string {
  if (name.trim() === '') throw new UsageError(`examctl config ${subcommand}: a profile name is required`);
  return name.trim();
}

function profileLine(profile: ProfileSummary): string {
  const defaults = settingsText(profile.defaults);
  const where =
    profile.baseUrl === undefined ? 'local engine (no base URL)' : `${profile.baseUrl}  token: ${profile.token}`;
  return `${profile.isDefault ? '*' : ' '} ${profile.name}  ${where}${defaults ? `  (${defaults})` : ''}`;
}
