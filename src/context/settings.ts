import { resolve } from 'node:path';
import { UsageError } from '../system/errors.js';
import { secretFreeUrl } from '../api/url-policy.js';
import { redactUrl } from '../domain/problem.js';
import { nonEmpty, type Env } from '../system/env-values.js';
import {
  configDir,
  configPlace,
  profileNamed,
  runConfig,
  sameUrl,
  type ConfigSource,
  type Profile,
  type ProfileDefaults,
} from './config-file.js';
import type { ProfileNote } from '../report/run-report.js';
import { flagOf } from '../runs/recorded-options.js';
import type { RecordKind } from '../domain/columns.js';
import type { GlobalOptions } from '../flags/global-options.js';
import { isGiven } from '../domain/field-rules.js';
import { normalizeColumnName as fieldKey } from '../domain/field-names.js';

/* Every setting of a run with where it came from, by one rule: docs/remote.md, "Where each setting comes from". */

/** The flags that choose the target and the profile, and those a profile's settings stand in for. */
export type SettingFlags = Pick<GlobalOptions, 'target' | 'store' | 'baseUrl' | 'profile'> & {
  map?: readonly string[];
  set?: readonly string[];
} & Partial<Pick<ProfileDefaults, ValueKey | 'mapFile'>>;

/** The profile whose settings a run takes, how it was chosen, and the directory its relative paths are read from. */
export interface ActiveProfile {
  name: string;
  defaults: ProfileDefaults;
  configDir: string;
}

interface Setting<T> {
  value: T;
  /** `--timezone`, `EXAMCTL_BASE_URL`, `profile hr`, `built-in`. */
  from: string;
  /** A profile's value: where the config file writes it (`config.json:8`), for a refusal of it (settingText). */
  at?: string;
}

/** Each setting a profile keeps, by the flag that sets it (`config set-profile`) and beats it in a run. */
export const SETTING_KEYS = {
  'map-file': 'mapFile',
  map: 'map',
  set: 'set',
  'date-format': 'dateFormat',
  timezone: 'timezone',
  encoding: 'encoding',
  delimiter: 'delimiter',
  'decimal-separator': 'decimalSeparator',
  strict: 'strict',
  'ignore-unknown-columns': 'ignoreUnknownColumns',
  concurrency: 'concurrency',
  rate: 'rate',
} as const;
type ValueKey = Exclude<(typeof SETTING_KEYS)[keyof typeof SETTING_KEYS], 'mapFile' | 'map' | 'set'>;
const VALUE_FLAGS = Object.entries(SETTING_KEYS).filter(
  (entry): entry is [string, ValueKey] => entry[1] !== 'mapFile' && entry[1] !== 'map' && entry[1] !== 'set',
);
export const VALUE_KEYS = VALUE_FLAGS.map(([, key]) => key);
type SettingValues = { [K in ValueKey]?: Setting<NonNullable<ProfileDefaults[K]>> };

/** `unused`: the variables naming another target. */
type TargetSetting = Setting<'local' | 'remote'> & { unused?: readonly string[] };

export interface RunSettings {
  target: TargetSetting;
  /** A remote target's base URL; undefined when none is configured anywhere. */
  baseUrl?: Setting<string>;
  /** The profile the run takes its settings from (and a remote target its token), with how it was chosen. */
  profile?: ActiveProfile & {
    via: string;
    /** Where the config file writes its mapFile, for a refusal. */
    mapFileAt?: string;
  };
  /** The config file's profile the target takes its base URL and token from (also when a journal replays another's). */
  record?: Profile & { name: string; via: string };
  /** The default profile this run does not use, and why. */
  setAside?: { name: string; why: string };
  /** Each one-value setting as the run takes it: the flag, else the profile's. */
  values: SettingValues;
}

/**
 * The one place a run's settings are resolved (flag > environment > named profile > default profile > built-in).
 * `replay`: the profile a run's journal says it read its input with (null: none), standing in for today's.
 */
export async function resolveSettings(
  flags: SettingFlags,
  source: ConfigSource,
  replay?: ActiveProfile | null,
  cwd?: string,
): Promise<RunSettings> {
  const { env } = source;
  const config = await runConfig(source);
  // Set but blank (a script's unset variable), like an empty --profile: no choice of the default.
  if (flags.profile === undefined && env.EXAMCTL_PROFILE !== undefined && nonEmpty(env.EXAMCTL_PROFILE) === undefined) {
    throw new UsageError('EXAMCTL_PROFILE is set but empty: name a profile, or unset it');
  }
  const named =
    flags.profile !== undefined
      ? { name: flags.profile.trim(), via: '--profile' }
      : nonEmpty(env.EXAMCTL_PROFILE) !== undefined
        ? { name: env.EXAMCTL_PROFILE!.trim(), via: 'EXAMCTL_PROFILE' }
        : undefined;
  const chosen =
    named ??
    (config.defaultProfile === undefined ? undefined : { name: config.defaultProfile, via: 'the default profile' });
  const record =
    chosen === undefined ? undefined : profileNamed(config, chosen.name, env, named?.via ?? 'defaultProfile');

  const target = targetOf(
    flags,
    env,
    chosen === undefined ? undefined : { name: chosen.name, baseUrl: record?.baseUrl },
  );
  // A job's EXAMCTL_PROFILE that a typed --profile beats is said unused, as a beaten variable naming a target is.
  const variable = nonEmpty(env.EXAMCTL_PROFILE)?.trim();
  if (named?.via === '--profile' && variable !== undefined && variable !== named.name)
    target.unused = [...(target.unused ?? []), 'EXAMCTL_PROFILE'];
  const urls = [
    [flags.baseUrl, '--base-url'],
    [nonEmpty(env.EXAMCTL_BASE_URL), 'EXAMCTL_BASE_URL'],
    [record?.baseUrl, `profile ${chosen?.name}`],
  ];
  const url = target.value === 'remote' ? urls.find(([value]) => value !== undefined) : undefined;
  const baseUrl: Setting<string> | undefined = url === undefined ? undefined : { value: url[0]!, from: url[1]! };
  if (url?.[1] === `profile ${chosen?.name}`) baseUrl!.at = configPlace(config, ['profiles', chosen!.name, 'baseUrl']);
  // Not a URL, or a user name, password or query in it: refused before the run shows or keeps it;
  // else spelt as the URL parser does, once (targetIdentity).
  const given = settingText(baseUrl, 'baseUrl');
  if (given !== undefined) baseUrl!.value = secretFreeUrl(given.text, given.origin).href.replace(/\/+$/, '');
  // Set but blank (a CI variable left undefined): the URL meant, never a profile's.
  if (target.value === 'remote' && url?.[1] !== '--base-url' && env.EXAMCTL_BASE_URL?.trim() === '') {
    throw new UsageError('EXAMCTL_BASE_URL is set but empty: set it, unset it or give --base-url');
  }

  // The profile's own target: its base URL (however it is given), or the local engine when it has none.
  let used = chosen;
  let setAside: RunSettings['setAside'];
  const own = record?.baseUrl === undefined ? target.value === 'local' : sameUrl(baseUrl?.value, record.baseUrl);
  if (chosen !== undefined && !own) {
    const its =
      record?.baseUrl === undefined ? 'the local engine (it has no base URL)' : `remote ${redactUrl(record.baseUrl)}`;
    // A named profile (a URL, a token) never yields to a variable naming another target.
    const variable = [baseUrl?.from, target.from].find((from) => from?.startsWith('EXAMCTL_'))?.split('=')[0];
    if (named !== undefined && variable !== undefined && (record?.baseUrl ?? record?.tokenFile ?? record?.token)) {
      throw new UsageError(
        `${named.via} ${chosen.name} names ${its}, but ${variable} names ${baseUrl?.value ?? 'the local engine'}: unset it, or choose with --base-url or --store`,
      );
    }
    if (named === undefined) {
      used = undefined;
      setAside = {
        name: chosen.name,
        why: `${target.from} names another target than its own, ${its}; name it with --profile ${chosen.name} to take its settings`,
      };
    }
  }
  // Where today's config file writes the profile's values (a journal's replayed ones are written nowhere).
  const place = (key: string) =>
    replay === undefined && used !== undefined
      ? configPlace(config, ['profiles', used.name, 'defaults', key])
      : undefined;
  const mapFileAt = record?.defaults?.mapFile === undefined ? undefined : place('mapFile');
  const placed = mapFileAt === undefined ? {} : { mapFileAt };
  const active: RunSettings['profile'] =
    replay !== undefined
      ? replay === null
        ? undefined
        : { ...replay, via: "the run's journal" }
      : used === undefined
        ? undefined
        : { name: used.name, via: used.via, defaults: { ...record?.defaults }, configDir: configDir(env), ...placed };
  // A replay keeps the set its run journaled: without what was beaten, or an older examctl's whole (it beat all).
  const fields = replay === undefined ? await givenFields(flags, cwd) : new Map();
  const set = Object.entries(active?.defaults.set ?? {}).filter(([field]) => !fields.has(fieldKey(field)));
  if (active?.defaults.set) active.defaults = { ...active.defaults, set: Object.fromEntries(set) };
  return {
    target,
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(active === undefined ? {} : { profile: active }),
    ...(used === undefined || record === undefined ? {} : { record: { ...record, name: used.name, via: used.via } }),
    ...(setAside === undefined ? {} : { setAside }),
    values: valuesOf(flags, active, place),
  };
}

/**
 * --target, a flag naming one, EXAMCTL_TARGET, a variable naming one, the chosen profile's, else local. `unused`: the
 * variables naming another target; a flag naming another is exit 2 (a typed flag wins no guess).
 */
function targetOf(
  flags: SettingFlags,
  env: Env,
  profile: { name: string; baseUrl: string | undefined } | undefined,
): TargetSetting {
  const kind = (text: string, via: string): 'local' | 'remote' => {
    if (text === 'local' || text === 'remote') return text;
    throw new UsageError(`${via} must be local or remote, not "${text}"`);
  };
  const variable = nonEmpty(env.EXAMCTL_TARGET);
  const sources: (Setting<'local' | 'remote'> | false)[] = [
    flags.target !== undefined && { value: kind(flags.target, '--target'), from: `--target ${flags.target}` },
    flags.baseUrl !== undefined && { value: 'remote', from: '--base-url' },
    flags.store !== undefined && { value: 'local', from: '--store' },
    variable !== undefined && { value: kind(variable, 'EXAMCTL_TARGET'), from: `EXAMCTL_TARGET=${variable}` },
    nonEmpty(env.EXAMCTL_BASE_URL) !== undefined && { value: 'remote', from: 'EXAMCTL_BASE_URL' },
    nonEmpty(env.EXAMCTL_STORE) !== undefined && { value: 'local', from: 'EXAMCTL_STORE' },
  ];
  const [won, ...rest] = sources.filter((source) => source !== false);
  const unused = rest.filter(({ value }) => value !== won?.value).map(({ from }) => from);
  const typed = unused.find((from) => from.startsWith('--'));
  if (typed !== undefined) throw new UsageError(`${won!.from} and ${typed} name two targets: give one`);
  if (won !== undefined) return { ...won, unused };
  if (profile !== undefined)
    return { value: profile.baseUrl === undefined ? 'local' : 'remote', from: `profile ${profile.name}`, unused };
  return { value: 'local', from: 'built-in', unused };
}

/**
 * A text setting as a refusal names its origin: the flag or variable (`--timezone`), or a profile's key where the
 * config file writes it (`config.json:8: profile hr: timezone`), as a refusal at load time names it. `placed` false:
 * without the file's line, for a hint to set it (`set profile hr: baseUrl to https://...`).
 */
export function settingText(
  setting: Setting<string> | undefined,
  key: string,
  placed = true,
): { text: string; origin: string } | undefined {
  if (setting === undefined) return undefined;
  if (!setting.from.startsWith('profile ')) return { text: setting.value, origin: setting.from };
  const at = placed && setting.at !== undefined ? `${setting.at}: ` : '';
  return { text: setting.value, origin: `${at}${setting.from}: ${key}` };
}

function valuesOf(
  flags: SettingFlags,
  profile: RunSettings['profile'],
  place: (key: string) => string | undefined,
): SettingValues {
  const values: Record<string, Setting<unknown>> = {};
  for (const [flag, key] of VALUE_FLAGS) {
    const given = flags[key];
    // --ignore-unknown-columns has no "off": not given leaves the profile's.
    if (given !== undefined && !(key === 'ignoreUnknownColumns' && given === false))
      values[key] = { value: given, from: key === 'strict' && given === false ? '--no-strict' : `--${flag}` };
    else if (profile?.defaults[key] !== undefined) {
      const at = place(key);
      values[key] = {
        value: profile.defaults[key],
        from: `profile ${profile.name}`,
        ...(at === undefined ? {} : { at }),
      };
    }
  }
  return values as SettingValues;
}

/** Flag -> Schedule field. Each flag is a default: a CSV column or a request's own field wins. */
export const FLAG_FIELDS = {
  scheduleId: 'ScheduleExtId',
  assessment: 'AssessmentExtId',
  title: 'Title',
  start: 'StartDateTime',
  end: 'EndDateTime',
  group: 'GroupExtId',
  groupName: 'GroupName',
  scheduleGroup: 'ScheduleGroupExtId',
  scheduleGroupName: 'ScheduleGroupName',
  owner: 'Owner',
  pin: 'PIN',
  proctoring: 'UseProctoringService',
  proctoringTemplate: 'ProctoringServiceTemplateExternalId',
  lockOnConnectionLoss: 'LockExamOnConnectionLoss',
  keycode: 'UseKeyCode',
  autoCleanup: 'enableAutomaticDataCleanup',
  cleanupNoticePeriod: 'dataCleanupNoticePeriod',
} as const;

/** The fields (by fieldKey) a flag or the --schedule file gives, each by what gives it; a `--set` of one: exit 2. */
async function givenFields(flags: object, cwd: string | undefined): Promise<Map<string, string>> {
  const { schedule: file, set, ...typed } = flags as Record<string, unknown>;
  const given = new Map<string, string>();
  if (typeof file === 'string' && cwd !== undefined) {
    const { readScheduleFile } = await import('../input/schedule-file.js');
    const read = await readScheduleFile(resolve(cwd, file), file).catch(() => undefined);
    for (const [field, value] of [
      ...Object.entries(read?.schedule ?? {}),
      ['Workflow', read?.workflow],
      ['Upsert', read?.upsert],
    ]) {
      if (isGiven(value)) given.set(fieldKey(field as string), `--schedule ${file}`);
    }
  }
  for (const [flag, field] of Object.entries({ ...FLAG_FIELDS, workflow: 'Workflow', upsert: 'Upsert' })) {
    const no = typed[flag] === false ? 'no-' : '';
    if (typed[flag] !== undefined) given.set(fieldKey(field), flagOf(no + flag));
  }
  for (const field of ((set ?? []) as string[]).map((entry) => entry.split('=')[0]!)) {
    const by = given.get(fieldKey(field));
    if (by !== undefined) throw new UsageError(`--set ${field.trim()} and ${by} both give it: give one`);
  }
  return given;
}

const INPUT_KEYS = ['dateFormat', 'timezone', 'mapFile', 'map', 'set', 'encoding', 'ignoreUnknownColumns'];

/**
 * What the profile gave this run (its stderr line, its report's header): each setting the command reads (its flags;
 * concurrency and rate only for a remote) no flag beat, map and set entries onto its records' fields.
 */
export async function profileNote(
  settings: RunSettings,
  flags: SettingFlags & { file?: string | string[] },
  deps: { commandFlags?: readonly string[]; reads?: RecordKind },
): Promise<ProfileNote | undefined> {
  const { profile, setAside } = settings;
  if (profile === undefined)
    return setAside === undefined
      ? undefined
      : { name: setAside.name, via: 'the default profile', used: false, why: setAside.why, settings: {} };
  const { commandFlags: own, reads } = deps;
  const files = [flags.file ?? []].flat();
  const { formatFromExtension } = await import('../input/format.js');
  const csv = files.some((file) => (formatFromExtension(file) ?? 'csv') === 'csv');
  const unread = files.length === 0 ? (reads ? INPUT_KEYS : []) : csv ? [] : ['encoding'];
  const readBy = (key: string): boolean =>
    key === 'concurrency' || key === 'rate'
      ? settings.target.value === 'remote'
      : (own === undefined || own.includes(key === 'strict' ? 'file' : key)) && !unread.includes(key);
  const took: Record<string, unknown> = {};
  if (settings.baseUrl?.from === `profile ${profile.name}`) took.baseUrl = settings.baseUrl.value;
  for (const [key, setting] of Object.entries(settings.values))
    if (setting.from === `profile ${profile.name}` && readBy(key)) took[key] = setting.value;
  const { mapFile, map, set } = profile.defaults;
  if (mapFile !== undefined && readBy('mapFile')) took.mapFile = mapFile;
  const columns = reads && (await import('../domain/columns.js')).RECORD_COLUMNS[reads];
  const takes = (field: string) => columns?.some((spec) => fieldKey(spec.name) === fieldKey(field)) ?? true;
  const keysOf = (entries: readonly string[] | undefined, at: number): string[] =>
    (entries ?? []).map((entry) => fieldKey(entry.split('=')[at] ?? ''));
  const mapped = new Set([...keysOf(flags.map, 0), ...keysOf(flags.map, 1)]);
  const fromMap = Object.entries(map ?? {}).filter(
    ([column, field]) => !mapped.has(fieldKey(column)) && !mapped.has(fieldKey(field)) && takes(field),
  );
  if (fromMap.length > 0 && readBy('map')) took.map = Object.fromEntries(fromMap);
  const fromSet = Object.entries(set ?? {}).filter(
    ([field]) => !keysOf(flags.set, 0).includes(fieldKey(field)) && takes(field),
  );
  if (fromSet.length > 0 && readBy('set')) took.set = Object.fromEntries(fromSet);
  return { name: profile.name, via: profile.via, used: true, settings: took };
}
