import type { Envelope } from '../domain/envelope.js';
import type {
  CollectionRequest,
  CollectionResponseContent,
  InvigilatorsResponseContent,
  ReviewSession,
  ScheduleRequest,
  UserRequest,
} from '../domain/types.js';
import type { UserResponseContent } from '../domain/user.js';
import { isHead } from '../domain/store-head.js';

/** What a call did (the local engine, and `local serve` through the remote client; the platform does not say). */
export type PlannedAction = 'created' | 'updated' | 'unchanged';

/**
 * The outcome of one call: the HTTP status and the envelope, exactly as the service gave
 * them. The local engine adds `action` (what it did, or with `dryRun` what it would do); the remote
 * client adds it where `local serve` says it (header `x-examctl-action`).
 */
export interface ApiResult<T> {
  status: number;
  envelope: Envelope<T>;
  action?: PlannedAction;
  /** Local engine, `updated` only: the top-level fields of the entity that change (the plan shows them). */
  changedFields?: string[];
  /**
   * Local engine: each field the call gives another entity (a schedule's candidates' users, its new group), named
   * `<collection> <id> <field>`, its value before (absent: none) and after (absent: removed); a secret's never.
   */
  relatedChanges?: RelatedChange[];
  /**
   * Remote client only: a non-idempotent call was retried after an attempt whose answer was
   * lost, and the service now says the entity already exists (810, Duplicate ScheduleExtId with
   * Upsert false). The lost attempt created it, so the call succeeded once: the run reports it
   * ok with `note`. The envelope stays the service's own.
   */
  createdByLostAttempt?: boolean;
  /** Remote client only: the status and Success disagree (a 4xx saying true, a 2xx false). */
  contradictory?: boolean;
  /** Remote client only: a caveat the run report carries with this result (see createdByLostAttempt). */
  note?: string;
}

export interface RelatedChange {
  field: string;
  before?: unknown;
  after?: unknown;
}

export interface CallOptions {
  /** Local engine: apply every state rule, write nothing. A remote target is never called in a dry run. */
  dryRun?: boolean;
  signal?: AbortSignal;
  /**
   * Told the store head an answer stood on (docs/remote.md, "The local server"): the local engine's
   * (a write's: the head its commit followed; else the head of the state it answered from), the
   * remote client's from `local serve`'s header `x-examctl-store-head`. The platform says none.
   */
  onHead?(head: string): void;
  /**
   * Told the store head right after the commit that holds this call's changes (none: it changed
   * nothing): a store that holds that head holds them, whatever was restored since (docs/runs.md, "A
   * store restored under a run"). The local engine's; the remote client's from `local serve`'s header
   * `x-examctl-commit-head`. The platform says none.
   */
  onCommitted?(head: string): void;
}

export interface RetryCounts {
  total: number;
  byCause: Record<string, number>;
}

/**
 * One method per endpoint of docs/api-reference.md, "Endpoints", implemented by the remote client
 * and the local engine. Methods resolve with the service's answer for 2xx and 4xx alike (the
 * envelope says what went wrong). They reject only when the target itself cannot be used: a
 * `TargetError` (src/system/errors.ts says which failures those are).
 */
export interface IntegrationApi {
  /** POST /schedule. Content: the schedule external id. */
  createSchedule(request: ScheduleRequest, options?: CallOptions): Promise<ApiResult<string>>;
  /** GET /external/review-sessions/{externalId}. */
  getReviewSession(externalId: string, options?: CallOptions): Promise<ApiResult<ReviewSession>>;
  /** POST /collections. */
  addCollection(request: CollectionRequest, options?: CallOptions): Promise<ApiResult<CollectionResponseContent>>;
  /** POST /user (create or update). */
  upsertUser(request: UserRequest, options?: CallOptions): Promise<ApiResult<UserResponseContent>>;
  /** DELETE /schedule/{externalId}/invigilators. */
  removeInvigilators(
    scheduleExtId: string,
    userExtIds: string[],
    options?: CallOptions,
  ): Promise<ApiResult<InvigilatorsResponseContent>>;
  /** Release what the target holds (connections, store lock, file handles). */
  close(): Promise<void>;
  /** Remote only: the requests retried so far, in all and by cause (`503`, `network`, `timeout`). */
  retryCounts?(): RetryCounts;
  /** A local store's head, which of `asked` it holds (docs/sync.md, "Where the store stands"); the platform: none. */
  storeHead?(asked?: readonly string[]): Promise<StoreHead | undefined>;
}

/** The kinds of key a store names in `StoreHead.changed` (`users:<id>`, `schedules:<id>`). */
export type StoreKeyKind = 'users' | 'schedules';

/** Where a store stands: its head (src/engine/store/store-head.ts), and the asked heads its history holds. */
export interface StoreHead {
  head: string;
  holds: string[];
  /** The `users` and `schedules` keys (`users:<id>`) the store changed after the first asked head it holds. */
  changed: string[];
}

/** The most heads one question asks (`local serve`'s route takes them in its query). */
export const MOST_ASKED_HEADS = 64;

/**
 * `local serve`'s answer (`{Head, Holds, Changed}`) to `asked`, checked: a head, only asked ones held,
 * keys as text; else none. Without `Changed` (an older examctl's, compacted since) it holds none.
 */
export function servedStoreHead(content: unknown, asked: readonly string[]): StoreHead | undefined {
  const { Head, Holds, Changed } = (content ?? {}) as { Head?: unknown; Holds?: unknown; Changed?: unknown };
  if (!isHead(Head) || !Array.isArray(Holds) || !Holds.every((one) => isHead(one) && asked.includes(one)))
    return undefined;
  if (Changed === undefined) return { head: Head, holds: [], changed: [] };
  if (!Array.isArray(Changed) || !Changed.every((one) => typeof one === 'string')) return undefined;
  return { head: Head, holds: Holds as string[], changed: Changed as string[] };
}
