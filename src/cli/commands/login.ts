import { redactUrl } from '../../domain/problem.js';
import { say } from '../../formats/terminal-text.js';
import { loadConfig, setProfileToken } from '../../context/config-file.js';
import { askedSecret, promptsOff, type CommandDeps } from '../../context/command-deps.js';
import {
  checkedLoginToken,
  loginProfile,
  loginTokenFile,
  readTokenFromStdin,
  refuseLoginPrompt,
  storedLines,
  verifyToken,
} from '../../context/login.js';
import type { LoginOptions } from './login.options.js';
import { profileDone } from './config.js';

/** `examctl login [--profile name]`: docs/remote.md, "Pointing at a real platform", step 2. */
export async function run(options: LoginOptions, deps: CommandDeps): Promise<number> {
  const env = deps.env;
  const config = await loadConfig(env);
  const login = await loginProfile(options, config, env);
  const { name, baseUrl, target } = login;
  const { file, fileName } = loginTokenFile(config, name, env);
  const piped = options.withToken === true;
  if (!piped) refuseLoginPrompt(promptsOff(options, deps), name);
  const typed = piped
    ? await readTokenFromStdin(deps)
    : (await askedSecret(deps, `EAPI token for ${redactUrl(target)}:`)).trim();
  const token = checkedLoginToken(typed, piped);
  const checked = options.verify !== false;
  if (checked) {
    await verifyToken(target, token, options.allowInsecureHttp ?? false, deps);
    await say(deps, `token accepted by ${target}`);
  }
  // Relative to the config directory (remote-settings resolves it there), so the pair moves together.
  const saved = await setProfileToken(name, { baseUrl, tokenFile: fileName }, file, token, env);
  for (const line of storedLines(login, saved, file, checked, env, deps.platform ?? process.platform))
    await say(deps, line);
  await profileDone(options.json, name, { done: 'token stored', checked }, deps);
  return 0;
}
