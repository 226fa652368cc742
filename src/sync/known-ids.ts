/** Whether the target has a record's id already (docs/sync.md, "Created or updated", "New and existing"). */
import { UsageError } from '../system/errors.js';
import { terminalLine } from '../formats/terminal-text.js';
import { describeTarget } from '../report/report-writers.js';
import type { OpenDirectory } from '../port/local-directory.js';
import type { CommandDeps } from '../context/command-deps.js';
import type { ResolvedTarget } from '../context/resolved-target.js';
import { openTargetDirectory } from '../context/target.js';
import type { MemoryEntry } from './memory-lines.js';
import type { SyncMemory } from './sync-memory.js';

/** Which records a run sends: all, only those the target does not have, or only those it has. */
export type OnlyWhich = 'new' | 'existing';

/** --only-new and --only-existing as one value (both: refused by their table, src/cli/commands/sync-options.ts). */
export function onlyWhichOf(onlyNew: boolean | undefined, onlyExisting: boolean | undefined): OnlyWhich | undefined {
  return onlyNew === true ? 'new' : onlyExisting === true ? 'existing' : undefined;
}

/** The flag's name, for messages. */
export function onlyFlag(only: OnlyWhich): string {
  return only === 'new' ? '--only-new' : '--only-existing';
}

/** A remote ok answer's action, as the memory told it before (`heldAny`: it knows this population). */
export function rememberedAction(
  entry: Pick<MemoryEntry, 'tentative'> | undefined,
  heldAny: boolean,
): 'created' | 'updated' | undefined {
  if (entry !== undefined) return entry.tentative === true ? undefined : 'updated';
  return heldAny ? 'created' : undefined;
}

/** --only-new / --only-existing: whether each id is on the target, from the store (local) or the memory (remote). */
export class KnownIds {
  private constructor(
    private readonly has: (id: string) => boolean,
    /** The store, when it is what decides (the local target); null: the memory. */
    private readonly directory: OpenDirectory | null,
  ) {}

  /** `found`: whether the memory held anyone of this run's population (without, where no store tells: exit 2). */
  static async open(
    what: 'users' | 'schedules',
    only: OnlyWhich,
    target: ResolvedTarget,
    memory: SyncMemory,
    found: boolean,
    deps: CommandDeps,
  ): Promise<KnownIds> {
    if (target.kind === 'local') {
      // The store as it is before this run (its own requests never meet an id twice: one id per file).
      const directory = await (deps.openDirectory ?? openTargetDirectory)(target, deps);
      if (directory !== null) {
        // invigilatorsOf is null only for a schedule the store does not hold: a lookup that builds nothing.
        const has =
          what === 'users'
            ? (id: string) => directory.userOf(id) !== null
            : (id: string) => directory.invigilatorsOf(id) !== null;
        return new KnownIds(has, directory);
      }
    }
    if (!found) {
      throw new UsageError(
        terminalLine(
          `${onlyFlag(only)}: no sync memory for ${describeTarget(target.report)} of this run's population (looked in ${memory.file}), so examctl cannot tell new ${what} from existing ones; nothing was sent. ` +
            `Restore the memory (docs/ci.md, "A nightly sync"), or run once without ${onlyFlag(only)} to start it (docs/sync.md, "New and existing")`,
        ),
        { code: 'E2501' },
      );
    }
    // An entry whose only request was cut short (tentative) may not exist: as far as examctl knows, new.
    return new KnownIds((id) => rememberedAction(memory.entries.get(id), true) === 'updated', null);
  }

  /**
   * A record `only` leaves out: ok, action `left`, with why (docs/sync.md, "New and existing"),
   * or undefined when it is sent. An id examctl names itself (no ScheduleExtId) is new.
   */
  leftOut(only: OnlyWhich, id: string | null): { note: string; action: 'left' } | undefined {
    const holds = id !== null && this.has(id);
    if (holds !== (only === 'new')) return undefined;
    const where =
      this.directory !== null
        ? 'in the store'
        : `as the sync memory knows (${holds ? 'examctl synced it there, or the target refused it as taken' : 'examctl never synced it there'})`;
    return {
      note: `${holds ? 'on the target already' : 'not on the target'}, ${where}: not sent (${onlyFlag(only)})`,
      action: 'left',
    };
  }

  async close(): Promise<void> {
    await this.directory?.close();
  }
}
