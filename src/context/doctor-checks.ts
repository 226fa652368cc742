import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { LOCK_FILE, lockHolder, lockTimeoutFromEnv } from '../system/lock.js';
import { printJson, type CommandDeps } from './command-deps.js';
import { type GlobalOptions } from '../flags/global-options.js';
import { ExitCode, UsageError } from '../system/errors.js';
import { BUILD_ID } from '../version.js';
import type { ResolvedTarget } from './resolved-target.js';
import { terminalLine } from '../formats/terminal-text.js';
import { goneStore, memoryPlaceOf, namedStorePath, targetOnce } from './target.js';
import { noTokenError, TOKEN_SOURCE_WORDS } from './remote-settings.js';
import { configTokenExposed, runsDirWarning, tokenFileExposed, untrustedPlaces } from './loose-permissions.js';
import { configDir, configPath, expandPath, runConfig } from './config-file.js';
import { resolveRunsDir } from '../runs/runs-dir.js';
import {
  authorisedVerdict,
  failedCheck,
  clockVerdict,
  stateDirUnwritable,
  storeLockVerdict,
  storeReadVerdict,
  type DoctorCheck,
} from './doctor-verdicts.js';

/* `examctl doctor`'s checks (docs/remote.md, "examctl doctor"); the sync memory's is sync/doctor-memory.ts. */

/** What doctor is given: the global flags, and --sync-dir (the memory's place). */
export type DoctorCheckOptions = GlobalOptions & { readonly syncDir?: string };

type CheckStatus = DoctorCheck['status'];

/** The one document `examctl doctor --json` prints. Never holds the token. */
export interface DoctorReport {
  healthy: boolean;
  build?: string;
  /** Absent when the target check failed and no --target was given: not known. */
  target?: 'local' | 'remote';
  baseUrl?: string;
  store?: string;
  profile?: string;
  token?: { set: boolean; source?: string };
  /** Server clock minus ours, in seconds (remote, when the server sends a Date header). */
  clockSkewSeconds?: number;
  checks: DoctorCheck[];
}

/**
 * `examctl doctor`: the target's checks (a run's usage error, as no base URL or an unreadable token file, is a failed
 * `target` check), the permissions' and the sync memory's (handed in); exit 3 when one failed.
 */
export async function runDoctor(
  options: DoctorCheckOptions,
  deps: CommandDeps,
  memory: (target: ResolvedTarget, options: DoctorCheckOptions, deps: CommandDeps) => Promise<DoctorCheck>,
): Promise<number> {
  let report: DoctorReport;
  let resolved: ResolvedTarget | undefined;
  try {
    const target = await targetOnce(options, { ...deps, sends: true })();
    resolved = target;
    if (target.kind === 'remote') await target.remote.checkBaseUrl();
    report = target.kind === 'local' ? await checkLocal(target.store, deps) : await checkRemote(target, deps);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    report = { healthy: false, target: options.target, checks: [failedCheck('target', error)] };
  }
  const tokenFile = resolved?.kind === 'remote' ? resolved.tokenFile : undefined;
  report.checks.push(await permissionsCheck(options, deps, report.store, tokenFile));
  if (resolved !== undefined) report.checks.push(await memory(resolved, options, deps));
  report.healthy = !report.checks.some((check) => check.status === 'fail');
  report.build = BUILD_ID;
  if (options.json) await printJson(deps, report, 2);
  else await deps.stdout.write(renderReport(report));
  return report.healthy ? ExitCode.Ok : ExitCode.Target;
}

/** A review session id that cannot exist: the probe's answer (1101) proves the token is accepted. */
export function probeId(): string {
  return `examctl-doctor-${randomBytes(6).toString('hex')}`;
}

export async function checkLocal(store: string, deps: CommandDeps): Promise<DoctorReport> {
  const failed = (error: unknown): DoctorCheck => failedCheck('store', error);
  const checks: DoctorCheck[] = [
    { name: 'target', status: 'ok', detail: `local engine over the store at ${store}` },
    await storeCheck(store, deps).catch(failed),
  ];
  return { healthy: false, target: 'local', store, checks };
}

/** A run can write the store and it answers a read; or none is there yet and a run makes one. */
async function storeCheck(store: string, deps: CommandDeps): Promise<DoctorCheck> {
  const { clockFromEnv, openLocalTarget, storeUnwritable } = await import('../engine/index.js');
  const why = await storeUnwritable(store);
  if (why !== undefined) return { name: 'store', status: 'fail', code: 'E3000', detail: why };
  // Read-only: doctor never creates or changes a store.
  const api = await openLocalTarget(store, { dryRun: true, now: clockFromEnv(deps.env) });
  if (api === null) await goneStore(store, deps, 'a run refuses (exit 2)');
  if (api === null)
    return {
      name: 'store',
      status: 'ok',
      detail: 'no store yet: the first command that sends creates it from the demo world',
    };
  try {
    const read = storeReadVerdict(await api.getReviewSession(probeId()));
    const lockPath = join(store, LOCK_FILE);
    const timeoutMs = lockTimeoutFromEnv(deps.env);
    return { name: 'store', ...storeLockVerdict(await lockHolder(lockPath), read, lockPath, timeoutMs) };
  } finally {
    await api.close();
  }
}

export async function checkRemote(
  target: Extract<ResolvedTarget, { kind: 'remote' }>,
  deps: CommandDeps,
): Promise<DoctorReport> {
  const { baseUrl, profile, tokenSource } = target;
  const report: DoctorReport = { healthy: false, target: 'remote', baseUrl, checks: [] };
  if (profile !== undefined) report.profile = profile;
  report.token = tokenSource !== undefined ? { set: true, source: TOKEN_SOURCE_WORDS[tokenSource] } : { set: false };
  report.checks.push({
    name: 'target',
    status: 'ok',
    detail: `remote API at ${baseUrl}${target.note ? ` (${target.note.targetFrom})` : ''}`,
  });
  report.checks.push(
    tokenSource !== undefined
      ? { name: 'token', status: 'ok', detail: `set (from ${report.token.source})` }
      : failedCheck('token', noTokenError()),
  );

  const answer = await target.remote
    .probe(`/external/review-sessions/${probeId()}`, () => deps.now().getTime())
    .catch((error: unknown) => void report.checks.push(failedCheck('reachable', error)));
  if (answer === undefined) return report;
  // The proxy a run would go through too (HTTPS_PROXY...), its credentials never shown.
  const via = answer.proxy === undefined ? '' : ` via proxy ${answer.proxy}`;
  if (answer.kind === 'unreachable') {
    report.checks.push({
      name: 'reachable',
      status: 'fail',
      code: 'E3002',
      detail: `GET ${answer.path}${via}: ${answer.reason}`,
    });
    return report;
  }
  const { status, sentAt, receivedAt } = answer;
  report.checks.push({
    name: 'reachable',
    status: 'ok',
    detail: `GET ${answer.path}${via} answered ${status} in ${receivedAt - sentAt} ms`,
  });

  report.checks.push({ name: 'authorised', ...authorisedVerdict(answer, tokenSource !== undefined, baseUrl) });
  const serverDate = Date.parse(answer.date ?? '');
  if (Number.isNaN(serverDate)) {
    report.checks.push({ name: 'clock', status: 'skip', detail: 'the server sends no Date header' });
  } else {
    // Against the round trip's middle; +500 ms: the header is truncated to the second, half a second early on average.
    report.clockSkewSeconds = Math.round((serverDate + 500 - (sentAt + receivedAt) / 2) / 1000);
    report.checks.push({ name: 'clock', ...clockVerdict(report.clockSkewSeconds) });
  }
  return report;
}

/** docs/remote.md, "examctl doctor"; the token file the remote target read, else --token-file's or the profile's. */
export async function permissionsCheck(
  options: DoctorCheckOptions,
  deps: CommandDeps,
  store: string | undefined,
  tokenFileUsed: string | undefined,
): Promise<DoctorCheck> {
  const config = await runConfig(deps).catch(() => undefined);
  const flagFile = options.tokenFile;
  const { resolveSettings } = await import('./settings.js');
  const profileFile = (await resolveSettings(options, deps).catch(() => undefined))?.record?.tokenFile;
  const tokenFile =
    tokenFileUsed ??
    (flagFile !== undefined
      ? expandPath(flagFile, deps.cwd, deps.env)
      : profileFile !== undefined
        ? expandPath(profileFile, configDir(deps.env), deps.env)
        : undefined);
  const runsDir = resolveRunsDir(options.runsDir, deps.env);
  // A state service (an http(s) address) is no place on disk to judge.
  const place = memoryPlaceOf(options.syncDir, options.runsDir, deps);
  const syncDir = place.kind === 'dir' ? place.syncDir : undefined;
  const untrusted = await untrustedPlaces(
    [
      { what: 'the config file', path: configPath(deps.env), kind: 'file' },
      ...(tokenFile === undefined ? [] : [{ what: 'the token file', path: tokenFile, kind: 'file' as const }]),
      { what: 'the runs directory', path: runsDir, kind: 'directory' },
      ...(syncDir === undefined ? [] : [{ what: 'the sync directory', path: syncDir, kind: 'directory' as const }]),
      { what: 'the local store', path: store ?? namedStorePath(options, deps), kind: 'directory' },
    ],
    deps.env,
  );
  if (untrusted.length > 0) return { name: 'permissions', status: 'fail', code: 'E2400', detail: untrusted.join('; ') };
  const unwritable = [
    await stateDirUnwritable('the runs directory', runsDir),
    syncDir && (await stateDirUnwritable('the sync directory', syncDir)),
  ];
  const ways =
    'give --runs-dir and --sync-dir (env EXAMCTL_RUNS_DIR, EXAMCTL_SYNC_DIR) folders, or a HOME, the user can write';
  if (unwritable.some(Boolean))
    return {
      name: 'permissions',
      status: 'fail',
      code: 'E3050',
      detail: `${unwritable.filter(Boolean).join('; ')}: ${ways}`,
    };
  const found = [
    tokenFile === undefined
      ? undefined
      : await tokenFileExposed(
          tokenFile,
          tokenFileUsed === undefined || flagFile !== undefined ? '--token-file' : "the profile's token file",
        ),
    await configTokenExposed(deps.env, config),
    await runsDirWarning(runsDir),
  ].filter((entry): entry is string => entry !== undefined);
  if (found.length > 0) return { name: 'permissions', status: 'warn', detail: found.join('; ') };
  const checked = `config, ${tokenFile === undefined ? '' : 'token file, '}runs and sync directories and store`;
  // Windows has no mode bits to judge (docs/windows.md): say what protects them instead of a claim not checked.
  if ((deps.platform ?? process.platform) === 'win32') {
    return {
      name: 'permissions',
      status: 'skip',
      detail: `not checked on Windows (no mode bits): the folders' access lists protect the ${checked}`,
    };
  }
  return { name: 'permissions', status: 'ok', detail: `${checked} are the user's own, and not open to other users` };
}

const MARK: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', skip: '-   ' };

export function renderReport(report: DoctorReport): string {
  // A detail quotes paths and the service's messages: each line passes the terminal gate.
  const lines = report.checks.map((check) =>
    terminalLine(
      `${MARK[check.status]}  ${check.name.padEnd(10)} ${check.code === undefined ? '' : `${check.code}: `}${check.detail}`,
    ),
  );
  lines.push(report.healthy ? 'healthy' : 'not healthy (exit 3)');
  return `${lines.join('\n')}\n`;
}
