import { printLine, say } from '../../formats/terminal-text.js';
import { removeProfile, useProfile } from '../../context/config-file.js';
import { printJson, type CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals, type GlobalOptions } from '../../flags/global-options.js';
import {
  configDocument,
  configShowLines,
  defaultLine,
  profileDone,
  noProfilesLine,
  profileLine,
  profileName,
  profilesOf,
  removedLine,
  setProfileFrom,
} from '../../context/profile-commands.js';
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
  const name = profileName(given, 'set-profile');
  const { verb, lines } = await setProfileFrom(name, options, settings, unset, makeDefault, deps);
  for (const line of lines) await say(deps, line);
  await profileDone(options.json, name, { done: verb }, deps);
  return 0;
}

export async function runList(options: GlobalOptions, deps: CommandDeps): Promise<number> {
  const profiles = await profilesOf(deps.env);
  if (options.json) await printJson(deps, profiles, 2);
  else if (profiles.length === 0) await say(deps, noProfilesLine(deps.env));
  else for (const profile of profiles) await printLine(deps, profileLine(profile));
  return 0;
}

export async function runRemove(
  { name: given, ...globals }: ConfigProfileNameOptions,
  deps: CommandDeps,
): Promise<number> {
  const name = profileName(given, 'remove');
  await say(deps, removedLine(name, await removeProfile(name, deps.env)));
  await profileDone(onlyGlobals(globals).json, name, { done: 'removed' }, deps);
  return 0;
}

export async function runUse(
  { name: given, ...globals }: ConfigProfileNameOptions,
  deps: CommandDeps,
): Promise<number> {
  const name = profileName(given, 'use');
  await useProfile(name, deps.env);
  await say(deps, defaultLine(name, deps.env));
  await profileDone(onlyGlobals(globals).json, name, { done: 'default' }, deps);
  return 0;
}

export async function runShow(options: GlobalOptions, deps: CommandDeps): Promise<number> {
  const document = await configDocument(deps.env);
  if (options.json) await printJson(deps, document, 2);
  else for (const line of configShowLines(document)) await printLine(deps, line);
  return 0;
}
