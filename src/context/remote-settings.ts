import { quotedValue } from '../domain/problem.js';
import { UsageError } from '../system/errors.js';
import { configDir, configPath, expandPath, loadConfig, type Env } from './config-file.js';
import { nonEmpty } from '../system/env-values.js';
import { decodeByBom } from '../input/text-source.js';
import { FileTooLargeError, NotRegularFileError, readRegularFileWithStat } from '../system/regular-file.js';
import { tokenFileModeWarning } from './loose-permissions.js';
import { assertOpenedTrusted, currentTrustContext, UntrustedPlaceError } from '../system/trusted-place.js';
import { describeSystemError } from '../system/system-error-words.js';

export interface RemoteTargetInput {
  /** --base-url (falls back to EXAMCTL_BASE_URL, then the profile). */
  baseUrl?: string;
  /** --token-file (beats EXAMCTL_TOKEN, which beats the profile). */
  tokenFile?: string;
  /** --profile (falls back to EXAMCTL_PROFILE, then the config's default profile). */
  profile?: string;
  env: Env;
  /** Base for a relative --token-file. Default process.cwd(). */
  cwd?: string;
}

export type TokenSource = 'token-file' | 'env' | 'profile-file' | 'profile';

export interface RemoteTarget {
  baseUrl: string;
  /** The secret: pass it to createRemoteClient, never print it. Undefined when no source gives one. */
  token?: string;
  /** Where the token came from, for `doctor`-style messages ("token: from EXAMCTL_TOKEN"). */
  tokenSource?: TokenSource;
  /** The file the token was read from (--token-file or the profile's tokenFile), for doctor's permissions check. */
  tokenFile?: string;
  profile?: string;
  /** The profile's defaults (flags override them). */
  concurrency?: number;
  rate?: number;
  /** Things the user should hear about on stderr (a token file readable by others). Never the token. */
  warnings: string[];
}

export type RemoteTargetWithToken = RemoteTarget & { token: string; tokenSource: TokenSource };

export const NO_BASE_URL_MESSAGE =
  'no remote base URL: give --base-url, set EXAMCTL_BASE_URL, or use a profile (--profile / EXAMCTL_PROFILE)';

/**
 * Resolves the remote base URL and token from flags, environment and the config's profiles.
 *
 * Base URL: --base-url, EXAMCTL_BASE_URL, the profile. Token: --token-file, EXAMCTL_TOKEN, the
 * profile (tokenFile, else token). Profile: --profile, EXAMCTL_PROFILE, else the default
 * profile, which is not used when a base URL is given by flag or env, so its token is never
 * sent to a host the user named some other way.
 *
 * Resolves undefined when no base URL is configured anywhere (the local target applies; a
 * caller that needs a remote throws NO_BASE_URL_MESSAGE). A missing token is not an error here
 * (a dry run sends nothing and needs none): use `requireRemoteTarget` where one is needed.
 * Throws UsageError for what is wrong rather than missing: an unknown profile, an unreadable,
 * empty or multi-line token file, a malformed config file.
 */
export async function resolveRemoteTarget(input: RemoteTargetInput): Promise<RemoteTarget | undefined> {
  const { env } = input;
  const warnings: string[] = [];
  const explicitBaseUrl = nonEmpty(input.baseUrl) ?? nonEmpty(env.EXAMCTL_BASE_URL);
  const explicitProfile = nonEmpty(input.profile) ?? nonEmpty(env.EXAMCTL_PROFILE);

  const config = await loadConfig(env);
  const { configTokenExposed } = await import('./loose-permissions.js');
  const exposed = await configTokenExposed(configPath(env), Object.values(config.profiles).some((entry) => entry.token !== undefined));
  if (exposed !== undefined) warnings.push(exposed);
  let profileName: string | undefined;
  if (explicitProfile !== undefined) {
    if (!(explicitProfile in config.profiles)) {
      const via = nonEmpty(input.profile) !== undefined ? '--profile' : 'EXAMCTL_PROFILE';
      const known = Object.keys(config.profiles);
      throw new UsageError(
        `${via}: no profile named ${quotedValue(explicitProfile)} in ${configPath(env)}` +
          (known.length > 0 ? ` (known: ${known.join(', ')})` : ' (no profiles configured)'),
      );
    }
    profileName = explicitProfile;
  } else if (explicitBaseUrl === undefined && config.defaultProfile !== undefined && config.defaultProfile in config.profiles) {
    profileName = config.defaultProfile;
  }
  const profile = profileName !== undefined ? config.profiles[profileName] : undefined;

  const baseUrl = explicitBaseUrl ?? profile?.baseUrl;
  if (baseUrl === undefined) return undefined;

  const target: RemoteTarget = { baseUrl, warnings };
  if (profileName !== undefined) target.profile = profileName;
  if (profile?.defaults?.concurrency !== undefined) target.concurrency = profile.defaults.concurrency;
  if (profile?.defaults?.rate !== undefined) target.rate = profile.defaults.rate;

  const flagFile = nonEmpty(input.tokenFile);
  const envToken = env.EXAMCTL_TOKEN;
  if (flagFile !== undefined) {
    target.tokenFile = expandPath(flagFile, input.cwd ?? process.cwd(), env);
    target.token = await readTokenFile(target.tokenFile, '--token-file', warnings, env);
    target.tokenSource = 'token-file';
  } else if (envToken !== undefined && envToken.trim() !== '') {
    target.token = envToken.trim();
    target.tokenSource = 'env';
  } else if (profile?.tokenFile !== undefined) {
    target.tokenFile = expandPath(profile.tokenFile, configDir(env), env);
    target.token = await readTokenFile(target.tokenFile, `profile ${profileName}: tokenFile`, warnings, env);
    target.tokenSource = 'profile-file';
  } else if (profile?.token !== undefined && profile.token.trim() !== '') {
    target.token = profile.token.trim();
    target.tokenSource = 'profile';
  }
  if (target.token !== undefined && target.tokenSource !== undefined && /[\r\n]/.test(target.token)) {
    throw new UsageError(`the token from ${describeSource(target.tokenSource)} spans several lines`);
  }
  // Checked where the source is known, for every source alike; the token itself is never shown.
  const bad = target.token === undefined ? -1 : target.token.search(/[^\x21-\x7e]/);
  if (bad >= 0 && target.tokenSource !== undefined) {
    throw new UsageError(
      `the token from ${describeSource(target.tokenSource)} holds a character outside visible ASCII (at position ${bad + 1}, not shown); ` +
        'a token is letters, digits and punctuation only (a copy from a document may have added one)',
    );
  }
  return target;
}

/** As resolveRemoteTarget, but a missing base URL or token is a UsageError naming the flags and variables. */
export async function requireRemoteTarget(input: RemoteTargetInput): Promise<RemoteTargetWithToken> {
  const target = await resolveRemoteTarget(input);
  if (target === undefined) throw new UsageError(NO_BASE_URL_MESSAGE);
  if (target.token === undefined || target.tokenSource === undefined) {
    throw new UsageError(
      'no token for the remote target: set EXAMCTL_TOKEN, give --token-file <path>, or use a profile with a token' +
        (target.profile !== undefined ? ` (profile ${target.profile} has none)` : ''),
    );
  }
  return target as RemoteTargetWithToken;
}

export function describeSource(source: TokenSource): string {
  switch (source) {
    case 'token-file':
      return '--token-file';
    case 'env':
      return 'EXAMCTL_TOKEN';
    case 'profile-file':
      return "the profile's token file";
    case 'profile':
      return 'the profile (stored in the config file)';
  }
}

/** A token is a few hundred bytes at most: a larger "token file" is the wrong file, refused unread. */
const TOKEN_FILE_MAX_BYTES = 64 * 1024;

/**
 * Reads a token file: the whole file minus trailing whitespace (a trailing newline is normal).
 * Opened once as a regular file (src/system/regular-file.ts: a FIFO or device planted there is refused
 * without blocking), and its mode judged from that open handle, so another user cannot swap the
 * file between the check and the read. A symbolic link the user made is followed.
 */
export async function readTokenFile(file: string, via: string, warnings: string[], env: Env = process.env): Promise<string> {
  let text: string;
  const context = currentTrustContext(env);
  try {
    const { bytes, stat } = await readRegularFileWithStat(file, {
      followLinks: true,
      maxBytes: TOKEN_FILE_MAX_BYTES,
      // Another user who can write the file or a directory above it chooses the token sent.
      check: (handle, opened) => assertOpenedTrusted(`${via}: the token file`, file, handle, context, { stat: opened }),
    });
    const exposed = tokenFileModeWarning(file, stat.mode, via);
    if (exposed !== undefined) warnings.push(exposed);
    text = decodeByBom(bytes);
  } catch (error) {
    if (error instanceof UntrustedPlaceError) throw error;
    if (error instanceof NotRegularFileError) throw new UsageError(`${via}: ${error.message}`);
    if (error instanceof FileTooLargeError) throw new UsageError(`${via}: ${file} is larger than ${TOKEN_FILE_MAX_BYTES / 1024} KiB: not a token file, not read`);
    throw new UsageError(`${via}: cannot read ${file}: ${describeSystemError(error, 'file')}`);
  }
  const token = text.replace(/\s+$/, '').replace(/^\s+/, '');
  if (token === '') throw new UsageError(`${via}: ${file} is empty`);
  // A token is printable ASCII: anything else is a file in an encoding examctl did not
  // recognise (UTF-16 without a BOM, a legacy code page), which the service would refuse (401).
  if (/[^\x20-\x7e\r\n]/.test(token)) {
    throw new UsageError(
      `${via}: ${file} does not hold a plain token (it has characters a token never has: a file saved in another encoding?); ` +
        'save it as text (UTF-8, or UTF-16 with a BOM), e.g. in PowerShell: Set-Content -Encoding ascii token.txt $token',
    );
  }
  if (/[\r\n]/.test(token)) throw new UsageError(`${via}: ${file} has more than one line; it must hold only the token`);
  return token;
}
