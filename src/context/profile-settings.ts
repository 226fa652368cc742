/**
 * The settings a profile keeps (docs/input-formats.md, "Profiles"), each checked as the command that reads it
 * would, so a profile never holds a value every run would refuse; and how `config show` writes them.
 */
import { resolve } from 'node:path';
import { expandPath, type ProfileDefaults } from './config-file.js';
import type { CommandDeps } from './command-deps.js';
import { SETTING_KEYS, VALUE_KEYS, type SettingFlags } from './settings.js';
import { UsageError } from '../system/errors.js';
import { parseDateFormat, readTimeSettings, type LocalTimeOptions } from '../domain/local-time.js';
import { normalizeColumnName } from '../domain/field-names.js';
import { checkProfileField, splitPair } from '../input/field-map.js';
import { refuseUnknownEncoding } from '../formats/encoding-name.js';
import { withoutUndefined } from '../engine/decision.js';

/** The flags of `config set-profile` that become settings, as given: those a run's flags beat (settings.ts). */
type ProfileSettingFlags = Omit<SettingFlags, 'target' | 'store' | 'baseUrl' | 'profile'>;

/** `--unset date-format` (or `dateFormat`): the keys to remove; an unknown name is exit 2 listing the known ones. */
export function unsetKeys(names: readonly string[]): (keyof ProfileDefaults)[] {
  return names.map((name) => {
    const key = Object.entries(SETTING_KEYS).find(
      ([flag, setting]) =>
        normalizeColumnName(flag) === normalizeColumnName(name) ||
        normalizeColumnName(setting) === normalizeColumnName(name),
    );
    if (key === undefined)
      throw new UsageError(
        `--unset ${name}: not a setting of a profile; one of ${Object.keys(SETTING_KEYS).join(', ')}`,
      );
    return key[1];
  });
}

/** A map file is read now (refused here, not at 2 am) and kept absolute; `--map` and `--set` add to the entries. */
export async function profileSettings(
  flags: ProfileSettingFlags,
  existing: ProfileDefaults,
  deps: CommandDeps,
): Promise<ProfileDefaults> {
  const given = (text: string | undefined, origin: string) => (text === undefined ? undefined : { text, origin });
  const times = readTimeSettings({
    dateFormat: given(flags.dateFormat, '--date-format'),
    timezone: given(flags.timezone, '--timezone'),
  });
  if (!times.ok) throw new UsageError(times.message);
  if (flags.encoding !== undefined) refuseUnknownEncoding('--encoding', flags.encoding);
  const settings = withoutUndefined(Object.fromEntries(VALUE_KEYS.map((key) => [key, flags[key]]))) as ProfileDefaults;
  if (flags.mapFile !== undefined) {
    const path = resolve(deps.cwd, flags.mapFile);
    const [{ readMapFile }, { trustedFileCheck }] = await Promise.all([
      import('../input/map-file.js'),
      import('./loose-permissions.js'),
    ]);
    // Judged now as every run will judge it: one others can write is refused here, not at 2 am.
    await readMapFile(
      path,
      `--map-file ${flags.mapFile}`,
      await trustedFileCheck(`--map-file ${flags.mapFile}`, path, deps.env),
    );
    settings.mapFile = path;
  }
  if (flags.map !== undefined && flags.map.length > 0) {
    const map: Record<string, string> = { ...existing.map };
    for (const entry of flags.map) {
      const [source, field] = splitPair(entry, '--map', true);
      map[source] = checkProfileField('--map', field, undefined, {});
    }
    settings.map = map;
  }
  if (flags.set !== undefined && flags.set.length > 0) {
    const stored = existing.dateFormat === undefined ? undefined : parseDateFormat(existing.dateFormat);
    const dates: LocalTimeOptions = {
      format: times.format ?? (stored?.ok ? stored.format : undefined),
      timeZone: settings.timezone ?? existing.timezone,
    };
    const set: Record<string, string> = { ...existing.set };
    for (const entry of flags.set) {
      const [field, value] = splitPair(entry, '--set', false);
      set[checkProfileField('--set', field, value, dates)] = value;
    }
    settings.set = set;
  }
  return settings;
}

/**
 * `--token-file` kept absolute (the profile is used from anywhere), `~/...` as given, and read now as every run
 * reads it (docs/remote.md, "Pointing at a real platform"): refused here, not at 2 am. With what a run would warn of.
 */
export async function checkedTokenFile(given: string, deps: CommandDeps): Promise<[string, string[]]> {
  const kept = given === '~' || given.startsWith('~/') ? given : expandPath(given, deps.cwd, deps.env);
  const { readTokenFile } = await import('./remote-settings.js');
  const warnings: string[] = [];
  await readTokenFile(expandPath(kept, deps.cwd, deps.env), '--token-file', warnings, deps.env);
  return [kept, warnings];
}

/** A name or value as a listing writes it: quoted when it holds a blank, a comma or a quote. */
function word(text: string): string {
  return /^[^\s,"]+$/.test(text) ? text : JSON.stringify(text);
}

/** In the order of SETTING_KEYS: `mapFile /etc/examctl/sis.json, set Role=Candidate, timezone Europe/London`. */
export function settingsText(defaults: ProfileDefaults | Readonly<Record<string, unknown>>): string {
  const order: string[] = Object.values(SETTING_KEYS);
  const rank = (key: string): number => (order.includes(key) ? order.indexOf(key) : order.length);
  return Object.entries(defaults)
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([key, value]) => {
      if (typeof value === 'object' && value !== null) {
        const pairs = Object.entries(value as Record<string, unknown>).map(
          ([name, inner]) => `${word(name)}=${word(String(inner))}`,
        );
        return `${key} ${pairs.join(' ')}`;
      }
      return `${key} ${word(String(value))}`;
    })
    .join(', ');
}
