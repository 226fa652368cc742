import { UsageError } from '../../errors.js';
import type { UserRequest } from '../../domain/types.js';
import { formatCount } from '../../report/number-format.js';
import { describeTarget } from '../../report/report-writers.js';
import type { MemoryEntry, SyncMemory } from '../../sync/sync-memory.js';
import type { CommandDeps } from '../context.js';
import type { Outcome, Unit } from '../pipeline/record-job.js';
import type { TargetOf } from '../target.js';
import { SentMemory, type SyncFlags } from './sent-memory.js';
import { parseCountOrPercent } from '../flag-values.js';

export interface UserSyncFlags extends SyncFlags {
  disableMissing?: boolean;
  maxDisable?: string;
}

/** Units in one batch of leavers: the size of a batch read from a file, give or take. */
const LEAVER_BATCH = 1024;

/**
 * The most users --disable-missing may disable: `N`, `P%` of the remembered users, or by default
 * 10 % or 100, whichever is larger (a file that holds only some of the users trips it).
 */
export function disableLimit(maxDisable: string | undefined, remembered: number): { limit: number; why: string } {
  if (maxDisable === undefined) return { limit: Math.max(Math.ceil(remembered / 10), 100), why: 'the default: 10 % of them, or 100, whichever is larger' };
  const text = maxDisable.trim();
  const value = parseCountOrPercent(text);
  if (value !== undefined && 'count' in value) return { limit: value.count, why: `--max-disable ${text}` };
  if (value !== undefined) return { limit: Math.floor((value.percent * remembered) / 100), why: `--max-disable ${text} of them` };
  throw new UsageError(`--max-disable must be a number of users (e.g. 50) or a percentage of the remembered users (e.g. 2%), got ${JSON.stringify(maxDisable)}`);
}

/**
 * The sync memory's part in `user sync` (docs/sync.md): feeds it with every acknowledged user,
 * leaves out unchanged users with --changed-only, adds the leavers with --disable-missing, and
 * sends a user it disabled who is back in the file with DisableLogin false.
 */
export class UserSyncMemory extends SentMemory<UserRequest> {
  private readonly disables = new WeakSet<UserRequest>();
  /** A leaver back, sent with the DisableLogin false examctl added: the request as the file gives it. */
  private readonly asTheFileGives = new WeakMap<UserRequest, UserRequest>();
  private leavers: [string, MemoryEntry][] = [];

  constructor(
    flags: UserSyncFlags,
    deps: CommandDeps,
    target: TargetOf,
    /** The ids of the file, read once before the run (--disable-missing). */
    private readonly fileIds: () => AsyncIterable<string | null>,
  ) {
    super('users', flags, deps, target, (user) => user);
  }

  /** Opens the memory and checks --max-disable, before anything is sent. */
  async prepare(): Promise<void> {
    const { changedOnly = false, disableMissing = false } = this.flags as UserSyncFlags;
    const memory = await this.open(changedOnly || disableMissing);
    try {
      if (disableMissing) await this.findLeavers(memory);
    } catch (error) {
      await this.close().catch(() => undefined);
      throw error;
    }
  }

  private async findLeavers(memory: SyncMemory): Promise<void> {
    const inFile = new Set<string>();
    for await (const id of this.fileIds()) if (id !== null) inFile.add(id);
    // A resume takes the same leavers again: those this very run disabled count as not yet disabled.
    const thisRun = this.deps.resume?.record.id;
    this.leavers = [...memory.entries]
      .filter(([id, entry]) => !inFile.has(id) && (entry.disabled !== true || entry.run === thisRun))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const remembered = memory.remembered + this.leavers.filter(([, entry]) => entry.disabled === true).length;
    const { limit, why } = disableLimit((this.flags as UserSyncFlags).maxDisable, remembered);
    if (this.leavers.length > limit) {
      const n = formatCount;
      throw new UsageError(
        `--disable-missing would disable ${n(this.leavers.length)} of the ${n(remembered)} users examctl synced to ${describeTarget(memory.target)}, ` +
          `more than ${n(limit)} (${why}); nothing was sent. Is the file the whole population? Check the export first; only if it is, raise --max-disable (docs/sync.md).`,
      );
    }
  }

  /** A unit of the file: DisableLogin false for a leaver who is back, and left out when unchanged (--changed-only). */
  override unit(unit: Unit<UserRequest>): Unit<UserRequest> {
    const entry = unit.prepared.ok && unit.id !== null ? this.memory?.get(unit.id) : undefined;
    if (entry?.disabled === true && unit.prepared.ok && unit.prepared.value.DisableLogin === undefined) {
      const enabled: UserRequest = { ...unit.prepared.value, DisableLogin: false };
      this.asTheFileGives.set(enabled, unit.prepared.value);
      return { ...unit, prepared: { ok: true, value: enabled } };
    }
    return super.unit(unit);
  }

  /** The leavers as units of their own, after the file's (--disable-missing). */
  *leaverBatches(): Iterable<readonly Unit<UserRequest>[]> {
    for (let from = 0; from < this.leavers.length; from += LEAVER_BATCH) {
      yield this.leavers.slice(from, from + LEAVER_BATCH).map(([id, entry]) => {
        const payload: UserRequest = { ExternalId: id, FirstName: entry.firstName ?? '', LastName: entry.lastName ?? '', DisableLogin: true } as UserRequest;
        this.disables.add(payload);
        return { source: { file: `<synced by run ${entry.run}>`, line: 0 }, id, prepared: { ok: true as const, value: payload }, plannedAction: 'disabled' as const };
      });
    }
  }

  /** The answer to a leaver's request says `disabled`. */
  outcome(payload: UserRequest, outcome: Outcome): Outcome {
    return this.disables.has(payload) && outcome.status === 'ok' ? { ...outcome, action: 'disabled' } : outcome;
  }

  /**
   * A re-enabled user is remembered by the request as the file gives it (without the added
   * DisableLogin false): the next night the file gives the same, so the user is unchanged.
   */
  protected override digestOf(payload: UserRequest): string {
    return super.digestOf(this.asTheFileGives.get(payload) ?? payload);
  }

  /** Users: also what a disable request needs without the file, and whether this was one. */
  rememberUser(unit: Unit<UserRequest>, payload: UserRequest, run: string, kept: boolean): void {
    this.acknowledged(unit, payload, run, kept, {
      ...(payload.FirstName === undefined ? {} : { firstName: payload.FirstName }),
      ...(payload.LastName === undefined ? {} : { lastName: payload.LastName }),
      ...(this.disables.has(payload) ? { disabled: true } : {}),
    });
  }
}
