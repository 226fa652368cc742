import { randomBytes } from 'node:crypto';
import { errorsOf } from '../../api/envelope-errors.js';
import { ErrorCode } from '../../domain/codes.js';
import { ExamctlError, UsageError } from '../../errors.js';
import type { CommandDeps, GlobalOptions } from '../context.js';
import { resolveTarget } from '../target.js';

export type DoctorOptions = GlobalOptions;

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface DoctorCheck {
  name: 'target' | 'store' | 'token' | 'reachable' | 'authorised' | 'clock';
  status: CheckStatus;
  detail: string;
}

/** The one document `examctl doctor --json` prints. Never holds the token. */
export interface DoctorReport {
  healthy: boolean;
  target: 'local' | 'remote';
  baseUrl?: string;
  store?: string;
  profile?: string;
  token?: { set: boolean; source?: string };
  /** Server clock minus ours, in seconds (remote, when the server sends a Date header). */
  clockSkewSeconds?: number;
  checks: DoctorCheck[];
}

/** Above this the platform's notion of "now" (schedule windows, activation) visibly differs from ours. */
const SKEW_WARN_SECONDS = 60;
const PROBE_TIMEOUT_MS = 10_000;

/**
 * `examctl doctor`: which target a command would use and whether it works, without changing
 * anything. The probe reads a review session that cannot exist: 1101 proves the service is
 * reachable and the token accepted; 403 says the token is refused. Exit 0 healthy, 3 otherwise.
 * The check list is the command's result, so it goes to stdout (one JSON document with --json).
 */
export async function run(options: DoctorOptions, deps: CommandDeps): Promise<number> {
  let report: DoctorReport;
  try {
    const target = await resolveTarget(options, deps);
    report = target.kind === 'local' ? await checkLocal(target.store, deps) : await checkRemote(target.baseUrl, options, deps);
  } catch (error) {
    // What makes every other command a usage error (no base URL, unknown profile, unreadable
    // token file) is exactly what doctor is asked to diagnose: a failed check, exit 3.
    if (!(error instanceof UsageError)) throw error;
    report = { healthy: false, target: options.target === 'local' ? 'local' : 'remote', checks: [{ name: 'target', status: 'fail', detail: error.message }] };
  }
  report.healthy = !report.checks.some((check) => check.status === 'fail');
  if (options.json) {
    await deps.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    await deps.stdout.write(renderReport(report));
  }
  return report.healthy ? 0 : 3;
}

function probeId(): string {
  return `examctl-doctor-${randomBytes(6).toString('hex')}`;
}

async function checkLocal(store: string, deps: CommandDeps): Promise<DoctorReport> {
  const report: DoctorReport = { healthy: false, target: 'local', store, checks: [] };
  report.checks.push({ name: 'target', status: 'ok', detail: `local engine over the store at ${store}` });
  const { clockFromEnv, openLocalTarget } = await import('../../engine/index.js');
  let api;
  try {
    // Read-only: doctor never creates or changes a store.
    api = await openLocalTarget(store, { dryRun: true, now: clockFromEnv(deps.env) });
  } catch (error) {
    report.checks.push({ name: 'store', status: 'fail', detail: messageOf(error) });
    return report;
  }
  if (api === null) {
    report.checks.push({ name: 'store', status: 'ok', detail: 'no store yet: the first command that sends creates it from the demo world' });
    return report;
  }
  try {
    const result = await api.getReviewSession(probeId());
    const codes = errorsOf(result.envelope).map((problem) => problem.code);
    report.checks.push(
      codes.includes(ErrorCode.ReviewSessionNotFound) || result.envelope.Success
        ? { name: 'store', status: 'ok', detail: 'opened and answered a read (1101 for a review session that does not exist)' }
        : { name: 'store', status: 'fail', detail: `unexpected answer to a read: HTTP ${result.status} ${describeErrors(result.envelope)}` },
    );
  } catch (error) {
    report.checks.push({ name: 'store', status: 'fail', detail: messageOf(error) });
  } finally {
    await api.close();
  }
  return report;
}

async function checkRemote(baseUrl: string, options: DoctorOptions, deps: CommandDeps): Promise<DoctorReport> {
  const report: DoctorReport = { healthy: false, target: 'remote', baseUrl, checks: [] };
  const { describeSource, resolveRemoteTarget } = await import('../remote-settings.js');
  // Asked again (resolveTarget keeps the token sealed) to say where the token came from; warnings were printed once already.
  const settings = await resolveRemoteTarget({
    baseUrl: options.baseUrl,
    tokenFile: options.tokenFile,
    profile: options.profile,
    env: deps.env,
    cwd: deps.cwd,
  });
  const token = settings?.token;
  if (settings?.profile !== undefined) report.profile = settings.profile;
  report.token = settings?.tokenSource !== undefined ? { set: true, source: describeSource(settings.tokenSource) } : { set: false };
  report.checks.push({ name: 'target', status: 'ok', detail: `remote API at ${baseUrl}${report.profile ? ` (profile ${report.profile})` : ''}` });
  report.checks.push(
    token !== undefined
      ? { name: 'token', status: 'ok', detail: `set (from ${report.token.source})` }
      : { name: 'token', status: 'fail', detail: 'not set: set EXAMCTL_TOKEN, give --token-file <path>, or run examctl login' },
  );

  const { describeNetworkError, USER_AGENT } = await import('../../api/remote-client.js');
  const { parseBaseUrl } = await import('../../api/url-policy.js');
  const { readEnvelope } = await import('../../api/envelope-reader.js');
  let parsed;
  try {
    parsed = parseBaseUrl(baseUrl, options.allowInsecureHttp ?? false);
  } catch (error) {
    report.checks.push({ name: 'reachable', status: 'fail', detail: messageOf(error) });
    return report;
  }
  const path = `${parsed.pathPrefix}/external/review-sessions/${probeId()}`;
  const { Pool } = await import('undici');
  // One attempt, short timeouts: doctor answers quickly rather than retrying like a run.
  const pool = new Pool(parsed.origin, { connections: 1, connectTimeout: PROBE_TIMEOUT_MS, headersTimeout: PROBE_TIMEOUT_MS, bodyTimeout: PROBE_TIMEOUT_MS });
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT };
  if (token !== undefined) headers.authorization = `EAPI ${token}`;
  const redact = (text: string): string => (token === undefined ? text : text.split(token).join('[redacted]'));
  try {
    const sent = deps.now().getTime();
    let response;
    try {
      response = await pool.request({ method: 'GET', path, headers, signal: deps.signal });
    } catch (error) {
      const why = error instanceof Error ? redact(describeNetworkError(error)) : String(error);
      report.checks.push({ name: 'reachable', status: 'fail', detail: `GET ${path}: ${why}` });
      return report;
    }
    const text = await response.body.text();
    const received = deps.now().getTime();
    const status = response.statusCode;
    report.checks.push({ name: 'reachable', status: 'ok', detail: `GET ${path} answered ${status} in ${received - sent} ms` });

    const envelope = readEnvelope<unknown>(text, status);
    const codes = envelope ? errorsOf(envelope).map((problem) => problem.code) : [];
    if (status === 401 || status === 403) {
      report.checks.push({
        name: 'authorised',
        status: 'fail',
        detail: token === undefined ? `refused (${status}): no token was sent` : `refused (${status}): the service does not accept this token`,
      });
    } else if (envelope === undefined) {
      report.checks.push({
        name: 'authorised',
        status: 'fail',
        detail: `HTTP ${status} without the API's JSON envelope: is ${baseUrl} the integration API's base URL?`,
      });
    } else if (codes.includes(ErrorCode.ReviewSessionNotFound) || envelope.Success) {
      report.checks.push({ name: 'authorised', status: 'ok', detail: 'the token is accepted (1101 for a review session that does not exist)' });
    } else if (status >= 500) {
      report.checks.push({ name: 'authorised', status: 'fail', detail: redact(`service error ${status}: ${describeErrors(envelope)}`) });
    } else {
      report.checks.push({ name: 'authorised', status: 'warn', detail: redact(`not refused, but an unexpected answer: HTTP ${status} ${describeErrors(envelope)}`) });
    }

    const dateHeader = response.headers.date;
    const serverDate = Date.parse(Array.isArray(dateHeader) ? (dateHeader[0] ?? '') : (dateHeader ?? ''));
    if (Number.isNaN(serverDate)) {
      report.checks.push({ name: 'clock', status: 'skip', detail: 'the server sends no Date header' });
    } else {
      // The Date header has one-second resolution; compare with the middle of the round trip.
      // +500 ms: the header is truncated to the second, so on average it reads half a second early.
      const skew = Math.round((serverDate + 500 - (sent + received) / 2) / 1000);
      report.clockSkewSeconds = skew;
      report.checks.push({
        name: 'clock',
        status: Math.abs(skew) > SKEW_WARN_SECONDS ? 'warn' : 'ok',
        detail: `server clock ${skew >= 0 ? '+' : ''}${skew} s from ours${Math.abs(skew) > SKEW_WARN_SECONDS ? ': times you send are read by the server clock' : ''}`,
      });
    }
  } finally {
    await pool.close();
  }
  return report;
}

function describeErrors(envelope: unknown): string {
  return errorsOf(envelope)
    .map((problem) => `${problem.code ?? '-'} ${problem.message}`)
    .join('; ');
}

function messageOf(error: unknown): string {
  if (error instanceof ExamctlError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

const MARK: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', skip: '-   ' };

function renderReport(report: DoctorReport): string {
  const lines = report.checks.map((check) => `${MARK[check.status]}  ${check.name.padEnd(10)} ${check.detail}`);
  lines.push(report.healthy ? 'healthy' : 'not healthy (exit 3)');
  return `${lines.join('\n')}\n`;
}
