import type { IntegrationApi } from '../port/integration-api.js';
import type { ProbeAnswer } from '../api/remote-probe.js';
import type { ProfileNote, ReportTarget } from '../report/run-report.js';
import type { RemoteTarget } from './remote-settings.js';

interface RemoteConnection {
  /**
   * Requests in flight: --concurrency, else the profile's, else REMOTE_CONCURRENCY until an answer said the
   * server is `local serve`, SERVED_CONCURRENCY from then on (said on stderr the first time it is read so: read it
   * only to send through it).
   */
  readonly concurrency: number;
  /** The client; the token stays in this closure, never in a report or message. `signal`: instead of the run's. */
  connect(signal?: AbortSignal): Promise<IntegrationApi>;
  /** Throws the usage error the client would (plain http to a non-loopback host...), sending nothing. */
  checkBaseUrl(): Promise<void>;
  /** One single-attempt GET (doctor), with the token when there is one. */
  probe(path: string, now: () => number): Promise<ProbeAnswer>;
  /** Whether a client it built was answered by `local serve` (its storeAt answers). */
  storeSaid(): boolean;
}

/** The target of one invocation and the non-secret facts about it (which doctor reports). */
export type ResolvedTarget = (
  | { kind: 'local'; store: string; report: ReportTarget }
  // No tokenSource: no token anywhere (a dry run needs none; sending fails with a usage error).
  | (Pick<RemoteTarget, 'baseUrl' | 'profile' | 'tokenSource' | 'tokenFile'> & {
      kind: 'remote';
      report: ReportTarget;
      remote: RemoteConnection;
    })
) & {
  /** For the report's header: where the target and token came from, the profile used (or the default set aside). */
  note?: { targetFrom: string; tokenFrom?: string; profile?: ProfileNote };
};

/** Resolved on first use, then the same answer: what a command checks first still fails first; warnings print once. */
export type TargetOf = () => Promise<ResolvedTarget>;
