import { rememberSecret } from '../domain/known-secrets.js';
import { UsageError } from '../system/errors.js';
import type { CodeOfExit } from '../system/error-codes.js';
import {
  configDir,
  configPlace,
  expandPath,
  runConfig,
  TOKEN_FILE_MAX_BYTES,
  type ConfigSource,
} from './config-file.js';
import type { RunSettings } from './settings.js';
import { decodeTextDocument } from '../input/text-source.js';
import { FileTooLargeError, NotRegularFileError, readRegularFileWithStat } from '../system/regular-file.js';
import { configTokenExposed, tokenFileModeWarning } from './loose-permissions.js';
import { assertOpenedTrusted, currentTrustContext, UntrustedPlaceError } from '../system/trusted-place.js';
import { describeSystemError } from '../system/system-error-words.js';
import type { Env } from '../system/env-values.js';
import type { GlobalOptions } from '../flags/global-options.js';

/** The flags a remote target is taken from (each beats its variable and the profile); `cwd`: for a relative path. */
export type RemoteTargetInput = Pick<GlobalOptions, 'baseUrl' | 'tokenFile' | 'profile'> &
  ConfigSource & { cwd?: string };

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
  concurrency?: number;
  rate?: number;
  /** Things the user should hear about on stderr (a token file readable by others). Never the token. */
  warnings: string[];
}

/** The code of a remote target that lacks its base URL or its token (`doctor`'s token check is noTokenError). */
const REMOTE_NOT_SET = 'E2008' satisfies CodeOfExit<2>;

export function noTokenError(): UsageError {
  return new UsageError(
    'no token for the remote target: set EXAMCTL_TOKEN, give --token-file <path>, or use a profile with a token',
    { code: REMOTE_NOT_SET },
  );
}

export function noBaseUrlError(): UsageError {
  return new UsageError(
    'no remote base URL: give --base-url, set EXAMCTL_BASE_URL, or use a profile (--profile / EXAMCTL_PROFILE)',
    { code: REMOTE_NOT_SET },
  );
}

/** The remote base URL and token as `--target remote` would take them; undefined when no base URL is configured. */
export async function resolveRemoteTarget(input: RemoteTargetInput): Promise<RemoteTarget | undefined> {
  const { resolveSettings } = await import('./settings.js');
  return remoteTargetOf(
    await resolveSettings({ target: 'remote', baseUrl: input.baseUrl, profile: input.profile }, input),
    input,
  );
}

/** The token from --token-file, EXAMCTL_TOKEN, else the profile's; none is no error here (a dry run needs none). */
export async function remoteTargetOf(
  settings: RunSettings,
  input: Pick<RemoteTargetInput, 'tokenFile' | 'env' | 'config' | 'cwd'>,
): Promise<RemoteTarget | undefined> {
  const { env } = input;
  const warnings: string[] = [];
  const config = await runConfig(input);
  const exposed = await configTokenExposed(env, config);
  if (exposed !== undefined) warnings.push(exposed);
  const profile = settings.record;
  const profileName = profile?.name;
  const baseUrl = settings.baseUrl?.value;
  if (baseUrl === undefined) return undefined;

  const target: RemoteTarget = { baseUrl, warnings };
  if (profileName !== undefined) target.profile = profileName;
  if (settings.values.concurrency !== undefined) target.concurrency = settings.values.concurrency.value;
  if (settings.values.rate !== undefined) target.rate = settings.values.rate.value;

  const envToken = env.EXAMCTL_TOKEN;
  if (input.tokenFile !== undefined) {
    target.tokenFile = expandPath(input.tokenFile, input.cwd ?? process.cwd(), env);
    target.token = await readTokenFile(target.tokenFile, '--token-file', warnings, env);
    target.tokenSource = 'token-file';
  } else if (envToken !== undefined && envToken.trim() !== '') {
    target.token = envToken.trim();
    target.tokenSource = 'env';
  } else if (profile?.tokenFile !== undefined) {
    target.tokenFile = expandPath(profile.tokenFile, configDir(env), env);
    const at = configPlace(config, ['profiles', profileName!, 'tokenFile']);
    const via = `${at === undefined ? '' : `${at}: `}profile ${profileName}: tokenFile`;
    target.token = await readTokenFile(target.tokenFile, via, warnings, env);
    target.tokenSource = 'profile-file';
  } else if (profile?.token !== undefined && profile.token.trim() !== '') {
    target.token = profile.token.trim();
    target.tokenSource = 'profile';
  }
  // Checked where the source is known, for every source alike (a line break too); the token itself is never shown.
  if (target.tokenSource !== undefined)
    visibleToken(target.token ?? '', `the token from ${TOKEN_SOURCE_WORDS[target.tokenSource]}`);
  // Never quoted from an input file after this (domain/known-secrets.ts).
  rememberSecret(target.token);
  return target;
}

/** The token, else exit 2 naming `from` and where: one check for every source and `config list`. */
function visibleToken(token: string, from: string): string {
  const bad = token.search(/[^\x21-\x7e]/);
  if (bad < 0) return token;
  const where = `(at position ${bad + 1}, not shown); a token is letters, digits and punctuation only`;
  throw new UsageError(
    `${from} holds a character outside visible ASCII ${where} (a copy from a document may have added one)`,
  );
}

/** Where a token came from, in words (doctor, the target line): never the token. */
export const TOKEN_SOURCE_WORDS: Readonly<Record<TokenSource, string>> = {
  'token-file': '--token-file',
  env: 'EXAMCTL_TOKEN',
  'profile-file': "the profile's token file",
  profile: 'the profile (stored in the config file)',
};

/** Reads a token file (below), its token checked: the token, its file's loose mode added to `warnings`. */
export async function readTokenFile(
  file: string,
  via: string,
  warnings: string[],
  env: Env = process.env,
): Promise<string> {
  const { text, mode } = await readSecretFile(file, via, 'token', TOKEN_FILE_MAX_BYTES, env);
  const exposed = tokenFileModeWarning(file, mode, via);
  if (exposed !== undefined) warnings.push(exposed);
  return visibleToken(text, `${via}: ${file}`);
}

/**
 * A file holding one secret (a token, a PIN) and its mode: opened once as a regular file, judged on that handle
 * (docs/security.md, "The rule"), decoded by its BOM; empty, over `maxBytes` or over one line: exit 2.
 */
export async function readSecretFile(
  path: string,
  via: string,
  what: 'token' | 'PIN',
  maxBytes: number,
  env: Env,
  file = path,
): Promise<{ text: string; mode: number }> {
  let read: { bytes: Buffer; stat: { mode: number } };
  const context = currentTrustContext(env);
  try {
    read = await readRegularFileWithStat(path, {
      followLinks: true,
      maxBytes,
      // Another user who can write the file or a directory above it chooses the secret sent.
      check: (handle, opened) =>
        assertOpenedTrusted(what === 'token' ? `${via}: the token file` : via, path, handle, context, { stat: opened }),
    });
  } catch (error) {
    if (error instanceof UntrustedPlaceError) throw error;
    if (error instanceof NotRegularFileError) throw new UsageError(`${via}: ${error.message}`);
    if (error instanceof FileTooLargeError) {
      const most = maxBytes % 1024 === 0 ? `${maxBytes / 1024} KiB` : `${maxBytes} bytes`;
      throw new UsageError(`${via}: ${file} is larger than ${most}: not a ${what} file, not read`);
    }
    throw new UsageError(`${via}: cannot read ${file}: ${describeSystemError(error, 'file')}`);
  }
  // A token is printable ASCII: anything else is a file in an encoding examctl did not
  // recognise (UTF-16 without a BOM, a legacy code page), which the service would refuse (401).
  const notToken = () =>
    new UsageError(
      `${via}: ${file} does not hold a plain token (it has characters a token never has: a file saved in another encoding?); ` +
        'save it as text (UTF-8, or UTF-16 with a BOM), e.g. in PowerShell: Set-Content -Encoding ascii token.txt $token',
    );
  const text = decodeTextDocument(read.bytes, `${via}: ${file}`, what === 'token' ? notToken : undefined).trim();
  if (text === '') throw new UsageError(`${via}: ${file} is empty`);
  if (what === 'token' && /[^\x20-\x7e\r\n]/.test(text)) throw notToken();
  if (/[\r\n]/.test(text))
    throw new UsageError(`${via}: ${file} has more than one line; it must hold only the ${what}`);
  return { text, mode: read.stat.mode };
}
