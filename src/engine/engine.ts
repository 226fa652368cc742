import { randomBytes, randomInt } from 'node:crypto';
import type { ApiResult, CallOptions, IntegrationApi } from '../port/integration-api.js';
import type { LocalDirectory } from '../port/local-directory.js';
import { validateCollection } from '../domain/collection.js';
import { validateInvigilatorRemoval } from '../domain/invigilators.js';
import { validateScheduleRequest } from '../domain/schedule.js';
import { validateUser } from '../domain/user.js';
import type { CollectionResponseContent, InvigilatorsResponseContent } from '../domain/types.js';
import type { UserResponseContent } from '../domain/user.js';
import type { WorldUser } from '../domain/world.js';
import type { Clock } from './clock.js';
import { decideCollection } from './collection-rules.js';
import { directoryOver } from './directory.js';
import { refuse, type Decision } from './decision.js';
import { decideInvigilatorRemoval, decideReviewSession } from './invigilator-rules.js';
import { hashPassword, verifyPassword } from './password.js';
import { decideSchedule, type PreparedPassword, type ScheduleInputs } from './schedule-rules.js';
import type { Store } from './store/contract.js';
import { decideUser } from './user-rules.js';
import { ENGINE_INDEXER, OverlayView, StoreView, type EngineView, type HintLookup } from './view.js';

interface LocalEngineOptions {
  store: Store;
  /** The engine clock (activated / finished schedules); default the system clock. */
  now?: Clock;
}

/** The local engine: the IntegrationApi over a Store, plus the read-only LocalDirectory prompts use. */
export type LocalEngine = IntegrationApi & LocalDirectory;

/** Startup and launch tokens: 192 bits from the CSPRNG, base64url (32 characters). */
const TOKEN_BYTES = 24;
const COLLECTION_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const COLLECTION_ID_LENGTH = 16;

function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** docs/interpretations.md, "Collections": generated collection ids are 16 lowercase letters and digits. */
function newCollectionExternalId(): string {
  let id = '';
  for (let i = 0; i < COLLECTION_ID_LENGTH; i++) id += COLLECTION_ID_ALPHABET[randomInt(COLLECTION_ID_ALPHABET.length)];
  return id;
}

/** Hashes a password outside the transaction, reusing the user's hash when it matches: a resend changes nothing. */
async function preparePassword(password: string, stored: string | undefined): Promise<PreparedPassword> {
  if (stored !== undefined && (await verifyPassword(password, stored))) return { hash: stored, matches: stored };
  return { hash: await hashPassword(password) };
}

function holdsUser(view: EngineView, externalId: string | undefined): boolean {
  return externalId !== undefined && view.get('users', externalId) !== undefined;
}

/**
 * Every state rule of docs/interpretations.md over a Store, each call run as docs/engine-rules.md
 * ("How a call runs") says: validated, prepared outside the lock, decided in one `store.transact`;
 * with `dryRun`, against a private overlay of earlier planned changes, nothing written.
 */
export function createLocalEngine(options: LocalEngineOptions): LocalEngine {
  const { store } = options;
  const now: Clock = options.now ?? (() => new Date());
  // The store answers the secondary lookups from the hints it persists: nothing to build at load.
  store.useIndexer(ENGINE_INDEXER);
  const lookup: HintLookup = (collection, hint) => store.keyByHint(collection, hint);
  const live = (): EngineView => new StoreView(store.state, lookup);
  let overlay: OverlayView | undefined;
  const planView = (): OverlayView => (overlay ??= new OverlayView(live));
  const viewFor = (callOptions: CallOptions | undefined): EngineView => (callOptions?.dryRun ? planView() : live());

  async function run<T>(
    callOptions: CallOptions | undefined,
    decide: (view: EngineView) => Decision<T>,
  ): Promise<ApiResult<T>> {
    if (callOptions?.dryRun) {
      const view = planView();
      const decision = decide(view);
      view.apply(decision.changes);
      return decision.result;
    }
    return store.transact(
      (state) => {
        // Decided in the session, before its line: the head that line follows (Store.head).
        if (store.head !== undefined) callOptions?.onHead?.(store.head);
        return decide(new StoreView(state, lookup));
      },
      callOptions?.onCommitted && ((head) => callOptions.onCommitted!(head)),
    );
  }

  /** An answer that wrote nothing, with the head of the state it stood on (CallOptions.onHead). */
  function stood<R>(callOptions: CallOptions | undefined, result: R): R {
    if (store.head !== undefined && callOptions?.dryRun !== true) callOptions?.onHead?.(store.head);
    return result;
  }

  const engine: LocalEngine = {
    ...(store.standing && {
      storeHead: async (asked) => {
        await store.refresh();
        return store.standing!(asked);
      },
    }),

    async createSchedule(raw, callOptions) {
      const validation = validateScheduleRequest(raw);
      if (!validation.ok) return stood(callOptions, refuse<string>(validation.problems).result);
      const request = validation.value;
      const before = viewFor(callOptions);
      const inputs: ScheduleInputs = {
        generatedScheduleExtId: `S-${randomBytes(10).toString('hex').toUpperCase()}`,
        tokens: request.Candidates.map(() => ({ startup: newToken(), launch: newToken() })),
        passwords: await Promise.all(
          request.Candidates.map((candidate) =>
            candidate.Password === undefined
              ? undefined
              : preparePassword(
                  candidate.Password,
                  before.get<WorldUser>('users', candidate.CandidateExtId)?.PasswordHash,
                ),
          ),
        ),
      };
      return run(callOptions, (view) => decideSchedule(view, request, inputs, now()));
    },

    async getReviewSession(externalId, callOptions) {
      if (callOptions?.dryRun) return decideReviewSession(planView(), externalId).result;
      await store.refresh();
      const answer = decideReviewSession(live(), externalId).result;
      // Memory may show this process's writes still on their way to the disk: answer once they are there.
      await store.whenDurable();
      return stood(callOptions, answer);
    },

    async addCollection(raw, callOptions) {
      const validation = validateCollection(raw);
      if (!validation.ok) return stood(callOptions, refuse<CollectionResponseContent>(validation.problems).result);
      const request = validation.value;
      const generated = newCollectionExternalId();
      return run(callOptions, (view) => decideCollection(view, request, generated));
    },

    async upsertUser(raw, callOptions): Promise<ApiResult<UserResponseContent>> {
      const id = (raw as { ExternalId?: unknown } | null | undefined)?.ExternalId;
      const externalId = typeof id === 'string' ? id : undefined;
      const before = viewFor(callOptions);
      const assumedCreate = !holdsUser(before, externalId);
      const validation = validateUser(raw, { isCreate: assumedCreate });
      if (!validation.ok) return stood(callOptions, refuse<UserResponseContent>(validation.problems).result);
      const request = validation.value;
      const password =
        request.Password === undefined
          ? undefined
          : await preparePassword(request.Password, before.get<WorldUser>('users', request.ExternalId)?.PasswordHash);
      return run(callOptions, (view) => {
        // Another writer may have created the user meanwhile: Role (240) depends on it.
        const isCreate = !holdsUser(view, externalId);
        if (isCreate !== assumedCreate) {
          const again = validateUser(raw, { isCreate });
          if (!again.ok) return refuse<UserResponseContent>(again.problems);
        }
        return decideUser(view, request, password);
      });
    },

    async removeInvigilators(scheduleExtId, userExtIds, callOptions): Promise<ApiResult<InvigilatorsResponseContent>> {
      const validation = validateInvigilatorRemoval(scheduleExtId, userExtIds);
      // The listed whole-request errors come with HTTP 200; a body of the wrong shape is 400
      // (docs/interpretations.md, "Tolerance (engine and local serve)").
      if (!validation.ok) {
        const listed = validation.problems.every((problem) => problem.code !== null);
        return stood(callOptions, refuse<InvigilatorsResponseContent>(validation.problems, listed ? 200 : 400).result);
      }
      const { scheduleExtId: id, userExtIds: ids } = validation.value;
      return run(callOptions, (view) => decideInvigilatorRemoval(view, id, ids, now()));
    },

    // LocalDirectory: plain reads of the state as last loaded (prompts run before any send).
    ...directoryOver(live),

    async close() {
      await store.close();
    },
  };
  return engine;
}
