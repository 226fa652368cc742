import type { CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals, type GlobalOptions } from '../../flags/global-options.js';
import {
  listProfilesOut,
  removeProfileNamed,
  setProfileFrom,
  showConfig,
  useProfileNamed,
} from '../../context/profile-commands.js';
import { PROFILE_SETTINGS, type ConfigProfileNameOptions, type ConfigSetProfileOptions } from './config.options.js';
import { takeTableFlags } from '../../flags/option-table.js';

/* `examctl config ...`: no output ever holds a token value. */

/** `config set-profile <name>`: the global --base-url, --token-file, --concurrency and --rate are its values. */
export async function runSetProfile(all: ConfigSetProfileOptions, deps: CommandDeps): Promise<number> {
  const [{ unset, ...settings }, { name, default: makeDefault, ...globals }] = takeTableFlags(all, PROFILE_SETTINGS);
  await setProfileFrom(name, onlyGlobals(globals), settings, unset, makeDefault, deps);
  return 0;
}

export async function runList(options: GlobalOptions, deps: CommandDeps): Promise<number> {
  await listProfilesOut(options, deps);
  return 0;
}

export async function runRemove({ name, ...globals }: ConfigProfileNameOptions, deps: CommandDeps): Promise<number> {
  await removeProfileNamed(name, onlyGlobals(globals), deps);
  return 0;
}

export async function runUse({ name, ...globals }: ConfigProfileNameOptions, deps: CommandDeps): Promise<number> {
  await useProfileNamed(name, onlyGlobals(globals), deps);
  return 0;
}

export async function runShow(options: GlobalOptions, deps: CommandDeps): Promise<number> {
  await showConfig(options, deps);
  return 0;
}
