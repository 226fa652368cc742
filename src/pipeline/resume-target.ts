import { RunJournalError } from '../runs/run-errors.js';
import { type OpenedResume } from '../runs/resume-plan.js';
import { redactUrl } from '../domain/problem.js';
import { describeTarget } from '../report/report-writers.js';
import { nonEmpty } from '../system/env-values.js';
import { expandPath, runConfig, sameUrl, type ExamctlConfig } from '../context/config-file.js';
import { say, terminalLine } from '../formats/terminal-text.js';
import { confirmed, promptsAllowed, type CommandDeps } from '../context/command-deps.js';
import { type GlobalOptions } from '../flags/global-options.js';

/*
 * The recorded target said, and one that differs from today's never taken on --yes alone (docs/runs.md, "runs resume"):
 * a journal does not prove who wrote it, and a resume sends the user's token to the base URL it names.
 */

/** What in the recorded remote target differs from what `given` (and the env and profile) give now. */
async function targetDifferences(
  opened: OpenedResume,
  given: GlobalOptions,
  deps: CommandDeps,
  { profiles }: ExamctlConfig,
): Promise<string[]> {
  const { header } = opened.record;
  const recorded = header.options;
  // A profile named now, not by the run, for another target: its token is for that one (also with --target-from-run).
  const named =
    given.profile ?? (typeof recorded.profile === 'string' ? undefined : nonEmpty(deps.env.EXAMCTL_PROFILE));
  if (header.target.kind !== 'remote' && (named === undefined || named === recorded.profile)) return [];
  const { resolveRemoteTarget } = await import('../context/remote-settings.js');
  // The journal's target: an empty EXAMCTL_BASE_URL is unused.
  const env = { ...deps.env, EXAMCTL_BASE_URL: nonEmpty(deps.env.EXAMCTL_BASE_URL) };
  const now = await resolveRemoteTarget({
    baseUrl: given.baseUrl,
    tokenFile: given.tokenFile,
    profile: given.profile,
    env,
    config: deps.config,
    cwd: deps.cwd,
  });
  const differences: string[] = [];
  const recordedUrl =
    header.target.kind === 'local'
      ? undefined
      : typeof recorded.baseUrl === 'string'
        ? recorded.baseUrl
        : header.target.baseUrl;
  const currentUrl = now && redactUrl(now.baseUrl);
  if (currentUrl !== (recordedUrl && redactUrl(recordedUrl))) {
    const [via, sent] = [
      `${given.profile === undefined ? 'EXAMCTL_PROFILE' : '--profile'} ${named}`,
      recordedUrl ?? describeTarget(header.target),
    ];
    if (named !== undefined && named !== recorded.profile)
      throw new RunJournalError(
        `run ${header.id} was sent to ${sent}, but ${via} gives ${currentUrl ?? 'no base URL'}: its token is for that target. Nothing was sent. Leave ${via} out, or name a profile of ${sent}`,
      );
    differences.push(
      `its base URL ${recordedUrl} is not ${currentUrl === undefined ? 'configured now (no --base-url, EXAMCTL_BASE_URL or profile)' : `the one configured now (${currentUrl})`}`,
    );
  }
  // A token file given now is the one used, not a recorded one.
  if (typeof recorded.tokenFile === 'string' && given.tokenFile === undefined) {
    const base = typeof recorded.cwd === 'string' ? recorded.cwd : deps.cwd;
    differences.push(
      `it reads its token from ${expandPath(recorded.tokenFile, base, deps.env)}, not from ${now?.tokenSource === 'env' ? 'EXAMCTL_TOKEN' : 'what is configured now'}`,
    );
  }
  // A recorded profile's token would be sent too: another profile than today's is another token.
  if (
    typeof recorded.profile === 'string' &&
    given.profile === undefined &&
    recorded.profile !== now?.profile &&
    profiles[recorded.profile]
  ) {
    differences.push(
      `it uses the profile ${recorded.profile}, not ${now?.profile === undefined ? 'none' : `${now.profile} (configured now)`}`,
    );
  }
  if (recorded.allowInsecureHttp === true && given.allowInsecureHttp === undefined)
    differences.push('it allows plain http (--allow-insecure-http), which is not given now');
  return differences;
}

/** Says the recorded target, then refuses (exit 2) a differing one unless --target-from-run or a person confirms. */
export async function confirmResumeTarget(
  opened: OpenedResume,
  given: GlobalOptions & { targetFromRun?: boolean },
  deps: CommandDeps,
  options: Record<string, unknown>,
): Promise<void> {
  const { header } = opened.record;
  const tokenFile = header.options.tokenFile;
  const insecure = header.options.allowInsecureHttp === true;
  await say(
    deps,
    `run ${header.id} (${header.command}) was sent to ${describeTarget(header.target)}` +
      (typeof tokenFile === 'string' ? `, token from ${tokenFile}` : '') +
      (insecure ? ', plain http allowed' : ''),
  );
  // Read once: the differences, the run's profile and the token are judged against one config.
  const config = await runConfig(deps);
  const differences = await targetDifferences(opened, given, deps, config);
  // A run's profile gone (CI): the journal has its settings.
  if (given.profile === undefined && !config.profiles[String(options.profile)]) delete options.profile;
  chooseToken(opened, options, deps, config, given.baseUrl);
  if (differences.length === 0 || given.targetFromRun === true) return;
  const said = `run ${header.id}: the recorded target differs from what your flags, environment and profile give now: ${differences.join('; ')}`;
  if (promptsAllowed(given, deps)) {
    const question = terminalLine(
      `${said}. Send the rest of the run, with your token, to ${describeTarget(header.target)}?`,
    );
    if (await confirmed(deps, question)) return;
    throw new RunJournalError('not confirmed: nothing was sent');
  }
  throw new RunJournalError(
    `${said}. Nothing was sent. If you started this run and mean that target, add --target-from-run (--yes alone does not confirm a target); ` +
      'or give the same --base-url (and --token-file) again',
  );
}

/** The token a resume sends is for the run's URL, else exit 2 (EXAMCTL_TOKEN, or a profile's that names it). */
function chooseToken(
  { record }: OpenedResume,
  options: Record<string, unknown>,
  deps: CommandDeps,
  { profiles, defaultProfile }: ExamctlConfig,
  typedUrl?: string,
): void {
  const { id, target, profile: run, origin } = record.header;
  if (target.kind !== 'remote' || options.tokenFile !== undefined) return;
  const token = (name = ''): unknown => profiles[name]?.tokenFile ?? profiles[name]?.token;
  const own = token(run?.name) ? run?.name : undefined;
  const named = (options.profile as string | undefined) ?? nonEmpty(deps.env.EXAMCTL_PROFILE);
  const name = named ?? own ?? defaultProfile ?? '';
  const env = nonEmpty(deps.env.EXAMCTL_TOKEN) !== undefined;
  const whose = named ? '' : own ? "the run's " : 'the default ';
  const [via, other] = env
    ? ['EXAMCTL_BASE_URL', nonEmpty(deps.env.EXAMCTL_BASE_URL)]
    : [`${whose}profile ${name}`, profiles[name]?.baseUrl];
  if (!named) options.profile = own;
  // A profile named beside a typed --base-url: the user's choice, as in the run, while it names the URL it named then.
  const then = record.header.profile?.baseUrl;
  const typed =
    named !== undefined &&
    typeof record.header.options.baseUrl === 'string' &&
    (then === undefined || sameUrl(then, profiles[name]?.baseUrl));
  const url = String(options.baseUrl);
  const dflt = origin?.profile?.via === 'the default profile' ? origin.profile.name : undefined;
  if (env && !other && !named && !typedUrl && dflt && origin?.targetFrom === `profile ${dflt}`) {
    throw new RunJournalError(
      `run ${id} took ${url} from the default profile ${dflt}, which nothing names now: ` +
        `EXAMCTL_TOKEN is not for it. Nothing was sent. ` +
        `Give a token of ${url} with --token-file <path>, or name it (EXAMCTL_BASE_URL, --profile ${dflt})`,
    );
  }
  if (!(env ? other : !typed && token(name))) return;
  if (sameUrl(other, url)) return;
  throw new RunJournalError(
    `run ${id} was sent to ${url}, but ${via} names ${other ?? 'no base URL'}: ${env ? 'EXAMCTL_TOKEN' : 'its token'} is for that one. ` +
      `Nothing was sent. Give a token of ${url} with --token-file <path>`,
  );
}
