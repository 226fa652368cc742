/**
 * `synced adopt` and `adopt-schedules` on a local store (docs/sync.md, "When the memory is lost"):
 * a user or schedule it does not hold, or candidates it does not register, are not adopted (each
 * named, exit 1): recorded, the next `--changed-only` run would never send them. A remote target
 * cannot tell.
 */
import { ErrorCode } from '../domain/codes.js';
import type { PreparedSchedule, UserRequest } from '../domain/index.js';
import type { LocalDirectory } from '../port/local-directory.js';
import { namedFirst } from '../formats/number-format.js';
import { scheduleEntryOf, type AdoptInput } from './adopt.js';

/** How many missing candidates a refusal names. */
const NAMED = 5;

const never = 'never pushed there, so there is nothing to adopt';

type EntryOf<P> = AdoptInput<P>['entryOf'];

/** `synced adopt`'s entryOf, checked against the local store's `directory` (null: a remote target, not checked). */
export function usersOnStore(
  entryOf: EntryOf<UserRequest>,
  directory: Pick<LocalDirectory, 'userOf'> | null,
): EntryOf<UserRequest> {
  if (directory === null) return entryOf;
  const absent = {
    field: 'ExternalId',
    code: ErrorCode.NotOnLocalStore,
    message: `not on the local store: ${never} (user sync sends it)`,
  };
  return (user, before) => (directory.userOf(user.ExternalId) === null ? absent : entryOf(user, before));
}

/** scheduleEntryOf, checked against the local store's `directory` (null: a remote target, not checked). */
export function sittingsOnStore(directory: Pick<LocalDirectory, 'scheduleLinks'> | null): EntryOf<PreparedSchedule> {
  return (payload) => {
    const entry = scheduleEntryOf(payload);
    if (directory === null || 'message' in entry) return entry;
    const held = directory.scheduleLinks(payload.request.Schedule.ScheduleExtId as string);
    if (held === null)
      return {
        field: 'ScheduleExtId',
        code: ErrorCode.NotOnLocalStore,
        message: `not on the local store: ${never} (schedule push sends it)`,
      };
    const registered = new Set(held.Candidates.map((candidate) => candidate.CandidateExtId.toLowerCase()));
    const missing = (entry.candidates ?? []).filter((id) => !registered.has(id.toLowerCase()));
    if (missing.length === 0) return entry;
    return {
      field: 'CandidateExtId',
      code: ErrorCode.NotOnLocalStore,
      message: `${missing.length} of its candidates are not on the local store's schedule (${namedFirst(missing, NAMED)}): ${never} (schedule push sends them with --upsert)`,
    };
  };
}
