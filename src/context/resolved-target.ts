import type { IntegrationApi } from '../port/integration-api.js';
import type { ProbeAnswer } from '../api/remote-probe.js';
import type { ProfileNote, ReportTarget } from '../report/run-report.js';
import type { RemoteTarget } from './remote-settings.js';

/* The target a command talks to, as context/target.ts resolves it from flags, environment and profiles. */

interface RemoteConnection {
  /**
   * Requests in flight: --concurrency, else the profile's, else REMOTE_CONCURRENCY until an answer said the
   * server is `local serve`, SERVED_CONCURRENCY from then on.
   */
  readonly concurrency: number;
  /**
   * Builds the client; the token stays inside this closure so it never lands in a report or message.
   * `signal`: what cuts its waits short instead of the run's interrupt (a question asked after one).
   */
  connect(signal?: AbortSignal): Promise<IntegrationApi>;
  /** Throws the usage error the client would (plain http to a non-loopback host...), sending nothing. */
  checkBaseUrl(): Promise<void>;
  /** One single-attempt GET (doctor), with the token when there is one. */
  probe(path: string, now: () => number): Promise<ProbeAnswer>;
  /** Whether a client it built was answered by `local serve` (its storeAt answers). */
  storeSaid(): boolean;
}

/**
 * The target of one invocation and the non-secret facts about it (which doctor reports): the
 * store, or the base URL, the profile it came from and where the token came from.
 */
export type ResolvedTarget = (
  | { kind: 'local'; store: string; report: ReportTarget }
  // No tokenSource: no token anywhere (a dry run needs none; sending fails with a usage error).
  | (Pick<RemoteTarget, 'baseUrl' | 'profile' | 'tokenSource' | 'tokenFile'> & {
      kind: 'remote';
      report: ReportTarget;
      remote: RemoteConnection;
    })
) & {
  /**
   * Where the target and its token came from and the profile the run uses (or the default one it set aside), for the
   * report's header.
   */
  note?: { targetFrom: string; tokenFrom?: string; profile?: ProfileNote };
};

/**
 * The target as the command boundary hands it to a command: resolved on first use, then the
 * same answer. Lazy so that what a command checks first (flags, the input file's structure)
 * still fails first, and once so that remote warnings print once.
 */
export type TargetOf = () => Promise<ResolvedTarget>;
