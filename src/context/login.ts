/**
 * `examctl login`'s decisions (docs/remote.md, "Pointing at a real platform", step 2): which profile and base URL,
 * where its token goes (never a file another profile reads), the token refused unless plain, checked before it is
 * kept, and what login says of it.
 */
import { join } from 'node:path';
import { quotedValue, redactUrl } from '../domain/problem.js';
import { TargetError, UsageError } from '../system/errors.js';
import { nonEmpty } from '../system/env-values.js';
import { say } from '../formats/terminal-text.js';
import { promptsOffWords } from '../terminal/prompt-state.js';
import {
  checkedBaseUrl,
  configDir,
  configPath,
  expandPath,
  loadConfig,
  sameUrl,
  setProfileToken,
  TOKEN_FILE_MAX_BYTES,
} from './config-file.js';
import { askedSecret, promptsOff, type CommandDeps } from './command-deps.js';
import type { GlobalOptions } from '../flags/global-options.js';
import { changedLines, profileDone } from './profile-commands.js';

export async function login(
  options: GlobalOptions & { withToken?: boolean | undefined; verify?: boolean | undefined },
  deps: CommandDeps,
): Promise<void> {
  const env = deps.env;
  const config = await loadConfig(env);
  const name = options.profile ?? nonEmpty(env.EXAMCTL_PROFILE) ?? config.defaultProfile;
  if (name === undefined) {
    throw new UsageError(
      'examctl login: which profile? Give --profile <name> (with --base-url <url> to create it), or create one with examctl config set-profile',
    );
  }
  const existing = config.profiles[name];
  const given = options.baseUrl ?? nonEmpty(env.EXAMCTL_BASE_URL);
  if (!options.baseUrl && given && existing?.baseUrl && !sameUrl(given, existing.baseUrl)) {
    const names = `EXAMCTL_BASE_URL names ${redactUrl(given)}, not profile ${name}'s ${redactUrl(existing.baseUrl)}`;
    throw new UsageError(`examctl login: ${names}; nothing sent: unset it or give --base-url`);
  }
  const baseUrl = given === undefined ? undefined : await checkedBaseUrl(given, options.allowInsecureHttp ?? false);
  const target = baseUrl ?? existing?.baseUrl;
  if (target === undefined) {
    const missing = existing
      ? `profile ${name} has no base URL`
      : `no profile named ${quotedValue(name)} in ${configPath(env)}`;
    throw new UsageError(`examctl login: ${missing}: add --base-url <url>`);
  }
  const [fileName, dir] = [`${name}.token`, configDir(env)];
  const file = join(dir, fileName);
  // As runs read it (a `~/...` kept as given included).
  const tokenFileOf = (p: { tokenFile?: string }) => (p.tokenFile ? expandPath(p.tokenFile, dir, env) : '');
  const twin = Object.entries(config.profiles).find(
    ([other, p]) => other !== name && tokenFileOf(p).toLowerCase() === file.toLowerCase(),
  );
  if (twin) {
    // Two profiles may share a path; one only letter case tells apart is one file on macOS and Windows.
    const [other, shared] = [twin[0], tokenFileOf(twin[1]) === file ? 'too' : 'on macOS and Windows'];
    throw new UsageError(
      `examctl login: ${file} is profile ${other}'s token file ${shared}; nothing was changed: ` +
        `give ${other} its own first: examctl config set-profile ${other} --token-file <another file>`,
    );
  }
  const off = options.withToken ? undefined : promptsOff(options, deps);
  if (off !== undefined) {
    throw new UsageError(
      `examctl login prompts for the token (${promptsOffWords(off)}): in scripts ` +
        `run examctl config set-profile ${name} --token-file <path>, pipe it to examctl login --with-token, or set EXAMCTL_TOKEN`,
    );
  }
  const token = options.withToken
    ? await readTokenFromStdin(deps)
    : (await askedSecret(deps, `EAPI token for ${redactUrl(target)}:`)).trim();
  if (token === '')
    throw new UsageError(`examctl login: no token ${options.withToken ? 'on stdin' : 'entered'}; nothing was changed`);
  if (/[\r\n\s]/.test(token))
    throw new UsageError('examctl login: a token has no spaces or line breaks; nothing was changed');
  const checked = options.verify !== false;
  if (checked) {
    await verifyToken(target, token, options.allowInsecureHttp ?? false, deps);
    await say(deps, `token accepted by ${target}`);
  }
  // Relative to the config directory (remote-settings resolves it there), so the pair moves together.
  const saved = await setProfileToken(name, { baseUrl, tokenFile: fileName }, file, token, env);
  const told = existing?.tokenFile && expandPath(existing.tokenFile, dir, env);
  const changes = changedLines(name, [
    ['base URL', existing?.baseUrl, saved.profiles[name]?.baseUrl],
    ['token file', told, file],
  ]);
  for (const line of changes) await say(deps, line);
  const protection =
    (deps.platform ?? process.platform) === 'win32'
      ? "protected by the folder's access list, not by a mode"
      : 'mode 0600';
  await say(
    deps,
    `token stored in ${file} (${protection}) for profile ${name}${!checked ? `; not checked (--no-verify): check it with examctl doctor --profile ${name}` : ''}`,
  );
  await profileDone(options.json, name, { done: 'token stored', checked }, deps);
}

/** The token piped in (gh's `--with-token`): refused as a token file is (docs/windows.md), never kept for a 401. */
async function readTokenFromStdin(deps: CommandDeps): Promise<string> {
  const stdin = deps.stdin ?? process.stdin;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer);
    chunks.push(bytes);
    size += bytes.length;
    if (size > TOKEN_FILE_MAX_BYTES)
      throw new UsageError(
        'examctl login --with-token: stdin holds more than a token (over 64 KiB); nothing was changed',
      );
  }
  const { decodeTextDocument } = await import('../input/text-source.js');
  const notToken = () =>
    new UsageError(
      'examctl login --with-token: stdin does not hold a plain token (it has characters a token never has: another encoding?); ' +
        'give it as text (UTF-8, or UTF-16 with a BOM), e.g. in PowerShell: Set-Content -Encoding ascii token.txt $token; nothing was changed',
    );
  const token = decodeTextDocument(Buffer.concat(chunks), 'examctl login --with-token: stdin', notToken).trim();
  if (/[^\x20-\x7e\r\n]/.test(token)) throw notToken();
  return token;
}

/** Checked with doctor's probe before it is kept (docs/remote.md): one kept unchecked is the next run's surprise. */
async function verifyToken(
  baseUrl: string,
  token: string,
  allowInsecureHttp: boolean,
  deps: CommandDeps,
): Promise<void> {
  const [{ probeRemote }, { probeId }, { authorisedVerdict }] = await Promise.all([
    import('../api/remote-probe.js'),
    import('./doctor-checks.js'),
    import('./doctor-verdicts.js'),
  ]);
  const answer = await probeRemote(
    {
      baseUrl,
      token,
      allowInsecureHttp,
      env: deps.env,
      retries: { sleep: deps.retrySleep },
      ...(deps.signal ? { signal: deps.signal } : {}),
    },
    `/external/review-sessions/${probeId()}`,
  );
  const unchecked = 'nothing was stored. To store it unchecked: examctl login --no-verify';
  if (answer.kind === 'unreachable') {
    throw new TargetError(
      `examctl login: could not reach ${baseUrl} to check the token (${answer.reason}); ${unchecked}`,
    );
  }
  if (answer.status === 401 || answer.status === 403) {
    throw new TargetError(`examctl login: ${baseUrl} refused the token (HTTP ${answer.status}); nothing was stored`, {
      code: 'E3010',
    });
  }
  if (authorisedVerdict(answer, true, baseUrl).status !== 'ok') {
    throw new TargetError(
      `examctl login: ${baseUrl} answered HTTP ${answer.status}${answer.envelope === undefined ? " without the API's JSON envelope (is it the integration API's base URL?)" : ''}, so the token could not be checked; ${unchecked}`,
    );
  }
}
