import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { InterruptedError, UsageError } from '../../errors.js';
import { configDir, configPath, loadConfig, setProfile, writeTokenFile } from '../config-file.js';
import { nonEmpty, promptsAllowed, type CommandDeps, type GlobalOptions } from '../context.js';

export type LoginOptions = GlobalOptions;

/** Asks for a secret without echoing it; resolves with what was typed. */
export type AskSecret = (message: string, signal?: AbortSignal) => Promise<string>;

export interface LoginDeps extends CommandDeps {
  /** Test seam; defaults to @inquirer/prompts `password` (masked) on stderr. */
  askSecret?: AskSecret;
}

/**
 * `examctl login [--profile name]`: prompts for the EAPI token without echo and stores it in a
 * token file beside the config (`<config dir>/<profile>.token`, mode 0600), referenced by the
 * profile's tokenFile. A file of its own, rather than the token inside config.json, keeps the
 * config file free of secrets (it can be shown, diffed, shared) and lets one profile's token be
 * rotated or revoked by replacing or deleting one file.
 * Only on a terminal: scripts give the token with --token-file or EXAMCTL_TOKEN instead.
 */
export async function run(options: LoginOptions, deps: LoginDeps): Promise<number> {
  const env = deps.env;
  const config = await loadConfig(env);
  const name = options.profile ?? nonEmpty(env.EXAMCTL_PROFILE) ?? config.defaultProfile;
  if (name === undefined) {
    throw new UsageError('examctl login: which profile? Give --profile <name> (with --base-url <url> to create it), or create one with examctl config set-profile');
  }
  const existing = config.profiles[name];
  if (existing === undefined && options.baseUrl === undefined) {
    throw new UsageError(`examctl login: no profile named ${JSON.stringify(name)} in ${configPath(env)}: add --base-url <url> to create it`);
  }
  if (!promptsAllowed(options, deps)) {
    throw new UsageError(
      'examctl login prompts for the token and needs a terminal: in scripts give the token with --token-file <path> ' +
        `(or examctl config set-profile ${name} --token-file <path>) or set EXAMCTL_TOKEN`,
    );
  }
  let baseUrl: string | undefined;
  if (options.baseUrl !== undefined) {
    const { parseBaseUrl } = await import('../../api/url-policy.js');
    parseBaseUrl(options.baseUrl, options.allowInsecureHttp ?? false);
    baseUrl = options.baseUrl.trim().replace(/\/+$/, '');
  }

  const ask = deps.askSecret ?? inquirerSecret;
  const typed = (await ask(`EAPI token for ${baseUrl ?? existing?.baseUrl ?? name}:`, deps.signal)).trim();
  if (typed === '') throw new UsageError('examctl login: no token entered; nothing was changed');
  if (/[\r\n\s]/.test(typed)) throw new UsageError('examctl login: a token has no spaces or line breaks; nothing was changed');

  const fileName = `${name}.token`;
  const file = join(configDir(env), fileName);
  await writeTokenFile(file, typed);
  // Relative to the config directory (remote-settings resolves it there), so the pair moves together.
  await setProfile(name, baseUrl !== undefined ? { baseUrl, tokenFile: fileName } : { tokenFile: fileName }, env);
  await deps.stderr.write(`token stored in ${file} (mode 0600) for profile ${name}; check it with: examctl doctor --profile ${name}\n`);
  return 0;
}

async function inquirerSecret(message: string, signal?: AbortSignal): Promise<string> {
  const { password } = await import('@inquirer/prompts');
  // Inquirer ends the stream it writes to; a pass-through keeps process.stderr open for later output.
  const output = new PassThrough();
  output.pipe(process.stderr, { end: false });
  try {
    return await password({ message, mask: true }, signal === undefined ? { output } : { output, signal });
  } catch (error) {
    if (error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError')) {
      throw new InterruptedError('interrupted at the token prompt: nothing was changed', { cause: error });
    }
    throw error;
  } finally {
    output.unpipe(process.stderr);
  }
}
