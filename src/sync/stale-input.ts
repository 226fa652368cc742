/** A --disable-missing run disabling users newer than every creator of the file's users: refused (no clock decides). */
import { UsageError } from '../system/errors.js';
import { counted, namedFirst } from '../formats/number-format.js';
import { terminalLine } from '../formats/terminal-text.js';
import type { MemoryEntry } from './memory-lines.js';
import type { RunFile } from './replayed-file.js';

/** How many ids and runs the refusal names. */
const NAMED = 5;

/**
 * The run that created an acknowledged user: kept, or this run's for a joiner; a retry's (`retried`: its report row's
 * run) is that run's, marked: no sign of how new a file is.
 */
export function joinedOf(
  before: MemoryEntry | undefined,
  run: string,
  retried?: string,
): Pick<MemoryEntry, 'joined' | 'joinedByRetry'> {
  if (before?.joined !== undefined)
    return { joined: before.joined, ...(before.joinedByRetry === true ? { joinedByRetry: true } : {}) };
  if (before !== undefined && before.tentative !== true) return {};
  if (retried === undefined) return { joined: run };
  return retried === '' ? {} : { joined: retried, joinedByRetry: true };
}

/** One pass over a population's remembered users (`see`), then the leavers judged (`refuse`). */
export class StaleInput {
  /** The newest run that created a user the file holds (run ids sort by start). */
  private newestHeld = '';

  private readonly nights: ReadonlySet<string>;
  private readonly oldestNight: string;

  /** `files`: the population's last runs that recorded their file (a retry records none). */
  constructor(files: readonly RunFile[] | undefined) {
    this.nights = new Set(files?.map(([run]) => run));
    this.oldestNight = files?.[0]?.[0] ?? '\uffff';
  }

  /**
   * Whether a user created by run `joined` is newer than every user the file holds so far; a run the
   * record knows recorded no file (a retry) is neither judged nor a sign of how new the file is.
   */
  private newer(joined: string | undefined): joined is string {
    return joined !== undefined && joined > this.newestHeld && (joined <= this.oldestNight || this.nights.has(joined));
  }

  see(entry: MemoryEntry, missing: boolean): void {
    if (!missing && entry.joinedByRetry !== true && this.newer(entry.joined)) this.newestHeld = entry.joined;
  }

  /**
   * Refuses leavers of `population` created by runs later than any user the file holds, unless
   * `allowed`. A file holding no user whose creation is known (an older memory, an empty file) is not judged.
   */
  refuse(leavers: readonly (readonly [string, MemoryEntry])[], allowed: boolean, population: string | undefined): void {
    if (allowed || this.newestHeld === '') return;
    const recent = leavers.filter(([, entry]) => entry.disabled !== true && this.newer(entry.joined));
    if (recent.length === 0) return;
    const runs = [...new Set(recent.map(([, entry]) => entry.joined!))].sort();
    const ids = recent.map(([id]) => id);
    throw new UsageError(
      terminalLine(
        `--disable-missing would disable ${counted(recent.length, 'user')} examctl created${population === undefined ? '' : ` as --population ${population}`} ` +
          `in ${runs.length === 1 ? 'a run' : 'runs'} later than every user this file holds (${namedFirst(ids, NAMED)}; created by ${runs.length === 1 ? 'run' : 'runs'} ${namedFirst(runs, NAMED)}): ` +
          `is the file an older export run again? Nothing was sent. If ${recent.length === 1 ? 'it' : 'they'} really left, run again with --allow-disable-recent (docs/sync.md, "Stale input")`,
      ),
      { code: 'E2502' },
    );
  }
}
