/** `synced adopt`: a file's valid rows recorded as a real run would, sending nothing (docs/sync.md, "Rebuild it"). */
import { ErrorCode } from '../domain/codes.js';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Problem } from '../domain/problem.js';
import { lockTimeoutFromEnv } from '../system/lock.js';
import { messageOf } from '../system/errors.js';
import type { CommandDeps } from '../context/command-deps.js';
import type { ResolvedTarget } from '../context/resolved-target.js';
import { memoryPlaceOf, noStoreError, storeHead } from '../context/target.js';
import { newRunId } from '../runs/run-id.js';
import type { CollectionRequest } from '../domain/collection.js';
import type { PreparedSchedule } from '../domain/sittings.js';
import type { UserRequest } from '../domain/user.js';
import type { SourceRef, InputRecord } from '../input/record.js';
import type { Unit } from '../pipeline/record-job.js';
import { linksAfter } from './memberships.js';
import { joinedOf } from './stale-input.js';
import { openPlacedMemory } from './memory-place.js';
import { acknowledgedSchedule } from './schedule-memory.js';
import { distrusted } from './sent-memory.js';
import { collectionFields } from './collection-memory.js';
import { populationKey, requestDigest, type MemoryEntry, type SyncKind } from './memory-lines.js';
import type { SeenHead } from './store-standing.js';
import type { MemoryEntries } from './memory-entries.js';
import { acknowledgedUser, digestedAs, populationFingerprint, rawDigestOfRecord } from './user-sync-memory.js';

export interface Adoption {
  /** The run id the adopted entries carry: `synced adopt`'s own, a run that sent nothing. */
  run: string;
  /** Each row adopted: what the memory will hold, and what it held before. */
  adopted: { id: string; source: SourceRef; entry: MemoryEntry; before: MemoryEntry | undefined }[];
  /** Each row not adopted, and why (its validation problems, or why it has no id to remember). */
  refused: { source: SourceRef; id: string | null; problems: Problem[] }[];
  /** The entry of each user or schedule the local store does not hold as the file gives it, its digests cleared. */
  distrusted: { id: string; entry: MemoryEntry }[];
}

/** The entries a file's units make, read whole before anything is recorded (a file failing leaves the memory as is). */
async function adoptionOf<P>(
  { units, entryOf }: AdoptInput<P>,
  memory: Pick<MemoryEntries, 'get'>,
  run: string,
  kind: SyncKind,
): Promise<Adoption> {
  const adoption: Adoption = { run, adopted: [], refused: [], distrusted: [] };
  for await (const batch of units) {
    for (const unit of batch) {
      if (!unit.prepared.ok) {
        adoption.refused.push({ source: unit.source, id: unit.id, problems: unit.prepared.problems });
        continue;
      }
      const before = unit.id === null ? undefined : memory.get(unit.id);
      const entry = entryOf(unit.prepared.value, before);
      if ('message' in entry) {
        adoption.refused.push({ source: unit.source, id: unit.id, problems: [entry] });
        // An entry the memory holds would leave it out as unchanged: cleared, it goes the next night. Not a
        // collection's: no run leaves one out, and cleared it would read as a request cut short (an 810 failed).
        if (
          kind !== 'collections' &&
          entry.code === ErrorCode.NotOnLocalStore &&
          before !== undefined &&
          before.digest !== ''
        )
          adoption.distrusted.push({ id: unit.id!, entry: distrusted(before) });
      } else if (unit.id === null)
        adoption.refused.push({ source: unit.source, id: null, problems: [nothing('', 'no id to remember it by')] });
      else {
        // Joined as a run of this file would record it (stale-input.ts); a tentative row by no run yet.
        const joined = kind !== 'users' || entry.tentative === true ? {} : joinedOf(before, run);
        adoption.adopted.push({ id: unit.id, source: unit.source, entry: { ...entry, run, ...joined }, before });
      }
    }
  }
  return adoption;
}

/** A row with nothing to adopt (9xxx NothingToAdopt), `field` naming why. */
const nothing = (field: string, message: string): Problem => ({ field, code: ErrorCode.NothingToAdopt, message });

/** What an adoption reads: the file's units, and how a valid one becomes an entry. */
export interface AdoptInput<P> {
  population: string | undefined;
  units: AsyncIterable<readonly Unit<P>[]>;
  entryOf: (payload: P, before: MemoryEntry | undefined) => Omit<MemoryEntry, 'run'> | Problem;
  /** The file's SHA-256, recorded: that file again tonight is not an old one (replayed-file.ts). */
  digest?: string | undefined;
}

/** Adopts a file into the memory of `kind`, under its lock; a dry run records nothing; no local store: refused. */
export async function adoptFile<P>(
  kind: SyncKind,
  input: AdoptInput<P>,
  where: { target: ResolvedTarget; syncDir: string | undefined; runsDir: string | undefined; dryRun: boolean },
  deps: CommandDeps,
  say: (message: string) => void,
): Promise<{ adoption: Adoption; memory: string }> {
  const { target, dryRun } = where;
  if (target.kind === 'local' && !existsSync(target.store))
    throw noStoreError(
      target.store,
      'nothing was sent to it, so there is nothing to adopt (its first run sends every record)',
    );
  // The store's head as it holds what is adopted: the memory is this store's from here (store-standing.ts).
  const head = (await storeHead(target, [], false))?.head;
  const placed = await openPlacedMemory(memoryPlaceOf(where.syncDir, where.runsDir, deps), target.report, kind, {
    lock: !dryRun,
    readOnly: dryRun,
    lockTimeoutMs: lockTimeoutFromEnv(deps.env),
    onWait: say,
    operation: `examctl synced adopt${input.population === undefined ? '' : ` --population ${input.population}`}`,
    env: deps.env,
  });
  let adoption: Adoption;
  try {
    // An id of the wall clock, as a run journal's: the memory compares runs by it (the newest run).
    adoption = await adoptionOf(input, placed.memory.entries, newRunId(), kind);
    // Every entry, then the population as synced by the adoption's run.
    if (!dryRun) {
      for (const { id, entry } of [...adoption.adopted, ...adoption.distrusted]) placed.memory.record(id, entry);
      const seen: SeenHead | undefined =
        head === undefined ? undefined : [head, adoption.run, randomBytes(6).toString('base64url'), true];
      placed.memory.recordPopulation(populationKey(input.population), adoption.run, true, input.digest, seen);
    }
  } catch (error) {
    // The adoption's error is what is thrown; a close that fails too is said, not lost.
    await placed.close().catch((closeError: unknown) => say(`examctl: ${messageOf(closeError)}`));
    throw error;
  }
  await placed.close();
  return { adoption, memory: placed.name };
}

/**
 * `user sync`'s units for an adoption, each entry as `keptBeside` records it (a leaver stays disabled).
 * `tentative` (docs/sync.md, "When the memory is lost"): each row as a request cut short leaves it.
 */
export async function userAdoption(
  build: (record: InputRecord) => Unit<UserRequest>,
  population: string | undefined,
  tentative = false,
) {
  const fingerprint = await populationFingerprint(build, population);
  const rawOf = new WeakMap<UserRequest, string>();
  const subject = digestedAs(population);
  return {
    unitOf(record: InputRecord) {
      const raw = rawDigestOfRecord(fingerprint, record);
      const unit = build(record);
      if (raw !== undefined && unit.prepared.ok) rawOf.set(unit.prepared.value, raw);
      return unit;
    },
    entryOf: (user: UserRequest, before: MemoryEntry | undefined) => ({
      digest: tentative ? '' : requestDigest(subject(user)),
      ...acknowledgedUser(
        user,
        user,
        linksAfter(before?.links, user.Hierarchies, tentative),
        tentative ? undefined : rawOf.get(user),
        before?.disabled === true,
        population,
        before,
      ),
      ...(tentative && (before === undefined || before.tentative === true) && { tentative: true }),
    }),
  };
}

/** `schedule push`'s entry of an adopted schedule (one without ScheduleExtId has nothing to adopt). */
export function scheduleEntryOf(payload: PreparedSchedule): Omit<MemoryEntry, 'run'> | Problem {
  const id = payload.request.Schedule.ScheduleExtId;
  if (typeof id !== 'string' || id === '')
    return nothing(
      'ScheduleExtId',
      'no ScheduleExtId: each run names such a schedule anew, so there is nothing to adopt',
    );
  return { digest: requestDigest(payload.request), ...acknowledgedSchedule(payload) };
}

/** A collection as `collection add` remembers it once answered ok; one without an ExternalId has nothing to adopt. */
export function collectionEntryOf(collection: CollectionRequest): Omit<MemoryEntry, 'run'> | Problem {
  if (typeof collection.ExternalId !== 'string' || collection.ExternalId === '')
    return nothing('ExternalId', 'no ExternalId: each run names such a collection anew, so there is nothing to adopt');
  return { digest: requestDigest(collection), fields: collectionFields(collection) };
}
