import { quotedValue, redactUrl } from '../domain/problem.js';
import { isSecretField } from '../domain/field-names.js';
import { rememberSecret } from '../domain/known-secrets.js';
import { targetIdentity } from '../report/run-report.js';
import { FileTooLargeError, readRegularFileWithStat, SETTINGS_FILE_MAX_BYTES } from '../system/regular-file.js';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { ReplacementFile } from '../system/atomic-file.js';
import { TargetError, UsageError } from '../system/errors.js';
import { describeSystemError } from '../system/system-error-words.js';
import { parseJsonDocument } from '../input/json-document.js';
import { decodeTextDocument } from '../input/text-source.js';
import { INPUT_LIMITS, keyLines } from '../system/json-scan.js';
import { requiredHome, userConfigDir } from '../system/user-dirs.js';
import { lockTimeoutFromEnv, underLock } from '../system/lock.js';
import {
  assertDirectoryTrusted,
  assertOpenedTrusted,
  currentTrustContext,
  UntrustedPlaceError,
} from '../system/trusted-place.js';
import type { Env } from '../system/env-values.js';

/** The config file (docs/remote.md, "Config file"); a change is made under the config directory's LOCK. */

/** zod is loaded only when a config file exists or a profile is written (~50 ms of start-up most runs never need). */
function buildSchemas(zod: typeof z) {
  const profileDefaultsSchema = zod.strictObject({
    concurrency: zod.number().int().min(1).max(256).optional(),
    rate: zod.number().positive().optional(),
    // How the admin's export is read (docs/input-formats.md, "Mapping an export"); flags win.
    map: zod.record(zod.string(), zod.string()).optional(),
    mapFile: zod.string().min(1).optional(),
    set: zod.record(zod.string(), zod.string()).optional(),
    // The admin's zone and date format, both ways: how the export's times are read, and how
    // review-session show writes them (docs/cli.md, "review-session show").
    dateFormat: zod.string().min(1).optional(),
    timezone: zod.string().min(1).optional(),
    encoding: zod.string().min(1).optional(),
    strict: zod.boolean().optional(),
    // CSV that examctl writes with no input to answer (review-session show -o csv).
    delimiter: zod.enum([',', ';', 'tab']).optional(),
    decimalSeparator: zod.enum(['.', ',']).optional(),
    ignoreUnknownColumns: zod.boolean().optional(),
  });
  // No base URL: settings for the local engine (docs/remote.md, "Where each setting comes from").
  const profileSchema = zod.strictObject({
    baseUrl: zod.string().min(1).optional(),
    /** `~/` allowed; a relative path is from the config directory. */
    tokenFile: zod.string().min(1).optional(),
    token: zod.string().min(1).optional(),
    defaults: profileDefaultsSchema.optional(),
  });
  const configSchema = zod.strictObject({
    version: zod.literal(1).default(1),
    defaultProfile: zod.string().optional(),
    profiles: zod.record(zod.string(), profileSchema).default({}),
  });
  return { profileDefaultsSchema, profileSchema, configSchema };
}

type ConfigSchemas = ReturnType<typeof buildSchemas>;
let schemas: Promise<ConfigSchemas> | undefined;

function configSchemas(): Promise<ConfigSchemas> {
  schemas ??= import('zod').then(({ z: zod }) => buildSchemas(zod));
  return schemas;
}

export type ProfileDefaults = z.infer<ConfigSchemas['profileDefaultsSchema']>;
export type Profile = z.infer<ConfigSchemas['profileSchema']>;
export type ExamctlConfig = z.infer<ConfigSchemas['configSchema']>;

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function configDir(env: Env = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.EXAMCTL_CONFIG_DIR) return path.resolve(env.EXAMCTL_CONFIG_DIR);
  return userConfigDir({ env, platform });
}

export function configPath(env: Env = process.env): string {
  return path.join(configDir(env), 'config.json');
}

/** The config file as one run reads it: read at the first call, the same answer (or refusal) after. */
export type ConfigRead = () => Promise<ExamctlConfig>;

/** What a run's settings are read from: its environment and, in a run, its one read of the config file. */
export interface ConfigSource {
  env: Env;
  /** Absent (a test, a helper outside a run): the file is read at each call. */
  config?: ConfigRead;
}

export function runConfig(source: ConfigSource): Promise<ExamctlConfig> {
  return source.config?.() ?? loadConfig(source.env);
}

/** Reads the config file; a missing file is an empty config. A malformed one is a UsageError naming the file. */
export async function loadConfig(env: Env = process.env, toChange = false): Promise<ExamctlConfig> {
  const file = configPath(env);
  let bytes: Buffer;
  try {
    // A regular file only (a link to one is fine): a FIFO there would hang every command. Decoded
    // by its BOM: Windows PowerShell 5.1 writes UTF-16. Judged on the handle it is read through:
    // a config another user can write or plant names their server and a token file of ours.
    const context = currentTrustContext(env);
    ({ bytes } = await readRegularFileWithStat(file, {
      followLinks: true,
      maxBytes: SETTINGS_FILE_MAX_BYTES,
      check: (handle, stat) => assertOpenedTrusted('the config file', file, handle, context, { stat }),
    }));
  } catch (error) {
    if (error instanceof UntrustedPlaceError) throw error;
    if (error instanceof FileTooLargeError)
      throw new UsageError(
        `${file}: the config file is larger than ${SETTINGS_FILE_MAX_BYTES / 1024 / 1024} MiB, the most examctl reads: not a config file? Not read`,
      );
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { version: 1, profiles: Object.create(null) as ExamctlConfig['profiles'] };
    throw new UsageError(`${file}: cannot read the config file: ${(error as Error).message}`);
  }
  // A key given twice, a secret written by hand: refused, except by the commands that take them out.
  const text = decodeTextDocument(bytes, file);
  const parsed = parseJsonDocument(text, file, {}, !toChange);
  const place = keyPlaces(file, text);
  const { configSchema } = await configSchemas();
  const result = configSchema.safeParse(parsed);
  if (!result.success) {
    // A key examctl does not know (a typo: baseURL, default_profile) is refused, never skipped.
    const issue = result.error.issues[0]!;
    const unknown = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
    const key = unknown === undefined ? issue.path.map(String) : [...issue.path.map(String), unknown];
    throw new UsageError(`${keyAt(place, key)}: ${unknown === undefined ? issue.message : 'unknown key (a typo?)'}`);
  }
  for (const [name, profile] of Object.entries(result.data.profiles)) {
    const secret = Object.keys(profile.defaults?.set ?? {}).find(isSecretField);
    if (secret !== undefined && !toChange) {
      throw new UsageError(
        `${keyAt(place, ['profiles', name, 'defaults', 'set', secret])}: ${secret} is a secret and is not kept in a profile: examctl config set-profile ${name} --unset set takes it out`,
      );
    }
  }
  await rememberProfileSecrets(result.data.profiles, env);
  // Profiles by name, without a prototype: `--profile toString` is a name no profile has, not Object's method.
  const config = {
    ...result.data,
    profiles: Object.assign(Object.create(null) as ExamctlConfig['profiles'], result.data.profiles),
  };
  PLACES.set(config, place);
  return config;
}

/** Where a key of the config file is written, for a message: `file:line` (a key not written in it: the file). */
type KeyPlace = (path: readonly string[]) => string;

/** Each config read's KeyPlace, for what is refused after it is read (a defaultProfile naming no profile). */
const PLACES = new WeakMap<ExamctlConfig, KeyPlace>();

function keyPlaces(file: string, text: string): KeyPlace {
  let lines: Map<string, number> | undefined;
  return (path) => {
    // Scanned again only for a refusal: a config that is read without one costs nothing more.
    lines ??= keyLines(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, INPUT_LIMITS).lines;
    const line = lines.get(path.join('\u0000'));
    return line === undefined ? file : `${file}:${line}`;
  };
}

/** A refusal's start for the config file's key at `path`: `file:line: profiles.prod.defaults.strct`. */
function keyAt(place: KeyPlace, path: readonly string[]): string {
  return `${place(path)}: ${path.join('.') || '(top)'}`;
}

/** `file:line` of the key at `path` in the file `config` was read from, for a refusal of its value. */
export function configPlace(config: ExamctlConfig, path: readonly string[]): string | undefined {
  return PLACES.get(config)?.(path);
}

/** A token is a few hundred bytes at most: a larger "token file" is the wrong file, refused unread. */
export const TOKEN_FILE_MAX_BYTES = 64 * 1024;

/**
 * Every profile's token is never quoted from an input file (domain/known-secrets.ts); a token file that cannot be
 * read is passed over here: the profile that uses it says why.
 */
async function rememberProfileSecrets(profiles: ExamctlConfig['profiles'], env: Env): Promise<void> {
  for (const profile of Object.values(profiles)) {
    rememberSecret(profile.token);
    if (profile.tokenFile === undefined) continue;
    const file = expandPath(profile.tokenFile, configDir(env), env);
    const read = await readRegularFileWithStat(file, { followLinks: true, maxBytes: TOKEN_FILE_MAX_BYTES }).catch(
      () => undefined,
    );
    try {
      if (read !== undefined) rememberSecret(decodeTextDocument(read.bytes, file).trim());
    } catch {
      // Not text: no token to look for.
    }
  }
}

/** Atomically, 0600 in a 0700 directory; a config.json that is a link (a dotfiles repository) is written through. */
export async function saveConfig(config: ExamctlConfig, env: Env = process.env): Promise<string> {
  const file = configPath(env);
  const target = await fs.realpath(file).catch(() => file);
  const replacement = await privateReplacement(target, `${JSON.stringify(config, null, 2)}\n`, env);
  await named(target, () => replacement.commit());
  return file;
}

/** `text` written and flushed beside `file`, in place once committed: a full disk fails before anything is replaced. */
async function privateReplacement(file: string, text: string, env: Env): Promise<ReplacementFile> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  // Never a secret into a directory another user can write (they could read, swap or plant beside it).
  await assertDirectoryTrusted(`cannot write ${file}`, path.dirname(file), currentTrustContext(env));
  return named(file, async () => {
    const replacement = await ReplacementFile.open(file, { mode: 0o600 });
    return replacement.writer
      .write(text)
      .then(() => replacement.writer.flush())
      .then(
        () => replacement,
        (error: unknown) => replacement.discard().then(() => Promise.reject(error)),
      );
  });
}

/** A full disk: exit 3, named, as an output's; the old file stays whole. */
function named<T>(file: string, step: () => Promise<T>): Promise<T> {
  return step().catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === undefined) throw error;
    throw new TargetError(`cannot write ${file}: ${describeSystemError(error)}`, { cause: error });
  });
}

/** A profile's fields to set (a token file replaces a stored token, and the other way round), defaults to unset. */
export type ProfileUpdate = Pick<Profile, 'baseUrl' | 'tokenFile' | 'token' | 'defaults'> & {
  /** Removed after `defaults` is merged in. */
  unset?: readonly (keyof ProfileDefaults)[];
  makeDefault?: boolean;
};

/** Concurrent writers each keep their change. */
async function changeConfig(env: Env, change: (config: ExamctlConfig) => unknown): Promise<ExamctlConfig> {
  await fs.mkdir(configDir(env), { recursive: true, mode: 0o700 });
  return underLock(
    configDir(env),
    undefined,
    lockTimeoutFromEnv(env, 5_000),
    async () => {
      const config = await loadConfig(env, true);
      await change(config);
      await saveConfig(config, env);
      return config;
    },
    'the config directory',
  );
}

/** One URL however spelt (docs/remote.md): case, a default port, a final `/` aside. */
export const sameUrl = (a?: string, b?: string): boolean => urlKey(a) === urlKey(b);
const urlKey = (url = ''): string => targetIdentity({ kind: 'remote', baseUrl: url });

/** The first profile becomes the default. */
export async function setProfile(name: string, update: ProfileUpdate, env: Env = process.env): Promise<ExamctlConfig> {
  if (!PROFILE_NAME.test(name))
    throw new UsageError(
      `profile name ${quotedValue(name)}: use letters, digits, '.', '_' or '-' (at most 64, starting with a letter or digit)`,
    );
  const { profileSchema } = await configSchemas();
  return changeConfig(env, (config) => {
    const existing = config.profiles[name];
    // The same URL spelt otherwise keeps its spelling and token.
    const baseUrl = sameUrl(update.baseUrl, existing?.baseUrl)
      ? existing?.baseUrl
      : (update.baseUrl ?? existing?.baseUrl);
    const profile: Profile = { ...existing, ...(baseUrl === undefined ? {} : { baseUrl }) };
    // A token is for its URL: repointed, the profile keeps one only when it is given again.
    if (existing?.baseUrl !== undefined && existing.baseUrl !== baseUrl) {
      delete profile.tokenFile;
      delete profile.token;
    }
    if (update.tokenFile !== undefined) {
      profile.tokenFile = update.tokenFile;
      delete profile.token;
    }
    if (update.token !== undefined) {
      profile.token = update.token;
      delete profile.tokenFile;
    }
    if (update.defaults !== undefined) profile.defaults = { ...existing?.defaults, ...update.defaults };
    if (update.unset !== undefined && profile.defaults !== undefined) {
      const defaults: ProfileDefaults = { ...profile.defaults };
      for (const key of update.unset) delete defaults[key];
      profile.defaults = defaults;
    }
    const checked = profileSchema.safeParse(profile);
    if (!checked.success) throw new UsageError(`profile ${name}: ${checked.error.issues[0]?.message ?? 'invalid'}`);
    config.profiles[name] = checked.data;
    if (update.makeDefault || config.defaultProfile === undefined) config.defaultProfile = name;
  });
}

export const removeProfile = (name: string, env: Env = process.env) =>
  changeConfig(env, (config) => {
    profileNamed(config, name, env);
    delete config.profiles[name];
    if (config.defaultProfile === name) delete config.defaultProfile;
  });

/**
 * What a listing shows of each profile, never the token value: its `token` is "set (file ~/.token)", "not usable:
 * <why>" (`readToken` refused it), "stored" (config.json) or "not set".
 */
export async function listProfiles(env: Env, readToken: (file: string) => Promise<unknown>) {
  const config = await loadConfig(env);
  const fileToken = (file: string) =>
    Promise.resolve()
      .then(() => readToken(expandPath(file, configDir(env), env)))
      .then(
        () => `set (file ${file})`,
        (error: Error) => error.message,
      );
  return Promise.all(
    Object.entries(config.profiles)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(async ([name, profile]) => ({
        name,
        isDefault: config.defaultProfile === name,
        ...(profile.baseUrl === undefined ? {} : { baseUrl: redactUrl(profile.baseUrl) }),
        token:
          profile.tokenFile !== undefined
            ? await fileToken(profile.tokenFile)
            : profile.token !== undefined
              ? 'stored'
              : 'not set',
        defaults: { ...profile.defaults },
      })),
  );
}

export type ProfileSummary = Awaited<ReturnType<typeof listProfiles>>[number];

/** The profile of that name (`toString` is none), else exit 2 naming the known ones; `via`: what named it. */
export function profileNamed(config: ExamctlConfig, name: string, env: Env, via?: string): Profile {
  const profile = Object.hasOwn(config.profiles, name) ? config.profiles[name] : undefined;
  if (profile !== undefined) return profile;
  const known = Object.keys(config.profiles);
  const others = known.length > 0 ? ` (known: ${known.join(', ')})` : ' (no profiles configured)';
  const place = PLACES.get(config);
  // The config file's own key: its file, line and key, as any refusal of what the file says.
  if (via === 'defaultProfile' && place !== undefined)
    throw new UsageError(`${keyAt(place, ['defaultProfile'])}: no profile named ${quotedValue(name)}${others}`);
  throw new UsageError(
    `${via === undefined ? '' : `${via}: `}no profile named ${quotedValue(name)} in ${configPath(env)}${others}`,
  );
}

/** A run's checks, so a profile cannot hold a URL every command would refuse; trailing slashes dropped. */
export async function checkedBaseUrl(baseUrl: string, allowInsecureHttp: boolean): Promise<string> {
  const { parseBaseUrl } = await import('../api/url-policy.js');
  parseBaseUrl(baseUrl, allowInsecureHttp);
  return baseUrl.trim().replace(/\/+$/, '');
}

export function expandPath(file: string, base: string, env: Env = process.env): string {
  if (file === '~' || file.startsWith('~/'))
    return path.join(requiredHome(env, `an absolute path for ${file}`), file.slice(1));
  return path.resolve(base, file);
}

export const useProfile = (name: string, env: Env = process.env) =>
  changeConfig(env, (config) => {
    profileNamed(config, name, env);
    config.defaultProfile = name;
  });

/**
 * `examctl login`: the token written 0600 to `file`, in place only once the profile is saved: a failed save leaves
 * the old token file and no new one; a token file that cannot be put in place leaves the profile and default as were.
 */
export async function setProfileToken(
  name: string,
  update: ProfileUpdate,
  file: string,
  token: string,
  env: Env = process.env,
): Promise<ExamctlConfig> {
  const replacement = await privateReplacement(file, `${token}\n`, env);
  const { profiles, defaultProfile } = await loadConfig(env);
  const saved = await setProfile(name, update, env).catch((error: unknown) =>
    replacement.discard().then(() => Promise.reject(error)),
  );
  await named(file, () => replacement.commit()).catch(async (error: unknown) => {
    await changeConfig(env, (config) => {
      if (profiles[name] !== undefined) config.profiles[name] = profiles[name];
      else delete config.profiles[name];
      if (defaultProfile !== undefined) config.defaultProfile = defaultProfile;
      else delete config.defaultProfile;
    }).catch(() => undefined);
    throw error;
  });
  return saved;
}
