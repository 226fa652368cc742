/**
 * `synced adopt-schedules` on a local store (docs/sync.md, "When the memory is lost"): the store
 * tells which sittings exist, so a schedule it does not hold, or one whose file candidates it does
 * not all register, is not adopted (each named, exit 1): recorded, it would be taken for pushed
 * and `schedule push --upsert --changed-only` would never make it. A remote target cannot tell.
 */
import type { Problem } from '../domain/problem.js';
import type { PreparedSchedule } from '../domain/index.js';
import type { LocalDirectory } from '../port/local-directory.js';
import type { MemoryEntry } from './sync-memory.js';
import { scheduleEntryOf } from './adopt.js';

/** How many missing candidates a refusal names. */
const NAMED = 5;

/** scheduleEntryOf, checked against the local store's `directory` (null: a remote target, not checked). */
export function sittingsOnStore(directory: Pick<LocalDirectory, 'scheduleLinks'> | null): (payload: PreparedSchedule) => Omit<MemoryEntry, 'run'> | Problem {
  return (payload) => {
    const entry = scheduleEntryOf(payload);
    if (directory === null || 'message' in entry) return entry;
    const held = directory.scheduleLinks(payload.request.Schedule.ScheduleExtId as string);
    const never = 'never pushed there, so there is nothing to adopt (schedule push sends';
    if (held === null) return { field: 'ScheduleExtId', code: null, message: `not on the local store: ${never} it)` };
    const registered = new Set(held.Candidates.map((candidate) => candidate.CandidateExtId.toLowerCase()));
    const missing = (entry.candidates ?? []).filter((id) => !registered.has(id.toLowerCase()));
    if (missing.length === 0) return entry;
    const named = `${missing.slice(0, NAMED).join(', ')}${missing.length > NAMED ? `, ${missing.length - NAMED} more` : ''}`;
    return { field: 'CandidateExtId', code: null, message: `${missing.length} of its candidates are not on the local store's schedule (${named}): ${never} them with --upsert)` };
  };
}
