/**
 * Adoption on a local store (docs/sync.md, "When the memory is lost"): what it does not hold as the file gives it is
 * not adopted (each named, exit 1): recorded, `--changed-only` would never send it. A remote target cannot tell.
 */
import { ErrorCode } from '../domain/codes.js';
import type { PreparedSchedule } from '../domain/sittings.js';
import type { CollectionRequest } from '../domain/types.js';
import type { UserRequest } from '../domain/user.js';
import type { Problem } from '../domain/problem.js';
import type { LocalDirectory } from '../port/local-directory.js';
import { namedFirst } from '../formats/number-format.js';
import { collectionEntryOf, scheduleEntryOf, type AdoptInput } from './adopt.js';
import { storedBefore, userChanges } from './user-changes.js';

/** How many missing candidates a refusal names. */
const NAMED = 5;

const never = 'never pushed there, so there is nothing to adopt';

type EntryOf<P> = AdoptInput<P>['entryOf'];

/** How many differing fields a refusal names. */
const FIELDS_NAMED = 3;

/** What a local store's user record is read through. */
type UserDirectory = Pick<LocalDirectory, 'storedUserOf' | 'membershipsOf'>;

/** The fields `user` would change on the local store (null: not held); never the password (no value to compare). */
function fieldsNotHeld(directory: UserDirectory, user: UserRequest): string[] | null {
  const held = storedBefore(directory.storedUserOf(user.ExternalId), directory.membershipsOf(user.ExternalId));
  if (held === undefined) return null;
  return (userChanges(held, user) ?? []).map((change) => change.field).filter((field) => field !== 'Password');
}

/** Whether the local store holds what `user` would write (docs/runs.md, "Applied before the interrupt"). */
export function storeHoldsUser(directory: UserDirectory, user: UserRequest): boolean {
  return fieldsNotHeld(directory, user)?.length === 0;
}

/** Whether the local store holds what `request` would write, judged as an upsert (LocalDirectory.scheduleChanges). */
export function storeHoldsSchedule(
  directory: Pick<LocalDirectory, 'scheduleChanges'>,
  request: PreparedSchedule['request'],
): boolean {
  const compared = directory.scheduleChanges(request);
  return compared !== null && 'changed' in compared && compared.changed.length === 0;
}

/** `synced adopt`'s entryOf, checked against a local store's `directory` (null: remote, not checked). */
export function usersOnStore(
  entryOf: EntryOf<UserRequest>,
  directory: UserDirectory | null,
  compare: boolean,
): EntryOf<UserRequest> {
  if (directory === null) return entryOf;
  const absent = notHeld('ExternalId', `not on the local store: ${never} (user sync sends it)`);
  return (user, before) => {
    // A login is enabled unless the row disables it or the memory keeps it disabled by examctl (the next night sends
    // it enabled).
    const fields = fieldsNotHeld(directory, { ...user, DisableLogin: user.DisableLogin ?? before?.disabled === true });
    if (fields === null) return absent;
    if (!compare || fields.length === 0) return entryOf(user, before);
    return otherValues(fields, 'this row', 'user sync sends it');
  };
}

/** A row or schedule the local store holds with other values than `given` (its differing `fields`): not adopted. */
function otherValues(fields: readonly string[], given: string, sender: string): Problem {
  return notHeld(
    fields[0]!,
    `the local store holds other values (${namedFirst(fields, FIELDS_NAMED)}): never sent there as ${given} gives them, so there is nothing to adopt (${sender})`,
  );
}

/** What the local store does not hold as the input gives it (9xxx NotOnLocalStore), `field` naming where. */
const notHeld = (field: string, message: string): Problem => ({ field, code: ErrorCode.NotOnLocalStore, message });

/** A request the local store would refuse (its first `reason`): not adopted. */
const wouldRefuse = (field: string, reason: string, sender: string): Problem =>
  notHeld(
    field,
    `the local store would refuse this request (${reason}), so it cannot be compared with what the store holds: not adopted (${sender}, and says why it fails)`,
  );

/**
 * scheduleEntryOf, checked against a local store's `directory` (null: remote): a schedule with candidates missing or
 * values that the next `schedule push --upsert` would change (LocalDirectory.scheduleChanges) is not adopted.
 */
export function sittingsOnStore(
  directory: Pick<LocalDirectory, 'scheduleLinks' | 'scheduleChanges'> | null,
): EntryOf<PreparedSchedule> {
  const sender = 'schedule push sends it with --upsert';
  return (payload) => {
    const entry = scheduleEntryOf(payload);
    if (directory === null || 'message' in entry) return entry;
    const held = directory.scheduleLinks(payload.request.Schedule.ScheduleExtId as string);
    const compared = directory.scheduleChanges(payload.request);
    if (held === null || compared === null)
      return notHeld('ScheduleExtId', `not on the local store: ${never} (schedule push sends it)`);
    const registered = new Set(held.Candidates.map((candidate) => candidate.CandidateExtId.toLowerCase()));
    const missing = (entry.candidates ?? []).filter((id) => !registered.has(id.toLowerCase()));
    if (missing.length > 0)
      return notHeld(
        'CandidateExtId',
        `${missing.length} of its candidates are not on the local store's schedule (${namedFirst(missing, NAMED)}): ${never} (schedule push sends them with --upsert)`,
      );
    if ('refused' in compared) return wouldRefuse('ScheduleExtId', compared.refused, sender);
    return compared.changed.length === 0 ? entry : otherValues(compared.changed, 'the file', sender);
  };
}

/**
 * collectionEntryOf, checked against a local store's `directory` (null: remote): a collection it does not hold, or
 * holds with other values than `collection add` of the file would make (LocalDirectory.collectionChanges), is not
 * adopted.
 */
export function collectionsOnStore(
  directory: Pick<LocalDirectory, 'collectionChanges'> | null,
): EntryOf<CollectionRequest> {
  const sender = 'collection add sends it';
  return (request) => {
    const entry = collectionEntryOf(request);
    if (directory === null || 'message' in entry) return entry;
    const compared = directory.collectionChanges(request);
    if (compared === null) return notHeld('ExternalId', `not on the local store: ${never} (${sender})`);
    if ('refused' in compared) return wouldRefuse('ExternalId', compared.refused, sender);
    return compared.changed.length === 0 ? entry : otherValues(compared.changed, 'the file', sender);
  };
}
